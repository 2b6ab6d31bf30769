// ADBench's GMM objective (ad-bench/src/adbench/gmm.rs, gmm_objective_precomputed): nested
// loops over points, components and dimensions, the shape the performance gates measure.
pub fn gmm_objective_precomputed(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    #[no_grad] x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    #[no_grad] gamma: f64,
    m: usize,
    #[no_grad] constant: f64,
) -> f64 {
    let icf_size = d * (d + 1) / 2;
    let mut sum_qs = vec![0.0; k];
    let mut q_diagonals = vec![0.0; k * d];
    for ik in 0..k {
        let mut s = 0.0;
        for j in 0..d {
            s += icf[ik * icf_size + j];
            q_diagonals[ik * d + j] = icf[ik * icf_size + j].exp();
        }
        sum_qs[ik] = s;
    }
    let mut main_term = vec![0.0; k];
    let mut centered = vec![0.0; d];
    let mut transformed = vec![0.0; d];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            for j in 0..d {
                centered[j] = x[ix * d + j] - means[ik * d + j];
            }
            for j in 0..d {
                transformed[j] = q_diagonals[ik * d + j] * centered[j];
            }
            let mut l = ik * icf_size + d;
            for i in 0..d {
                for j in (i + 1)..d {
                    transformed[j] += icf[l] * centered[i];
                    l += 1;
                }
            }
            let mut sqnorm = 0.0;
            for j in 0..d {
                sqnorm += transformed[j] * transformed[j];
            }
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm;
        }
        slse += logsumexp(&main_term);
    }
    let lse_alphas = logsumexp(alphas);
    let mut prior = 0.0;
    for ik in 0..k {
        let mut frobenius = 0.0;
        for j in 0..d {
            let q = q_diagonals[ik * d + j];
            frobenius += q * q;
        }
        for j in d..icf_size {
            let v = icf[ik * icf_size + j];
            frobenius += v * v;
        }
        prior += 0.5 * gamma * gamma * frobenius - m as f64 * sum_qs[ik];
    }
    constant + slse - n as f64 * lse_alphas + prior
}
