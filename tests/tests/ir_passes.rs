//! The IR engine's optimization passes (`ad-macros/src/ir/residuals.rs`, `reads.rs`,
//! `induction.rs`, `restore.rs`, `expand/reverse_ir/accumulators.rs`) change
//! what the backward sweep keeps, never a derivative. `.ci/run` runs this test twice on the IR
//! engine: with the passes on, then built again with `AD_IR_PASSES=off`; each run
//! writes the gradients of the functions below, bit for bit, to
//! `target/ir-passes/<on|off>.txt`, and the second run requires the two to agree: bit for bit,
//! but for the last bits of a sum that `reads.rs` reassociates (a place read twice, as in
//! `x[i] * w[j] + x[i] * x[i]`, has its adjoint's contributions summed before they reach
//! `dx[i]`, instead of added to it one by one), at most 4 units in the last place, and for the
//! sign of a zero (`Passes::assign_first` assigns a first contribution of `-0.0` where adding
//! it to `0.0` gives `0.0`), and for the order of a summing loop's contributions
//! (`ir/eager_sums.rs` adds them first iteration first, into adjoints of their own): a
//! relative difference of at most `1e-12`. Every other pass keeps the same additions in the
//! same order.

// The functions are written to give each pass something to do.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

mod common;

use ad_runtime::{forward, reverse};

/// Loop invariants (`1.0 - x`), a kept linear map (`exp`), a loop binding used as an index.
#[forward]
#[reverse]
fn invariants(x: f64, w: &[f64], n: usize) -> f64 {
    let mut term = 1.0;
    let mut sum = 0.0;
    for i in 0..n {
        let factor = 1.0 - x;
        sum += term * w[i % w.len()].exp();
        term *= factor;
    }
    sum
}

/// Nested ranges whose bindings, trip counts and index arithmetic are computed again; a
/// place read twice; parameters read again by the borrowed companion.
#[forward]
#[reverse]
fn triangular(a: &[f64], b: &[f64], d: usize) -> f64 {
    let mut t = vec![0.0; d];
    let mut total = 0.0;
    for i in 0..d {
        for j in (i + 1)..d {
            t[j] += a[i * d + j] * b[i];
        }
        total += t[i] * t[i] + a[i * d + i].sin() * b[i];
    }
    for j in 0..d {
        total += t[j] * t[j];
    }
    total
}

/// Branches, an early exit, a call in a loop.
#[forward]
#[reverse]
fn branching(x: &[f64]) -> f64 {
    let mut best = x[0];
    let mut s = 0.0;
    for k in 0..x.len() {
        let v = x[k] * x[k];
        if v > best {
            best = v;
        } else if v < -1.0 {
            break;
        }
        s += invariants(v, x, 3) * 0.1;
    }
    best + s
}

/// Scratch buffers refilled for every point and read in the loops after (read again from
/// their state at the end of each point's iteration), a table filled once (read again from its
/// final state), a counter walking a packed triangle (`l += 1`), and an element read at a
/// fixed place in an inner loop (its adjoint summed in a local): ADBench's GMM in small.
#[forward]
#[reverse]
fn scratch(p: &[f64], x: &[f64], d: usize) -> f64 {
    let mut table = vec![0.0; d];
    for j in 0..d {
        table[j] = p[j].exp();
    }
    let mut centered = vec![0.0; d];
    let mut out = vec![0.0; d];
    let mut total = 0.0;
    for point in 0..x.len() / d {
        for j in 0..d {
            centered[j] = x[point * d + j] - p[j];
        }
        for j in 0..d {
            out[j] = table[j] * centered[j];
        }
        let mut l = d;
        for i in 0..d {
            for j in (i + 1)..d {
                out[j] += p[l] * centered[i];
                l += 1;
            }
        }
        for j in 0..d {
            total += out[j] * out[j];
        }
    }
    total
}

