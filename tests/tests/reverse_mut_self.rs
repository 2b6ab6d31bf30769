//! `&mut self` methods in reverse mode: `f_vjp` takes the cotangent of the final state of
//! `self` as a `&mut Self` after the parameters and leaves there the adjoint of the initial
//! state; callers lend their variables to such methods (and to `&self` ones) as Rust does.

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use common::Rng;

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Oscillator {
    pub x: f64,
    pub v: f64,
}

impl Oscillator {
    /// Advances the state and returns the energy before the step.
    #[forward]
    #[reverse]
    pub fn advance(&mut self, dt: f64, k: f64) -> f64 {
        let energy = 0.5 * (self.v * self.v + k * self.x * self.x);
        self.v -= dt * k * self.x;
        self.x += dt * self.v;
        energy
    }

    /// A `&mut self` method calling another on `self`.
    #[forward]
    #[reverse]
    pub fn advance_twice(&mut self, dt: f64, k: f64) {
        self.advance(dt, k);
        self.advance(0.5 * dt, k);
    }

    /// A `&self` method, called on a variable below.
    #[forward]
    #[reverse]
    pub fn amplitude(&self, k: f64) -> f64 {
        (self.x * self.x + self.v * self.v / k).sqrt()
    }
}

/// A driver: builds the state, advances it in a loop through both methods, reads it.
#[forward]
#[reverse]
pub fn simulate(x0: f64, v0: f64, k: f64, steps: usize) -> f64 {
    let mut state = Oscillator { x: x0, v: v0 };
    let mut dissipated = 0.0;
    for _ in 0..steps {
        dissipated += state.advance(0.05, k);
        state.advance_twice(0.01, k);
    }
    state.amplitude(k) + 0.01 * dissipated + state.x
}

fn simulate_at(x: &[f64]) -> f64 {
    simulate(x[0], x[1], x[2], 20)
}

