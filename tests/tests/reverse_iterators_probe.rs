//! A helper's adversarial probe of reverse mode's iterator shapes (commit 8f161d8): sub-slices
//! as places, `rev`/`skip`/`take`/`step_by`, `windows`/`chunks`/`chunks_exact`, `iter_mut`,
//! `first`/`last`/`get` unwrapped, `max_by`/`min_by`, `any`/`all`/`position`/`count`, in
//! nested, mixed and edge-length shapes. Each function is checked against forward mode, central
//! differences and the dot-product identity, at several lengths (edge lengths included).
//! Found: no wrong derivative; `_vjp` returned values where the function panics (`windows(0)`,
//! an out-of-range sub-slice on a path not taken), and a `filter`ed chain of sub-slices
//! collected failed inside generated code: fixed, each checked below.
// Written as a probe, in shapes clippy would rewrite (`skip(0)`, `&x[..]`, ...).
#![allow(clippy::all, unused_mut)]

mod common;

use ad_runtime::{forward, reverse};
use common::check_slice_function_at_random_points;

// ===== helpers called with sub-slices =====

#[forward]
#[reverse]
fn sum_sq(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x {
        s += v * v;
    }
    s
}

#[forward]
#[reverse]
fn dot2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b.iter()).map(|(x, y)| x * y).sum()
}

// ===== windows =====

#[forward]
#[reverse]
fn nested_windows_local(x: &[f64]) -> f64 {
    let y: Vec<f64> = x.iter().map(|v| v.sin()).collect();
    let mut s = 0.0;
    for w in y.windows(3) {
        for v in w.iter() {
            s += v * w[0];
        }
    }
    s
}

#[forward]
#[reverse]
fn windows_inner_windows(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(3) {
        for u in w.windows(2) {
            s += (u[1] - u[0]) * w[2];
        }
    }
    s
}

#[forward]
#[reverse]
fn windows_break(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        if w[0] > w[1] + 0.5 {
            break;
        }
        s += w[0] * w[1];
    }
    s + x.iter().sum::<f64>()
}

#[forward]
#[reverse]
fn windows_continue_enumerate(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, w) in x.windows(3).enumerate() {
        if i % 2 == 1 {
            continue;
        }
        s += w[2] * w[0] - w[1].sin();
    }
    s
}

#[forward]
#[reverse]
fn windows_closure_capturing(x: &[f64]) -> f64 {
    let n = x.len().max(1) as f64;
    let m = x.iter().sum::<f64>() / n;
    x.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() + m
}

#[forward]
#[reverse]
fn windows_fold(x: &[f64]) -> f64 {
    x.windows(2)
        .map(|w| w[0] * w[1])
        .fold(0.0, |acc, p| acc * 0.9 + p)
}

#[forward]
#[reverse]
fn windows_rev_enumerate(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, w) in x.windows(2).rev().enumerate() {
        s += (i as f64 + 1.0) * w[0] * w[1].cos();
    }
    s
}

#[forward]
#[reverse]
fn windows_enumerate_rev(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, w) in x.windows(2).enumerate().rev() {
        s = s * 0.5 + (i as f64 + 1.0) * (w[1] - w[0]);
    }
    s
}

#[forward]
#[reverse]
fn zip_skip_windows(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, w) in x.iter().skip(1).zip(x.windows(2)) {
        s += a * (w[1] - w[0]).tanh();
    }
    s
}

#[forward]
#[reverse]
fn zip_two_windows(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.windows(2).zip(x.windows(3)) {
        s += a[0] * b[2] - a[1] * b[0];
    }
    s
}

#[forward]
#[reverse]
fn windows_step_by(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2).step_by(2) {
        s += w[0] * w[1];
    }
    s
}

#[forward]
#[reverse]
fn windows_of_sub_slice(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x[1..].windows(2) {
        s += w[0].exp() * w[1];
    }
    s
}

#[forward]
#[reverse]
fn differences_collected(x: &[f64]) -> f64 {
    let d: Vec<f64> = x.windows(2).map(|w| w[1] - w[0]).collect();
    d.iter()
        .zip(d.iter().skip(1))
        .map(|(a, b)| a * b)
        .sum::<f64>()
        + sum_sq(&d)
}

#[forward]
#[reverse]
fn windows_of_local_then_mutated(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut s = 0.0;
    for w in v.windows(2) {
        s += w[0] * w[1];
    }
    for e in v.iter_mut() {
        *e *= s;
    }
    for w in v.windows(2).rev() {
        s += w[1] - w[0].sin();
    }
    s
}

// ===== chunks =====

#[forward]
#[reverse]
fn chunks_short_last(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(3) {
        s += c.iter().product::<f64>() * c.len() as f64;
    }
    s
}

#[forward]
#[reverse]
fn chunks_last_element(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(2) {
        s += c[0] * c[c.len() - 1] + c.last().unwrap().sin();
    }
    s
}

#[forward]
#[reverse]
fn chunks_rev_recurrence(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(2).rev() {
        s = s * c[0].cos() + c[c.len() - 1];
    }
    s
}

#[forward]
#[reverse]
fn chunks_enumerate_rev(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, c) in x.chunks(3).enumerate().rev() {
        s += (i as f64 + 0.5) * c.iter().map(|v| v * v).sum::<f64>();
    }
    s
}

#[forward]
#[reverse]
fn chunks_skip(x: &[f64]) -> f64 {
    x.chunks(2)
        .skip(1)
        .map(|c| c[0] * c.iter().sum::<f64>())
        .sum()
}

#[forward]
#[reverse]
fn chunks_exact_with_rest(x: &[f64]) -> f64 {
    let full = x.len() - x.len() % 2;
    x.chunks_exact(2).map(|c| c[0] * c[1]).sum::<f64>()
        + x[full..].iter().map(|v| v.exp()).sum::<f64>()
}

#[forward]
#[reverse]
fn nested_chunks_in_windows(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(3) {
        for c in w.chunks(2) {
            s += c[0] * c[c.len() - 1];
        }
    }
    s
}

#[forward]
#[reverse]
fn chunks_of_split_half(x: &[f64]) -> f64 {
    let (h, t) = x.split_at(x.len() / 2);
    let mut s = h.iter().map(|v| v.sin()).sum::<f64>();
    for c in t.chunks(2) {
        s += c.iter().product::<f64>();
    }
    s
}

#[forward]
#[reverse]
fn chunks_exact_zip_chunks(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.chunks_exact(2).zip(x.chunks(3)) {
        s += a[1] * b[0] + b[b.len() - 1];
    }
    s
}

// ===== rev / skip / take / step_by / enumerate / zip =====

#[forward]
#[reverse]
fn rev_enumerate_indexing(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().rev().enumerate() {
        s += v.sin() * x[i];
    }
    s
}

#[forward]
#[reverse]
fn enumerate_rev_indexing(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate().rev() {
        s = s * 0.5 + v * x[x.len() - 1 - i].cos();
    }
    s
}

#[forward]
#[reverse]
fn rev_skip_take(x: &[f64]) -> f64 {
    x.iter().rev().skip(1).take(3).map(|v| v.cos() * v).sum()
}

#[forward]
#[reverse]
fn skip_rev_loop(x: &[f64]) -> f64 {
    let mut s = 1.0;
    for &v in x.iter().skip(1).rev() {
        s = s * v + 0.3;
    }
    s
}

#[forward]
#[reverse]
fn take_rev_enumerate(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().take(3).rev().enumerate() {
        s += (i as f64 + 1.0) * v * v;
    }
    s
}

#[forward]
#[reverse]
fn step_by_enumerate(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().step_by(2).enumerate() {
        s += (i as f64 + 1.0) * v.exp();
    }
    s
}

#[forward]
#[reverse]
fn enumerate_step_by_indexing(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate().step_by(3) {
        s += v * x[i / 2];
    }
    s
}

#[forward]
#[reverse]
fn zip_with_rev(x: &[f64]) -> f64 {
    x.iter().zip(x.iter().rev()).map(|(a, b)| a * b.sin()).sum()
}

#[forward]
#[reverse]
fn step_by_rev_copied_pattern(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x.iter().step_by(2).rev() {
        s = s * 0.7 + v;
    }
    s
}

#[forward]
#[reverse]
fn sub_slice_rev(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x[1..].iter().rev() {
        s = s * 0.5 + v.sin();
    }
    s
}

#[forward]
#[reverse]
fn take_more_than_len(x: &[f64]) -> f64 {
    x.iter().take(10).skip(0).map(|v| v * v).sum::<f64>() + x.iter().skip(10).sum::<f64>()
}

#[forward]
#[reverse]
fn enumerate_skip_zip(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for ((i, a), b) in x.iter().enumerate().skip(1).zip(x.iter().rev()) {
        s += (i as f64) * a * b;
    }
    s
}

#[forward]
#[reverse]
fn copied_rev_step_sum(x: &[f64]) -> f64 {
    x.iter()
        .copied()
        .rev()
        .step_by(2)
        .map(|v| v.tanh())
        .sum::<f64>()
        * x.iter().skip(1).copied().product::<f64>()
}

// ===== iter_mut =====

#[forward]
#[reverse]
fn step_by_iter_mut(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for e in v.iter_mut().step_by(2) {
        *e = e.sin() * 2.0;
    }
    v.iter().map(|a| a * a).sum::<f64>() + v.iter().product::<f64>()
}

#[forward]
#[reverse]
fn iter_mut_zip_windows(x: &[f64]) -> f64 {
    let mut v = vec![1.0; x.len()];
    for (e, w) in v.iter_mut().zip(x.windows(2)) {
        *e = w[0] * w[1];
    }
    v.iter().map(|a| a.exp()).sum()
}

#[forward]
#[reverse]
fn iter_mut_enumerate(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for (i, e) in v.iter_mut().enumerate() {
        *e *= x[i].cos() + i as f64;
    }
    v.iter().sum()
}

#[forward]
#[reverse]
fn iter_mut_rev_carry(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut carry = 0.0;
    for e in v.iter_mut().rev() {
        carry = carry * 0.5 + *e;
        *e = carry * *e;
    }
    v.iter().sum::<f64>() + carry
}

#[forward]
#[reverse]
fn mut_ref_loop_break(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = x.iter().map(|a| a * 1.5).collect();
    for e in &mut v {
        if *e > 1.8 {
            break;
        }
        *e = e.powi(2) + 0.1;
    }
    v.iter().sum()
}

#[forward]
#[reverse]
fn iter_mut_skip_take(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for e in v.iter_mut().skip(1).take(2) {
        *e = *e * *e - 1.0;
    }
    for e in v.iter_mut().rev().step_by(3) {
        *e += 0.25 * *e * *e;
    }
    sum_sq(&v)
}

#[forward]
#[reverse]
fn iter_mut_twice_feedback(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for e in v.iter_mut() {
        *e = e.sin();
    }
    let total: f64 = v.iter().sum();
    for (e, a) in v.iter_mut().zip(x.iter()) {
        *e = *e * total + a;
    }
    v.iter().map(|a| a * a).sum()
}

// ===== sub-slices and split_at =====

#[forward]
#[reverse]
fn sub_slice_local_then_mutated(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let s1: f64 = v[1..].iter().sum();
    v[0] = s1 * v[0];
    for e in v.iter_mut() {
        *e *= s1;
    }
    v.iter().sum::<f64>() + sum_sq(&v[..v.len() / 2])
}

#[forward]
#[reverse]
fn sub_slice_of_sub_slice(x: &[f64]) -> f64 {
    let a = &x[1..];
    let b = &a[..a.len() - 1];
    b.iter().map(|v| v * v).sum::<f64>() * a[0] + b.len() as f64 * sum_sq(&a[1..])
}

#[forward]
#[reverse]
fn split_at_zip_rev(x: &[f64]) -> f64 {
    let (h, t) = x.split_at(x.len() / 2);
    let mut s = 0.0;
    for (a, b) in h.iter().zip(t.iter().rev()) {
        s += a * b;
    }
    s + dot2(h, &t[..h.len()])
}

#[forward]
#[reverse]
fn split_at_nested(x: &[f64]) -> f64 {
    let (h, t) = x.split_at(x.len() / 2);
    let (t1, t2) = t.split_at(t.len() / 2);
    sum_sq(h) * 0.5 + sum_sq(t1) * 2.0 + t2.iter().map(|v| v.sin()).sum::<f64>()
}

#[forward]
#[reverse]
fn prefix_dots(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for k in 1..n {
        s += dot2(&x[..k], &x[n - k..]);
    }
    s
}

#[forward]
#[reverse]
fn sub_slice_mutated_var_bound(x: &[f64]) -> f64 {
    let mut k = 1;
    let a = &x[k..];
    k += 1;
    a[0] * x[k] + a.len() as f64
}

#[forward]
#[reverse]
fn split_at_mutated_bound(x: &[f64]) -> f64 {
    let mut k = x.len() / 2;
    let (h, t) = x.split_at(k);
    k = 0;
    sum_sq(h) * t[k] + t.iter().sum::<f64>()
}

#[forward]
#[reverse]
fn sub_slice_in_loop_of_local(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = x.iter().map(|a| a.tanh()).collect();
    let mut s = 0.0;
    for i in 0..v.len() {
        s += sum_sq(&v[i..]);
        v[i] = s * 0.1;
    }
    s + v.iter().sum::<f64>()
}

