//! An adversarial review of nested loops whose iteration pullbacks keep nothing (0f50bd5):
//! the forward code only counts such a loop's iterations and the backward code builds one
//! pullback and runs it once per iteration, handing it the iteration's number. Every case
//! here is a nested loop whose inner body could share its pullback, with what could make the
//! sharing wrong: a counter read by the backward code, running indices, `continue` and
//! `break`, branches, `while` inside `for`, reversed, stepped, inclusive and empty ranges,
//! signed counters, hoisted elements of the outer loop, methods, `f32`, and second
//! derivatives (the gradient at dual numbers). Each function carries `#[forward]` and
//! `#[reverse]` and is checked by `common::check_gradient` (reverse against forward mode,
//! forward against central differences, the dot-product identity).

#![allow(
    clippy::needless_range_loop,
    clippy::explicit_counter_loop,
    clippy::reversed_empty_ranges,
    clippy::assign_op_pattern
)]

mod common;

use ad_runtime::{forward, reverse, Dual};
use approx::assert_relative_eq;
use common::check_gradient;

/// The inner loop's pullback reads only its counter.
#[forward]
#[reverse]
fn sum_of_sums(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for _ in 0..n {
        for j in 0..n {
            s += x[j];
        }
    }
    s
}

/// Inner ranges that depend on the outer counter, some of them empty.
#[forward]
#[reverse]
fn triangle(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..i {
            s += 2.0 * x[j] - x[i - j];
        }
        for j in i..i {
            s += x[j] * 100.0;
        }
    }
    s
}

/// Reversed, stepped and inclusive inner ranges: the backward code must give iteration t
/// the counter the forward code had at iteration t.
#[forward]
#[reverse]
fn odd_ranges(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in (0..n).rev() {
            s = 0.5 * s + x[j] * (j as f64 + 1.0);
        }
        for j in (i..n).step_by(2) {
            s = s * 0.75 - x[j];
        }
        for j in 1..=i {
            s += x[j - 1] * 3.0;
        }
        for j in (0..=i).rev().step_by(3) {
            s -= x[j] * (i as f64);
        }
    }
    s
}

/// Signed counters.
#[forward]
#[reverse]
fn signed_counters(x: &[f64]) -> f64 {
    let n = x.len() as i32;
    let mut s = 0.0;
    for i in -2..n - 2 {
        for j in -i.abs()..i.abs() {
            let k = (j + n) % n;
            s += x[k as usize] * (j as f64);
        }
    }
    s
}

/// A running index that advances with the inner loop.
#[forward]
#[reverse]
fn running_index(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut k = 0;
    for i in 0..n {
        for _ in 0..i + 1 {
            s += x[k % n] * 1.5;
            k += 3;
        }
    }
    s
}

/// `continue` and `break` on conditions of the counter only.
#[forward]
#[reverse]
fn skips_and_stops(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            if j == i {
                continue;
            }
            if j > i + 2 {
                break;
            }
            s += x[j];
        }
    }
    s
}

/// `continue` and `break` on conditions of the data.
#[forward]
#[reverse]
fn skips_on_data(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            if x[j] > x[i] {
                continue;
            }
            if x[j] < -1.5 {
                break;
            }
            s += x[j];
        }
    }
    s
}

/// A branch on the counter inside the inner loop.
#[forward]
#[reverse]
fn branches_on_counter(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            if (i + j) % 2 == 0 {
                s += x[j];
            } else {
                s -= 2.0 * x[(j + i) % n];
            }
        }
    }
    s
}

/// A `while` loop inside a `for` loop, with its own running index.
#[forward]
#[reverse]
fn while_inside_for(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let mut k = i;
        while k < n {
            s += x[k] * 0.5;
            k += 1;
        }
    }
    s
}

/// An element of the outer iteration read in the inner loop (hoisted before it), its
/// cotangent summed over the inner iterations.
#[forward]
#[reverse]
fn hoisted_outer_element(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += x[i] + 0.25 * x[j];
        }
    }
    s
}

/// Writes to a local vector inside the shared pullback's loop, read back afterwards.
#[forward]
#[reverse]
fn local_accumulators(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = vec![0.0; n];
    for i in 0..n {
        for j in 0..n {
            acc[j] += x[i] - x[j];
        }
    }
    let mut s = 0.0;
    for j in 0..n {
        s += acc[j] * acc[j];
    }
    s
}

/// Three deep: the middle loop keeps its iterations, the innermost shares one pullback.
#[forward]
#[reverse]
fn three_deep(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let a = x[i] * x[i];
        for j in 0..n {
            let b = a * x[j];
            s += b;
            for k in 0..j {
                s += x[k];
            }
        }
    }
    s
}