#[test]
fn a_driver_of_mut_self_methods_in_both_modes() {
    let mut rng = Rng::new(11);
    for _ in 0..4 {
        let x = [
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(1.0, 3.0),
        ];
        let (value, (a, b, c)) = simulate_grad(x[0], x[1], x[2], 20);
        assert_relative_eq!(value, simulate_at(&x), max_relative = 1e-14);
        let gradient = [a, b, c];
        for i in 0..3 {
            let mut e = [0.0; 3];
            e[i] = 1.0;
            let (_, tangent) = simulate_jvp(x[0], x[1], x[2], 20, e[0], e[1], e[2]);
            assert_relative_eq!(gradient[i], tangent, max_relative = 1e-11, epsilon = 1e-13);
            let h = 1e-6;
            let moved = |s: f64| {
                let mut y = x;
                y[i] += s;
                simulate_at(&y)
            };
            let central = (moved(h) - moved(-h)) / (2.0 * h);
            assert_relative_eq!(gradient[i], central, max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}

#[test]
fn vjp_of_a_mut_self_method() {
    let (x, v, dt, k) = (0.4, -0.3, 0.1, 2.0);
    let mut state = Oscillator { x, v };
    // Cotangents of the final state and of the result.
    let mut d_state = Oscillator { x: 0.7, v: -0.2 };
    let (energy, (d_dt, d_k)) = state.advance_vjp(dt, k, &mut d_state, 1.5);
    // The state moved as by the method itself.
    let mut plain = Oscillator { x, v };
    assert_eq!(plain.advance(dt, k), energy);
    assert_eq!(state, plain);
    // By hand: v1 = v - dt k x, x1 = x + dt v1, e = (v^2 + k x^2) / 2.
    let (wx, wv, we) = (0.7, -0.2, 1.5);
    let v1 = v - dt * k * x;
    let a_v1 = wv + wx * dt;
    assert_relative_eq!(
        d_state.x,
        wx + a_v1 * (-dt * k) + we * k * x,
        max_relative = 1e-14
    );
    assert_relative_eq!(d_state.v, a_v1 + we * v, max_relative = 1e-14);
    assert_relative_eq!(d_dt, wx * v1 + a_v1 * (-k * x), max_relative = 1e-14);
    assert_relative_eq!(
        d_k,
        a_v1 * (-dt * x) + we * 0.5 * x * x,
        max_relative = 1e-14
    );
    // A method returning nothing: the adjoints alone.
    let mut state = Oscillator { x, v };
    let mut d_state = Oscillator { x: 1.0, v: 0.0 };
    let (d_dt, _) = state.advance_twice_vjp(dt, k, &mut d_state);
    let mut tangent_state = Oscillator { x: 0.0, v: 0.0 };
    let mut forward_state = Oscillator { x, v };
    forward_state.advance_twice_jvp(dt, k, &mut tangent_state, 1.0, 0.0);
    assert_relative_eq!(d_dt, tangent_state.x, max_relative = 1e-14);
}

/// A receiver with a `Vec` field: its shadow grows only as far as the code reaches it, so the
/// receiver's cotangent and adjoint are laid out in a zero of its shape at the call.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Poly {
    pub c: Vec<f64>,
    pub s: f64,
}

impl Poly {
    #[forward]
    #[reverse]
    pub fn peek(&self) -> f64 {
        self.c[0] * self.s + self.c[1]
    }

    #[forward]
    #[reverse]
    pub fn bump_s(&mut self, x: f64) -> f64 {
        self.s = self.s * x + self.c[0];
        self.s
    }

    /// A method named like `Vec::push`: the type's own.
    #[forward]
    #[reverse]
    pub fn push(&mut self, x: f64) -> f64 {
        self.s = 0.5 * self.s + x * self.c[1];
        self.s
    }
}

#[forward]
#[reverse]
pub fn peek_of_a_variable(x: f64, y: f64) -> f64 {
    let mut p = Poly {
        c: vec![x, y],
        s: x * y,
    };
    p.s += y;
    p.peek()
}

#[forward]
#[reverse]
pub fn step_then_read(x: f64, y: f64) -> f64 {
    let mut p = Poly {
        c: vec![x, y],
        s: x * y,
    };
    p.bump_s(y) + p.c[1]
}

#[forward]
#[reverse]
pub fn step_not_read_again(x: f64, y: f64) -> f64 {
    let mut p = Poly {
        c: vec![x, y],
        s: x * y,
    };
    p.bump_s(y)
}

#[forward]
#[reverse]
pub fn pushed_as_a_statement(x: f64, y: f64) -> f64 {
    let mut p = Poly {
        c: vec![x, y],
        s: x,
    };
    p.push(y);
    p.push(x);
    p.s * p.peek()
}

/// The argument reads the receiver (Rust's two-phase borrows allow it).
#[forward]
#[reverse]
pub fn argument_reads_the_receiver(x: f64, y: f64) -> f64 {
    let mut p = Poly {
        c: vec![x, y],
        s: y,
    };
    let r = p.bump_s(p.peek());
    r + p.s
}

/// A function of two floats, its `_jvp` and its `_grad`.
type TwoFloats = (
    fn(f64, f64) -> f64,
    fn(f64, f64, f64, f64) -> (f64, f64),
    fn(f64, f64) -> (f64, (f64, f64)),
);

#[test]
fn receivers_with_vec_fields_and_methods_named_like_vec_methods() {
    let functions: [TwoFloats; 5] = [
        (
            peek_of_a_variable,
            peek_of_a_variable_jvp,
            peek_of_a_variable_grad,
        ),
        (step_then_read, step_then_read_jvp, step_then_read_grad),
        (
            step_not_read_again,
            step_not_read_again_jvp,
            step_not_read_again_grad,
        ),
        (
            pushed_as_a_statement,
            pushed_as_a_statement_jvp,
            pushed_as_a_statement_grad,
        ),
        (
            argument_reads_the_receiver,
            argument_reads_the_receiver_jvp,
            argument_reads_the_receiver_grad,
        ),
    ];
    for (plain, jvp, grad) in functions {
        for (x, y) in [(0.7, -0.4), (-1.3, 0.9)] {
            let (value, (d_x, d_y)) = grad(x, y);
            assert_eq!(value, plain(x, y));
            let (_, along_x) = jvp(x, y, 1.0, 0.0);
            let (_, along_y) = jvp(x, y, 0.0, 1.0);
            assert_relative_eq!(d_x, along_x, max_relative = 1e-12, epsilon = 1e-14);
            assert_relative_eq!(d_y, along_y, max_relative = 1e-12, epsilon = 1e-14);
            let h = 1e-6;
            let central = (plain(x + h, y) - plain(x - h, y)) / (2.0 * h);
            assert_relative_eq!(d_x, central, max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}