#[forward]
#[reverse]
fn sub_slice_end_closed_and_open(x: &[f64]) -> f64 {
    let n = x.len();
    let mid = &x[1..n - 1];
    let head = &x[..2];
    mid.iter()
        .zip(head.iter().rev())
        .map(|(a, b)| a - b * b)
        .sum::<f64>()
        * x[n - 1]
}

// ===== first / last / get =====

#[forward]
#[reverse]
fn first_last_of_sub_slice(x: &[f64]) -> f64 {
    let t = &x[1..];
    t.first().unwrap() * t.last().unwrap() + x.first().copied().unwrap().exp()
}

#[forward]
#[reverse]
fn get_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x.get(i).unwrap() * x.get(x.len() - 1 - i).copied().unwrap();
    }
    s
}

#[forward]
#[reverse]
fn cumulative_via_last(x: &[f64]) -> f64 {
    let mut y = vec![x[0]];
    for v in &x[1..] {
        let p = *y.last().unwrap();
        y.push(p * 0.5 + v);
    }
    y.iter().map(|a| a * a).sum()
}

#[forward]
#[reverse]
fn get_copied_local(x: &[f64]) -> f64 {
    let y: Vec<f64> = x.iter().map(|v| v * v + 1.0).collect();
    let k = y.len() / 2;
    y.get(k).copied().unwrap() * y.first().unwrap() / y.last().expect("non-empty")
}

#[forward]
#[reverse]
fn last_mutated_through(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let l = *v.last().unwrap();
    let n = v.len();
    v[n - 1] = l * l;
    let f = *v.first().unwrap();
    v[0] = f + l;
    v.iter().product::<f64>() + *v.last().unwrap()
}

// ===== max_by / min_by =====

#[forward]
#[reverse]
fn max_by_local_built_in_loop(x: &[f64]) -> f64 {
    let mut y = Vec::new();
    for i in 0..x.len() {
        y.push(x[i] * x[i] - x[i]);
    }
    let m = *y.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    m * x[0] + y.iter().sum::<f64>()
}

#[forward]
#[reverse]
fn min_by_copied_then_windows(x: &[f64]) -> f64 {
    let m = x.iter().copied().min_by(|a, b| a.total_cmp(b)).unwrap();
    x.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() + m * m
}

#[forward]
#[reverse]
fn max_by_enumerate_local(x: &[f64]) -> f64 {
    let y: Vec<f64> = x.iter().map(|v| v.sin() * 2.0).collect();
    let (k, best) = y
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
        .unwrap();
    best * x[k] + y[k]
}

#[forward]
#[reverse]
fn max_by_after_mutation(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for e in v.iter_mut() {
        *e = (*e - 0.2).abs() * e.signum();
    }
    let hi = *v.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    let lo = *v.iter().min_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    for e in v.iter_mut() {
        *e = (*e - lo) / (hi - lo + 1.0);
    }
    v.iter().map(|a| a * a).sum()
}

#[forward]
#[reverse]
fn max_by_of_sub_slice(x: &[f64]) -> f64 {
    let t = &x[1..];
    let m = *t.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    m * x[0] - t.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

#[forward]
#[reverse]
fn max_by_key_like_abs(x: &[f64]) -> f64 {
    let m = *x
        .iter()
        .max_by(|a, b| a.abs().partial_cmp(&b.abs()).unwrap())
        .unwrap();
    x.iter().map(|v| v / m).sum()
}

// ===== any / all / position / count =====

#[forward]
#[reverse]
fn position_feeding_index(x: &[f64]) -> f64 {
    let p = x.iter().position(|v| *v > 0.0).unwrap_or(x.len() - 1);
    x[p].exp() * x.iter().sum::<f64>()
}

#[forward]
#[reverse]
fn any_all_conditions(x: &[f64]) -> f64 {
    let mut s = x.iter().map(|v| v * v).sum::<f64>();
    if x.iter().any(|v| v.abs() > 1.0) {
        s = s.sqrt();
    } else if x.iter().all(|&v| v < 0.5) {
        s *= 3.0;
    }
    s
}

#[forward]
#[reverse]
fn any_capturing_active(x: &[f64]) -> f64 {
    let n = x.len().max(1) as f64;
    let m = x.iter().sum::<f64>() / n;
    let above = x.iter().any(|&v| v > m + 0.5);
    let all_close = x.iter().all(|v| (v - m).abs() < 1.0);
    let mut s = m * m;
    if above {
        s += x.iter().map(|v| v.sin()).sum::<f64>();
    }
    if all_close {
        s *= 2.0;
    }
    s
}

#[forward]
#[reverse]
fn count_windows(x: &[f64]) -> f64 {
    let ups = x.windows(2).filter(|w| w[0] < w[1]).count();
    ups as f64 * x.iter().sum::<f64>() + x.iter().skip(1).count() as f64
}

#[forward]
#[reverse]
fn position_in_windows(x: &[f64]) -> f64 {
    let p = x
        .windows(2)
        .map(|w| w[1] - w[0])
        .position(|d| d < 0.0)
        .unwrap_or(0);
    x[p] * x[p + 1] + sum_sq(&x[p..])
}

#[forward]
#[reverse]
fn position_rev(x: &[f64]) -> f64 {
    let p = x.iter().rev().position(|v| *v < 0.0).unwrap_or(0);
    let k = x.len() - 1 - p;
    x[k] * x[k].cos() + x.iter().product::<f64>()
}

#[forward]
#[reverse]
fn skip_by_position(x: &[f64]) -> f64 {
    let k = x.iter().position(|v| v.abs() > 0.7).unwrap_or(0);
    x.iter().skip(k).map(|v| v.sin()).sum::<f64>() + x.iter().take(k).product::<f64>()
}

#[forward]
#[reverse]
fn filter_skip_capturing(x: &[f64]) -> f64 {
    let m = x[0] * 0.5;
    x.iter()
        .skip(1)
        .filter(|v| **v > m)
        .map(|v| v * m)
        .sum::<f64>()
        + m
}

#[forward]
#[reverse]
fn all_in_while(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut rounds = 0;
    while !v.iter().all(|a| a.abs() < 0.5) && rounds < 5 {
        for e in v.iter_mut() {
            *e *= 0.8;
        }
        rounds += 1;
    }
    v.iter().map(|a| a.exp()).sum()
}

#[forward]
#[reverse]
fn any_over_windows_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, w) in x.windows(3).enumerate() {
        if w.iter().any(|v| *v > 1.0) {
            s += w[1] * (i as f64);
        } else {
            s -= w.iter().map(|v| v * v).sum::<f64>();
        }
    }
    s
}

#[forward]
#[reverse]
fn count_chunks_all(x: &[f64]) -> f64 {
    let good = x.chunks(2).filter(|c| c.iter().all(|v| *v > -0.5)).count();
    let mut s = 0.0;
    for c in x.chunks(2) {
        if c.iter().all(|v| *v > -0.5) {
            s += c.iter().sum::<f64>() * good as f64;
        }
    }
    s
}

// ===== numerical shapes =====

/// Total variation, smoothed.
#[forward]
#[reverse]
fn smooth_tv(x: &[f64]) -> f64 {
    x.windows(2)
        .map(|w| ((w[1] - w[0]).powi(2) + 1e-2).sqrt())
        .sum()
}

/// A 3-point moving average collected, then its energy against the tail.
#[forward]
#[reverse]
fn moving_average_energy(x: &[f64]) -> f64 {
    let avg: Vec<f64> = x.windows(3).map(|w| (w[0] + w[1] + w[2]) / 3.0).collect();
    let mut e = 0.0;
    for (a, v) in avg.iter().zip(x[2..].iter()) {
        e += (a - v).powi(2);
    }
    e
}

/// Pairwise (x, y) points stored interleaved: polygon-like area.
#[forward]
#[reverse]
fn interleaved_area(x: &[f64]) -> f64 {
    let mut a = 0.0;
    for (p, q) in x.chunks_exact(2).zip(x.chunks_exact(2).skip(1)) {
        a += p[0] * q[1] - q[0] * p[1];
    }
    0.5 * a
}

/// Backward substitution in a bidiagonal system.
#[forward]
#[reverse]
fn bidiagonal_back_substitution(x: &[f64]) -> f64 {
    let n = x.len();
    let mut y = vec![0.0; n];
    let mut next = 0.0;
    for (i, e) in y.iter_mut().enumerate().rev() {
        *e = (x[i] - 0.3 * next) / (2.0 + x[i].cos());
        next = *e;
    }
    y.iter().zip(x.iter()).map(|(a, b)| a * b).sum()
}

/// Horner on the reversed odd coefficients.
#[forward]
#[reverse]
fn horner_odd(x: &[f64]) -> f64 {
    let t = 0.7;
    let mut s = 0.0;
    for c in x.iter().skip(1).step_by(2).rev() {
        s = s * t + c;
    }
    s * x.first().copied().unwrap()
}

/// Softmax cross-entropy against the last index, max-shifted.
#[forward]
#[reverse]
fn softmax_last(x: &[f64]) -> f64 {
    let m = *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    let z: f64 = x.iter().map(|v| (v - m).exp()).sum();
    let last = *x.last().unwrap();
    z.ln() + m - last
}

// ===== batch 2: ties, shadowing, items passed on, nested containers =====

/// `max_by` on a comparison with ties (by floor): the last of the greatest, as `std` picks.
#[forward]
#[reverse]
fn max_by_floor_ties(x: &[f64]) -> f64 {
    let m = *x
        .iter()
        .max_by(|a, b| a.floor().partial_cmp(&b.floor()).unwrap())
        .unwrap();
    m * m + m.sin()
}

/// `min_by` with ties, enumerated: the first of the least.
#[forward]
#[reverse]
fn min_by_floor_ties_enumerate(x: &[f64]) -> f64 {
    let (k, v) = x
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.floor().partial_cmp(&b.1.floor()).unwrap())
        .unwrap();
    v * (k as f64 + 1.0) + x[k].exp()
}

/// `max_by` with the comparison reversed: the last of the least (by floor).
#[forward]
#[reverse]
fn max_by_reversed_floor(x: &[f64]) -> f64 {
    let m = x
        .iter()
        .copied()
        .max_by(|a, b| b.floor().partial_cmp(&a.floor()).unwrap())
        .unwrap();
    m.exp() + m * x[0]
}

/// `min_by` with ties on a local `Vec`, then the local written.
#[forward]
#[reverse]
fn min_by_ties_local(x: &[f64]) -> f64 {
    let mut y: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    let lo = *y
        .iter()
        .min_by(|a, b| a.round().total_cmp(&b.round()))
        .unwrap();
    y[0] = lo * y[0];
    y.iter().sum::<f64>() + lo
}

/// Max pooling: `max_by` of each window.
#[forward]
#[reverse]
fn max_pooling(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(3) {
        s += *w.iter().max_by(|a, b| a.total_cmp(b)).unwrap();
    }
    s
}

/// `min_by` of each chunk (the last one short), kept as a reference.
#[forward]
#[reverse]
fn chunk_min_reference(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(3) {
        let m = c.iter().min_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
        s += m.sin() * c[0] + *m;
    }
    s
}

#[forward]
#[reverse]
fn min_by_sub_slice_expression(x: &[f64]) -> f64 {
    let m = *x[1..].iter().min_by(|a, b| a.total_cmp(b)).unwrap();
    let (k, _) = x[1..]
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap();
    m * x[0] + x[k + 1] * x[k]
}

#[forward]
#[reverse]
fn max_reference_kept(x: &[f64]) -> f64 {
    let m = x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    m.sin() * 2.0 + *m * x[0] + x.last().unwrap().cos() + 2.0 * x.first().unwrap()
}

#[forward]
#[reverse]
fn shadowed_parameter_sub_slice(x: &[f64]) -> f64 {
    let x = &x[1..];
    let x = &x[..x.len() - 1];
    x.iter().map(|v| v * v).sum::<f64>() + x.first().unwrap() * sum_sq(x)
}

#[forward]
#[reverse]
fn shadowed_split_at(x: &[f64]) -> f64 {
    let (x, rest) = x.split_at(2);
    let mut s = x[0] * x[1];
    for (i, r) in rest.iter().enumerate() {
        s += r * x[i % 2];
    }
    s
}

#[forward]
#[reverse]
fn enumerate_sub_slice(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x[1..].iter().enumerate() {
        s += v * x[i].sin();
    }
    s
}

#[forward]
#[reverse]
fn zip_sub_slices_triple(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for ((a, b), c) in x.iter().zip(x[1..].iter()).zip(x[2..].iter()) {
        s += a * b - c * c * a;
    }
    s
}

#[forward]
#[reverse]
fn windows_items_passed(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(3) {
        s += sum_sq(w) * dot2(&w[..2], &w[1..]);
    }
    s
}

#[forward]
#[reverse]
fn chunks_items_passed(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(2) {
        s += (sum_sq(c) + 0.1).sqrt();
    }
    s
}

#[forward]
#[reverse]
fn chained_windows_passed(x: &[f64]) -> f64 {
    x.windows(2).map(|w| dot2(w, w) * w[0]).sum::<f64>()
        + x.chunks(3).map(|c| sum_sq(c)).sum::<f64>()
}