/// Adjacent loops over one range that touch only their own elements (`ir/loop_fusion.rs`):
/// rows of a nested `Vec`, an element read right after it is written (`ir/reads.rs` forwards
/// the value), loops inside a branch, and a summing loop after them.
#[forward]
#[reverse]
fn fused(x: &[f64], flip: bool) -> f64 {
    let n = x.len();
    let mut rows = vec![vec![0.0; 2]; n];
    let mut c = vec![0.0; n];
    for j in 0..n {
        rows[j][0] = x[j] * x[j];
        rows[j][1] = x[j].sin();
    }
    for j in 0..n {
        c[j] = rows[j][0] - rows[j][1];
    }
    if flip {
        for j in 0..n {
            c[j] = c[j] * x[j];
        }
        for j in 0..n {
            rows[j][1] = c[j] + rows[j][0];
        }
    }
    let mut s = 0.0;
    for j in 0..n {
        s += c[j] * rows[j][1];
    }
    s
}

/// Counters of `while` loops and of a `loop` left by `break`: stepped up and down, read
/// before and after their step.
#[forward]
#[reverse]
fn counters(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut i = 0;
    while i < n {
        s += x[i] * x[(i + 1) % n];
        i += 1;
        s += x[i % n] * 0.5;
    }
    let mut k = n;
    let mut m = 0;
    loop {
        if k == 0 {
            break;
        }
        k -= 1;
        s = s * 0.9 + x[k] * x[m % n];
        m += 2;
        if s > 100.0 {
            break;
        }
    }
    s
}

/// Elements read at fixed places in inner loops, some of which run no iteration: the summed
/// adjoint goes back only when the loop ran (`x[past]` is out of range when `extra` is 0).
#[forward]
#[reverse]
fn fixed_elements(x: &[f64], w: &[f64], extra: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in i..w.len() {
            s += x[i] * w[j] + x[i] * x[i];
        }
    }
    let past = x.len() - 1 + (1 - extra.min(1));
    for _ in 0..extra {
        s += x[past] * w[0];
    }
    s
}

/// Containers bound by `let`: an array and a `Vec` read in a loop (read again from their final
/// values), and a buffer refilled at each iteration of a `while` loop (restored per
/// iteration). (`ir_engine.rs` moves such a `Vec` after the loop, which the previous engine
/// does not take.)
#[forward]
#[reverse]
fn owned_tables(x: &[f64]) -> f64 {
    let weights = [x[0] * 0.5, x[1] + 1.0];
    let mut table = Vec::new();
    for k in 0..3 {
        table.push(x[k] * 0.5 + 1.0);
    }
    let mut buffer = vec![0.0; x.len() - 1];
    let mut s = 0.0;
    let mut i = 0;
    while i < x.len() {
        buffer[0] = x[i] * weights[0];
        buffer[1] = x[i] + weights[1];
        for j in 0..2 {
            s += buffer[j] * table[j] * buffer[1 - j];
        }
        i += 1;
    }
    s + table[2] * weights[1]
}

/// Integer arithmetic done again (`h + i` twice) indexes the same place: the second read of
/// `s[h + i]` is the first's value, across a write to another container (`ir::reads`).
#[forward]
#[reverse]
fn recomputed_indices(s: &[f64], w: &[f64], h: usize) -> f64 {
    let n = w.len();
    let mut g = vec![0.0; n];
    let mut total = 0.0;
    for i in 0..n {
        g[i] = s[h + i] * w[i];
        total += g[i].sin() + s[h + i] * s[(h + i + 1) % s.len()];
    }
    total
}

/// Shadows of local containers: one written element by element (its shadow made at full
/// length where it is declared), one replaced whole and one pushed to (their shadows grown
/// where they are reached); `t[j] += ..` in a loop leaves the exact zero behind in a local's
/// shadow and not in a parameter's. (The previous engine does not take a container replaced
/// whole.)
#[forward]
#[reverse]
fn shadows(x: &[f64], mut y: Vec<f64>) -> f64 {
    let n = x.len();
    let mut fixed = vec![0.0; n];
    let mut replaced = vec![x[0]; 1];
    let mut pushed = Vec::new();
    let mut total = 0.0;
    for i in 0..n {
        for j in 0..n {
            fixed[j] += x[j] * x[(i + j) % n];
        }
        y[i] = fixed[i] * 0.5;
        replaced = vec![fixed[i] + replaced[0]; i + 1];
        pushed.push(replaced[i] * x[0]);
        total += replaced[0] - pushed[i] * y[i];
    }
    total + fixed[0] * pushed[n - 1]
}

