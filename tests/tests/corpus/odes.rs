//! ODE right-hand sides in the forms of `ode_solvers` (a `System` trait implemented by a
//! parameter struct, `type State = ..` aliases, `dy: &mut State` outputs) and `diffsol`
//! (right-hand sides `(x, p, t, y)` writing `y`), an SIR epidemic model, and integrators.

use crate::harness::{one, Case};
use ad_runtime::{forward, reverse, Differentiable};

/// ode_solvers' state type, as its examples declare it.
pub type State = [f64; 3];

/// ode_solvers' `System` trait (simplified: no generic time type).
pub trait System {
    fn system(&self, t: f64, y: &State, dy: &mut State);
}

/// The Lorenz parameters, as ode_solvers' `lorenz` example holds them.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Lorenz {
    pub sigma: f64,
    pub rho: f64,
    pub beta: f64,
}

// Form of ode_solvers' `impl System<f64, State> for Lorenz`: a trait method writing `dy`.
// The attributes go on the `impl` block (a trait `impl` holds only the trait's items): the
// generated `system_jvp` and `system_vjp` are in an inherent `impl Lorenz`.
#[forward]
#[reverse]
impl System for Lorenz {
    fn system(&self, _t: f64, y: &State, dy: &mut State) {
        dy[0] = self.sigma * (y[1] - y[0]);
        dy[1] = y[0] * (self.rho - y[2]) - y[1];
        dy[2] = y[0] * y[1] - self.beta * y[2];
    }
}

// Form of a free right-hand side with a slice output (ode_solvers' and diffsol's examples).
#[forward]
#[reverse]
pub fn van_der_pol(_t: f64, y: &[f64], mu: f64, dydt: &mut [f64]) {
    dydt[0] = y[1];
    dydt[1] = mu * (1.0 - y[0] * y[0]) * y[1] - y[0];
}

/// SIR state: susceptible, infected, recovered.
pub type Sir = [f64; 3];

// Form of an SIR epidemic model's right-hand side (ode_solvers' `sir` style, aliases).
#[forward]
#[reverse]
pub fn sir_rhs(y: &Sir, beta: f64, gamma: f64, dy: &mut Sir) {
    let n = y[0] + y[1] + y[2];
    let infection = beta * y[0] * y[1] / n;
    let recovery = gamma * y[1];
    dy[0] = -infection;
    dy[1] = infection - recovery;
    dy[2] = recovery;
}