#[forward]
#[reverse]
fn windows_size_from_length(x: &[f64]) -> f64 {
    let k = 1 + x.len() / 3;
    let mut s = 0.0;
    for w in x.windows(k) {
        s += w.iter().product::<f64>();
    }
    for c in x.chunks_exact(k) {
        s += c[k - 1] * c[0];
    }
    s
}

#[forward]
#[reverse]
fn wide_windows(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(4) {
        s += w[0] * w[3] - w[1] * w[2];
    }
    s + x.chunks_exact(4).map(|c| c[3]).sum::<f64>()
}

#[forward]
#[reverse]
fn zip_skip_rev_unequal(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(x.iter().skip(2)).rev() {
        s = s * 0.8 + a * b;
    }
    s
}

#[forward]
#[reverse]
fn bound_from_float(x: &[f64]) -> f64 {
    let k = ((x[0].abs() * 3.0) as usize).min(x.len());
    sum_sq(&x[k..]) + x[..k].iter().sum::<f64>() * x[0]
}

#[forward]
#[reverse]
fn shrinking_slice_var(x: &[f64]) -> f64 {
    let mut t = &x[..];
    let mut s = 0.0;
    while t.len() > 1 {
        s += t[0] * t[t.len() - 1];
        t = &t[1..t.len() - 1];
    }
    s + t.iter().sum::<f64>()
}

#[forward]
#[reverse]
fn fold_with_path_function(x: &[f64]) -> f64 {
    x.chunks(2)
        .map(|c| c[0] * c[c.len() - 1])
        .fold(-10.0, f64::max)
}

#[forward]
#[reverse]
fn nested_iter_mut_skip_outer(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for i in 0..x.len() {
        for e in v.iter_mut().skip(i) {
            *e += 0.1 * x[i] * *e;
        }
    }
    v.iter().sum()
}

#[forward]
#[reverse]
fn iter_mut_zip_chunks(x: &[f64]) -> f64 {
    let mut v = vec![0.0; (x.len() + 1) / 2];
    for (e, c) in v.iter_mut().zip(x.chunks(2)) {
        *e = c.iter().map(|a| a.sin()).sum::<f64>();
    }
    v.iter().map(|a| a * a).sum::<f64>() + v.iter().product::<f64>()
}

#[forward]
#[reverse]
fn count_inside_windows_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(3) {
        let k = w.iter().filter(|v| **v > 0.0).count();
        s += k as f64 * w[1];
    }
    s
}

#[forward]
#[reverse]
fn any_inside_map_over_windows(x: &[f64]) -> f64 {
    x.windows(3)
        .map(|w| {
            if w.iter().any(|v| *v > 0.5) {
                w[1]
            } else {
                w[0] * w[2]
            }
        })
        .sum()
}

#[forward]
#[reverse]
fn position_in_chunks_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(3) {
        let p = c.iter().position(|v| *v > 0.0).unwrap_or(0);
        s += c[p] * c[p];
    }
    s
}

#[forward]
#[reverse]
fn first_last_of_windows(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(3) {
        s += w.first().unwrap() * w.last().unwrap() + w.get(1).copied().unwrap();
    }
    s
}

#[forward]
#[reverse]
fn chunk_sums_then_rev(x: &[f64]) -> f64 {
    let v: Vec<f64> = x.chunks(2).map(|c| c.iter().sum::<f64>()).collect();
    let mut s = 0.0;
    for (i, a) in v.iter().rev().enumerate() {
        s += (i as f64 + 1.0) * a * a;
    }
    s
}

#[forward]
#[reverse]
fn odd_even_pairs(x: &[f64]) -> f64 {
    x.iter()
        .step_by(2)
        .zip(x.iter().skip(1).step_by(2))
        .map(|(a, b)| a * b)
        .sum()
}

#[forward]
#[reverse]
fn windows_enumerate_skip_step(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, w) in x.windows(2).enumerate().skip(1).step_by(2) {
        s += (i as f64) * w[0] * w[1];
    }
    s
}

#[forward]
#[reverse]
fn local_closure_over_windows(x: &[f64]) -> f64 {
    let k = x.iter().sum::<f64>();
    let f = |a: f64, b: f64| (a - b) * k;
    let mut s = 0.0;
    for w in x.windows(2) {
        s += f(w[0], w[1]);
    }
    s
}

#[forward]
#[reverse]
fn sub_slice_loop_writes_local(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = x.iter().map(|a| a + 1.0).collect();
    let n = v.len();
    for i in 0..n {
        let t = sum_sq(&v[i..]);
        v[i] = t.sqrt() * v[i];
    }
    v.iter().sum()
}

#[forward]
#[reverse]
fn sub_slice_chain_of_local_then_push(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let tail: f64 = v[1..].iter().map(|a| a * a).sum();
    v.push(tail);
    let head: f64 = v[..v.len() - 1].iter().rev().skip(1).map(|a| a.sin()).sum();
    v.push(head * tail);
    v.windows(2).map(|w| w[0] * w[1]).sum()
}

#[forward]
#[reverse]
fn empty_sub_slices(x: &[f64]) -> f64 {
    let n = x.len();
    let e = &x[n..];
    let f = &x[0..0];
    e.iter().sum::<f64>() + f.iter().product::<f64>() * x[0] + sum_sq(&x[n / 2..n / 2])
}

#[forward]
#[reverse]
fn full_range_slice(x: &[f64]) -> f64 {
    let all = &x[..];
    let mut s = 0.0;
    for w in all.windows(2).rev() {
        s = s * w[1] + w[0];
    }
    s
}

#[forward]
#[reverse]
fn split_at_windows_and_pass(x: &[f64]) -> f64 {
    let (h, t) = x.split_at(x.len() / 2);
    let mut s = sum_sq(h);
    for w in t.windows(2) {
        s += w[0] * w[1] * h.len() as f64;
    }
    let (_, last) = t.split_at(t.len() - 1);
    s * last[0]
}

#[forward]
#[reverse]
fn any_all_position_on_local(x: &[f64]) -> f64 {
    let mut y: Vec<f64> = Vec::new();
    for v in x {
        y.push(v.sin());
    }
    let p = y.iter().rev().position(|v| *v > 0.2).unwrap_or(0);
    let neg = y.iter().skip(1).any(|v| *v < -0.5);
    let small = y.iter().step_by(2).all(|v| v.abs() < 0.9);
    let mut s = y[y.len() - 1 - p] * 2.0;
    if neg {
        s += y.iter().sum::<f64>();
    }
    if small {
        s *= y[0];
    }
    s
}

/// Two slices, one read by windows, the other zipped with it.
#[forward]
#[reverse]
fn weighted_steps(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, d) in w.iter().zip(x.windows(2)) {
        s += a * (d[1] - d[0]).powi(2);
    }
    s + dot2(&w[1..], &x[..x.len() - 1])
}

/// A data slice read by windows beside the active one.
#[forward]
#[reverse]
fn data_windows(x: &[f64], #[no_grad] data: &[f64]) -> f64 {
    let mut s = 0.0;
    for (v, d) in x.iter().rev().zip(data.windows(2)) {
        s += v * (d[1] - d[0]) + v * v;
    }
    s
}

/// Rows of a nested container, by windows and sub-slices.
#[forward]
#[reverse]
fn rows_windows(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for row in m.iter().rev() {
        for w in row.windows(2) {
            s += w[0] * w[1];
        }
        s += sum_sq(&row[1..]);
    }
    for (i, row) in m.iter().enumerate().skip(1) {
        s += row.iter().step_by(2).map(|v| v * m[i - 1][0]).sum::<f64>();
    }
    s
}

#[derive(Clone, Debug, PartialEq, ad_runtime::Differentiable)]
pub struct Series {
    pub values: Vec<f64>,
    pub scale: f64,
}

#[forward]
#[reverse]
fn series_roughness(#[grad] p: &Series) -> f64 {
    let mut s = 0.0;
    for w in p.values.windows(2) {
        s += (w[1] - w[0]).powi(2) * p.scale;
    }
    let m = *p
        .values
        .iter()
        .max_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    s + m * sum_sq(&p.values[1..]) + p.values.last().unwrap() * p.scale
}

/// For a Hessian-vector product through `_grad` at dual numbers.
#[forward]
#[reverse]
fn hvp_windows(x: &[f64]) -> f64 {
    let m = *x.iter().max_by(|a, b| a.total_cmp(b)).unwrap();
    let mut s = 0.0;
    for (i, w) in x.windows(2).rev().enumerate() {
        s += (i as f64 + 1.0) * w[0] * w[1].sin();
    }
    s * m + sum_sq(&x[1..]) * x[0]
}

#[forward]
#[reverse]
fn generic_windows<T: num_traits::Float>(x: &[T]) -> T {
    let mut s = T::zero();
    for w in x.windows(2).rev() {
        s = s + (w[1] - w[0]).powi(2);
    }
    for c in x.chunks(2) {
        s = s + c[0] * c[c.len() - 1];
    }
    let m = *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    s * m
        + x.iter()
            .skip(1)
            .step_by(2)
            .fold(T::zero(), |a, &v| a + v * v)
}

// ===== batch 3: data chosen inside loops, loops of loops =====

/// `max_by` in a loop over a `Vec` the loop changes: each round's selection.
#[forward]
#[reverse]
fn max_by_each_round(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut s = 0.0;
    for _ in 0..3 {
        let m = *v.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
        s += m * m;
        for e in v.iter_mut() {
            *e = (*e - 0.7 * m).sin();
        }
    }
    s + v.iter().sum::<f64>()
}

/// Argmax with its index in a loop, the element at it rewritten.
#[forward]
#[reverse]
fn argmax_each_round(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for _ in 0..3 {
        let (k, _) = v
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap();
        v[k] = v[k] * 0.3 - v[0] * 0.1;
    }
    v.iter().map(|a| a * a).sum()
}

/// `position` in a loop, feeding an index that is written.
#[forward]
#[reverse]
fn position_each_round(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for r in 0..4 {
        let p = v.iter().position(|a| *a > 0.1 * r as f64).unwrap_or(0);
        v[p] = v[p] * v[p] - 0.5;
    }
    v.iter().sum::<f64>() + v.iter().product::<f64>()
}

/// `any` in a loop deciding a branch, rounds of damping.
#[forward]
#[reverse]
fn any_each_round(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut s = 0.0;
    for _ in 0..4 {
        if v.iter().any(|a| a.abs() > 0.8) {
            for e in v.iter_mut().rev() {
                *e *= 0.9;
            }
        } else {
            s += v.iter().map(|a| a * a).sum::<f64>();
        }
        let c = v.iter().filter(|a| **a > 0.0).count();
        s += c as f64 * v[0];
    }
    s
}

/// Rounds of smoothing by windows of the last round's values.
#[forward]
#[reverse]
fn smoothing_rounds(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for _ in 0..3 {
        let mut next = v.clone();
        for (i, w) in v.windows(3).enumerate() {
            next[i + 1] = 0.25 * w[0] + 0.5 * w[1].sin() + 0.25 * w[2];
        }
        v = next;
    }
    v.iter().map(|a| a * a).sum()
}

/// `skip(i)` and `step_by(i + 1)` that change from round to round.
#[forward]
#[reverse]
fn adapters_changing_per_round(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for v in x.iter().skip(i).step_by(i + 1) {
            s += v * x[i];
        }
        for w in x.windows(i + 1).rev().take(2) {
            s += w[0] * w[w.len() - 1] * 0.5;
        }
    }
    s
}

/// Rounds of chunked updates through `iter_mut` zipped with chunks of another local.
#[forward]
#[reverse]
fn chunked_rounds(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut w = vec![0.0; (x.len() + 1) / 2];
    for _ in 0..2 {
        for (e, c) in w.iter_mut().zip(v.chunks(2)) {
            *e = *e * 0.5 + c.iter().product::<f64>();
        }
        for (i, e) in v.iter_mut().enumerate().rev() {
            *e += w[i / 2] * 0.3;
        }
    }
    v.iter().sum::<f64>() + w.iter().sum::<f64>()
}

/// A labeled break out of a loop over windows from a loop over chunks.
#[forward]
#[reverse]
fn labeled_break(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'outer: for w in x.windows(2) {
        for c in x.chunks(2).rev() {
            if c[0] * w[1] > 1.0 {
                break 'outer;
            }
            if c[c.len() - 1] < -1.0 {
                continue 'outer;
            }
            s += c[0] * w[0];
        }
    }
    s
}

/// An early `return` from inside a loop over windows.
#[forward]
#[reverse]
fn early_return_windows(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, w) in x.windows(2).enumerate().rev() {
        if w[0] * w[1] < -0.8 {
            return s * w[0] + i as f64;
        }
        s += w[1].exp();
    }
    s
}

/// Two `iter_mut`s zipped: updates that read both elements.
#[forward]
#[reverse]
fn two_iter_muts(x: &[f64]) -> f64 {
    let mut u = x.to_vec();
    let mut v: Vec<f64> = x.iter().map(|a| a.cos()).collect();
    for (a, b) in u.iter_mut().zip(v.iter_mut().rev()) {
        let t = *a;
        *a = *b * t;
        *b = t + *b;
    }
    u.iter().zip(v.iter()).map(|(p, q)| p * q).sum::<f64>() + u.iter().sum::<f64>()
}