/// Increments (`ir::increments`): `t[j] = t[j] + ..` where the other term reads `t` at an index
/// that may be `j` itself, `-=` on an element and on a local, an addition of the place on the
/// right (`s = a + s`), an element read between the read and the assignment, and an increment
/// inside a branch.
#[forward]
#[reverse]
fn increments(x: &[f64], shift: usize) -> f64 {
    let n = x.len();
    let mut t = x.to_vec();
    let mut s = 1.0;
    for j in 0..n {
        let other = t[(j + shift) % n];
        t[j] = t[j] + other * x[j];
        t[j] -= x[(j + 1) % n] * s;
        let before = t[j] * 0.5;
        s = before * x[j] + s;
        if x[j] > 0.0 {
            s -= t[(j + 1) % n] * before;
        }
    }
    for j in 0..n {
        s += t[j] * t[j];
    }
    s
}

fn gradients() -> String {
    let w: Vec<f64> = (0..7).map(|i| 0.3 * i as f64 - 0.8).collect();
    let mut lines = Vec::new();
    let bits = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{:016x}", x.to_bits()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for n in [0, 1, 5] {
        let (value, (dx, dw)) = invariants_grad(0.4, &w, n);
        lines.push(format!(
            "invariants {n} {}",
            bits(&[&[value, dx][..], &dw].concat())
        ));
    }
    for d in [1, 2, 4] {
        let a: Vec<f64> = (0..d * d).map(|i| 0.1 * i as f64 - 0.5).collect();
        let b: Vec<f64> = (0..d).map(|i| 0.7 - 0.2 * i as f64).collect();
        let (value, (da, db)) = triangular_grad(&a, &b, d);
        lines.push(format!(
            "triangular {d} {}",
            bits(&[&[value][..], &da, &db].concat())
        ));
    }
    for x in [&w[..3], &w[2..], &[0.5, 2.0, -0.1][..]] {
        let (value, dx) = branching_grad(x);
        lines.push(format!("branching {}", bits(&[&[value][..], &dx].concat())));
    }
    for d in [1, 2, 3] {
        let p: Vec<f64> = (0..d * (d + 1) / 2 + d)
            .map(|i| 0.2 * i as f64 - 0.4)
            .collect();
        let x: Vec<f64> = (0..3 * d).map(|i| 0.5 - 0.15 * i as f64).collect();
        let (value, (dp, dx)) = scratch_grad(&p, &x, d);
        lines.push(format!(
            "scratch {d} {}",
            bits(&[&[value][..], &dp, &dx].concat())
        ));
    }
    for x in [&w[..1], &w[..4], &w[..]] {
        let (value, dx) = counters_grad(x);
        lines.push(format!("counters {}", bits(&[&[value][..], &dx].concat())));
    }
    for (n, extra) in [(3, 0), (3, 2), (5, 1)] {
        let x = &w[..n];
        let (value, (dx, dw)) = fixed_elements_grad(x, &w[..3], extra);
        lines.push(format!(
            "fixed {}",
            bits(&[&[value][..], &dx, &dw].concat())
        ));
    }
    for x in [&w[..3], &w[1..]] {
        let (value, dx) = owned_tables_grad(x);
        lines.push(format!(
            "owned_tables {}",
            bits(&[&[value][..], &dx].concat())
        ));
    }
    for h in [0, 2] {
        let (value, (ds, dw)) = recomputed_indices_grad(&w, &w[..4], h);
        lines.push(format!(
            "recomputed_indices {h} {}",
            bits(&[&[value][..], &ds, &dw].concat())
        ));
    }
    for x in [&w[..1], &w[2..5], &w[..]] {
        let y = vec![0.25; x.len()];
        let (value, (dx, dy)) = shadows_grad(x, y);
        lines.push(format!(
            "shadows {}",
            bits(&[&[value][..], &dx, &dy].concat())
        ));
    }
    for (x, shift) in [(&w[..1], 0), (&w[..4], 0), (&w[..4], 1), (&w[..], 3)] {
        let (value, dx) = increments_grad(x, shift);
        lines.push(format!(
            "increments {shift} {}",
            bits(&[&[value][..], &dx].concat())
        ));
    }
    for flip in [false, true] {
        let (value, dx) = fused_grad(&w[..5], flip);
        lines.push(format!(
            "fused {flip} {}",
            bits(&[&[value][..], &dx].concat())
        ));
    }
    lines.join("\n") + "\n"
}

