//! ADBench GMM: the objective and its gradient by `#[reverse]` against the suite's reference
//! outputs (its hand-written "Manual" derivatives) under ADBench's measure
//! |x - y| / max(1, |x| + |y|) <= 1e-8, and `#[forward]` giving the same Jacobian column by
//! column.

use ad_bench::adbench::gmm::{gmm_objective_jvp, Gmm};
use ad_bench::adbench::{self, data_dir, read};

fn instance(name: &str) -> (Gmm, f64, Vec<f64>) {
    let dir = data_dir();
    let gmm = Gmm::read(&dir.join(format!("gmm/{name}.txt"))).expect("the GMM input file");
    let short = name.trim_start_matches("1k/").replace("gmm_", "");
    let prefix = if name == "test" {
        "gmm_test".to_string()
    } else {
        format!("gmm_1k_{short}")
    };
    let value = read::numbers(&dir.join(format!("reference_outputs/{prefix}_F_Manual.txt")))
        .expect("the reference objective")[0];
    let gradient = read::numbers(&dir.join(format!("reference_outputs/{prefix}_J_Manual.txt")))
        .expect("the reference gradient");
    (gmm, value, gradient)
}

fn assert_agrees(name: &str, what: &str, ours: f64, reference: f64) {
    adbench::assert_agrees(&format!("{name} {what}"), ours, reference);
}

fn check_reverse(name: &str) {
    let (gmm, reference_value, reference_gradient) = instance(name);
    // Both formulations: exponentials in the point loop, and once per component as ADBench's.
    type Objective = fn(&Gmm) -> f64;
    type Gradient = fn(&Gmm) -> (f64, Vec<f64>);
    let formulations: [(&str, Objective, Gradient); 2] = [
        ("", Gmm::objective, Gmm::gradient),
        (
            " (precomputed)",
            Gmm::objective_precomputed,
            Gmm::gradient_precomputed,
        ),
    ];
    for (formulation, objective, gradient) in formulations {
        let label = format!("{name}{formulation}");
        assert_agrees(&label, "objective", objective(&gmm), reference_value);
        let (value, gradient) = gradient(&gmm);
        assert_eq!(value.to_bits(), objective(&gmm).to_bits());
        assert_eq!(gradient.len(), reference_gradient.len());
        for (i, (ours, reference)) in gradient.iter().zip(&reference_gradient).enumerate() {
            assert_agrees(&label, &format!("gradient[{i}]"), *ours, *reference);
        }
    }
}

/// Forward mode, one column at a time, for the given parameter indices.
fn check_forward_columns(name: &str, every: usize) {
    let (gmm, _, reference_gradient) = instance(name);
    let (na, nm) = (gmm.alphas.len(), gmm.means.len());
    let total = reference_gradient.len();
    let columns = (0..total).step_by(every).chain([total - 1]);
    for column in columns {
        let mut tangent = vec![0.0; total];
        tangent[column] = 1.0;
        let (_, along) = gmm_objective_jvp(
            &gmm.alphas,
            &gmm.means,
            &gmm.icf,
            &gmm.x,
            gmm.d,
            gmm.k,
            gmm.n,
            gmm.gamma,
            gmm.m,
            gmm.constant(),
            &tangent[..na],
            &tangent[na..na + nm],
            &tangent[na + nm..],
        );
        assert_agrees(
            name,
            &format!("forward column {column}"),
            along,
            reference_gradient[column],
        );
    }
}

#[test]
fn gmm_test_instance() {
    check_reverse("test");
    check_forward_columns("test", 1);
}

#[test]
fn gmm_1k_d2_k5() {
    check_reverse("1k/gmm_d2_K5");
    check_forward_columns("1k/gmm_d2_K5", 1);
}

#[test]
fn gmm_1k_d10_k25() {
    check_reverse("1k/gmm_d10_K25");
    // 1650 columns: every 37th, and the last.
    check_forward_columns("1k/gmm_d10_K25", 37);
}