/// Rows changed through nested `iter_mut`.
#[forward]
#[reverse]
fn rows_iter_mut(x: &[f64]) -> f64 {
    let mut m: Vec<Vec<f64>> = x.chunks(2).map(|c| c.to_vec()).collect();
    for row in m.iter_mut() {
        for e in row.iter_mut().rev() {
            *e = *e * 2.0 - 0.1;
        }
    }
    for row in &mut m {
        row[0] = row[0] * row[row.len() - 1];
    }
    let mut s = 0.0;
    for row in m.iter().rev() {
        s = s * 0.5 + sum_sq(row);
    }
    s
}

/// Tuple patterns with references inside, `mut` bindings of copies.
#[forward]
#[reverse]
fn reference_patterns(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().enumerate().rev() {
        s += v * (i as f64 + 1.0);
    }
    for (&a, &b) in x.iter().zip(x.iter().skip(1)) {
        s += a * b;
    }
    for mut v in x.iter().copied().rev().step_by(2) {
        v *= 2.0;
        s += v * v;
    }
    s
}

/// A window's sub-slice shadowing it.
#[forward]
#[reverse]
fn window_sub_slice_shadow(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(3) {
        let w = &w[1..];
        s += w[0] * w[1];
        let (a, b) = w.split_at(1);
        s += a[0] - b[0] * b[0];
    }
    s
}

/// Argmax per chunk, with its index.
#[forward]
#[reverse]
fn argmax_pooling(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(3) {
        let (k, m) = c
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
            .unwrap();
        s += m * c[k] + (k as f64) * c[0];
    }
    s
}

/// A chunk size changed in the loop body (the iterator was made with the first one).
#[forward]
#[reverse]
fn chunk_size_changed_in_body(x: &[f64]) -> f64 {
    let mut k = 2;
    let mut s = 0.0;
    for c in x.chunks(k) {
        k += 1;
        s += c.iter().sum::<f64>() * (c.len() + k) as f64;
    }
    for v in x.iter().skip(k - 2) {
        k += 1;
        s += v * k as f64;
    }
    s
}

/// A callee that returns a `Vec`, called on sub-slices.
#[forward]
#[reverse]
fn steps_of(x: &[f64]) -> Vec<f64> {
    x.windows(2).map(|w| w[1] - w[0]).collect()
}

#[forward]
#[reverse]
fn steps_of_sub_slices(x: &[f64]) -> f64 {
    let a = steps_of(&x[1..]);
    let b = steps_of(&x[..x.len() - 1]);
    a.iter().zip(b.iter()).map(|(p, q)| p * q).sum::<f64>() + sum_sq(&a)
}

/// A callee using windows, `max_by` and a local copy, called on sub-slices of a local.
#[forward]
#[reverse]
fn peaky(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let m = *v.iter().max_by(|a, b| a.total_cmp(b)).unwrap();
    for e in v.iter_mut() {
        *e -= m;
    }
    v.windows(2).map(|w| w[0] * w[1]).sum::<f64>() + m
}

#[forward]
#[reverse]
fn peaky_sub_slices(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = x.iter().map(|a| a * 1.3).collect();
    let p = peaky(&v[1..]);
    v[0] *= p;
    peaky(&v[..v.len() - 1]) * p + peaky(&x[..1])
}

#[forward]
#[reverse]
fn long_chain(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, (a, b)) in x
        .iter()
        .rev()
        .skip(1)
        .zip(x.iter())
        .enumerate()
        .step_by(2)
        .rev()
    {
        s = s * 0.9 + (i as f64 + 1.0) * a * b;
    }
    for (w, c) in x.windows(2).zip(x.chunks(2)).rev() {
        s += w[0] * c[c.len() - 1];
    }
    s
}

// ===== batch 4: chains over ranges, positions as options, other container types =====

/// `len` of an iterator of sub-slices.
#[forward]
#[reverse]
fn chunk_count_len(x: &[f64]) -> f64 {
    x.chunks(3).len() as f64 * x.iter().sum::<f64>() + x.windows(2).len() as f64 * x[0]
}

#[forward]
#[reverse]
fn range_chain_sub_slices(x: &[f64]) -> f64 {
    (0..x.len()).map(|i| sum_sq(&x[i..])).sum::<f64>()
        + (0..x.len())
            .map(|i| x[i..].iter().sum::<f64>() * x[i])
            .sum::<f64>()
}

#[forward]
#[reverse]
fn if_let_position(x: &[f64]) -> f64 {
    let mut s = 0.0;
    if let Some(p) = x.iter().position(|v| *v > 0.0) {
        s += x[p] * x[p];
    } else {
        s += x[0] * 2.0;
    }
    match x.iter().skip(1).position(|v| *v < 0.0) {
        Some(q) => s + x[q + 1].sin(),
        None => s,
    }
}

#[forward]
#[reverse]
fn min_by_reference_patterns(x: &[f64]) -> f64 {
    let lo = *x.iter().min_by(|&a, &b| a.total_cmp(b)).unwrap();
    let hi = x.iter().copied().max_by(|&a, &b| a.total_cmp(&b)).unwrap();
    (hi - lo) * x[0] + lo * lo
}

#[forward]
#[reverse]
fn total_cmp_branch(x: &[f64]) -> f64 {
    if x[0].total_cmp(&x[1]) == std::cmp::Ordering::Less {
        x[0] * x[1]
    } else {
        x[1] * 2.0
    }
}

#[forward]
#[reverse]
fn enumerate_any_position(x: &[f64]) -> f64 {
    let early = x.iter().enumerate().any(|(i, v)| *v > i as f64 * 0.3);
    let k = x
        .iter()
        .enumerate()
        .position(|(i, v)| *v > 0.0 && i > 0)
        .unwrap_or(0);
    let up = x.iter().zip(x.iter().skip(1)).all(|(a, b)| a < b);
    let c = x
        .iter()
        .zip(x.iter().skip(1))
        .filter(|(a, b)| a < b)
        .count();
    let mut s = x[k] * (c as f64 + 1.0);
    if early {
        s += x[0];
    }
    if up {
        s *= 2.0;
    }
    s
}

#[forward]
#[reverse]
fn enumerate_windows_chain(x: &[f64]) -> f64 {
    x.windows(2)
        .enumerate()
        .map(|(i, w)| (i as f64 + 1.0) * w[0] * w[1])
        .sum::<f64>()
        + x.iter()
            .zip(x.windows(2))
            .map(|(a, w)| a * (w[1] - w[0]))
            .sum::<f64>()
}

#[forward]
#[reverse]
fn sub_slice_to_vec(x: &[f64]) -> f64 {
    let t: Vec<f64> = x[1..].to_vec();
    let mut u = x[..2].to_vec();
    u[0] *= t[0];
    u[0] + u[1] * t.iter().sum::<f64>()
}

#[forward]
#[reverse]
fn rev_reductions(x: &[f64]) -> f64 {
    x.iter().rev().sum::<f64>()
        + x.iter().rev().copied().product::<f64>()
        + x.iter().rev().skip(1).step_by(2).sum::<f64>()
}

#[forward]
#[reverse]
fn temporaries_methods(x: &[f64]) -> f64 {
    x.len().saturating_sub(2) as f64 * x.iter().count().max(1) as f64 * x[0]
        + x.iter().skip(1).count() as f64
}

#[forward]
#[reverse]
fn array_windows(x: &[f64; 4]) -> f64 {
    x.windows(2).map(|w| w[0] * w[1]).sum::<f64>()
        + sum_sq(&x[1..])
        + x.iter().rev().step_by(2).sum::<f64>()
        + *x.iter().max_by(|a, b| a.total_cmp(b)).unwrap()
}

#[forward]
#[reverse]
fn owned_vec_rev(x: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for v in x.iter().rev().skip(1) {
        s = s * 0.5 + v;
    }
    s + sum_sq(&x[1..]) + x.windows(2).map(|w| w[0] - w[1]).sum::<f64>()
}

#[forward]
#[reverse]
fn vec_reference_chunks(x: &Vec<f64>) -> f64 {
    x.chunks(2).map(|c| c[0] * c[c.len() - 1]).sum::<f64>() + *x.last().unwrap()
}

#[forward]
#[reverse]
fn nested_row_iter_mut(x: &[f64]) -> f64 {
    let mut m: Vec<Vec<f64>> = vec![x.to_vec(), x.iter().map(|a| a * a).collect()];
    let first = m[0][0];
    for e in m[1].iter_mut().skip(1) {
        *e *= first;
    }
    for e in m[0].iter_mut().rev() {
        *e = e.sin();
    }
    sum_sq(&m[1][1..]) + m[0][0] + m[1].windows(2).map(|w| w[0] * w[1]).sum::<f64>()
}

#[forward]
#[reverse]
fn small_f32(x: &[f32]) -> f32 {
    x.windows(2).map(|w| w[0] * w[1]).sum::<f32>()
        + *x.iter().max_by(|a, b| a.total_cmp(b)).unwrap()
        + x[1..].iter().rev().step_by(2).map(|v| v.sin()).sum::<f32>()
}

// ===== batch 5: sub-slices as values, zips of locals, three levels =====

#[forward]
#[reverse]
fn zip_with_reference_to_local(x: &[f64]) -> f64 {
    let v: Vec<f64> = x.iter().map(|a| a.exp()).collect();
    let mut s = 0.0;
    for (a, b) in x.iter().zip(&v) {
        s += a * b;
    }
    for (a, b) in x.iter().zip(v.iter().copied().rev()) {
        s += a - b * a;
    }
    s
}

#[forward]
#[reverse]
fn sub_slice_chosen_by_if(x: &[f64]) -> f64 {
    let t = if x[0] > 0.0 { &x[1..] } else { &x[..2] };
    t[0] * t[1] + sum_sq(t)
}

#[forward]
#[reverse]
fn sub_slice_copied_binding(x: &[f64]) -> f64 {
    let a = &x[1..];
    let b = a;
    b[0] * a[1] + sum_sq(b)
}

#[forward]
#[reverse]
fn array_of_sub_slices(x: &[f64]) -> f64 {
    let parts = [&x[..2], &x[2..]];
    parts[0][1] * parts[1][0] + parts[1].iter().sum::<f64>()
}

#[forward]
#[reverse]
fn position_after_filter(x: &[f64]) -> f64 {
    let p = x
        .iter()
        .filter(|v| **v > -0.5)
        .position(|v| *v > 0.5)
        .unwrap_or(0);
    x[p] * x[p] + x[0]
}

#[forward]
#[reverse]
fn iter_mut_skip_zip_windows_rev(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for (e, w) in v.iter_mut().skip(1).zip(x.windows(2).rev()) {
        *e *= w[0] - w[1];
    }
    v.iter().map(|a| a.sin()).sum()
}

#[forward]
#[reverse]
fn match_on_length(x: &[f64]) -> f64 {
    match x.len() {
        0 => 0.0,
        1 => x[0],
        _ => sum_sq(&x[x.len() - 2..]) * x[0],
    }
}

#[forward]
#[reverse]
fn window_array_binding(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        let [a, b] = [w[0], w[1]];
        s += a * b;
    }
    s
}

#[forward]
#[reverse]
fn rev_map_fold(x: &[f64]) -> f64 {
    x.iter()
        .rev()
        .map(|v| v * 2.0)
        .fold(0.0, |a, b| a * 0.5 + b)
        + x.iter().skip(1).copied().fold(-10.0, f64::max)
}

#[forward]
#[reverse]
fn iter_mut_continue_return(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for e in v.iter_mut().rev() {
        if *e < 0.0 {
            continue;
        }
        *e = (*e + 0.1).sqrt();
    }
    for (i, e) in v.iter_mut().enumerate().step_by(2) {
        *e = *e * x[i];
        if *e > 1.0 {
            return v.iter().sum::<f64>() * 2.0;
        }
    }
    v.iter().sum()
}

#[forward]
#[reverse]
fn three_levels(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(3) {
        for w in c.windows(2).rev() {
            for v in w.iter().skip(1) {
                s += v * w[0] * c[0];
            }
        }
    }
    s
}

#[forward]
#[reverse]
fn inner_windows_of_outer_tail(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let t = &x[i..];
        for w in t.windows(2) {
            s += w[0] * w[1] * (i as f64 + 1.0);
        }
        s += t.iter().rev().step_by(2).map(|v| v.cos()).sum::<f64>();
    }
    s
}

#[forward]
#[reverse]
fn enumerate_iter_mut_index_other(x: &[f64]) -> f64 {
    let mut v = vec![0.0; x.len()];
    for (i, e) in v.iter_mut().enumerate().rev() {
        *e = x[i] * x[x.len() - 1 - i];
    }
    let mut u = v.clone();
    for (i, e) in u.iter_mut().enumerate().skip(1) {
        *e += v[i - 1] * *e;
    }
    u.iter().sum()
}

// ===== batch 6: sub-slices across calls: data, aliasing, recursion =====

#[forward]
#[reverse]
fn sub_slices_with_constant_data(x: &[f64]) -> f64 {
    let n = x.len();
    let w = vec![0.3, -1.1, 0.7, 2.0, -0.4, 1.5, 0.9, -0.8, 0.25];
    dot2(&x[1..], &w[..n - 1]) + dot2(&w[2..n + 1], x) * x[0]
}