#[test]
fn gradients_agree_with_forward_mode() {
    let w: Vec<f64> = (0..4).map(|i| 0.2 * i as f64 - 0.3).collect();
    let (_, (dx, _)) = invariants_grad(0.4, &w, 5);
    let (_, along_x) = invariants_jvp(0.4, &w, 5, 1.0, &[0.0; 4]);
    approx::assert_relative_eq!(dx, along_x, max_relative = 1e-12);
    let a = [0.3, -0.2, 0.5, 0.1];
    let b = [0.7, -0.4];
    let (_, (da, db)) = triangular_grad(&a, &b, 2);
    let direction_a = [0.5, -1.0, 0.25, 2.0];
    let direction_b = [1.5, -0.5];
    let (_, along) = triangular_jvp(&a, &b, 2, &direction_a, &direction_b);
    let dot: f64 = da.iter().zip(&direction_a).map(|(g, t)| g * t).sum::<f64>()
        + db.iter().zip(&direction_b).map(|(g, t)| g * t).sum::<f64>();
    approx::assert_relative_eq!(dot, along, max_relative = 1e-12);
    // Forward mode against central differences along the same direction.
    let at = |h: f64| {
        let a: Vec<f64> = a.iter().zip(&direction_a).map(|(x, t)| x + h * t).collect();
        let b: Vec<f64> = b.iter().zip(&direction_b).map(|(x, t)| x + h * t).collect();
        triangular(&a, &b, 2)
    };
    let central = (at(1e-6) - at(-1e-6)) / 2e-6;
    approx::assert_relative_eq!(along, central, epsilon = 1e-7, max_relative = 1e-7);
    let central_x = (invariants(0.4 + 1e-6, &w, 5) - invariants(0.4 - 1e-6, &w, 5)) / 2e-6;
    approx::assert_relative_eq!(along_x, central_x, epsilon = 1e-7, max_relative = 1e-7);
    common::check_slice_function_at_random_points(branching, branching_jvp, branching_vjp, 4, 5);
    common::check_slice_function_at_random_points(counters, counters_jvp, counters_vjp, 5, 6);
    for shift in [0, 1, 3] {
        let plain = |x: &[f64]| increments(x, shift);
        let jvp = |x: &[f64], t: &[f64]| increments_jvp(x, shift, t);
        let vjp = |x: &[f64], c: f64| {
            let (value, dx) = increments_grad(x, shift);
            (value, dx.iter().map(|d| d * c).collect())
        };
        common::check_gradient(5, plain, jvp, vjp);
    }
    common::check_slice_function_at_random_points(
        owned_tables,
        owned_tables_jvp,
        owned_tables_vjp,
        4,
        7,
    );
    for h in [0, 2] {
        common::check_gradient(
            9,
            |v| recomputed_indices(&v[..6], &v[6..], h),
            |v, t| recomputed_indices_jvp(&v[..6], &v[6..], h, &t[..6], &t[6..]),
            |v, c| {
                let (value, (ds, dw)) = recomputed_indices_vjp(&v[..6], &v[6..], h, c);
                (value, [ds, dw].concat())
            },
        );
    }
    // Every input of `scratch` and `fixed_elements` in one slice.
    let d = 3;
    let parameters = d * (d + 1) / 2 + d;
    let split = |v: &[f64]| (v[..parameters].to_vec(), v[parameters..].to_vec());
    common::check_gradient(
        parameters + 2 * d,
        |v| {
            let (p, x) = split(v);
            scratch(&p, &x, d)
        },
        |v, t| {
            let ((p, x), (tp, tx)) = (split(v), split(t));
            scratch_jvp(&p, &x, d, &tp, &tx)
        },
        |v, c| {
            let (p, x) = split(v);
            let (value, (dp, dx)) = scratch_vjp(&p, &x, d, c);
            (value, [dp, dx].concat())
        },
    );
    for flip in [false, true] {
        common::check_gradient(
            5,
            |v| fused(v, flip),
            |v, t| fused_jvp(v, flip, t),
            |v, c| fused_vjp(v, flip, c),
        );
    }
    for extra in [0, 2] {
        common::check_gradient(
            7,
            |v| fixed_elements(&v[..4], &v[4..], extra),
            |v, t| fixed_elements_jvp(&v[..4], &v[4..], extra, &t[..4], &t[4..]),
            |v, c| {
                let (value, (dx, dw)) = fixed_elements_vjp(&v[..4], &v[4..], extra, c);
                (value, [dx, dw].concat())
            },
        );
    }
}

