//! `&mut` parameters in reverse mode. `f_vjp` takes each `&mut` parameter `y` as written and,
//! after the parameters, a `&mut` cotangent `d_y` of the same type: on entry it holds the
//! cotangent of `y`'s final contents, on return the adjoint of its initial contents. A
//! function that returns nothing takes no result cotangent and returns the other parameters'
//! adjoints alone.
//!
//! Each function is seen as a map from its inputs and the initial contents of its `&mut`
//! parameters to its result and their final contents. At several random points: the values
//! bit for bit against the function itself, the reverse mode against the forward mode by the
//! dot-product identity (`<J t, w> = <t, J^T w>`), and against central differences of the
//! function along `t`.

// The functions spell out the usual ways of writing them on purpose.
#![allow(clippy::needless_range_loop)]

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{random_vector, Rng};

/// Values at a point and their tangents (or the inputs' adjoints).
type Pair = (Vec<f64>, Vec<f64>);

/// One case: `plain(x)` gives the outputs (result, then final contents), `jvp(x, t)` the
/// outputs and their tangent, `vjp(x, w)` the outputs and the adjoint of the inputs.
struct Case<'a> {
    inputs: usize,
    plain: &'a dyn Fn(&[f64]) -> Vec<f64>,
    jvp: &'a dyn Fn(&[f64], &[f64]) -> Pair,
    vjp: &'a dyn Fn(&[f64], &[f64]) -> Pair,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn check(seed: u64, case: Case) {
    let mut rng = Rng::new(seed);
    for _ in 0..5 {
        let x: Vec<f64> = (0..case.inputs).map(|_| rng.uniform(-1.5, 1.5)).collect();
        let t = random_vector(&mut rng, case.inputs);
        let expected = (case.plain)(&x);
        let w = random_vector(&mut rng, expected.len());
        let (forward_value, tangent) = (case.jvp)(&x, &t);
        let (reverse_value, adjoint) = (case.vjp)(&x, &w);
        for (value, e) in forward_value
            .iter()
            .chain(&reverse_value)
            .zip(expected.iter().cycle())
        {
            assert_eq!(value.to_bits(), e.to_bits(), "value at {x:?}");
        }
        let (forward, reverse) = (dot(&tangent, &w), dot(&t, &adjoint));
        assert_relative_eq!(forward, reverse, max_relative = 1e-12, epsilon = 1e-12);
        let h = 1e-6;
        let shifted = |sign: f64| -> Vec<f64> {
            let moved: Vec<f64> = x.iter().zip(&t).map(|(x, t)| x + sign * h * t).collect();
            (case.plain)(&moved)
        };
        let central = (dot(&shifted(1.0), &w) - dot(&shifted(-1.0), &w)) / (2.0 * h);
        assert_relative_eq!(reverse, central, max_relative = 1e-6, epsilon = 1e-7);
    }
}

/// An ODE right-hand side writing its output parameter (Lorenz).
#[forward]
#[reverse]
fn lorenz(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * (y[1] - y[0]);
    dydt[1] = y[0] * (p[1] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - p[2] * y[2];
}

#[test]
fn an_output_parameter_written_whole() {
    let plain = |x: &[f64]| {
        let mut dydt = x[6..9].to_vec();
        lorenz(&x[..3], &x[3..6], &mut dydt);
        dydt
    };
    let jvp = |x: &[f64], t: &[f64]| {
        let (mut dydt, mut d_dydt) = (x[6..9].to_vec(), t[6..9].to_vec());
        lorenz_jvp(&x[..3], &x[3..6], &mut dydt, &t[..3], &t[3..6], &mut d_dydt);
        (dydt, d_dydt)
    };
    let vjp = |x: &[f64], w: &[f64]| {
        let (mut dydt, mut d_dydt) = (x[6..9].to_vec(), w.to_vec());
        let (dy, dp) = lorenz_vjp(&x[..3], &x[3..6], &mut dydt, &mut d_dydt);
        // Every element is overwritten: the initial contents have no effect.
        assert_eq!(d_dydt, [0.0; 3]);
        (dydt, [dy, dp, d_dydt].concat())
    };
    check(
        1,
        Case {
            inputs: 9,
            plain: &plain,
            jvp: &jvp,
            vjp: &vjp,
        },
    );
}

/// Read, written and read again: a scalar accumulator and a `Vec` updated in place, beside a
/// result.
#[allow(clippy::ptr_arg)] // `&mut Vec` is one of the parameter types under test.
#[forward]
#[reverse]
fn accumulate(x: &[f64], total: &mut f64, out: &mut Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        *total += x[i] * x[i];
        out[i] = out[i] * x[i] + *total;
        s += out[i].sin();
    }
    s * *total
}