#[forward]
#[reverse]
fn same_sub_slice_twice(x: &[f64]) -> f64 {
    dot2(&x[1..], &x[1..]) + dot2(&x[..x.len() - 1], &x[1..]) * dot2(x, x)
}

#[forward]
#[reverse]
fn inner_of_inner(x: &[f64]) -> f64 {
    tail_energy(&x[1..]) * x[0] + tail_energy(x)
}

#[forward]
#[reverse]
fn tail_energy(x: &[f64]) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    sum_sq(&x[1..]) + x[0] * dot2(&x[..x.len() / 2], &x[x.len() - x.len() / 2..])
}

#[forward]
#[reverse]
fn recursive_tail(x: &[f64]) -> f64 {
    if x.is_empty() {
        0.0
    } else {
        x[0] * x[0] + 0.5 * recursive_tail(&x[1..]).sin()
    }
}

#[forward]
#[reverse]
fn recursive_halves(x: &[f64]) -> f64 {
    if x.len() <= 2 {
        x.iter().map(|v| v + 1.5).product::<f64>()
    } else {
        let (a, b) = x.split_at(x.len() / 2);
        recursive_halves(a) * 0.5 + recursive_halves(b).tanh()
    }
}

#[forward]
#[reverse]
fn data_local_sub_slices(x: &[f64]) -> f64 {
    let d: Vec<f64> = (0..x.len()).map(|i| i as f64 * 0.5 - 1.0).collect();
    let mut s = 0.0;
    for (w, e) in d.windows(2).zip(x.iter().rev()) {
        s += e * (w[1] + w[0]) * e;
    }
    s + dot2(&d[1..], &x[..x.len() - 1]) + d[..1].iter().sum::<f64>() * x[0]
}

// ===== batch 7: comparison closures as people write them, growth by windows =====

#[forward]
#[reverse]
fn max_by_unwrap_or_equal(x: &[f64]) -> f64 {
    let m = *x
        .iter()
        .max_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal))
        .unwrap();
    m * x[0] + m.exp()
}

#[forward]
#[reverse]
fn max_by_tuple_patterns(x: &[f64]) -> f64 {
    let (i, v) = x
        .iter()
        .enumerate()
        .max_by(|(_, a), (_, b)| a.total_cmp(b))
        .unwrap();
    v * i as f64 + x[i] * x[0]
}

#[forward]
#[reverse]
fn copied_enumerate_max_by(x: &[f64]) -> f64 {
    let (i, v) = x
        .iter()
        .copied()
        .enumerate()
        .max_by(|a, b| a.1.floor().total_cmp(&b.1.floor()))
        .unwrap();
    v * x[i] + v.sin()
}

#[forward]
#[reverse]
fn typed_compare_closure(x: &[f64]) -> f64 {
    *x.iter()
        .max_by(|a: &&f64, b: &&f64| a.total_cmp(b))
        .unwrap()
        * x.iter().sum::<f64>()
}

#[forward]
#[reverse]
fn arg_min_and_max(x: &[f64]) -> f64 {
    let (i, _) = x
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.round().total_cmp(&b.1.round()))
        .unwrap();
    let (j, _) = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.round().total_cmp(&b.1.round()))
        .unwrap();
    x[i] * x[j] + (i as f64) - (j as f64) * x[0]
}

#[forward]
#[reverse]
fn grown_by_windows(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for _ in 0..3 {
        let t: f64 = v.windows(2).map(|w| w[0] * w[1]).sum();
        v.push(t * 0.1);
    }
    v.iter().sum()
}

#[forward]
#[reverse]
fn collect_turbofish_zip_skip(x: &[f64]) -> f64 {
    let v = x
        .iter()
        .zip(x.iter().skip(1))
        .map(|(a, b)| a * b)
        .collect::<Vec<f64>>();
    v.iter().sum::<f64>() + v.iter().rev().step_by(2).map(|a| a * a).sum::<f64>()
}

// ===== batch 8: inside checkpointed loops =====

macro_rules! heat_windows {
    ($name:ident $(, #[$schedule:meta])?) => {
        #[forward]
        #[reverse]
        fn $name(x: &[f64]) -> f64 {
            let mut u = x.to_vec();
            let steps = 5;
            $(#[$schedule])?
            for _ in 0..steps {
                let mut next = u.clone();
                for (i, w) in u.windows(3).enumerate() {
                    next[i + 1] = w[1] + 0.2 * (w[0] - 2.0 * w[1] + w[2]) + 0.05 * w[1].sin();
                }
                for (e, v) in u.iter_mut().zip(next.iter()).rev() {
                    *e = 0.5 * *e + 0.5 * v;
                }
                let m = *u.iter().max_by(|a, b| a.total_cmp(b)).unwrap();
                for e in u.iter_mut().step_by(2) {
                    *e -= 0.1 * m;
                }
            }
            u.iter().map(|a| a * a).sum::<f64>() + sum_sq(&u[1..])
        }
    };
}

heat_windows!(heat_windows_unchecked);
heat_windows!(heat_windows_every, #[checkpoint(every = 2)]);
heat_windows!(heat_windows_binomial, #[checkpoint(binomial, snapshots = 2)]);

// ===== batch 9: other element types and owners =====

#[forward]
#[reverse]
fn owned_mut_param_iter_mut(mut x: Vec<f64>) -> f64 {
    for e in x.iter_mut().rev() {
        *e *= 2.0 + *e;
    }
    x.windows(2).map(|w| w[0] * w[1]).sum()
}

#[forward]
#[reverse]
fn reference_to_local(x: &[f64]) -> f64 {
    let v: Vec<f64> = x.iter().map(|a| a.sin()).collect();
    let r = &v;
    let mut s = 0.0;
    for w in r.windows(2) {
        s += w[0] * w[1];
    }
    s + r.iter().rev().sum::<f64>() + sum_sq(&r[1..])
}

#[forward]
#[reverse]
fn local_array_iterated(x: &[f64]) -> f64 {
    let a = [x[0], x[1] * x[0], x[2]];
    let mut s = 0.0;
    for v in a.iter().rev() {
        s = s * 0.5 + v;
    }
    for w in a.windows(2) {
        s += w[0] * w[1];
    }
    let mut b = [0.0; 4];
    for (e, v) in b.iter_mut().zip(x.iter().rev()) {
        *e = v * v;
    }
    s + sum_sq(&a[1..]) + b.iter().sum::<f64>()
}

/// Polyline length, points built by `collect` and by `push`.
#[forward]
#[reverse]
fn polyline_length(x: &[f64]) -> f64 {
    let pts: Vec<[f64; 2]> = x.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
    let mut again: Vec<[f64; 2]> = Vec::new();
    for c in x.chunks_exact(2).rev() {
        again.push([c[1], c[0]]);
    }
    let mut s = 0.0;
    for w in again.windows(2) {
        s += ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2) + 0.01).sqrt();
    }
    s + pts
        .windows(2)
        .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2) + 0.01).sqrt())
        .sum::<f64>()
}

#[forward]
#[reverse]
fn tuple_windows(x: &[f64]) -> f64 {
    let pairs: Vec<(f64, f64)> = x
        .iter()
        .zip(x.iter().skip(1))
        .map(|(a, b)| (*a, *b))
        .collect();
    let mut s = 0.0;
    for w in pairs.windows(2) {
        s += w[0].0 * w[1].1;
    }
    for p in pairs.iter().rev().step_by(2) {
        s += p.0 - p.1 * p.0;
    }
    s
}

#[forward]
#[reverse]
fn point_windows(pts: &[[f64; 2]]) -> f64 {
    pts.windows(2)
        .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
        .sum::<f64>()
        + pts.iter().rev().map(|p| p[0] * p[1]).sum::<f64>()
        + pts[1..].iter().map(|p| p[1]).sum::<f64>()
}

// ===== batch 10: sub-slices as the items of stages =====

#[forward]
#[reverse]
fn filtered_windows_any_position(x: &[f64]) -> f64 {
    let mut s = x[0];
    if x.windows(2).filter(|w| w[0] > 0.0).any(|w| w[1] > 0.5) {
        s *= 2.0;
    }
    let p = x
        .windows(2)
        .filter(|w| w[0] > -1.0)
        .position(|w| w[1] > 0.5)
        .unwrap_or(0);
    s + x[p] * x[p]
}

#[forward]
#[reverse]
fn filtered_chunks_fold(x: &[f64]) -> f64 {
    x.chunks(2)
        .filter(|c| c.len() == 2)
        .fold(0.0, |acc, c| acc * 0.5 + c[0] * c[1])
        + x.windows(2)
            .filter(|w| w[0] < w[1])
            .map(|w| w[1])
            .sum::<f64>()
        + x.windows(2).filter(|w| w[0] < w[1]).count() as f64 * x[0]
}

#[forward]
#[reverse]
fn map_to_sub_slice(x: &[f64]) -> f64 {
    x.windows(3).map(|w| &w[1..]).map(|t| t[0] * t[1]).sum()
}

#[forward]
#[reverse]
fn collected_chunks(x: &[f64]) -> f64 {
    let cs: Vec<&[f64]> = x.chunks(2).map(|c| c).collect();
    let mut s = 0.0;
    for c in cs.iter() {
        s += c[0] * c[c.len() - 1];
    }
    s
}

#[forward]
#[reverse]
fn collected_windows(x: &[f64]) -> f64 {
    let ws: Vec<&[f64]> = x.windows(2).map(|w| &w[..]).collect();
    ws[0][0] * ws[ws.len() - 1][1] + ws.len() as f64
}

// ===== batch 11: rows through `iter_mut` =====

/// Softmax of each chunk, rows normalized through `&mut` loops.
#[forward]
#[reverse]
fn rows_normalized(x: &[f64]) -> f64 {
    let mut m: Vec<Vec<f64>> = x
        .chunks(2)
        .map(|c| c.iter().map(|v| v.exp()).collect())
        .collect();
    for row in &mut m {
        let s: f64 = row.iter().sum();
        for e in row.iter_mut() {
            *e /= s;
        }
    }
    m.iter().map(|r| r[0] * r[r.len() - 1]).sum()
}

#[forward]
#[reverse]
fn rows_pushed_through_iter_mut(x: &[f64]) -> f64 {
    let mut m: Vec<Vec<f64>> = x.chunks(2).map(|c| c.to_vec()).collect();
    for row in m.iter_mut().skip(1) {
        row[0] *= 2.0;
        let t = row[0] * row[0];
        row.push(t);
    }
    let mut s = 0.0;
    for row in m.iter().rev() {
        for w in row.windows(2) {
            s += w[0] * w[1];
        }
    }
    s
}

#[forward]
#[reverse]
fn iter_mut_adapters_break_continue(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for e in v.iter_mut().rev().skip(1) {
        *e = *e * *e + 0.1;
        if *e > 1.0 {
            break;
        }
    }
    for (i, e) in v.iter_mut().enumerate().step_by(2).rev() {
        if i == 2 {
            continue;
        }
        *e = e.sin() * x[i];
    }
    v.iter().sum()
}

#[forward]
#[reverse]
fn rows_enumerated_iter_mut(x: &[f64]) -> f64 {
    let mut m: Vec<Vec<f64>> = vec![x.to_vec(); 3];
    for (k, row) in m.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate().rev() {
            *e = *e * (k + j) as f64 + 0.5 * *e * *e;
        }
    }
    let mut s = 0.0;
    for (a, b) in m[0].iter().zip(m[2].iter().rev()) {
        s += a * b;
    }
    s + m[1].iter().sum::<f64>()
}

// ===== batch 12: generic functions, panics =====

#[forward]
#[reverse]
fn generic_energy<T: num_traits::Float>(x: &[T]) -> T {
    x.iter().fold(T::zero(), |s, &v| s + v * v)
}

#[forward]
#[reverse]
fn generic_sub_slices<T: num_traits::Float>(x: &[T]) -> T {
    let mut v = x.to_vec();
    for e in v.iter_mut().rev().step_by(2) {
        *e = *e * *e;
    }
    let (h, t) = v.split_at(v.len() / 2);
    let first = *x.first().unwrap();
    generic_energy(&x[1..]) * first
        + generic_energy(h)
        + generic_energy(t).sqrt()
        + *v.last().unwrap()
}

/// `x.windows(k)` with `k == 0` panics ("window size must be non-zero").
#[forward]
#[reverse]
fn zero_width_windows(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for w in x.windows(k) {
        s += w.iter().sum::<f64>() + x[0];
    }
    s
}

/// `&x[k..]` with `k > x.len()` panics where it is written, used or not.
#[forward]
#[reverse]
fn sub_slice_out_of_range_unused(x: &[f64], k: usize) -> f64 {
    let t = &x[k..];
    if x[0] > 0.0 {
        t[0]
    } else {
        x[0]
    }
}

// ===== batch 13: bisection on sub-slices, loops with `get`, closures over windows =====

