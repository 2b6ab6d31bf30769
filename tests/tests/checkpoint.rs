//! `#[checkpoint]`: every placement and schedule against the unchecked gradient.

use ad_bench::taylor_series::{taylor_recip_binomial_grad, taylor_recip_grad};
use ad_runtime::checkpoint::{binomial_recomputations, counts, reset_counts, Counts};
use ad_runtime::{checkpoint, forward, reverse};
use approx::assert_relative_eq;

#[reverse]
#[allow(clippy::assign_op_pattern)]
fn taylor_every(x: f64, n: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    #[checkpoint(every = 4)]
    for _ in 0..n {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}

#[reverse]
#[allow(clippy::assign_op_pattern)]
fn taylor_binomial(x: f64, n: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    #[checkpoint(binomial, snapshots = 3)]
    for _ in 0..n {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}

#[forward]
#[reverse]
fn regions(x: f64, y: f64) -> f64 {
    #[checkpoint]
    let a = x.sin() * y;
    let b = #[checkpoint]
    {
        let t = a * x;
        t.exp() + y
    };
    let mut c = a + b;
    #[checkpoint]
    {
        c = c * c + x;
    }
    #[checkpoint]
    for i in 0..3 {
        c = c.sin() + i as f64 * y;
    }
    c
}

#[test]
fn regions_match_the_unchecked_gradient() {
    for (x, y) in [(0.3, 0.7), (-1.1, 0.4)] {
        let (value, (gx, gy)) = regions_grad(x, y);
        assert_eq!(value, regions(x, y));
        assert_relative_eq!(gx, regions_jvp(x, y, 1.0, 0.0).1, max_relative = 1e-12);
        assert_relative_eq!(gy, regions_jvp(x, y, 0.0, 1.0).1, max_relative = 1e-12);
    }
}

#[test]
fn schedules_match_the_unchecked_gradient() {
    for n in [0, 1, 3, 4, 5, 17, 1000] {
        let expected = taylor_recip_grad(0.5, n);
        reset_counts();
        assert_eq!(taylor_every_grad(0.5, n), expected, "every, n = {n}");
        assert_eq!(
            counts(),
            Counts {
                advanced: 0,
                recorded: n as u64
            }
        );
        reset_counts();
        assert_eq!(taylor_binomial_grad(0.5, n), expected, "binomial, n = {n}");
        assert_eq!(
            counts(),
            Counts {
                advanced: binomial_recomputations(n, 3),
                recorded: n as u64
            }
        );
    }
}

#[forward]
#[checkpoint]
fn expensive(x: f64, k: u32) -> f64 {
    let mut y = x;
    for _ in 0..k {
        y = (y * 1.1).sin() + x;
    }
    y
}

#[forward]
#[reverse]
fn calls_checkpointed_function(x: f64, y: f64) -> f64 {
    let a = expensive(x, 5) * y;
    let b = expensive(a, 3);
    a + b * x
}

#[test]
fn checkpointed_functions_match_the_unchecked_gradient() {
    for (x, y) in [(0.3, 0.7), (-1.1, 0.4)] {
        let (value, (gx, gy)) = calls_checkpointed_function_grad(x, y);
        assert_eq!(value, calls_checkpointed_function(x, y));
        assert_relative_eq!(
            gx,
            calls_checkpointed_function_jvp(x, y, 1.0, 0.0).1,
            max_relative = 1e-12
        );
        assert_relative_eq!(
            gy,
            calls_checkpointed_function_jvp(x, y, 0.0, 1.0).1,
            max_relative = 1e-12
        );
        let (_, g) = expensive_grad(x, 4);
        assert_relative_eq!(g, expensive_jvp(x, 4, 1.0).1, max_relative = 1e-12);
    }
}

#[forward]
#[checkpoint]
fn checkpointed_power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * checkpointed_power(x, n - 1)
    }
}

#[test]
fn recursive_checkpointed_functions_nest() {
    let (value, gradient) = checkpointed_power_grad(1.3, 12);
    assert_relative_eq!(value, 1.3_f64.powi(12), max_relative = 1e-14);
    assert_relative_eq!(gradient, 12.0 * 1.3_f64.powi(11), max_relative = 1e-13);
}

#[reverse]
fn plain_call(x: f64) -> f64 {
    expensive(x, 2).cos()
}

#[forward]
#[reverse]
fn checkpointed_call(x: f64) -> f64 {
    let y = #[checkpoint]
    plain_call(x * 2.0);
    y * x
}