#[test]
fn a_scalar_and_a_vec_updated_in_place_beside_a_result() {
    let plain = |x: &[f64]| {
        let (mut total, mut out) = (x[3], x[4..7].to_vec());
        let value = accumulate(&x[..3], &mut total, &mut out);
        [vec![value, total], out].concat()
    };
    let jvp = |x: &[f64], t: &[f64]| {
        let (mut total, mut out) = (x[3], x[4..7].to_vec());
        let (mut d_total, mut d_out) = (t[3], t[4..7].to_vec());
        let (value, d_value) = accumulate_jvp(
            &x[..3],
            &mut total,
            &mut out,
            &t[..3],
            &mut d_total,
            &mut d_out,
        );
        (
            [vec![value, total], out].concat(),
            [vec![d_value, d_total], d_out].concat(),
        )
    };
    let vjp = |x: &[f64], w: &[f64]| {
        let (mut total, mut out) = (x[3], x[4..7].to_vec());
        let (mut d_total, mut d_out) = (w[1], w[2..5].to_vec());
        let (value, dx) = accumulate_vjp(
            &x[..3],
            &mut total,
            &mut out,
            &mut d_total,
            &mut d_out,
            w[0],
        );
        (
            [vec![value, total], out].concat(),
            [dx, vec![d_total], d_out].concat(),
        )
    };
    check(
        2,
        Case {
            inputs: 7,
            plain: &plain,
            jvp: &jvp,
            vjp: &vjp,
        },
    );
}

/// A softmax in place, over `iter_mut`.
#[forward]
#[reverse]
fn softmax_in_place(x: &mut [f64]) {
    let mut m = f64::NEG_INFINITY;
    for i in 0..x.len() {
        m = m.max(x[i]);
    }
    let mut total = 0.0;
    for v in x.iter_mut() {
        *v = (*v - m).exp();
        total += *v;
    }
    for v in x.iter_mut() {
        *v /= total;
    }
}

#[test]
fn a_softmax_in_place_over_iter_mut() {
    let plain = |x: &[f64]| {
        let mut x = x.to_vec();
        softmax_in_place(&mut x);
        x
    };
    let jvp = |x: &[f64], t: &[f64]| {
        let (mut x, mut dx) = (x.to_vec(), t.to_vec());
        softmax_in_place_jvp(&mut x, &mut dx);
        (x, dx)
    };
    let vjp = |x: &[f64], w: &[f64]| {
        let (mut x, mut dx) = (x.to_vec(), w.to_vec());
        softmax_in_place_vjp(&mut x, &mut dx);
        (x, dx)
    };
    check(
        3,
        Case {
            inputs: 5,
            plain: &plain,
            jvp: &jvp,
            vjp: &vjp,
        },
    );
}

/// Explicit Euler steps of `y' = -y^2` in place: every step overwrites what the step before
/// wrote, and reads it.
#[forward]
#[reverse]
fn euler_steps(y: &mut [f64], dt: f64, n: usize) -> f64 {
    for _ in 0..n {
        for i in 0..y.len() {
            y[i] = y[i] - dt * y[i] * y[i];
        }
    }
    y.iter().sum()
}