#[forward]
#[reverse]
fn bisection_on_sub_slices(x: &[f64]) -> f64 {
    let mut lo = 0;
    let mut hi = x.len();
    let mut s = 0.0;
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        let left = sum_sq(&x[lo..mid]);
        let right = sum_sq(&x[mid..hi]);
        s += left * 0.1 + right * 0.2;
        if left > right {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    s + x[lo] * x[lo]
}

#[forward]
#[reverse]
fn loop_with_get(x: &[f64]) -> f64 {
    let mut i = 0;
    let mut s = 0.0;
    loop {
        let v = *x.get(i).unwrap();
        s = s * 0.5 + v * x.get(x.len() - 1 - i).copied().unwrap();
        i += 2;
        if i >= x.len() {
            break;
        }
    }
    s
}

#[forward]
#[reverse]
fn closure_capturing_window(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2).rev() {
        let f = |t: f64| t * w[0] + w[1];
        s = f(s) * 0.5 + f(1.0);
    }
    s
}

// ===== the checks =====

/// `name => jvp, vjp; lengths`.
macro_rules! checked {
    ($($name:ident => $jvp:ident, $vjp:ident; [$($n:expr),*];)*) => {$(
        #[test]
        fn $name() {
            assert_eq!(super::$name::__AD_ENGINE, "ir", stringify!($name));
            for n in [$($n),*] {
                check_slice_function_at_random_points(
                    super::$name,
                    super::$jvp,
                    super::$vjp,
                    n,
                    n as u64 * 131 + 17,
                );
            }
        }
    )*};
}

mod probes {
    use super::check_slice_function_at_random_points;