#[test]
fn checkpointed_calls() {
    for x in [0.2, 1.4] {
        let (value, gradient) = checkpointed_call_grad(x);
        assert_eq!(value, checkpointed_call(x));
        assert_relative_eq!(
            gradient,
            checkpointed_call_jvp(x, 1.0).1,
            max_relative = 1e-12
        );
    }
}

#[forward]
#[reverse]
fn nested(x: f64, n: usize) -> f64 {
    let mut s = x;
    #[checkpoint(every = 3)]
    for i in 0..n {
        let t = #[checkpoint]
        {
            let u = s * x;
            u.sin() + i as f64
        };
        #[checkpoint]
        {
            s = s * 0.5 + t * 0.1;
        }
    }
    s
}

#[forward]
#[reverse]
fn nested_binomial(x: f64, n: usize) -> f64 {
    let mut s = x;
    #[checkpoint(binomial, snapshots = 2)]
    for i in 0..n {
        #[checkpoint(every = 2)]
        for j in 0..3 {
            s = s * 0.9 + (x * (i + j) as f64).sin() * 0.01;
        }
    }
    s
}

#[test]
fn nested_checkpoints() {
    for n in [0, 1, 2, 3, 4, 10] {
        for x in [0.3, -0.8] {
            let (value, gradient) = nested_grad(x, n);
            assert_eq!(value, nested(x, n));
            assert_relative_eq!(
                gradient,
                nested_jvp(x, n, 1.0).1,
                epsilon = 1e-14,
                max_relative = 1e-12
            );
            let (value, gradient) = nested_binomial_grad(x, n);
            assert_eq!(value, nested_binomial(x, n));
            assert_relative_eq!(
                gradient,
                nested_binomial_jvp(x, n, 1.0).1,
                epsilon = 1e-14,
                max_relative = 1e-12
            );
        }
    }
}

#[forward]
#[reverse]
fn while_every(x: f64, #[no_grad] limit: f64) -> f64 {
    let mut y = x;
    let mut steps = 0;
    #[checkpoint(every = 5)]
    while y < limit {
        steps += 1;
        if steps % 4 == 0 {
            continue;
        }
        y = y * 1.3 + 0.01 * steps as f64;
    }
    y
}

#[forward]
#[reverse]
fn loop_binomial(x: f64, n: usize) -> f64 {
    let mut y = x;
    let mut i = 0;
    #[checkpoint(binomial, snapshots = 4)]
    loop {
        i += 1;
        if i > n {
            break;
        }
        if i % 3 == 0 {
            continue;
        }
        y = (y * y + 0.5).sqrt();
    }
    y
}

#[test]
fn while_and_loop_schedules_with_break_and_continue() {
    for limit in [0.1, 5.0, 100.0] {
        let (value, gradient) = while_every_grad(0.7, limit);
        assert_eq!(value, while_every(0.7, limit));
        assert_relative_eq!(
            gradient,
            while_every_jvp(0.7, limit, 1.0).1,
            max_relative = 1e-12
        );
    }
    for n in [0, 1, 2, 5, 30] {
        let (value, gradient) = loop_binomial_grad(0.4, n);
        assert_eq!(value, loop_binomial(0.4, n));
        assert_relative_eq!(
            gradient,
            loop_binomial_jvp(0.4, n, 1.0).1,
            epsilon = 1e-15,
            max_relative = 1e-12
        );
    }
}