#[test]
fn steps_that_overwrite_what_they_read() {
    let plain = |x: &[f64]| {
        let mut y = x[1..].to_vec();
        let value = euler_steps(&mut y, x[0] * 0.1, 7);
        [vec![value], y].concat()
    };
    let jvp = |x: &[f64], t: &[f64]| {
        let (mut y, mut dy) = (x[1..].to_vec(), t[1..].to_vec());
        let (value, d_value) = euler_steps_jvp(&mut y, x[0] * 0.1, 7, &mut dy, t[0] * 0.1);
        ([vec![value], y].concat(), [vec![d_value], dy].concat())
    };
    let vjp = |x: &[f64], w: &[f64]| {
        let (mut y, mut dy) = (x[1..].to_vec(), w[1..].to_vec());
        let (value, d_dt) = euler_steps_vjp(&mut y, x[0] * 0.1, 7, &mut dy, w[0]);
        ([vec![value], y].concat(), [vec![d_dt * 0.1], dy].concat())
    };
    check(
        4,
        Case {
            inputs: 4,
            plain: &plain,
            jvp: &jvp,
            vjp: &vjp,
        },
    );
}

/// Arrays behind `&mut`, a `#[no_grad]` rate and a data counter.
#[forward]
#[reverse]
fn decay(y: &[f64; 3], k: f64, #[no_grad] c: f64, dy: &mut [f64; 3], calls: &mut usize) {
    *calls += 1;
    for i in 0..3 {
        dy[i] = dy[i] * c - k * y[i] * y[i];
    }
}

#[test]
fn arrays_a_constant_and_a_data_counter() {
    let c = 0.75;
    let arrays = |x: &[f64]| -> ([f64; 3], [f64; 3]) { ([x[0], x[1], x[2]], [x[4], x[5], x[6]]) };
    let plain = |x: &[f64]| {
        let (y, mut dy) = arrays(x);
        let mut calls = 0;
        decay(&y, x[3], c, &mut dy, &mut calls);
        assert_eq!(calls, 1);
        dy.to_vec()
    };
    let jvp = |x: &[f64], t: &[f64]| {
        let ((y, mut dy), (ty, mut t_dy)) = (arrays(x), arrays(t));
        let mut calls = 0;
        decay_jvp(&y, x[3], c, &mut dy, &mut calls, &ty, t[3], &mut t_dy);
        (dy.to_vec(), t_dy.to_vec())
    };
    let vjp = |x: &[f64], w: &[f64]| {
        let (y, mut dy) = arrays(x);
        let mut w_dy = [w[0], w[1], w[2]];
        let mut calls = 0;
        let (a_y, a_k) = decay_vjp(&y, x[3], c, &mut dy, &mut calls, &mut w_dy);
        assert_eq!(calls, 1);
        (
            dy.to_vec(),
            [a_y.to_vec(), vec![a_k], w_dy.to_vec()].concat(),
        )
    };
    check(
        5,
        Case {
            inputs: 7,
            plain: &plain,
            jvp: &jvp,
            vjp: &vjp,
        },
    );
}

#[test]
fn a_cotangent_of_the_wrong_length_is_refused() {
    let result = std::panic::catch_unwind(|| {
        let mut dydt = [0.0; 3];
        let mut d_dydt = [1.0; 2];
        lorenz_vjp(&[1.0; 3], &[1.0; 3], &mut dydt, &mut d_dydt)
    });
    assert!(result.is_err());
}

/// An explicit Euler integrator in place, calling the right-hand side with a `&mut` local it
/// then reads: the call's pullback takes the cotangent of what `rhs` wrote into `k`.
#[forward]
#[reverse]
fn euler(y: &mut [f64], p: &[f64], dt: f64, steps: usize) {
    let mut k = vec![0.0; y.len()];
    for _ in 0..steps {
        lorenz(y, p, &mut k);
        for i in 0..y.len() {
            y[i] += dt * k[i];
        }
    }
}