    checked! {
        nested_windows_local => nested_windows_local_jvp, nested_windows_local_vjp; [0, 1, 2, 3, 4, 7];
        windows_inner_windows => windows_inner_windows_jvp, windows_inner_windows_vjp; [0, 1, 2, 3, 4, 6];
        windows_break => windows_break_jvp, windows_break_vjp; [0, 1, 2, 3, 6, 9];
        windows_continue_enumerate => windows_continue_enumerate_jvp, windows_continue_enumerate_vjp; [0, 2, 3, 4, 5, 8];
        windows_closure_capturing => windows_closure_capturing_jvp, windows_closure_capturing_vjp; [0, 1, 2, 5];
        windows_fold => windows_fold_jvp, windows_fold_vjp; [0, 1, 2, 3, 6];
        windows_rev_enumerate => windows_rev_enumerate_jvp, windows_rev_enumerate_vjp; [0, 1, 2, 3, 6];
        windows_enumerate_rev => windows_enumerate_rev_jvp, windows_enumerate_rev_vjp; [0, 1, 2, 3, 6];
        zip_skip_windows => zip_skip_windows_jvp, zip_skip_windows_vjp; [0, 1, 2, 3, 6];
        zip_two_windows => zip_two_windows_jvp, zip_two_windows_vjp; [0, 1, 2, 3, 4, 7];
        windows_step_by => windows_step_by_jvp, windows_step_by_vjp; [0, 1, 2, 3, 4, 5, 8];
        windows_of_sub_slice => windows_of_sub_slice_jvp, windows_of_sub_slice_vjp; [1, 2, 3, 6];
        differences_collected => differences_collected_jvp, differences_collected_vjp; [1, 2, 3, 4, 7];
        windows_of_local_then_mutated => windows_of_local_then_mutated_jvp, windows_of_local_then_mutated_vjp; [0, 1, 2, 3, 5];
        chunks_short_last => chunks_short_last_jvp, chunks_short_last_vjp; [0, 1, 2, 3, 4, 5, 7];
        chunks_last_element => chunks_last_element_jvp, chunks_last_element_vjp; [0, 1, 2, 3, 5];
        chunks_rev_recurrence => chunks_rev_recurrence_jvp, chunks_rev_recurrence_vjp; [0, 1, 2, 3, 5, 6];
        chunks_enumerate_rev => chunks_enumerate_rev_jvp, chunks_enumerate_rev_vjp; [0, 1, 3, 4, 7];
        chunks_skip => chunks_skip_jvp, chunks_skip_vjp; [0, 1, 2, 3, 5];
        chunks_exact_with_rest => chunks_exact_with_rest_jvp, chunks_exact_with_rest_vjp; [0, 1, 2, 3, 6, 7];
        nested_chunks_in_windows => nested_chunks_in_windows_jvp, nested_chunks_in_windows_vjp; [0, 2, 3, 4, 6];
        chunks_of_split_half => chunks_of_split_half_jvp, chunks_of_split_half_vjp; [0, 1, 2, 3, 5, 8];
        chunks_exact_zip_chunks => chunks_exact_zip_chunks_jvp, chunks_exact_zip_chunks_vjp; [0, 1, 2, 3, 5, 7];
        rev_enumerate_indexing => rev_enumerate_indexing_jvp, rev_enumerate_indexing_vjp; [0, 1, 2, 5];
        enumerate_rev_indexing => enumerate_rev_indexing_jvp, enumerate_rev_indexing_vjp; [0, 1, 2, 5];
        rev_skip_take => rev_skip_take_jvp, rev_skip_take_vjp; [0, 1, 2, 4, 6];
        skip_rev_loop => skip_rev_loop_jvp, skip_rev_loop_vjp; [0, 1, 2, 5];
        take_rev_enumerate => take_rev_enumerate_jvp, take_rev_enumerate_vjp; [0, 1, 2, 3, 6];
        step_by_enumerate => step_by_enumerate_jvp, step_by_enumerate_vjp; [0, 1, 2, 3, 6];
        enumerate_step_by_indexing => enumerate_step_by_indexing_jvp, enumerate_step_by_indexing_vjp; [0, 1, 3, 4, 7];
        zip_with_rev => zip_with_rev_jvp, zip_with_rev_vjp; [0, 1, 2, 5];
        step_by_rev_copied_pattern => step_by_rev_copied_pattern_jvp, step_by_rev_copied_pattern_vjp; [0, 1, 2, 3, 4, 5];
        sub_slice_rev => sub_slice_rev_jvp, sub_slice_rev_vjp; [1, 2, 5];
        take_more_than_len => take_more_than_len_jvp, take_more_than_len_vjp; [0, 1, 9, 12];
        enumerate_skip_zip => enumerate_skip_zip_jvp, enumerate_skip_zip_vjp; [0, 1, 2, 5];
        copied_rev_step_sum => copied_rev_step_sum_jvp, copied_rev_step_sum_vjp; [0, 1, 2, 3, 6];
        step_by_iter_mut => step_by_iter_mut_jvp, step_by_iter_mut_vjp; [0, 1, 2, 3, 6];
        iter_mut_zip_windows => iter_mut_zip_windows_jvp, iter_mut_zip_windows_vjp; [0, 1, 2, 5];
        iter_mut_enumerate => iter_mut_enumerate_jvp, iter_mut_enumerate_vjp; [0, 1, 4];
        iter_mut_rev_carry => iter_mut_rev_carry_jvp, iter_mut_rev_carry_vjp; [0, 1, 2, 5];
        mut_ref_loop_break => mut_ref_loop_break_jvp, mut_ref_loop_break_vjp; [0, 1, 3, 8];
        iter_mut_skip_take => iter_mut_skip_take_jvp, iter_mut_skip_take_vjp; [0, 1, 2, 3, 4, 7];
        iter_mut_twice_feedback => iter_mut_twice_feedback_jvp, iter_mut_twice_feedback_vjp; [0, 1, 3];
        sub_slice_local_then_mutated => sub_slice_local_then_mutated_jvp, sub_slice_local_then_mutated_vjp; [1, 2, 3, 6];
        sub_slice_of_sub_slice => sub_slice_of_sub_slice_jvp, sub_slice_of_sub_slice_vjp; [2, 3, 6];
        split_at_zip_rev => split_at_zip_rev_jvp, split_at_zip_rev_vjp; [0, 1, 2, 3, 6, 7];
        split_at_nested => split_at_nested_jvp, split_at_nested_vjp; [0, 1, 2, 3, 7];
        prefix_dots => prefix_dots_jvp, prefix_dots_vjp; [0, 1, 2, 3, 6];
        sub_slice_mutated_var_bound => sub_slice_mutated_var_bound_jvp, sub_slice_mutated_var_bound_vjp; [3, 4];
        split_at_mutated_bound => split_at_mutated_bound_jvp, split_at_mutated_bound_vjp; [1, 2, 5];
        sub_slice_in_loop_of_local => sub_slice_in_loop_of_local_jvp, sub_slice_in_loop_of_local_vjp; [0, 1, 2, 5];
        sub_slice_end_closed_and_open => sub_slice_end_closed_and_open_jvp, sub_slice_end_closed_and_open_vjp; [2, 3, 5];
        first_last_of_sub_slice => first_last_of_sub_slice_jvp, first_last_of_sub_slice_vjp; [2, 3, 5];
        get_in_loop => get_in_loop_jvp, get_in_loop_vjp; [0, 1, 2, 5];
        cumulative_via_last => cumulative_via_last_jvp, cumulative_via_last_vjp; [1, 2, 5];
        get_copied_local => get_copied_local_jvp, get_copied_local_vjp; [1, 2, 5];
        last_mutated_through => last_mutated_through_jvp, last_mutated_through_vjp; [1, 2, 4];
        max_by_local_built_in_loop => max_by_local_built_in_loop_jvp, max_by_local_built_in_loop_vjp; [1, 2, 5];
        min_by_copied_then_windows => min_by_copied_then_windows_jvp, min_by_copied_then_windows_vjp; [1, 2, 5];
        max_by_enumerate_local => max_by_enumerate_local_jvp, max_by_enumerate_local_vjp; [1, 2, 5];
        max_by_after_mutation => max_by_after_mutation_jvp, max_by_after_mutation_vjp; [1, 2, 5];
        max_by_of_sub_slice => max_by_of_sub_slice_jvp, max_by_of_sub_slice_vjp; [2, 3, 6];
        max_by_key_like_abs => max_by_key_like_abs_jvp, max_by_key_like_abs_vjp; [1, 2, 5];
        position_feeding_index => position_feeding_index_jvp, position_feeding_index_vjp; [1, 2, 5];
        any_all_conditions => any_all_conditions_jvp, any_all_conditions_vjp; [0, 1, 2, 5];
        any_capturing_active => any_capturing_active_jvp, any_capturing_active_vjp; [0, 1, 2, 5];
        count_windows => count_windows_jvp, count_windows_vjp; [0, 1, 2, 5];
        position_in_windows => position_in_windows_jvp, position_in_windows_vjp; [2, 3, 6];
        position_rev => position_rev_jvp, position_rev_vjp; [1, 2, 5];
        skip_by_position => skip_by_position_jvp, skip_by_position_vjp; [0, 1, 2, 5];
        filter_skip_capturing => filter_skip_capturing_jvp, filter_skip_capturing_vjp; [1, 2, 5];
        all_in_while => all_in_while_jvp, all_in_while_vjp; [0, 1, 3];
        any_over_windows_in_loop => any_over_windows_in_loop_jvp, any_over_windows_in_loop_vjp; [0, 2, 3, 6];
        count_chunks_all => count_chunks_all_jvp, count_chunks_all_vjp; [0, 1, 2, 5];
        smooth_tv => smooth_tv_jvp, smooth_tv_vjp; [0, 1, 2, 6];
        moving_average_energy => moving_average_energy_jvp, moving_average_energy_vjp; [2, 3, 6];
        interleaved_area => interleaved_area_jvp, interleaved_area_vjp; [0, 1, 2, 3, 4, 7];
        bidiagonal_back_substitution => bidiagonal_back_substitution_jvp, bidiagonal_back_substitution_vjp; [0, 1, 2, 5];
        horner_odd => horner_odd_jvp, horner_odd_vjp; [1, 2, 5, 6];
        softmax_last => softmax_last_jvp, softmax_last_vjp; [1, 2, 5];
        max_by_floor_ties => max_by_floor_ties_jvp, max_by_floor_ties_vjp; [1, 2, 3, 6, 9];
        min_by_floor_ties_enumerate => min_by_floor_ties_enumerate_jvp, min_by_floor_ties_enumerate_vjp; [1, 2, 3, 6, 9];
        max_by_reversed_floor => max_by_reversed_floor_jvp, max_by_reversed_floor_vjp; [1, 2, 3, 6, 9];
        min_by_ties_local => min_by_ties_local_jvp, min_by_ties_local_vjp; [1, 2, 3, 6, 9];
        max_pooling => max_pooling_jvp, max_pooling_vjp; [0, 1, 2, 3, 4, 7];
        chunk_min_reference => chunk_min_reference_jvp, chunk_min_reference_vjp; [0, 1, 2, 3, 4, 7];
        min_by_sub_slice_expression => min_by_sub_slice_expression_jvp, min_by_sub_slice_expression_vjp; [2, 3, 6];
        max_reference_kept => max_reference_kept_jvp, max_reference_kept_vjp; [1, 2, 5];
        shadowed_parameter_sub_slice => shadowed_parameter_sub_slice_jvp, shadowed_parameter_sub_slice_vjp; [3, 4, 6];
        shadowed_split_at => shadowed_split_at_jvp, shadowed_split_at_vjp; [2, 3, 6];
        enumerate_sub_slice => enumerate_sub_slice_jvp, enumerate_sub_slice_vjp; [1, 2, 5];
        zip_sub_slices_triple => zip_sub_slices_triple_jvp, zip_sub_slices_triple_vjp; [2, 3, 6];
        windows_items_passed => windows_items_passed_jvp, windows_items_passed_vjp; [0, 1, 2, 3, 6];
        chunks_items_passed => chunks_items_passed_jvp, chunks_items_passed_vjp; [0, 1, 2, 3, 5];
        chained_windows_passed => chained_windows_passed_jvp, chained_windows_passed_vjp; [0, 1, 2, 4, 5];
        windows_size_from_length => windows_size_from_length_jvp, windows_size_from_length_vjp; [0, 1, 2, 3, 5, 7, 9];
        wide_windows => wide_windows_jvp, wide_windows_vjp; [0, 3, 4, 5, 9];
        zip_skip_rev_unequal => zip_skip_rev_unequal_jvp, zip_skip_rev_unequal_vjp; [0, 1, 2, 3, 6];
        bound_from_float => bound_from_float_jvp, bound_from_float_vjp; [1, 2, 5];
        shrinking_slice_var => shrinking_slice_var_jvp, shrinking_slice_var_vjp; [0, 1, 2, 3, 6, 7];
        fold_with_path_function => fold_with_path_function_jvp, fold_with_path_function_vjp; [0, 1, 2, 3, 6];
        nested_iter_mut_skip_outer => nested_iter_mut_skip_outer_jvp, nested_iter_mut_skip_outer_vjp; [0, 1, 2, 5];
        iter_mut_zip_chunks => iter_mut_zip_chunks_jvp, iter_mut_zip_chunks_vjp; [0, 1, 2, 3, 6];
        count_inside_windows_loop => count_inside_windows_loop_jvp, count_inside_windows_loop_vjp; [0, 2, 3, 7];
        any_inside_map_over_windows => any_inside_map_over_windows_jvp, any_inside_map_over_windows_vjp; [0, 2, 3, 7];
        position_in_chunks_loop => position_in_chunks_loop_jvp, position_in_chunks_loop_vjp; [0, 1, 2, 4, 7];
        first_last_of_windows => first_last_of_windows_jvp, first_last_of_windows_vjp; [0, 2, 3, 6];
        chunk_sums_then_rev => chunk_sums_then_rev_jvp, chunk_sums_then_rev_vjp; [0, 1, 2, 3, 5];
        odd_even_pairs => odd_even_pairs_jvp, odd_even_pairs_vjp; [0, 1, 2, 3, 6, 7];
        windows_enumerate_skip_step => windows_enumerate_skip_step_jvp, windows_enumerate_skip_step_vjp; [0, 1, 2, 3, 6, 7];
        local_closure_over_windows => local_closure_over_windows_jvp, local_closure_over_windows_vjp; [0, 1, 2, 5];
        sub_slice_loop_writes_local => sub_slice_loop_writes_local_jvp, sub_slice_loop_writes_local_vjp; [0, 1, 2, 5];
        sub_slice_chain_of_local_then_push => sub_slice_chain_of_local_then_push_jvp, sub_slice_chain_of_local_then_push_vjp; [1, 2, 3, 5];
        empty_sub_slices => empty_sub_slices_jvp, empty_sub_slices_vjp; [1, 2, 5];
        full_range_slice => full_range_slice_jvp, full_range_slice_vjp; [0, 1, 2, 5];
        split_at_windows_and_pass => split_at_windows_and_pass_jvp, split_at_windows_and_pass_vjp; [2, 3, 4, 7];
        any_all_position_on_local => any_all_position_on_local_jvp, any_all_position_on_local_vjp; [1, 2, 3, 7];
        hvp_windows => hvp_windows_jvp, hvp_windows_vjp; [1, 2, 3, 6];
        generic_windows => generic_windows_jvp, generic_windows_vjp; [1, 2, 3, 6];
        max_by_each_round => max_by_each_round_jvp, max_by_each_round_vjp; [1, 2, 3, 6];
        argmax_each_round => argmax_each_round_jvp, argmax_each_round_vjp; [1, 2, 3, 6];
        position_each_round => position_each_round_jvp, position_each_round_vjp; [1, 2, 3, 6];
        any_each_round => any_each_round_jvp, any_each_round_vjp; [1, 2, 3, 6];
        smoothing_rounds => smoothing_rounds_jvp, smoothing_rounds_vjp; [0, 1, 2, 3, 6];
        adapters_changing_per_round => adapters_changing_per_round_jvp, adapters_changing_per_round_vjp; [0, 1, 2, 3, 6];
        chunked_rounds => chunked_rounds_jvp, chunked_rounds_vjp; [0, 1, 2, 3, 6];
        labeled_break => labeled_break_jvp, labeled_break_vjp; [0, 1, 2, 3, 6];
        early_return_windows => early_return_windows_jvp, early_return_windows_vjp; [0, 1, 2, 3, 6];
        two_iter_muts => two_iter_muts_jvp, two_iter_muts_vjp; [0, 1, 2, 3, 6];
        rows_iter_mut => rows_iter_mut_jvp, rows_iter_mut_vjp; [0, 1, 2, 3, 6];
        reference_patterns => reference_patterns_jvp, reference_patterns_vjp; [0, 1, 2, 3, 6];
        window_sub_slice_shadow => window_sub_slice_shadow_jvp, window_sub_slice_shadow_vjp; [0, 2, 3, 6];
        argmax_pooling => argmax_pooling_jvp, argmax_pooling_vjp; [0, 1, 2, 3, 4, 7];
        chunk_size_changed_in_body => chunk_size_changed_in_body_jvp, chunk_size_changed_in_body_vjp; [0, 1, 2, 3, 6];
        steps_of_sub_slices => steps_of_sub_slices_jvp, steps_of_sub_slices_vjp; [1, 2, 3, 6];
        peaky_sub_slices => peaky_sub_slices_jvp, peaky_sub_slices_vjp; [2, 3, 6];
        long_chain => long_chain_jvp, long_chain_vjp; [0, 1, 2, 3, 6, 7];
        range_chain_sub_slices => range_chain_sub_slices_jvp, range_chain_sub_slices_vjp; [0, 1, 2, 5];
        if_let_position => if_let_position_jvp, if_let_position_vjp; [1, 2, 5];
        min_by_reference_patterns => min_by_reference_patterns_jvp, min_by_reference_patterns_vjp; [1, 2, 5];
        total_cmp_branch => total_cmp_branch_jvp, total_cmp_branch_vjp; [2, 3];
        enumerate_any_position => enumerate_any_position_jvp, enumerate_any_position_vjp; [1, 2, 3, 6];
        enumerate_windows_chain => enumerate_windows_chain_jvp, enumerate_windows_chain_vjp; [0, 1, 2, 3, 6];
        sub_slice_to_vec => sub_slice_to_vec_jvp, sub_slice_to_vec_vjp; [2, 3, 6];
        rev_reductions => rev_reductions_jvp, rev_reductions_vjp; [0, 1, 2, 3, 6];
        temporaries_methods => temporaries_methods_jvp, temporaries_methods_vjp; [1, 2, 3, 6];
        zip_with_reference_to_local => zip_with_reference_to_local_jvp, zip_with_reference_to_local_vjp; [1, 2, 5];
        sub_slice_chosen_by_if => sub_slice_chosen_by_if_jvp, sub_slice_chosen_by_if_vjp; [3, 4, 6];
        sub_slice_copied_binding => sub_slice_copied_binding_jvp, sub_slice_copied_binding_vjp; [3, 4, 6];
        array_of_sub_slices => array_of_sub_slices_jvp, array_of_sub_slices_vjp; [3, 4, 6];
        position_after_filter => position_after_filter_jvp, position_after_filter_vjp; [1, 2, 5, 8];
        iter_mut_skip_zip_windows_rev => iter_mut_skip_zip_windows_rev_jvp, iter_mut_skip_zip_windows_rev_vjp; [0, 1, 2, 3, 6];
        match_on_length => match_on_length_jvp, match_on_length_vjp; [0, 1, 2, 5];
        window_array_binding => window_array_binding_jvp, window_array_binding_vjp; [0, 1, 2, 5];
        rev_map_fold => rev_map_fold_jvp, rev_map_fold_vjp; [0, 1, 2, 5];
        iter_mut_continue_return => iter_mut_continue_return_jvp, iter_mut_continue_return_vjp; [0, 1, 2, 3, 6];
        three_levels => three_levels_jvp, three_levels_vjp; [0, 1, 2, 3, 4, 7];
        inner_windows_of_outer_tail => inner_windows_of_outer_tail_jvp, inner_windows_of_outer_tail_vjp; [0, 1, 2, 3, 6];
        enumerate_iter_mut_index_other => enumerate_iter_mut_index_other_jvp, enumerate_iter_mut_index_other_vjp; [0, 1, 2, 5];
        sub_slices_with_constant_data => sub_slices_with_constant_data_jvp, sub_slices_with_constant_data_vjp; [1, 2, 5, 7];
        same_sub_slice_twice => same_sub_slice_twice_jvp, same_sub_slice_twice_vjp; [1, 2, 5];
        inner_of_inner => inner_of_inner_jvp, inner_of_inner_vjp; [1, 2, 3, 6, 7];
        recursive_tail => recursive_tail_jvp, recursive_tail_vjp; [0, 1, 2, 6];
        recursive_halves => recursive_halves_jvp, recursive_halves_vjp; [0, 1, 2, 3, 7, 8];
        data_local_sub_slices => data_local_sub_slices_jvp, data_local_sub_slices_vjp; [1, 2, 5];
        max_by_unwrap_or_equal => max_by_unwrap_or_equal_jvp, max_by_unwrap_or_equal_vjp; [1, 2, 5];
        max_by_tuple_patterns => max_by_tuple_patterns_jvp, max_by_tuple_patterns_vjp; [1, 2, 5];
        copied_enumerate_max_by => copied_enumerate_max_by_jvp, copied_enumerate_max_by_vjp; [1, 2, 5, 9];
        typed_compare_closure => typed_compare_closure_jvp, typed_compare_closure_vjp; [1, 2, 5];
        arg_min_and_max => arg_min_and_max_jvp, arg_min_and_max_vjp; [1, 2, 5, 9];
        grown_by_windows => grown_by_windows_jvp, grown_by_windows_vjp; [0, 1, 2, 5];
        collect_turbofish_zip_skip => collect_turbofish_zip_skip_jvp, collect_turbofish_zip_skip_vjp; [0, 1, 2, 5];
        heat_windows_unchecked => heat_windows_unchecked_jvp, heat_windows_unchecked_vjp; [1, 2, 3, 6];
        heat_windows_every => heat_windows_every_jvp, heat_windows_every_vjp; [1, 2, 3, 6];
        heat_windows_binomial => heat_windows_binomial_jvp, heat_windows_binomial_vjp; [1, 2, 3, 6];
        reference_to_local => reference_to_local_jvp, reference_to_local_vjp; [1, 2, 5];
        local_array_iterated => local_array_iterated_jvp, local_array_iterated_vjp; [3, 4, 6];
        polyline_length => polyline_length_jvp, polyline_length_vjp; [0, 1, 2, 3, 4, 5, 8];
        tuple_windows => tuple_windows_jvp, tuple_windows_vjp; [0, 1, 2, 3, 6];
        filtered_windows_any_position => filtered_windows_any_position_jvp, filtered_windows_any_position_vjp; [1, 2, 3, 6];
        filtered_chunks_fold => filtered_chunks_fold_jvp, filtered_chunks_fold_vjp; [1, 2, 3, 6];
        map_to_sub_slice => map_to_sub_slice_jvp, map_to_sub_slice_vjp; [0, 1, 2, 3, 6];
        collected_chunks => collected_chunks_jvp, collected_chunks_vjp; [0, 1, 2, 3, 6];
        collected_windows => collected_windows_jvp, collected_windows_vjp; [2, 3, 6];
        rows_normalized => rows_normalized_jvp, rows_normalized_vjp; [0, 1, 2, 3, 6];
        rows_pushed_through_iter_mut => rows_pushed_through_iter_mut_jvp, rows_pushed_through_iter_mut_vjp; [0, 1, 2, 3, 6];
        iter_mut_adapters_break_continue => iter_mut_adapters_break_continue_jvp, iter_mut_adapters_break_continue_vjp; [0, 1, 2, 3, 6];
        rows_enumerated_iter_mut => rows_enumerated_iter_mut_jvp, rows_enumerated_iter_mut_vjp; [0, 1, 2, 5];
        generic_sub_slices => generic_sub_slices_jvp, generic_sub_slices_vjp; [2, 3, 6];
        bisection_on_sub_slices => bisection_on_sub_slices_jvp, bisection_on_sub_slices_vjp; [1, 2, 3, 5, 8, 11];
        loop_with_get => loop_with_get_jvp, loop_with_get_vjp; [1, 2, 3, 6];
        closure_capturing_window => closure_capturing_window_jvp, closure_capturing_window_vjp; [0, 1, 2, 5];
    }
}

// ===== functions of other shapes: checked by hand =====

mod other_shapes {
    use super::*;
    use approx::assert_relative_eq;
    use common::{random_vector, Rng};