// Form of a fixed-step RK4 driver (ode_solvers' `Rk4`) over the SIR model: the attack rate.
#[forward]
#[reverse]
pub fn sir_attack_rate(beta: f64, gamma: f64, i0: f64, days: usize) -> f64 {
    let dt = 0.5;
    let mut y: Sir = [1.0 - i0, i0, 0.0];
    for _ in 0..(2 * days) {
        let mut k1 = [0.0; 3];
        let mut k2 = [0.0; 3];
        let mut k3 = [0.0; 3];
        let mut k4 = [0.0; 3];
        sir_rhs(&y, beta, gamma, &mut k1);
        let y2 = [
            y[0] + 0.5 * dt * k1[0],
            y[1] + 0.5 * dt * k1[1],
            y[2] + 0.5 * dt * k1[2],
        ];
        sir_rhs(&y2, beta, gamma, &mut k2);
        let y3 = [
            y[0] + 0.5 * dt * k2[0],
            y[1] + 0.5 * dt * k2[1],
            y[2] + 0.5 * dt * k2[2],
        ];
        sir_rhs(&y3, beta, gamma, &mut k3);
        let y4 = [y[0] + dt * k3[0], y[1] + dt * k3[1], y[2] + dt * k3[2]];
        sir_rhs(&y4, beta, gamma, &mut k4);
        for i in 0..3 {
            y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    y[1] + y[2]
}

// Form of diffsol's Lotka-Volterra right-hand side `|x, p, t, y|`, as a function.
#[forward]
#[reverse]
pub fn lotka_volterra(x: &[f64], p: &[f64], _t: f64, y: &mut [f64]) {
    y[0] = p[0] * x[0] - p[1] * x[0] * x[1];
    y[1] = p[2] * x[0] * x[1] - p[3] * x[1];
}

// Form of an explicit Euler loop over it, `iter_mut().zip(..)` update, `Vec` result.
#[forward]
#[reverse]
pub fn lotka_volterra_euler(x0: &[f64], p: &[f64], dt: f64, steps: usize) -> Vec<f64> {
    let mut x = x0.to_vec();
    let mut dx = vec![0.0; x.len()];
    for step in 0..steps {
        lotka_volterra(&x, p, step as f64 * dt, &mut dx);
        for (xi, dxi) in x.iter_mut().zip(&dx) {
            *xi += dt * dxi;
        }
    }
    x
}

/// A pendulum that advances itself.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Pendulum {
    pub theta: f64,
    pub omega: f64,
}

impl Pendulum {
    // Form of a `&mut self` stepper (semi-implicit Euler), as simulation crates write them.
    // `step_vjp` takes the cotangent of the final state as a `&mut Pendulum` and leaves there
    // the adjoint of the initial one.
    #[forward]
    #[reverse]
    pub fn step(&mut self, dt: f64, g_over_l: f64) {
        self.omega -= dt * g_over_l * self.theta.sin();
        self.theta += dt * self.omega;
    }
}

// A driver building the pendulum and stepping it.
#[forward]
#[reverse]
pub fn pendulum_angle(theta0: f64, omega0: f64, g_over_l: f64) -> f64 {
    let mut p = Pendulum {
        theta: theta0,
        omega: omega0,
    };
    for _ in 0..50 {
        p.step(0.02, g_over_l);
    }
    p.theta
}

// Form of an analytic solution with a tuple pattern parameter (logistic growth).
#[forward]
#[reverse]
pub fn logistic_growth(t: f64, (r, k, p0): (f64, f64, f64)) -> f64 {
    k / (1.0 + (k - p0) / p0 * (-r * t).exp())
}

// Form of a leapfrog (velocity Verlet) integrator returning a `(position, velocity)` tuple.
#[forward]
#[reverse]
pub fn leapfrog(x0: f64, v0: f64, omega: f64, dt: f64, steps: usize) -> (f64, f64) {
    let (mut x, mut v) = (x0, v0);
    let accel = |x: f64| -omega * omega * x;
    for _ in 0..steps {
        let half = v + 0.5 * dt * accel(x);
        x += dt * half;
        v = half + 0.5 * dt * accel(x);
    }
    (x, v)
}

#[test]
fn lorenz_trait_method() {
    let lorenz = |x: &[f64]| Lorenz {
        sigma: x[0],
        rho: x[1],
        beta: x[2],
    };
    let state = |x: &[f64]| [x[3], x[4], x[5]];
    Case::new("Lorenz::system", 6, move |x| {
        let mut dy = [0.0; 3];
        lorenz(x).system(0.0, &state(x), &mut dy);
        dy.to_vec()
    })
    .within(&[(8.0, 12.0), (20.0, 30.0), (2.0, 3.0), (-5.0, 5.0)])
    .forward(move |x, t| {
        let (mut dy, mut d_dy) = ([0.0; 3], [0.0; 3]);
        lorenz(x).system_jvp(
            0.0,
            &state(x),
            &mut dy,
            &lorenz(t),
            0.0,
            &state(t),
            &mut d_dy,
        );
        (dy.to_vec(), d_dy.to_vec())
    })
    .reverse(move |x, w| {
        let (mut dy, mut w_dy) = ([0.0; 3], [w[0], w[1], w[2]]);
        let (a_self, _, a_y) = lorenz(x).system_vjp(0.0, &state(x), &mut dy, &mut w_dy);
        let a_self = [a_self.sigma, a_self.rho, a_self.beta];
        (dy.to_vec(), [a_self, a_y].concat())
    })
    .check(21);
}

#[test]
fn van_der_pol_slice_output() {
    Case::new("van_der_pol", 3, |x| {
        let mut dy = [0.0; 2];
        van_der_pol(0.0, &x[..2], x[2], &mut dy);
        dy.to_vec()
    })
    .forward(|x, t| {
        let (mut dy, mut ddy) = ([0.0; 2], [0.0; 2]);
        van_der_pol_jvp(0.0, &x[..2], x[2], &mut dy, 0.0, &t[..2], t[2], &mut ddy);
        (dy.to_vec(), ddy.to_vec())
    })
    .reverse(|x, w| {
        let (mut dy, mut wdy) = ([0.0; 2], [w[0], w[1]]);
        let (_, a_y, a_mu) = van_der_pol_vjp(0.0, &x[..2], x[2], &mut dy, &mut wdy);
        (dy.to_vec(), [a_y, vec![a_mu]].concat())
    })
    .check(22);
}

fn three(x: &[f64]) -> [f64; 3] {
    [x[0], x[1], x[2]]
}

#[test]
fn sir_rhs_alias_output() {
    Case::new("sir_rhs", 5, |x| {
        let mut dy = [0.0; 3];
        sir_rhs(&three(x), x[3], x[4], &mut dy);
        dy.to_vec()
    })
    .within(&[(0.5, 1.0), (0.01, 0.3), (0.0, 0.3), (0.1, 0.5), (0.05, 0.2)])
    .forward(|x, t| {
        let (mut dy, mut d_dy) = ([0.0; 3], [0.0; 3]);
        sir_rhs_jvp(
            &three(x),
            x[3],
            x[4],
            &mut dy,
            &three(t),
            t[3],
            t[4],
            &mut d_dy,
        );
        (dy.to_vec(), d_dy.to_vec())
    })
    .reverse(|x, w| {
        let (mut dy, mut w_dy) = ([0.0; 3], three(w));
        let (a_y, a_beta, a_gamma) = sir_rhs_vjp(&three(x), x[3], x[4], &mut dy, &mut w_dy);
        (dy.to_vec(), [a_y.to_vec(), vec![a_beta, a_gamma]].concat())
    })
    .check(23);
}

#[test]
fn sir_attack_rate_rk4() {
    // The initial infected fraction is taken in percent, so that central differences' step
    // is small beside it.
    Case::new("sir_attack_rate", 3, |x| {
        one(sir_attack_rate(x[0], x[1], 0.01 * x[2], 30))
    })
    .within(&[(0.2, 0.5), (0.05, 0.15), (0.1, 5.0)])
    .forward(|x, t| {
        let (v, d) = sir_attack_rate_jvp(x[0], x[1], 0.01 * x[2], 30, t[0], t[1], 0.01 * t[2]);
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (a, b, c)) = sir_attack_rate_vjp(x[0], x[1], 0.01 * x[2], 30, w[0]);
        (one(v), vec![a, b, 0.01 * c])
    })
    .grad(|x| {
        let (v, (a, b, c)) = sir_attack_rate_grad(x[0], x[1], 0.01 * x[2], 30);
        (v, vec![a, b, 0.01 * c])
    })
    .check(24);
}