#[test]
fn the_passes_change_no_gradient() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/ir-passes");
    std::fs::create_dir_all(&directory).expect("the directory for the gradients");
    let off = option_env!("AD_IR_PASSES") == Some("off");
    let (own, other) = if off { ("off", "on") } else { ("on", "off") };
    let gradients = gradients();
    std::fs::write(directory.join(format!("{own}.txt")), &gradients).expect("written");
    if let Ok(theirs) = std::fs::read_to_string(directory.join(format!("{other}.txt"))) {
        let (ours, theirs): (Vec<&str>, Vec<&str>) =
            (gradients.lines().collect(), theirs.lines().collect());
        assert_eq!(
            ours.len(),
            theirs.len(),
            "the same gradients with the passes {own} and {other}"
        );
        for (our_line, their_line) in ours.iter().zip(&theirs) {
            let agree = our_line
                .split(' ')
                .zip(their_line.split(' '))
                .all(
                    |(a, b)| match (u64::from_str_radix(a, 16), u64::from_str_radix(b, 16)) {
                        (Ok(a), Ok(b)) => {
                            let zeros = (a << 1) == 0 && (b << 1) == 0;
                            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
                            let reordered = (x - y).abs() <= 1e-12 * x.abs().max(y.abs());
                            a == b
                                || zeros
                                || ((a ^ b) >> 63 == 0 && a.abs_diff(b) <= 4)
                                || reordered
                        }
                        _ => a == b,
                    },
                );
            assert!(
                agree && our_line.split(' ').count() == their_line.split(' ').count(),
                "the gradients with the IR passes {own} differ from those with them \
                 {other}:\n{our_line}\n{their_line}"
            );
        }
    }
    assert_eq!(invariants::__AD_ENGINE, "ir");
    assert_eq!(triangular::__AD_ENGINE, "ir");
    assert_eq!(branching::__AD_ENGINE, "ir");
    assert_eq!(scratch::__AD_ENGINE, "ir");
    assert_eq!(counters::__AD_ENGINE, "ir");
    assert_eq!(fixed_elements::__AD_ENGINE, "ir");
    assert_eq!(owned_tables::__AD_ENGINE, "ir");
}

#[test]
fn shadows_agree_with_forward_mode() {
    for n in [1, 3, 4] {
        common::check_gradient(
            2 * n,
            |v| shadows(&v[..n], v[n..].to_vec()),
            |v, t| shadows_jvp(&v[..n], v[n..].to_vec(), &t[..n], t[n..].to_vec()),
            |v, c| {
                let (value, (dx, dy)) = shadows_vjp(&v[..n], v[n..].to_vec(), c);
                (value, [dx, dy].concat())
            },
        );
    }
}