/// A loss over the integrator's final state, from a fixed start: a caller without `&mut`
/// parameters of its own.
#[forward]
#[reverse]
fn final_state_loss(p: &[f64], dt: f64) -> f64 {
    let mut y = vec![1.0, 2.0, 3.0];
    euler(&mut y, p, dt, 20);
    y[0] + y[1] * y[2]
}

#[test]
fn an_integrator_calling_a_right_hand_side_that_writes_a_local() {
    let plain = |x: &[f64]| {
        let mut y = x[..3].to_vec();
        euler(&mut y, &x[3..6], x[6] * 0.01, 15);
        [vec![final_state_loss(&x[3..6], x[6] * 0.01)], y].concat()
    };
    let jvp = |x: &[f64], t: &[f64]| {
        let (mut y, mut dy) = (x[..3].to_vec(), t[..3].to_vec());
        euler_jvp(
            &mut y,
            &x[3..6],
            x[6] * 0.01,
            15,
            &mut dy,
            &t[3..6],
            t[6] * 0.01,
        );
        let (loss, d_loss) = final_state_loss_jvp(&x[3..6], x[6] * 0.01, &t[3..6], t[6] * 0.01);
        ([vec![loss], y].concat(), [vec![d_loss], dy].concat())
    };
    let vjp = |x: &[f64], w: &[f64]| {
        let (mut y, mut wy) = (x[..3].to_vec(), w[1..].to_vec());
        let (a_p, a_dt) = euler_vjp(&mut y, &x[3..6], x[6] * 0.01, 15, &mut wy);
        let (loss, (b_p, b_dt)) = final_state_loss_vjp(&x[3..6], x[6] * 0.01, w[0]);
        let a_p: Vec<f64> = a_p.iter().zip(&b_p).map(|(a, b)| a + b).collect();
        (
            [vec![loss], y].concat(),
            [wy, a_p, vec![(a_dt + b_dt) * 0.01]].concat(),
        )
    };
    check(
        6,
        Case {
            inputs: 7,
            plain: &plain,
            jvp: &jvp,
            vjp: &vjp,
        },
    );
}

#[forward]
#[reverse]
fn square_into(x: f64, y: &mut f64) {
    *y = *y * 0.5 + x * x;
}

/// A scalar written through `&mut` of a local and of an element, with data passed `&mut`
/// beside (a counter the callee bumps: no cotangent for it).
#[forward]
#[reverse]
fn through_scalars(x: &[f64]) -> f64 {
    let mut y = 1.0;
    let mut calls = 0;
    #[allow(clippy::useless_vec)] // A `Vec` element written through `&mut` on purpose.
    let mut out = vec![0.5; 2];
    square_into(x[0], &mut y);
    square_into(x[1] * y, &mut out[1]);
    let c = [x[0], x[1], x[2]];
    let mut dy = [0.25; 3];
    decay(&c, x[2], 0.5, &mut dy, &mut calls);
    y * out[1] + out[0] + dy[0] * dy[2] + calls as f64
}

#[test]
fn scalars_and_elements_written_through_calls_beside_data() {
    common::check_slice_function_at_random_points(
        through_scalars,
        through_scalars_jvp,
        through_scalars_vjp,
        3,
        7,
    );
}

#[forward]
#[reverse]
fn scale_in_place(x: f64, y: &mut f64) {
    *y *= x;
}

/// Locals a callee writes floats into, declared every way but with a float literal: from a
/// negated literal, a cast, an element of a local, a later assignment, a path constant, a
/// tuple field.
#[forward]
#[reverse]
fn written_locals(x: &[f64]) -> f64 {
    let mut a = -1.5;
    scale_in_place(x[0], &mut a);
    let mut b = x.len() as f64;
    scale_in_place(x[1], &mut b);
    let k = [1.5; 2];
    let mut s = 0.0;
    for i in 0..2 {
        let mut e = k[i];
        scale_in_place(x[0], &mut e);
        s += e;
    }
    let mut c;
    c = 0.5;
    scale_in_place(x[2], &mut c);
    let mut d = std::f64::consts::PI;
    scale_in_place(x[0], &mut d);
    let mut t = (1.5, 2.0);
    scale_in_place(x[1], &mut t.0);
    a + b * s + c * d + t.0 * t.1
}