#[test]
fn lotka_volterra_rhs_and_euler() {
    Case::new("lotka_volterra", 6, |x| {
        let mut y = [0.0; 2];
        lotka_volterra(&x[..2], &x[2..], 0.0, &mut y);
        y.to_vec()
    })
    .forward(|x, t| {
        let (mut y, mut dy) = ([0.0; 2], [0.0; 2]);
        lotka_volterra_jvp(
            &x[..2],
            &x[2..],
            0.0,
            &mut y,
            &t[..2],
            &t[2..],
            0.0,
            &mut dy,
        );
        (y.to_vec(), dy.to_vec())
    })
    .reverse(|x, w| {
        let (mut y, mut wy) = ([0.0; 2], [w[0], w[1]]);
        let (a_x, a_p, _) = lotka_volterra_vjp(&x[..2], &x[2..], 0.0, &mut y, &mut wy);
        (y.to_vec(), [a_x, a_p].concat())
    })
    .check(25);
    Case::new("lotka_volterra_euler", 6, |x| {
        lotka_volterra_euler(&x[..2], &x[2..], 0.01, 40)
    })
    .within(&[
        (0.5, 1.5),
        (0.5, 1.5),
        (0.5, 1.5),
        (0.2, 0.8),
        (0.2, 0.8),
        (0.5, 1.5),
    ])
    .forward(|x, t| lotka_volterra_euler_jvp(&x[..2], &x[2..], 0.01, 40, &t[..2], &t[2..], 0.0))
    .reverse(|x, w| {
        let (v, (a_x0, a_p, _)) = lotka_volterra_euler_vjp(&x[..2], &x[2..], 0.01, 40, w.to_vec());
        (v, [a_x0, a_p].concat())
    })
    .check(26);
}