#[reverse]
#[allow(clippy::assign_op_pattern)]
fn taylor_every_k(x: f64, n: usize, #[no_grad] k: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    #[checkpoint(every = k)]
    for _ in 0..n {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}

#[test]
fn every_k_at_the_segment_edges() {
    for k in [1, 2, 7, 10] {
        for n in [0, 1, k - 1, k, k + 1, 2 * k + 1, 1000] {
            let expected = taylor_recip_grad(0.6, n);
            reset_counts();
            assert_eq!(taylor_every_k_grad(0.6, n, k), expected, "k = {k}, n = {n}");
            assert_eq!(
                counts(),
                Counts {
                    advanced: 0,
                    recorded: n as u64
                }
            );
        }
    }
}

#[test]
fn binomial_recomputations_follow_the_formula() {
    for n in [0, 1, 2, 31, 32, 33, 1_000, 10_000, 100_000] {
        let expected = taylor_recip_grad(0.5, n);
        reset_counts();
        let (value, gradient) = taylor_recip_binomial_grad(0.5, n);
        assert_eq!(value, expected.0);
        assert_relative_eq!(gradient, expected.1, max_relative = 1e-12);
        assert_eq!(
            counts(),
            Counts {
                advanced: binomial_recomputations(n, 32),
                recorded: n as u64
            },
            "n = {n}"
        );
    }
}

/// `regions` and `nested` without their checkpoints.
#[reverse]
fn regions_unchecked(x: f64, y: f64) -> f64 {
    let a = x.sin() * y;
    let b = {
        let t = a * x;
        t.exp() + y
    };
    let mut c = a + b;
    {
        c = c * c + x;
    }
    for i in 0..3 {
        c = c.sin() + i as f64 * y;
    }
    c
}

#[reverse]
fn nested_unchecked(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in 0..n {
        let t = {
            let u = s * x;
            u.sin() + i as f64
        };
        {
            s = s * 0.5 + t * 0.1;
        }
    }
    s
}

#[reverse]
fn calls_unchecked_function(x: f64, y: f64) -> f64 {
    let a = expensive_unchecked(x, 5) * y;
    let b = expensive_unchecked(a, 3);
    a + b * x
}

#[reverse]
fn expensive_unchecked(x: f64, k: u32) -> f64 {
    let mut y = x;
    for _ in 0..k {
        y = (y * 1.1).sin() + x;
    }
    y
}

#[test]
fn checkpointed_gradients_equal_the_unchecked_ones_bit_for_bit() {
    for (x, y) in [(0.3, 0.7), (-1.1, 0.4), (2.0, -0.3)] {
        assert_eq!(regions_grad(x, y), regions_unchecked_grad(x, y));
        assert_eq!(
            calls_checkpointed_function_grad(x, y),
            calls_unchecked_function_grad(x, y)
        );
        for n in [0, 1, 2, 3, 4, 7, 50] {
            assert_eq!(nested_grad(x, n), nested_unchecked_grad(x, n), "n = {n}");
        }
    }
}

#[forward]
#[reverse]
fn schedule_in_tail_position(x: f64, n: usize) -> f64 {
    let mut a = x;
    for _ in 0..2 {
        #[checkpoint(every = 2)]
        for _ in 0..n {
            a = a * 0.9 + x;
        }
    }
    a
}

#[test]
fn a_schedule_on_a_loop_in_tail_position_applies() {
    reset_counts();
    let (value, gradient) = schedule_in_tail_position_grad(0.3, 5);
    assert_eq!(value, schedule_in_tail_position(0.3, 5));
    assert_relative_eq!(
        gradient,
        schedule_in_tail_position_jvp(0.3, 5, 1.0).1,
        max_relative = 1e-12
    );
    assert_eq!(
        counts(),
        Counts {
            advanced: 0,
            recorded: 10
        }
    );
}

#[forward]
#[reverse]
fn checkpointed_let_shadows_what_it_reads(x: f64) -> f64 {
    #[checkpoint]
    let x = x.sin() * 2.0;
    x * x
}

#[test]
fn a_checkpointed_let_may_shadow_its_input() {
    for x in [0.3, 1.7] {
        let (value, gradient) = checkpointed_let_shadows_what_it_reads_grad(x);
        assert_eq!(value, checkpointed_let_shadows_what_it_reads(x));
        assert_relative_eq!(
            gradient,
            checkpointed_let_shadows_what_it_reads_jvp(x, 1.0).1,
            max_relative = 1e-13
        );
    }
}

#[test]
fn the_ir_engine_takes_every_placement() {
    let engines = [
        ("taylor_every", taylor_every::__AD_ENGINE),
        ("taylor_binomial", taylor_binomial::__AD_ENGINE),
        ("regions", regions::__AD_ENGINE),
        ("checkpointed_call", checkpointed_call::__AD_ENGINE),
        ("nested", nested::__AD_ENGINE),
        ("nested_binomial", nested_binomial::__AD_ENGINE),
        ("while_every", while_every::__AD_ENGINE),
        ("loop_binomial", loop_binomial::__AD_ENGINE),
        ("taylor_every_k", taylor_every_k::__AD_ENGINE),
        (
            "schedule_in_tail_position",
            schedule_in_tail_position::__AD_ENGINE,
        ),
        (
            "checkpointed_let_shadows_what_it_reads",
            checkpointed_let_shadows_what_it_reads::__AD_ENGINE,
        ),
    ];
    for (function, engine) in engines {
        assert_eq!(engine, "ir", "{function}");
    }
}