#[forward]
#[reverse]
fn write_first_if_positive(x: f64, y: &mut [f64]) {
    if x > 0.0 {
        y[0] = x * y[1];
    }
}

/// An array local passed where the callee takes a slice; a tuple behind `&mut`; a callee
/// reading a loop-invariant element inside a loop.
#[forward]
#[reverse]
fn arrays_and_pairs(x: &[f64]) -> f64 {
    let mut k = [1.0, 2.0];
    write_first_if_positive(x[0], &mut k);
    let mut p = (x[1], 0.5);
    rotate_pair(x[2], &mut p);
    let mut s = 0.0;
    for i in 0..2 {
        s += product(x[0], k[i]);
    }
    k[0] * x[1] + p.0 * p.1 + s
}

#[forward]
#[reverse]
fn rotate_pair(x: f64, p: &mut (f64, f64)) {
    let t = p.0;
    p.0 = p.1 * x;
    p.1 = t + p.0;
}

#[forward]
#[reverse]
fn product(a: f64, b: f64) -> f64 {
    a * b
}

#[test]
fn locals_written_by_calls_however_declared() {
    common::check_slice_function_at_random_points(
        written_locals,
        written_locals_jvp,
        written_locals_vjp,
        3,
        8,
    );
    common::check_slice_function_at_random_points(
        arrays_and_pairs,
        arrays_and_pairs_jvp,
        arrays_and_pairs_vjp,
        3,
        9,
    );
    // A tuple behind `&mut`: final contents back, the adjoint of the initial ones out.
    let (mut p, mut d_p) = ((1.0, 2.0), (1.0, 0.5));
    let d_x = rotate_pair_vjp(0.5, &mut p, &mut d_p);
    assert_eq!((d_x, p, d_p), (3.0, (1.0, 2.0), (0.5, 0.75)));
}

