//! Deep work in reverse mode on a test thread's default stack: a loop of 10^7 iterations and
//! a recursion 2 * 10^5 deep; gradients from several threads at once; the seed's examples.

use ad_bench::taylor_series::taylor_recip_grad;
use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;

#[test]
fn a_loop_of_ten_million_iterations() {
    let (value, gradient) = taylor_recip_grad(0.5, 10_000_000);
    assert_relative_eq!(value, 2.0, max_relative = 1e-12);
    // d/dx of the truncated series 1/x: -1/x^2 at 0.5.
    assert_relative_eq!(gradient, -4.0, max_relative = 1e-9);
}

#[reverse]
fn sum_of_powers(x: f64, depth: u32) -> f64 {
    if depth == 0 {
        0.0
    } else {
        x * 0.5 + 0.999999 * sum_of_powers(x, depth - 1)
    }
}

#[test]
fn a_recursion_two_hundred_thousand_deep() {
    let depth = 200_000;
    let (value, gradient) = sum_of_powers_grad(1.0, depth);
    // sum_{k<depth} 0.5 * 0.999999^k
    let expected_gradient = 0.5 * (1.0 - 0.999999_f64.powi(depth as i32)) / (1.0 - 0.999999);
    assert_relative_eq!(value, expected_gradient, max_relative = 1e-9);
    assert_relative_eq!(gradient, expected_gradient, max_relative = 1e-9);
}

#[test]
fn gradients_from_several_threads_at_once() {
    let handles: Vec<_> = (0..4)
        .map(|k| {
            std::thread::spawn(move || {
                let x = 0.2 + 0.1 * k as f64;
                (x, taylor_recip_grad(x, 100_000))
            })
        })
        .collect();
    for handle in handles {
        let (x, (_, gradient)) = handle.join().expect("the thread finished");
        assert_relative_eq!(
            gradient,
            taylor_recip_grad(x, 100_000).1,
            max_relative = 0.0
        );
        assert_relative_eq!(gradient, -1.0 / (x * x), max_relative = 1e-9);
    }
}

/// Seed `000`, the power example: x^n by a loop.
#[forward]
#[reverse]
fn power_by_loop(x: f64, n: u32) -> f64 {
    let mut result = 1.0;
    for _ in 0..n {
        result *= x;
    }
    result
}

#[test]
fn seed_example_power_by_a_loop() {
    for n in [0, 1, 2, 7] {
        for x in [-1.5_f64, 0.5, 3.0] {
            let (value, gradient) = power_by_loop_grad(x, n);
            assert_relative_eq!(value, x.powi(n as i32), max_relative = 1e-14);
            let expected = if n == 0 {
                0.0
            } else {
                n as f64 * x.powi(n as i32 - 1)
            };
            assert_relative_eq!(gradient, expected, max_relative = 1e-13);
            assert_relative_eq!(
                gradient,
                power_by_loop_jvp(x, n, 1.0).1,
                max_relative = 1e-14
            );
        }
    }
}

#[test]
fn gradient_of_the_truncated_series_for_every_length() {
    for n in [0, 1, 10, 1000] {
        let (_, gradient) = taylor_recip_grad(0.5, n);
        let expected: f64 = (1..=n)
            .map(|k| -(k as f64) * 0.5_f64.powi(k as i32 - 1))
            .sum();
        assert_relative_eq!(gradient, expected, max_relative = 1e-12);
    }
}
