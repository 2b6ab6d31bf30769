//! nalgebra values in reverse mode against a hand-written adjoint: a ridge-regression loss
//! `‖A x − b‖² + λ ‖x‖²` over a fixed-size 3×3 system (`Matrix3`, `Vector3`) and a
//! dynamically sized 40×20 one (`DMatrix`, `DVector`). The gradient in every argument, by
//! `_grad` and by the adjoint written out with nalgebra's own operations.

use std::hint::black_box;

use crate::timing::{format_time, interleaved, repeated, Budget};
use ad_runtime::reverse;
use nalgebra::{DMatrix, DVector, Matrix3, Vector3};

/// `‖A x − b‖² + λ ‖x‖²`, fixed-size.
#[reverse]
fn ridge3(a: &Matrix3<f64>, x: &Vector3<f64>, b: &Vector3<f64>, lambda: f64) -> f64 {
    let r = a * x - b;
    r.norm_squared() + lambda * x.norm_squared()
}

/// The same, dynamically sized.
#[reverse]
fn ridge(a: &DMatrix<f64>, x: &DVector<f64>, b: &DVector<f64>, lambda: f64) -> f64 {
    let r = a * x - b;
    r.norm_squared() + lambda * x.norm_squared()
}

type Gradient3 = (f64, (Matrix3<f64>, Vector3<f64>, Vector3<f64>, f64));

/// The adjoint by hand: `r̄ = 2 r`, `Ā = r̄ xᵀ`, `x̄ = Aᵀ r̄ + 2 λ x`, `b̄ = −r̄`, `λ̄ = ‖x‖²`.
fn ridge3_by_hand(a: &Matrix3<f64>, x: &Vector3<f64>, b: &Vector3<f64>, lambda: f64) -> Gradient3 {
    let r = a * x - b;
    let x_squared = x.norm_squared();
    let value = r.norm_squared() + lambda * x_squared;
    let dr = r * 2.0;
    let da = dr * x.transpose();
    let dx = a.tr_mul(&dr) + x * (2.0 * lambda);
    (value, (da, dx, -dr, x_squared))
}

type Gradient = (f64, (DMatrix<f64>, DVector<f64>, DVector<f64>, f64));

fn ridge_by_hand(a: &DMatrix<f64>, x: &DVector<f64>, b: &DVector<f64>, lambda: f64) -> Gradient {
    let r = a * x - b;
    let x_squared = x.norm_squared();
    let value = r.norm_squared() + lambda * x_squared;
    let dr = r * 2.0;
    let da = &dr * x.transpose();
    let dx = a.tr_mul(&dr) + x * (2.0 * lambda);
    (value, (da, dx, -dr, x_squared))
}

/// A fixed, irregular sequence of numbers in [-1, 1].
fn numbers(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

pub fn run(quick: bool) {
    let budget = if quick { Budget::QUICK } else { Budget::FULL };
    println!("## nalgebra in reverse mode: ours against a hand-written adjoint");
    println!();
    println!(
        "`‖A x − b‖² + λ ‖x‖²`, the gradient in `A`, `x`, `b` and `λ`: ours by `_grad` (the \
         rules of `ad_runtime::linalg`), by hand with nalgebra's own operations. The two \
         gradients are checked equal before timing."
    );
    println!();
    println!("| size | primal | ours | by hand | ours / by hand | ours / primal |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");

    let mut next = numbers(7);
    let a = Matrix3::from_fn(|i, j| next() + if i == j { 3.0 } else { 0.0 });
    let (x, b) = (
        Vector3::from_fn(|_, _| next()),
        Vector3::from_fn(|_, _| next()),
    );
    let (value, (da, dx, db, dl)) = ridge3_grad(&a, &x, &b, 0.1);
    let (hand, (ha, hx, hb, hl)) = ridge3_by_hand(&a, &x, &b, 0.1);
    let close = |p: f64, q: f64| (p - q).abs() <= 1e-12 * (1.0 + p.abs());
    assert!(close(value, hand) && close(dl, hl));
    assert!((da - ha).norm() + (dx - hx).norm() + (db - hb).norm() < 1e-12);
    let [primal, ours, by_hand] = interleaved(
        budget,
        [
            &mut repeated(|| {
                black_box(ridge3(black_box(&a), black_box(&x), black_box(&b), 0.1));
            }),
            &mut repeated(|| {
                black_box(ridge3_grad(
                    black_box(&a),
                    black_box(&x),
                    black_box(&b),
                    0.1,
                ));
            }),
            &mut repeated(|| {
                black_box(ridge3_by_hand(
                    black_box(&a),
                    black_box(&x),
                    black_box(&b),
                    0.1,
                ));
            }),
        ],
    );
    row("3×3 (`Matrix3`)", primal, ours, by_hand);

    let (rows, columns) = (40, 20);
    let a = DMatrix::from_fn(rows, columns, |_, _| next());
    let x = DVector::from_fn(columns, |_, _| next());
    let b = DVector::from_fn(rows, |_, _| next());
    let (value, (da, dx, db, dl)) = ridge_grad(&a, &x, &b, 0.1);
    let (hand, (ha, hx, hb, hl)) = ridge_by_hand(&a, &x, &b, 0.1);
    assert!(close(value, hand) && close(dl, hl));
    assert!((da - ha).norm() + (dx - hx).norm() + (db - hb).norm() < 1e-10);
    let [primal, ours, by_hand] = interleaved(
        budget,
        [
            &mut repeated(|| {
                black_box(ridge(black_box(&a), black_box(&x), black_box(&b), 0.1));
            }),
            &mut repeated(|| {
                black_box(ridge_grad(black_box(&a), black_box(&x), black_box(&b), 0.1));
            }),
            &mut repeated(|| {
                black_box(ridge_by_hand(
                    black_box(&a),
                    black_box(&x),
                    black_box(&b),
                    0.1,
                ));
            }),
        ],
    );
    row("40×20 (`DMatrix`)", primal, ours, by_hand);
    println!();
}

fn row(size: &str, primal: f64, ours: f64, by_hand: f64) {
    println!(
        "| {size} | {} | {} | {} | {:.2} | {:.1} |",
        format_time(primal),
        format_time(ours),
        format_time(by_hand),
        ours / by_hand,
        ours / primal
    );
}