/// A data type passed `&mut` (a random-number generator): the calls advance it, and the
/// derivatives are those of the function with its draws held fixed.
pub struct Lcg {
    state: u64,
}

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Lcg { state: seed }
    }

    pub fn uniform(&mut self) -> f64 {
        self.state = self
            .state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.state >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[forward]
#[reverse]
fn jittered(x: f64, rng: &mut Lcg) -> f64 {
    x * x + rng.uniform() * x
}

#[forward]
#[reverse]
fn jittered_twice(x: f64, rng: &mut Lcg) -> f64 {
    jittered(x, rng) + jittered(2.0 * x, &mut *rng)
}

#[forward]
#[reverse]
fn seeded(x: f64) -> f64 {
    let mut rng = Lcg::new(7);
    jittered(x, &mut rng) * jittered_twice(x, &mut rng)
}

#[forward]
#[reverse]
fn counted_sin(x: f64, calls: &mut usize) -> f64 {
    *calls += 1;
    x.sin()
}

#[forward]
#[reverse]
fn counted_and_written(x: f64, y: &mut [f64], calls: &mut usize) {
    *calls += 1;
    y[0] = x * y[1];
}

#[reverse]
fn counting(x: f64) -> f64 {
    let mut calls = 0usize;
    let mut y = vec![1.0, 3.0];
    counted_and_written(x, &mut y, &mut calls);
    counted_sin(x, &mut calls) * y[0] * y[1] + calls as f64
}

#[test]
fn data_passed_mutably_to_differentiated_calls() {
    for x in [0.3, 1.7] {
        let (value, gradient) = seeded_grad(x);
        assert_relative_eq!(value, seeded(x), max_relative = 1e-15);
        let (_, tangent) = seeded_jvp(x, 1.0);
        assert_relative_eq!(gradient, tangent, max_relative = 1e-12);
        let central = (seeded(x + 1e-6) - seeded(x - 1e-6)) / 2e-6;
        assert_relative_eq!(gradient, central, max_relative = 1e-6);
        // The generator was advanced by the calls as in the function itself.
        let (mut rng, mut plain) = (Lcg::new(3), Lcg::new(3));
        let (_, d_x) = jittered_twice_grad(x, &mut rng);
        let draws = [plain.uniform(), plain.uniform()];
        assert_relative_eq!(d_x, 2.0 * x + draws[0] + 8.0 * x + 2.0 * draws[1]);
        assert_eq!(rng.state, plain.state);
        let (value, d_x) = counting_grad(x);
        assert_relative_eq!(value, 9.0 * x * x.sin() + 2.0, max_relative = 1e-15);
        assert_relative_eq!(d_x, 9.0 * (x.sin() + x * x.cos()), max_relative = 1e-12);
    }
    // `_vjp` takes the data parameter as written, with no cotangent of its own.
    let (mut calls, mut y, mut d_y) = (0, vec![0.0, 2.0], vec![1.0, 0.0]);
    let d_x = counted_and_written_vjp(0.5, &mut y, &mut calls, &mut d_y);
    assert_eq!(
        (d_x, calls, y, d_y),
        (2.0, 1, vec![1.0, 2.0], vec![0.0, 0.5])
    );
}

/// Reads what its `&mut` parameter holds and writes it: the result depends on the old contents.
#[forward]
#[reverse]
fn square_first_into_second(k: &mut [f64]) -> f64 {
    let r = k[0] * k[0];
    k[1] = r;
    r
}

/// The place passed `&mut` is not read after the call: its old contents still carry the
/// derivative into the call's result.
#[forward]
#[reverse]
fn through_a_place_not_read_again(x: f64) -> f64 {
    let mut k = [x, 0.0];
    let y = square_first_into_second(&mut k);
    3.0 * y
}

#[test]
fn old_contents_of_a_place_written_by_a_call() {
    let (value, gradient) = through_a_place_not_read_again_grad(1.5);
    assert_relative_eq!(value, 6.75);
    assert_relative_eq!(gradient, 9.0);
}

#[derive(Clone, Debug, PartialEq, ad_runtime::Differentiable)]
pub struct Accumulator {
    pub s: f64,
    pub w: [f64; 2],
    pub history: Vec<f64>,
}

/// A value of a derived type behind `&mut`, marked `#[grad]`: in and out, as `&mut self`.
#[forward]
#[reverse]
pub fn feed(#[grad] acc: &mut Accumulator, x: f64) -> f64 {
    acc.s = acc.s * x + acc.w[0];
    acc.w[1] += x * acc.s;
    acc.history[0] *= x;
    acc.s
}

#[forward]
#[reverse]
pub fn feeding(x: f64, y: f64) -> f64 {
    let mut a = Accumulator {
        s: x,
        w: [y, 0.5],
        history: vec![y, x],
    };
    let r = feed(&mut a, y);
    feed(&mut a, x) + r * a.w[1] + a.history[0]
}

#[test]
fn derived_values_behind_mut() {
    for (x, y) in [(0.7, -0.4), (1.3, 0.2)] {
        let (value, (d_x, d_y)) = feeding_grad(x, y);
        assert_eq!(value, feeding(x, y));
        assert_relative_eq!(d_x, feeding_jvp(x, y, 1.0, 0.0).1, max_relative = 1e-12);
        assert_relative_eq!(d_y, feeding_jvp(x, y, 0.0, 1.0).1, max_relative = 1e-12);
        let central = (feeding(x + 1e-6, y) - feeding(x - 1e-6, y)) / 2e-6;
        assert_relative_eq!(d_x, central, max_relative = 1e-6);
    }
    // `feed_vjp` takes the cotangent of the final value as a `&mut Accumulator` and leaves
    // there the adjoint of the initial one.
    let mut a = Accumulator {
        s: 0.5,
        w: [1.0, 2.0],
        history: vec![3.0, 4.0],
    };
    let mut d_a = Accumulator {
        s: 1.0,
        w: [0.0, 0.0],
        history: vec![1.0, 0.0],
    };
    let (value, d_x) = feed_vjp(&mut a, 2.0, &mut d_a, 0.0);
    assert_eq!(
        (value, a.s, a.w, a.history.clone()),
        (2.0, 2.0, [1.0, 6.0], vec![6.0, 4.0])
    );
    assert_eq!(
        (d_a.s, d_a.w, d_a.history),
        (2.0, [1.0, 0.0], vec![2.0, 0.0])
    );
    assert_eq!(d_x, 0.5 + 3.0);
}

/// A `&mut Vec` parameter grown and shrunk in place (`push`, `insert`, `remove`, `swap`,
/// `resize`, `pop`): `f_vjp` takes the cotangent of its final contents (of the final length)
/// and leaves the adjoint of its initial contents (of the initial length).
#[forward]
#[reverse]
fn grown_in_place(v: &mut Vec<f64>, x: f64) {
    v.push(x * 2.0);
    v[0] += x * v[1];
    v.insert(1, x.sin());
    let removed = v.remove(2);
    v.push(removed * removed);
    v.swap(0, 1);
    v.resize(6, x);
    let popped = v.pop().unwrap();
    v[2] *= popped;
}

/// A caller lends its local to it, then reads what it grew.
#[forward]
#[reverse]
fn reads_what_was_grown(a: &[f64]) -> f64 {
    let mut v = a.to_vec();
    grown_in_place(&mut v, a[0]);
    v.iter()
        .enumerate()
        .map(|(i, e)| e * (i as f64 + 1.0))
        .sum::<f64>()
}

#[test]
fn a_mut_vec_parameter_that_changes_length() {
    let mut rng = common::Rng::new(71);
    for _ in 0..5 {
        let initial = common::random_vector(&mut rng, 2);
        let x = rng.uniform(-1.0, 1.0);
        // Forward: the tangent of the final contents along (dv, dx).
        let (dv, dx) = (common::random_vector(&mut rng, 2), rng.uniform(-1.0, 1.0));
        let mut v = initial.clone();
        let mut tangent = dv.clone();
        grown_in_place_jvp(&mut v, x, &mut tangent, dx);
        assert_eq!(v.len(), 5);
        assert_eq!(tangent.len(), 5);
        // Reverse: the cotangent of the final contents in, the adjoint of the initial out.
        let w = common::random_vector(&mut rng, 5);
        let mut grown = initial.clone();
        let mut adjoint = w.clone();
        let adjoint_x = grown_in_place_vjp(&mut grown, x, &mut adjoint);
        assert_eq!(grown, v);
        assert_eq!(adjoint.len(), 2);
        let jt: f64 = tangent.iter().zip(&w).map(|(a, b)| a * b).sum();
        let jtw = adjoint.iter().zip(&dv).map(|(a, b)| a * b).sum::<f64>() + adjoint_x * dx;
        assert_relative_eq!(jt, jtw, epsilon = 1e-12, max_relative = 1e-12);
        // Central differences of <final contents, w> along (dv, dx).
        let along = |h: f64| {
            let mut moved: Vec<f64> = initial.iter().zip(&dv).map(|(a, d)| a + h * d).collect();
            grown_in_place(&mut moved, x + h * dx);
            moved.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>()
        };
        assert_relative_eq!(
            jt,
            common::central_difference(along, 0.0, 1e-5),
            epsilon = 1e-7,
            max_relative = 1e-6
        );
    }
    common::check_slice_function_at_random_points(
        reads_what_was_grown,
        reads_what_was_grown_jvp,
        reads_what_was_grown_vjp,
        3,
        72,
    );
}
