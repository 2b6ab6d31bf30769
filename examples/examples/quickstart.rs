//! The main example: differentiate ordinary Rust, print values and derivatives, and check them
//! against central differences and closed forms.
//!
//! ```text
//! cargo run --release --example quickstart
//! ```

use ad_runtime::forward;

/// A damped oscillator's position after `steps` explicit Euler steps: a loop, branches and
/// mutable state, differentiated with respect to the stiffness `k` and damping `c`.
#[forward]
fn position(k: f64, c: f64, steps: usize) -> f64 {
    let dt = 0.01;
    let (mut x, mut v) = (1.0, 0.0);
    for _ in 0..steps {
        let a = -k * x - c * v;
        v += a * dt;
        x += v * dt;
        if x.abs() < 1e-12 {
            break;
        }
    }
    x
}

/// A smooth scalar function of two variables.
#[forward]
fn bump(x: f64, y: f64) -> f64 {
    (-(x * x + y * y)).exp() * (3.0 * x).sin() + x.hypot(y).ln_1p()
}

/// Its derivative along x, as a function that can itself be differentiated.
#[forward]
fn bump_dx(x: f64, y: f64) -> f64 {
    bump_jvp(x, y, 1.0, 0.0).1
}

fn central_difference(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-5;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn check(label: &str, exact: f64, reference: f64, tolerance: f64) {
    let error = (exact - reference).abs() / reference.abs().max(1.0);
    let verdict = if error <= tolerance { "ok" } else { "MISMATCH" };
    println!("  {label:<44} {exact:>+.10e}  (reference {reference:>+.10e}, {verdict})");
    assert!(error <= tolerance, "{label}: {exact} vs {reference}");
}

fn main() {
    let (k, c, steps) = (4.0, 0.3, 500);
    let (x, dx_dk) = position_jvp(k, c, steps, 1.0, 0.0);
    let (_, dx_dc) = position_jvp(k, c, steps, 0.0, 1.0);
    println!("position(k = {k}, c = {c}, {steps} steps) = {x:.10}");
    check(
        "d position / dk",
        dx_dk,
        central_difference(|k| position(k, c, steps), k),
        1e-6,
    );
    check(
        "d position / dc",
        dx_dc,
        central_difference(|c| position(k, c, steps), c),
        1e-6,
    );

    let (x, y) = (0.4, -0.7);
    let (value, along_x) = bump_jvp(x, y, 1.0, 0.0);
    println!("bump({x}, {y}) = {value:.10}");
    check(
        "d bump / dx",
        along_x,
        central_difference(|x| bump(x, y), x),
        1e-8,
    );
    // Forward over forward: the second derivative by nesting.
    let (_, second) = bump_dx_jvp(x, y, 1.0, 0.0);
    check(
        "d² bump / dx² (nested)",
        second,
        central_difference(|x| bump_dx(x, y), x),
        1e-6,
    );
    let (_, mixed) = bump_dx_jvp(x, y, 0.0, 1.0);
    check(
        "d² bump / dx dy (nested)",
        mixed,
        central_difference(|y| bump_dx(x, y), y),
        1e-6,
    );
    println!("all derivatives agree");
}