    #[test]
    fn weighted_steps_against_forward_mode() {
        assert_eq!(super::weighted_steps::__AD_ENGINE, "ir");
        let mut rng = Rng::new(5);
        for n in [1, 2, 3, 6] {
            for _ in 0..4 {
                let x = random_vector(&mut rng, n);
                let w = random_vector(&mut rng, n);
                let c = rng.uniform(0.5, 1.5);
                let (value, (gx, gw)) = weighted_steps_vjp(&x, &w, c);
                assert_eq!(value.to_bits(), weighted_steps(&x, &w).to_bits());
                let zero = vec![0.0; n];
                for k in 0..n {
                    let mut e = vec![0.0; n];
                    e[k] = 1.0;
                    let (_, along_x) = weighted_steps_jvp(&x, &w, &e, &zero);
                    let (_, along_w) = weighted_steps_jvp(&x, &w, &zero, &e);
                    assert_relative_eq!(gx[k], c * along_x, epsilon = 1e-12, max_relative = 1e-12);
                    assert_relative_eq!(gw[k], c * along_w, epsilon = 1e-12, max_relative = 1e-12);
                    let moved = |h: f64| {
                        let mut y = x.clone();
                        y[k] += h;
                        weighted_steps(&y, &w)
                    };
                    assert_relative_eq!(
                        along_x,
                        common::central_difference(moved, 0.0, 1e-4),
                        epsilon = 1e-7,
                        max_relative = 1e-6
                    );
                }
            }
        }
    }

    const DATA: [f64; 8] = [0.5, -1.25, 2.0, 3.5, -0.75, 0.1, 1.1, -2.0];

    #[test]
    fn data_windows_against_forward_mode() {
        assert_eq!(super::data_windows::__AD_ENGINE, "ir");
        for n in [0, 1, 2, 5, 8] {
            for len in [0usize, 1, 3, 8] {
                let data = &DATA[..len];
                check_slice_function_at_random_points_closure(
                    |x| data_windows(x, data),
                    |x, t| data_windows_jvp(x, data, t),
                    |x, c| data_windows_vjp(x, data, c),
                    n,
                );
            }
        }
    }

    /// `check_slice_function`'s checks, for closures.
    fn check_slice_function_at_random_points_closure(
        plain: impl Fn(&[f64]) -> f64,
        jvp: impl Fn(&[f64], &[f64]) -> (f64, f64),
        vjp: impl Fn(&[f64], f64) -> (f64, Vec<f64>),
        n: usize,
    ) {
        let mut rng = Rng::new(n as u64 + 99);
        for _ in 0..4 {
            let x = random_vector(&mut rng, n);
            let c = rng.uniform(0.5, 1.5);
            let (value, g) = vjp(&x, c);
            assert_eq!(value.to_bits(), plain(&x).to_bits());
            assert_eq!(g.len(), n);
            for k in 0..n {
                let mut e = vec![0.0; n];
                e[k] = 1.0;
                let (fv, along) = jvp(&x, &e);
                assert_eq!(fv.to_bits(), value.to_bits());
                let moved = |h: f64| {
                    let mut y = x.clone();
                    y[k] += h;
                    plain(&y)
                };
                assert_relative_eq!(
                    along,
                    common::central_difference(moved, 0.0, 1e-4),
                    epsilon = 1e-7,
                    max_relative = 1e-6
                );
                assert_relative_eq!(g[k], c * along, epsilon = 1e-12, max_relative = 1e-12);
            }
        }
    }

    #[test]
    fn rows_windows_against_forward_mode() {
        assert_eq!(super::rows_windows::__AD_ENGINE, "ir");
        let mut rng = Rng::new(41);
        for lengths in [vec![1usize], vec![2, 3, 1], vec![3, 2, 4, 5]] {
            let m: Vec<Vec<f64>> = lengths
                .iter()
                .map(|&n| random_vector(&mut rng, n))
                .collect();
            common::check_user_type1(
                |m: &Vec<Vec<f64>>| rows_windows(m),
                |m: &Vec<Vec<f64>>, dm: &Vec<Vec<f64>>| rows_windows_jvp(m, dm),
                |m: &Vec<Vec<f64>>, c| rows_windows_vjp(m, c),
                &m,
                &mut rng,
            );
        }
    }

    #[test]
    fn series_roughness_against_forward_mode() {
        assert_eq!(super::series_roughness::__AD_ENGINE, "ir");
        let mut rng = Rng::new(43);
        for n in [2, 3, 6] {
            let p = Series {
                values: random_vector(&mut rng, n),
                scale: rng.uniform(0.5, 1.5),
            };
            common::check_user_type1(
                series_roughness,
                series_roughness_jvp,
                series_roughness_vjp,
                &p,
                &mut rng,
            );
        }
    }

    #[test]
    fn array_owned_vec_and_vec_reference() {
        assert_eq!(super::array_windows::__AD_ENGINE, "ir");
        assert_eq!(super::owned_vec_rev::__AD_ENGINE, "ir");
        assert_eq!(super::vec_reference_chunks::__AD_ENGINE, "ir");
        assert_eq!(super::nested_row_iter_mut::__AD_ENGINE, "ir");
        check_slice_function_at_random_points(
            |x| array_windows(x.try_into().unwrap()),
            |x, t| array_windows_jvp(x.try_into().unwrap(), t.try_into().unwrap()),
            |x, c| {
                let (v, g) = array_windows_vjp(x.try_into().unwrap(), c);
                (v, g.to_vec())
            },
            4,
            7,
        );
        for n in [1, 2, 3, 6] {
            check_slice_function_at_random_points(
                |x| owned_vec_rev(x.to_vec()),
                |x, t| owned_vec_rev_jvp(x.to_vec(), t.to_vec()),
                |x, c| owned_vec_rev_vjp(x.to_vec(), c),
                n,
                n as u64,
            );
            check_slice_function_at_random_points(
                |x| vec_reference_chunks(&x.to_vec()),
                |x, t| vec_reference_chunks_jvp(&x.to_vec(), &t.to_vec()),
                |x, c| vec_reference_chunks_vjp(&x.to_vec(), c),
                n,
                n as u64 + 1,
            );
            check_slice_function_at_random_points(
                nested_row_iter_mut,
                nested_row_iter_mut_jvp,
                nested_row_iter_mut_vjp,
                n,
                n as u64 + 2,
            );
        }
    }

    /// `len` of adapters over the parameter: data, the chain run as written.
    #[test]
    fn chunk_count_len_on_the_ir_engine() {
        assert_eq!(super::chunk_count_len::__AD_ENGINE, "ir");
        for n in [1, 2, 3, 4, 7] {
            check_slice_function_at_random_points(
                chunk_count_len,
                chunk_count_len_jvp,
                chunk_count_len_vjp,
                n,
                n as u64,
            );
        }
    }

    #[test]
    fn owned_mut_param_and_point_rows() {
        assert_eq!(super::owned_mut_param_iter_mut::__AD_ENGINE, "ir");
        assert_eq!(super::point_windows::__AD_ENGINE, "ir");
        for n in [0, 1, 2, 5] {
            check_slice_function_at_random_points(
                |x| owned_mut_param_iter_mut(x.to_vec()),
                |x, t| owned_mut_param_iter_mut_jvp(x.to_vec(), t.to_vec()),
                |x, c| owned_mut_param_iter_mut_vjp(x.to_vec(), c),
                n,
                n as u64 + 5,
            );
        }
        let mut rng = Rng::new(61);
        for n in [1usize, 2, 3, 5] {
            let pts: Vec<[f64; 2]> = (0..n)
                .map(|_| [rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5)])
                .collect();
            common::check_user_type1(
                |p: &Vec<[f64; 2]>| point_windows(p),
                |p: &Vec<[f64; 2]>, d: &Vec<[f64; 2]>| point_windows_jvp(p, d),
                |p: &Vec<[f64; 2]>, c| {
                    let (v, g) = point_windows_vjp(p, c);
                    (v, g.to_vec())
                },
                &pts,
                &mut rng,
            );
        }
    }

    #[test]
    fn f32_against_forward_mode() {
        assert_eq!(super::small_f32::__AD_ENGINE, "ir");
        let mut rng = Rng::new(77);
        for n in [1usize, 2, 3, 6] {
            for _ in 0..4 {
                let x: Vec<f32> = random_vector(&mut rng, n)
                    .iter()
                    .map(|&v| v as f32)
                    .collect();
                let (value, g) = small_f32_vjp(&x, 1.0);
                assert_eq!(value.to_bits(), small_f32(&x).to_bits());
                for k in 0..n {
                    let mut e = vec![0.0f32; n];
                    e[k] = 1.0;
                    let (_, along) = small_f32_jvp(&x, &e);
                    assert_relative_eq!(g[k], along, epsilon = 1e-5, max_relative = 1e-5);
                }
            }
        }
    }

    #[test]
    fn hessian_vector_product_through_windows() {
        common::check_hessian_vector_product(hvp_windows::grad, hvp_windows_grad);
        common::check_hessian_vector_product(windows_items_passed::grad, windows_items_passed_grad);
        common::check_hessian_vector_product(rows_normalized::grad, rows_normalized_grad);
        common::check_hessian_vector_product(iter_mut_rev_carry::grad, iter_mut_rev_carry_grad);
        common::check_hessian_vector_product(smoothing_rounds::grad, smoothing_rounds_grad);
        common::check_hessian_vector_product(position_each_round::grad, position_each_round_grad);
        common::check_hessian_vector_product(split_at_zip_rev::grad, split_at_zip_rev_grad);
        common::check_hessian_vector_product(
            sub_slice_of_sub_slice::grad,
            sub_slice_of_sub_slice_grad,
        );
        common::check_hessian_vector_product(chunks_short_last::grad, chunks_short_last_grad);
        common::check_hessian_vector_product(peaky_sub_slices::grad, peaky_sub_slices_grad);
        common::check_hessian_vector_product(max_by_each_round::grad, max_by_each_round_grad);
        common::check_hessian_vector_product(long_chain::grad, long_chain_grad);
        common::check_hessian_vector_product(recursive_tail::grad, recursive_tail_grad);
    }
}

// ===== findings: panics the function has that `_vjp` does not =====

mod panics {
    use super::*;

    fn panics<T>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> bool {
        std::panic::catch_unwind(f).is_err()
    }

    /// Found by the probe, fixed: `windows(0)` panics in the function and in `_jvp`; `_vjp`
    /// returned a value (the loop ran over `len + 1` empty windows).
    #[test]
    fn zero_width_windows_panic_in_reverse_mode_too() {
        let x = [-1.0, 2.0];
        assert!(panics(|| zero_width_windows(&x, 0)));
        assert!(panics(|| zero_width_windows_jvp(&x, 0, &[1.0, 0.0])));
        assert!(panics(|| zero_width_windows_vjp(&x, 0, 1.0)));
    }

    /// Found by the probe, fixed: a sub-slice out of range that the path taken does not use:
    /// the function and `_jvp` panic at `&x[k..]`, `_vjp` returned a value (the sub-slice is a
    /// place, and was only made where it is used; now its bounds are checked where it is
    /// built). The same with `let (a, b) = x.split_at(k)`.
    #[test]
    fn out_of_range_sub_slice_panics_in_reverse_mode_too() {
        let x = [-1.0, 2.0];
        assert!(panics(|| sub_slice_out_of_range_unused(&x, 5)));
        assert!(panics(|| sub_slice_out_of_range_unused_jvp(
            &x,
            5,
            &[1.0, 0.0]
        )));
        assert!(panics(|| sub_slice_out_of_range_unused_vjp(&x, 5, 1.0)));
    }

    /// Where the width is not zero and the range fits, all three agree.
    #[test]
    fn in_range_agree() {
        assert_eq!(super::zero_width_windows::__AD_ENGINE, "ir");
        assert_eq!(super::sub_slice_out_of_range_unused::__AD_ENGINE, "ir");
        for k in 1..4 {
            check_slice_function_at_random_points_with(k);
        }
    }

    fn check_slice_function_at_random_points_with(k: usize) {
        let mut rng = common::Rng::new(k as u64);
        for n in [k, k + 1, k + 3] {
            let x = common::random_vector(&mut rng, n);
            let (value, g) = zero_width_windows_vjp(&x, k, 1.0);
            assert_eq!(value.to_bits(), zero_width_windows(&x, k).to_bits());
            for i in 0..n {
                let mut e = vec![0.0; n];
                e[i] = 1.0;
                let (_, along) = zero_width_windows_jvp(&x, k, &e);
                approx::assert_relative_eq!(g[i], along, epsilon = 1e-12, max_relative = 1e-12);
            }
            let (value, g) = sub_slice_out_of_range_unused_vjp(&x, k.min(n - 1), 1.0);
            assert_eq!(
                value.to_bits(),
                sub_slice_out_of_range_unused(&x, k.min(n - 1)).to_bits()
            );
            assert_eq!(g.len(), n);
        }
    }
}

// ===== refused or failing shapes (kept out of the build) =====
//
// Compile errors inside generated code (the IR engine takes the function):
//
//     #[reverse]
//     fn f(x: &[f64]) -> f64 {
//         let ws: Vec<&[f64]> = x.windows(2).filter(|w| w[0] < w[1]).collect();
//         ws.len() as f64 * x[0]
//     }
//     // E0277 "the size for values of type `[__S]` cannot be known", E0308 "expected
//     // `Vec<&[__S]>`, found `Vec<[__S]>`" (at `collect`), and with `ws` read, E0277 at
//     // `#[reverse]` pointing into ad-runtime's `adjoint_of`. Same with `chunks(2).filter(..)`.
//     // Without the `filter` the engine refuses it ("a reduction of sub-slices").