/// Three deep, all counted: nothing of any iteration is kept.
#[forward]
#[reverse]
fn three_deep_counted(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in i..n {
            for k in 0..j {
                s += x[(i + j + k) % n] * 0.5 - x[k];
            }
        }
    }
    s
}

/// A loop that keeps nothing, then a product that reads what the loop computed.
#[forward]
#[reverse]
fn counted_then_product(x: &[f64]) -> f64 {
    let n = x.len();
    let mut total = 0.0;
    for i in 0..n {
        let mut s = 0.0;
        for j in 0..n {
            s += x[j] * (i as f64 - j as f64);
        }
        total += s * s;
    }
    total
}

/// An inner loop over `iter().enumerate()` rather than a range.
#[forward]
#[reverse]
fn enumerated_inner(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for (j, v) in x.iter().enumerate() {
            s += *v * ((i + j) as f64);
        }
    }
    s
}

/// A labeled `break` of the outer loop from inside the inner one.
#[forward]
#[reverse]
fn labeled_break(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    'outer: for i in 0..n {
        for j in 0..n {
            if i * n + j > n + 2 {
                break 'outer;
            }
            s += x[j] * 2.0;
        }
    }
    s
}

/// An early `return` from inside a loop that would otherwise be counted.
#[forward]
#[reverse]
fn early_return(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            if i == 2 && j == 1 {
                return s * 3.0;
            }
            s += x[j];
        }
    }
    s
}

/// A sum that restarts in every outer iteration, scaled afterwards.
#[forward]
#[reverse]
fn restarted_sums(x: &[f64]) -> f64 {
    let n = x.len();
    let mut out = 0.0;
    for i in 0..n {
        let mut s = -0.0;
        for j in 0..n {
            s -= x[j];
        }
        out += s * x[i];
    }
    out
}

#[test]
fn shared_pullbacks_agree_with_forward_mode() {
    check_gradient(5, sum_of_sums, sum_of_sums_jvp, sum_of_sums_vjp);
    check_gradient(6, triangle, triangle_jvp, triangle_vjp);
    check_gradient(7, odd_ranges, odd_ranges_jvp, odd_ranges_vjp);
    check_gradient(5, signed_counters, signed_counters_jvp, signed_counters_vjp);
    check_gradient(4, running_index, running_index_jvp, running_index_vjp);
    check_gradient(6, skips_and_stops, skips_and_stops_jvp, skips_and_stops_vjp);
    check_gradient(6, skips_on_data, skips_on_data_jvp, skips_on_data_vjp);
    check_gradient(
        5,
        branches_on_counter,
        branches_on_counter_jvp,
        branches_on_counter_vjp,
    );
    check_gradient(
        5,
        while_inside_for,
        while_inside_for_jvp,
        while_inside_for_vjp,
    );
    check_gradient(
        4,
        hoisted_outer_element,
        hoisted_outer_element_jvp,
        hoisted_outer_element_vjp,
    );
    check_gradient(
        4,
        local_accumulators,
        local_accumulators_jvp,
        local_accumulators_vjp,
    );
    check_gradient(4, three_deep, three_deep_jvp, three_deep_vjp);
    check_gradient(
        5,
        three_deep_counted,
        three_deep_counted_jvp,
        three_deep_counted_vjp,
    );
    check_gradient(
        4,
        counted_then_product,
        counted_then_product_jvp,
        counted_then_product_vjp,
    );
    check_gradient(
        4,
        enumerated_inner,
        enumerated_inner_jvp,
        enumerated_inner_vjp,
    );
    check_gradient(4, labeled_break, labeled_break_jvp, labeled_break_vjp);
    check_gradient(4, early_return, early_return_jvp, early_return_vjp);
    check_gradient(4, restarted_sums, restarted_sums_jvp, restarted_sums_vjp);
}

/// Sizes where loops run no iteration at all.
#[test]
fn empty_and_single_sizes() {
    for n in [1, 2] {
        check_gradient(n, sum_of_sums, sum_of_sums_jvp, sum_of_sums_vjp);
        check_gradient(n, triangle, triangle_jvp, triangle_vjp);
        check_gradient(n, odd_ranges, odd_ranges_jvp, odd_ranges_vjp);
        check_gradient(
            n,
            three_deep_counted,
            three_deep_counted_jvp,
            three_deep_counted_vjp,
        );
    }
    let (value, gradient) = triangle_vjp(&[], 1.0);
    assert_eq!(value, 0.0);
    assert!(gradient.is_empty());
}