#[test]
fn pendulum_mut_self_stepper() {
    Case::new("pendulum_angle", 3, |x| {
        one(pendulum_angle(x[0], x[1], x[2]))
    })
    .within(&[(-1.0, 1.0), (-1.0, 1.0), (5.0, 15.0)])
    .forward(|x, t| {
        let (v, d) = pendulum_angle_jvp(x[0], x[1], x[2], t[0], t[1], t[2]);
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (a, b, c)) = pendulum_angle_vjp(x[0], x[1], x[2], w[0]);
        (one(v), vec![a, b, c])
    })
    .grad(|x| {
        let (v, (a, b, c)) = pendulum_angle_grad(x[0], x[1], x[2]);
        (v, vec![a, b, c])
    })
    .check(27);
    // One step by itself: the state in and out through `&mut self`.
    let pendulum = |x: &[f64]| Pendulum {
        theta: x[0],
        omega: x[1],
    };
    Case::new("Pendulum::step", 4, move |x| {
        let mut p = pendulum(x);
        p.step(x[2], x[3]);
        vec![p.theta, p.omega]
    })
    .within(&[(-1.0, 1.0), (-1.0, 1.0), (0.01, 0.1), (5.0, 15.0)])
    .forward(move |x, t| {
        let (mut p, mut d) = (pendulum(x), pendulum(t));
        p.step_jvp(x[2], x[3], &mut d, t[2], t[3]);
        (vec![p.theta, p.omega], vec![d.theta, d.omega])
    })
    .reverse(move |x, w| {
        let (mut p, mut d) = (pendulum(x), pendulum(w));
        let (d_dt, d_g) = p.step_vjp(x[2], x[3], &mut d);
        (vec![p.theta, p.omega], vec![d.theta, d.omega, d_dt, d_g])
    })
    .check(28);
}

#[test]
fn logistic_growth_tuple_pattern() {
    Case::new("logistic_growth", 4, |x| {
        one(logistic_growth(x[0], (x[1], x[2], x[3])))
    })
    .within(&[(0.0, 10.0), (0.1, 1.0), (50.0, 100.0), (1.0, 10.0)])
    .forward(|x, t| {
        let (v, d) = logistic_growth_jvp(x[0], (x[1], x[2], x[3]), t[0], (t[1], t[2], t[3]));
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (a, (b, c, d))) = logistic_growth_vjp(x[0], (x[1], x[2], x[3]), w[0]);
        (one(v), vec![a, b, c, d])
    })
    .check(28);
}

#[test]
fn leapfrog_tuple_result() {
    Case::new("leapfrog", 4, |x| {
        let (a, b) = leapfrog(x[0], x[1], x[2], x[3], 25);
        vec![a, b]
    })
    .within(&[(-1.0, 1.0), (-1.0, 1.0), (0.5, 2.0), (0.01, 0.05)])
    .forward(|x, t| {
        let ((a, b), (da, db)) = leapfrog_jvp(x[0], x[1], x[2], x[3], 25, t[0], t[1], t[2], t[3]);
        (vec![a, b], vec![da, db])
    })
    .reverse(|x, w| {
        let ((a, b), (g0, g1, g2, g3)) = leapfrog_vjp(x[0], x[1], x[2], x[3], 25, (w[0], w[1]));
        (vec![a, b], vec![g0, g1, g2, g3])
    })
    .check(29);
}
