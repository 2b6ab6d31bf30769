//! Parameters, results and locals whose types are type aliases (`type State = [f64; 3];`),
//! defined in the function's file or in another file of the package, in both modes.

mod aliases_elsewhere;
mod common;

use ad_runtime::{forward, reverse};
use aliases_elsewhere::{Grid, Pair};
use approx::assert_relative_eq;

pub type Real = f64;
/// An alias of aliases.
pub type State = [Real; 3];
pub type Series = Vec<Real>;

/// An ODE right-hand side in ode_solvers' style.
#[forward]
#[reverse]
pub fn rhs(t: Real, y: &State, k: Real, dy: &mut State) {
    dy[0] = -k * y[0] + t.sin();
    dy[1] = k * y[0] - y[1] * y[2];
    dy[2] = y[1] * y[2];
}

/// A local typed by an alias, an alias for the float type, and a result that is one.
#[forward]
#[reverse]
pub fn euler(y0: &State, k: Real, steps: usize) -> State {
    let mut y: State = *y0;
    let h: Real = 0.1;
    for step in 0..steps {
        let mut dy: State = [0.0; 3];
        rhs(step as Real * h, &y, k, &mut dy);
        for i in 0..3 {
            y[i] += h * dy[i];
        }
    }
    y
}

/// Aliases from another file of the package, one of them generic, and a `Vec` alias.
#[forward]
#[reverse]
pub fn spread(points: &[Pair], weights: &Grid<f64>, scale: Real) -> Series {
    points
        .iter()
        .zip(weights)
        .map(|(p, w)| scale * (w[0] * p[0] * p[0] + w[1] * p[1]))
        .collect()
}

#[test]
fn alias_parameters_and_results_in_both_modes() {
    let mut rng = common::Rng::new(3);
    for _ in 0..4 {
        let y0 = [
            rng.uniform(0.5, 1.5),
            rng.uniform(0.5, 1.5),
            rng.uniform(0.5, 1.5),
        ];
        let k = rng.uniform(0.1, 1.0);
        let t = [
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        ];
        let dk = rng.uniform(-1.0, 1.0);
        let w = [
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        ];
        let (value, tangent) = euler_jvp(&y0, k, 8, &t, dk);
        assert_eq!(value, euler(&y0, k, 8));
        // Central differences along (t, dk).
        let h = 1e-6;
        let moved = |s: f64| {
            let y: State = [y0[0] + s * t[0], y0[1] + s * t[1], y0[2] + s * t[2]];
            euler(&y, k + s * dk, 8)
        };
        let (plus, minus) = (moved(h), moved(-h));
        for i in 0..3 {
            assert_relative_eq!(
                tangent[i],
                (plus[i] - minus[i]) / (2.0 * h),
                max_relative = 1e-6
            );
        }
        // The dot-product identity between the modes.
        let (_, (d_y0, d_k)) = euler_vjp(&y0, k, 8, w);
        let forward: f64 = (0..3).map(|i| w[i] * tangent[i]).sum();
        let reverse: f64 = (0..3).map(|i| d_y0[i] * t[i]).sum::<f64>() + d_k * dk;
        assert_relative_eq!(forward, reverse, max_relative = 1e-12);
    }
    // `&mut` outputs of an alias type.
    let (y, mut dy, mut d_dy) = ([1.0, 2.0, 3.0], [0.0; 3], [0.0; 3]);
    rhs_jvp(0.0, &y, 0.5, &mut dy, 1.0, &[0.0; 3], 0.0, &mut d_dy);
    assert_eq!(d_dy, [1.0, 0.0, 0.0]);
    let mut w = [0.0, 1.0, 1.0];
    let (_, d_y, d_k) = rhs_vjp(0.0, &y, 0.5, &mut dy, &mut w);
    assert_eq!((d_y, d_k), ([0.5, 0.0, 0.0], 1.0));
}

#[test]
fn aliases_of_another_file() {
    let points: Vec<Pair> = vec![[1.0, 2.0], [-0.5, 3.0]];
    let weights: Grid<f64> = vec![vec![2.0, 1.0], vec![1.0, -1.0]];
    let zero: Vec<Pair> = vec![[0.0; 2]; 2];
    let zero_weights: Grid<f64> = vec![vec![0.0; 2]; 2];
    let (value, tangent) = spread_jvp(&points, &weights, 2.0, &zero, &zero_weights, 1.0);
    assert_eq!(value, vec![8.0, -5.5]);
    assert_eq!(tangent, vec![4.0, -2.75]);
    let (_, (d_points, d_weights, d_scale)) = spread_vjp(&points, &weights, 2.0, vec![1.0, 0.0]);
    assert_eq!(d_points, vec![[8.0, 2.0], [0.0, 0.0]]);
    assert_eq!(d_weights, vec![vec![2.0, 4.0], vec![0.0, 0.0]]);
    assert_eq!(d_scale, 4.0);
}

/// A type item of the body shadows the file's alias of the same name.
#[forward]
#[reverse]
pub fn shadowed_by_a_local_item(x: f64, steps: usize) -> f64 {
    type Real = i64;
    let n: Real = steps as Real - 7;
    x * x * n as f64
}

#[test]
fn names_the_file_alias_does_not_govern() {
    // `Real` is the local `i64`: `3 - 7` is `-4`, not `-4.0` of the file's `f64`.
    assert_eq!(shadowed_by_a_local_item(1.5, 3), -9.0);
    assert_eq!(shadowed_by_a_local_item_jvp(1.5, 3, 1.0).1, -12.0);
    assert_eq!(shadowed_by_a_local_item_grad(1.5, 3).1, -12.0);
}