/// The same nest in `f32`.
#[forward]
#[reverse]
fn odd_ranges_f32(x: &[f32]) -> f32 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in (i..n).rev().step_by(2) {
            s = 0.5 * s + x[j] * x[i];
        }
        for j in 0..i {
            s += x[j];
        }
    }
    s
}

#[test]
fn single_precision() {
    let x = [0.3f32, -1.2, 0.7, 2.1, -0.4];
    let (_, gradient) = odd_ranges_f32_vjp(&x, 1.0);
    for i in 0..x.len() {
        let mut e = [0.0f32; 5];
        e[i] = 1.0;
        let (_, tangent) = odd_ranges_f32_jvp(&x, &e);
        assert_relative_eq!(gradient[i], tangent, max_relative = 1e-5, epsilon = 1e-5);
    }
}

/// A struct whose method has a counted nest.
#[derive(Clone, Debug, ad_runtime::Differentiable)]
struct Weights {
    scale: f64,
    values: Vec<f64>,
}

impl Weights {
    #[forward]
    #[reverse]
    fn pairwise(&self, x: &[f64]) -> f64 {
        let n = x.len();
        let mut s = 0.0;
        for i in 0..n {
            for j in 0..n {
                s += self.values[j] * x[i] - x[j];
            }
        }
        s * self.scale
    }
}

#[test]
fn method_with_counted_nest() {
    let w = Weights {
        scale: 1.3,
        values: vec![0.2, -0.5, 1.1, 0.9],
    };
    let x = [0.4, -0.3, 1.7, 0.8];
    let (value, (dw, dx)) = w.pairwise_vjp(&x, 1.0);
    assert_eq!(value.to_bits(), w.pairwise(&x).to_bits());
    for i in 0..x.len() {
        let mut e = [0.0; 4];
        e[i] = 1.0;
        let zero = Weights {
            scale: 0.0,
            values: vec![0.0; 4],
        };
        let (_, tangent) = w.pairwise_jvp(&x, &zero, &e);
        assert_relative_eq!(dx[i], tangent, max_relative = 1e-12, epsilon = 1e-13);
        let mut ew = zero.clone();
        ew.values[i] = 1.0;
        let (_, tangent) = w.pairwise_jvp(&x, &ew, &[0.0; 4]);
        assert_relative_eq!(dw.values[i], tangent, max_relative = 1e-12, epsilon = 1e-13);
    }
    let es = Weights {
        scale: 1.0,
        values: vec![0.0; 4],
    };
    let (_, tangent) = w.pairwise_jvp(&x, &es, &[0.0; 4]);
    assert_relative_eq!(dw.scale, tangent, max_relative = 1e-12);
}

/// The gradient at dual numbers carries the Hessian-vector product; against central
/// differences of the gradient.
fn check_hessian_vector(
    name: &str,
    vjp: impl Fn(&[f64], f64) -> (f64, Vec<f64>),
    vjp_dual: impl Fn(&[Dual<f64>]) -> Vec<Dual<f64>>,
    n: usize,
) {
    let mut rng = common::Rng::new(11);
    for _ in 0..3 {
        let x = common::random_vector(&mut rng, n);
        let v = common::random_vector(&mut rng, n);
        let xd: Vec<Dual<f64>> = x.iter().zip(&v).map(|(a, b)| Dual::new(*a, *b)).collect();
        let g = vjp_dual(&xd);
        for i in 0..n {
            let along = |h: f64| {
                let moved: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a + h * b).collect();
                vjp(&moved, 1.0).1[i]
            };
            let hv = common::central_difference(along, 0.0, 1e-4);
            assert_relative_eq!(g[i].value, vjp(&x, 1.0).1[i], max_relative = 1e-12);
            assert!(
                (g[i].tangent - hv).abs() <= 1e-6 * (1.0 + hv.abs()),
                "{name}: Hessian-vector product {i}: {} against differences {hv}",
                g[i].tangent
            );
        }
    }
}

#[test]
fn second_derivatives_through_shared_pullbacks() {
    let one = Dual::new(1.0, 0.0);
    check_hessian_vector(
        "counted_then_product",
        counted_then_product_vjp,
        |x: &[Dual<f64>]| counted_then_product::vjp(x, one).1,
        4,
    );
    check_hessian_vector(
        "three_deep",
        three_deep_vjp,
        |x: &[Dual<f64>]| three_deep::vjp(x, one).1,
        4,
    );
    check_hessian_vector(
        "restarted_sums",
        restarted_sums_vjp,
        |x: &[Dual<f64>]| restarted_sums::vjp(x, one).1,
        4,
    );
    check_hessian_vector(
        "local_accumulators",
        local_accumulators_vjp,
        |x: &[Dual<f64>]| local_accumulators::vjp(x, one).1,
        4,
    );
}
