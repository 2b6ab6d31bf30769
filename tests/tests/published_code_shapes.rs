//! Shapes of published numerical Rust that the macros refused before, each reduced from its
//! source and checked three ways (`common::check_gradient`: reverse against forward along every
//! basis direction, forward against central differences, and the dot-product identity):
//! kurbo's `const fn` constructors, operators whose `Output` is another derived type, operators
//! on what constructors and methods return, and aliases of derived types (`type Point =
//! Vec2`); TheAlgorithms' argument checks returning `Result<(), LossError>`, activation enums
//! held in locals and medians of a `Vec` taken by value; derived values built inside
//! `vec![..]` and calls, parameters of derived types without `#[grad]`, `last()` of an
//! iterator chain and `x.first()?`.

#![allow(
    clippy::float_cmp,
    clippy::double_ended_iterator_last,
    clippy::useless_vec,
    clippy::too_many_arguments
)]

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use common::check_gradient as check;

/// kurbo's points: `const fn` constructors.
mod const_constructors {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct Point {
        pub x: f64,
        pub y: f64,
    }

    #[forward]
    #[reverse]
    impl Point {
        pub const fn new(x: f64, y: f64) -> Point {
            Point { x, y }
        }

        pub fn hypot2(self) -> f64 {
            self.x * self.x + self.y * self.y
        }
    }

    /// Still `const`: usable in a constant.
    pub const ORIGIN: Point = Point::new(0.0, 0.0);

    #[forward]
    #[reverse]
    fn made_by_const_fn(x: &[f64]) -> f64 {
        let p = Point::new(x[0], x[1] * 2.0);
        p.hypot2() * x[1]
    }

    #[test]
    fn a_const_fn_is_differentiated_and_stays_const() {
        assert_eq!(ORIGIN.x, 0.0);
        check(
            2,
            made_by_const_fn,
            made_by_const_fn_jvp,
            made_by_const_fn_vjp,
        );
    }
}

/// kurbo's `impl Sub for Point { type Output = Vec2; .. }` and an alias of a derived type
/// (kurbo's `type Point = Vec2`) in a method's signature.
mod other_derived_outputs {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};
    use std::ops::{Mul, Sub};

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct Pt {
        pub x: f64,
        pub y: f64,
    }

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct V2 {
        pub x: f64,
        pub y: f64,
    }

    #[forward]
    #[reverse]
    impl Sub for Pt {
        type Output = V2;
        fn sub(self, other: Pt) -> V2 {
            V2 {
                x: self.x - other.x,
                y: self.y - other.y,
            }
        }
    }

    #[forward]
    #[reverse]
    fn squared_distance(x: &[f64]) -> f64 {
        let d = Pt { x: x[0], y: x[1] } - Pt { x: x[2], y: x[3] };
        d.x * d.x + d.y * d.y
    }

    pub type Position = V2;

    #[forward]
    #[reverse]
    impl V2 {
        pub fn midpoint(self, other: Position) -> Position {
            V2 {
                x: 0.5 * (self.x + other.x),
                y: 0.5 * (self.y + other.y),
            }
        }
    }

    #[forward]
    #[reverse]
    fn midpoint_product(x: &[f64]) -> f64 {
        let a = V2 { x: x[0], y: x[1] };
        let m = a.midpoint(V2 { x: 1.0, y: x[0] });
        m.x * m.y
    }

    #[forward]
    #[reverse]
    impl V2 {
        pub fn new(x: f64, y: f64) -> V2 {
            V2 { x, y }
        }

        pub fn to_point(self) -> Position {
            V2 {
                x: self.x,
                y: self.y,
            }
        }

        pub fn hypot2(self) -> f64 {
            self.x * self.x + self.y * self.y
        }
    }

    #[forward]
    #[reverse]
    impl Mul<f64> for V2 {
        type Output = V2;
        fn mul(self, k: f64) -> V2 {
            V2 {
                x: self.x * k,
                y: self.y * k,
            }
        }
    }

    #[forward]
    #[reverse]
    impl Mul<V2> for f64 {
        type Output = V2;
        fn mul(self, v: V2) -> V2 {
            V2 {
                x: self * v.x,
                y: self * v.y,
            }
        }
    }

    /// kurbo's `QuadBez::arclen`: operators on what constructors and methods return.
    #[forward]
    #[reverse]
    fn operators_on_call_results(x: &[f64]) -> f64 {
        let p = V2::new(x[0], x[1]);
        let scaled = p.to_point() * 2.0;
        let left = 2.0 * p.to_point();
        let built = V2::new(x[1], x[0]) * 3.0;
        scaled.hypot2() + left.x * built.y + (0.5 * V2::new(x[0], x[1])).hypot2()
    }

    #[test]
    fn operators_and_aliases_of_other_derived_types() {
        check(
            2,
            operators_on_call_results,
            operators_on_call_results_jvp,
            operators_on_call_results_vjp,
        );
        check(
            4,
            squared_distance,
            squared_distance_jvp,
            squared_distance_vjp,
        );
        check(
            2,
            midpoint_product,
            midpoint_product_jvp,
            midpoint_product_vjp,
        );
    }
}

/// TheAlgorithms' losses, activations and statistics.
mod algorithms {
    use super::check;
    use ad_runtime::{forward, reverse};

    #[derive(Debug)]
    pub enum LossError {
        NegativeMargin,
    }

    /// A plain check of the arguments: its result holds no float, so it runs at the values.
    fn check_input(margin: f64) -> Result<(), LossError> {
        if margin < 0.0 {
            return Err(LossError::NegativeMargin);
        }
        Ok(())
    }

    #[forward]
    #[reverse]
    pub fn margin_loss(x: f64, margin: f64) -> Result<f64, LossError> {
        check_input(margin)?;
        Ok((margin - x).max(0.0) + 0.1 * x * margin)
    }

    #[forward]
    #[reverse]
    fn margin_loss_at(x: &[f64]) -> f64 {
        margin_loss(x[0], x[1] + 3.0).unwrap()
    }

    pub enum Activation {
        Sigmoid,
        Tanh,
    }

    #[forward]
    #[reverse]
    impl Activation {
        pub fn activate(&self, x: f64) -> f64 {
            match self {
                Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
                Activation::Tanh => x.tanh(),
            }
        }
    }

    #[forward]
    #[reverse]
    fn activations_in_locals(x: &[f64]) -> f64 {
        let s = Activation::Sigmoid;
        let t = Activation::Tanh;
        s.activate(x[0]) * t.activate(x[1])
    }

    #[forward]
    #[reverse]
    pub fn median(mut sequence: Vec<f64>) -> f64 {
        sequence.sort_by(|a, b| a.partial_cmp(b).unwrap());
        sequence[sequence.len() / 2]
    }

    #[forward]
    #[reverse]
    fn median_of_copy(x: &[f64]) -> f64 {
        median(x.to_vec()) * x[0]
    }

    #[test]
    fn checks_activations_and_medians() {
        check(2, margin_loss_at, margin_loss_at_jvp, margin_loss_at_vjp);
        check(
            2,
            activations_in_locals,
            activations_in_locals_jvp,
            activations_in_locals_vjp,
        );
        check(5, median_of_copy, median_of_copy_jvp, median_of_copy_vjp);
        let (_, gradient) = median_grad(vec![3.0, 1.0, 2.0]);
        assert_eq!(gradient, vec![0.0, 0.0, 1.0]);
    }
}

#[derive(Clone, Debug, Differentiable)]
pub enum Shape {
    Circle(f64),
    Rect(f64, f64),
}

/// A derived type of this file: differentiated without `#[grad]`.
#[forward]
#[reverse]
fn area(s: &Shape) -> f64 {
    match s {
        Shape::Circle(r) => 3.0 * r * r,
        Shape::Rect(a, b) => a * b,
    }
}

#[forward]
#[reverse]
fn shapes_built_in_place(x: &[f64]) -> f64 {
    let total = area(&Shape::Circle(x[0])) + area(&Shape::Rect(x[1], x[2] * 2.0));
    let shapes = vec![Shape::Circle(x[1]), Shape::Rect(x[0], x[2])];
    total + shapes.iter().map(area).sum::<f64>()
}

#[derive(Clone, Debug, Differentiable)]
pub struct Corner {
    x: f64,
    y: f64,
}

#[forward]
#[reverse]
pub fn spread(fig: &[Corner]) -> f64 {
    fig.iter().map(|p| p.x * p.y).sum::<f64>()
}

#[forward]
#[reverse]
fn corners_in_a_vec(x: &[f64]) -> f64 {
    let fig = vec![Corner { x: x[0], y: x[1] }, Corner { x: 1.0, y: x[0] }];
    spread(&fig)
}

#[test]
fn derived_values_built_inside_calls_and_vecs() {
    check(
        3,
        shapes_built_in_place,
        shapes_built_in_place_jvp,
        shapes_built_in_place_vjp,
    );
    check(
        2,
        corners_in_a_vec,
        corners_in_a_vec_jvp,
        corners_in_a_vec_vjp,
    );
    let (value, gradient) = area_grad(&Shape::Rect(2.0, 3.0));
    assert_eq!(value, 6.0);
    assert!(matches!(gradient, Shape::Rect(a, b) if a == 3.0 && b == 2.0));
}

#[forward]
#[reverse]
fn last_items(x: &[f64]) -> f64 {
    let every_other = x.iter().step_by(2).last().unwrap();
    let squares = x.iter().map(|v| v * v).last().unwrap_or(0.0);
    let second_last = x.iter().rev().skip(1).last().copied().unwrap();
    every_other * 2.0 + squares * second_last
}

#[forward]
#[reverse]
fn ends_product(x: &[f64]) -> Option<f64> {
    let a = x.first()?;
    let b = x.last()?;
    Some(a * b + x[1])
}

#[forward]
#[reverse]
fn ends_product_or_zero(x: &[f64]) -> f64 {
    ends_product(x).unwrap_or(0.0) + ends_product(&x[..0]).unwrap_or(0.0)
}

#[test]
fn last_of_a_chain_and_elements_tried() {
    check(5, last_items, last_items_jvp, last_items_vjp);
    check(4, last_items, last_items_jvp, last_items_vjp);
    check(
        3,
        ends_product_or_zero,
        ends_product_or_zero_jvp,
        ends_product_or_zero_vjp,
    );
}

/// Quadrature as numerical crates write it, generic over the float type and the integrand.
#[forward]
#[reverse]
pub fn simpson<T: num_traits::Float, F>(f: F, a: T, b: T, n: usize) -> T
where
    F: Fn(T) -> T,
{
    let h = (b - a) / T::from(n).unwrap();
    let mut s = f(a) + f(b);
    for i in 1..n {
        let x = a + T::from(i).unwrap() * h;
        let weight = if i % 2 == 1 {
            T::from(4.0).unwrap()
        } else {
            T::from(2.0).unwrap()
        };
        s = s + weight * f(x);
    }
    s * h / T::from(3.0).unwrap()
}

#[forward]
#[reverse]
fn apply_twice<T: num_traits::Float, F: Fn(T) -> T>(f: F, x: T) -> T {
    f(f(x))
}

#[forward]
#[reverse]
fn integrals_of_closures(x: &[f64]) -> f64 {
    let k = x[0];
    simpson(|t| (k * t).sin() * t, 0.0, x[1], 10) + apply_twice(|v| v * k + v.sin(), x[1])
}

#[test]
fn generic_functions_taking_closures() {
    check(
        2,
        integrals_of_closures,
        integrals_of_closures_jvp,
        integrals_of_closures_vjp,
    );
    // Still generic as written.
    assert_eq!(apply_twice(|v: f32| v * 2.0, 1.5f32), 6.0);
    let (value, (da, db)) = simpson_grad(|t| t.sin(), 0.2, 1.1, 10);
    assert_eq!(value.to_bits(), simpson(f64::sin, 0.2, 1.1, 10).to_bits());
    let along =
        |ta: f64, tb: f64| simpson_jvp(|t: ad_runtime::Dual<f64>| t.sin(), 0.2, 1.1, 10, ta, tb).1;
    approx::assert_relative_eq!(da, along(1.0, 0.0), max_relative = 1e-12);
    approx::assert_relative_eq!(db, along(0.0, 1.0), max_relative = 1e-12);
}

/// Black-Scholes as danielhstahl/black_scholes_rust writes its Greeks: a local named after
/// the function it calls.
mod black_scholes_names {
    use super::check;
    use ad_runtime::{forward, reverse};

    #[forward]
    #[reverse]
    fn d1(s: f64, k: f64) -> f64 {
        (s / k).ln()
    }

    #[forward]
    #[reverse]
    fn price(x: &[f64]) -> f64 {
        let d1 = d1(x[0] * x[0] + 1.0, x[1] * x[1] + 1.0);
        x[0] * d1
    }

    #[test]
    fn a_local_named_after_the_function_it_calls() {
        check(2, price, price_jvp, price_vjp);
    }
}

/// Data types built in the body (rustats' `StdNormal`, a kernel's order), an arm that does
/// nothing (`_ => ()`, graphical's `rgb_to_hsl`), and a quaternion rotation's `vec3(..)`
/// constructor and `qv.dot(qv) * qv`.
mod data_values_and_vectors {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};
    use std::ops::Mul;

    pub struct Kernel {
        order: i32,
    }

    #[forward]
    #[reverse]
    impl Kernel {
        fn eval(&self, x: f64) -> f64 {
            x.powi(self.order)
        }
    }

    pub struct StdNormal;

    #[forward]
    #[reverse]
    impl StdNormal {
        fn density(&self, x: f64) -> f64 {
            (-0.5 * x * x).exp()
        }
    }

    #[forward]
    #[reverse]
    fn kernels_built_in_place(x: &[f64]) -> f64 {
        let k = Kernel { order: 3 };
        let d = StdNormal;
        k.eval(x[0]) + x[1] * d.density(x[0])
    }

    #[forward]
    #[reverse]
    fn hue(x: &[f64]) -> f64 {
        let (r, g) = (x[0], x[1]);
        let max = r.max(g);
        let mut h = 0.0;
        match max {
            _ if max == r => h = g / r,
            _ => (),
        }
        h
    }

    #[derive(Debug, Copy, Clone, Differentiable)]
    pub struct Vec3 {
        pub x: f64,
        pub y: f64,
        pub z: f64,
    }

    #[forward]
    #[reverse]
    pub fn vec3(x: f64, y: f64, z: f64) -> Vec3 {
        Vec3 { x, y, z }
    }

    #[forward]
    #[reverse]
    impl Vec3 {
        pub fn dot(self, o: Vec3) -> f64 {
            self.x * o.x + self.y * o.y + self.z * o.z
        }
    }

    #[forward]
    #[reverse]
    impl Mul<Vec3> for f64 {
        type Output = Vec3;
        fn mul(self, v: Vec3) -> Vec3 {
            Vec3 {
                x: self * v.x,
                y: self * v.y,
                z: self * v.z,
            }
        }
    }

    #[forward]
    #[reverse]
    fn scaled_by_its_square(x: &[f64]) -> f64 {
        let qv = vec3(x[0], x[1], x[2]);
        let w = qv.dot(qv) * qv;
        qv.dot(qv) * x[1] + w.x
    }

    #[test]
    fn data_values_arms_and_vector_results() {
        check(
            2,
            kernels_built_in_place,
            kernels_built_in_place_jvp,
            kernels_built_in_place_vjp,
        );
        check(2, hue, hue_jvp, hue_vjp);
        check(
            3,
            scaled_by_its_square,
            scaled_by_its_square_jvp,
            scaled_by_its_square_vjp,
        );
    }
}

/// A float lent by reference (rustats' `fn pdf(&self, x: &f64)`, a Welford update's `new_val:
/// &f64`), and nalgebra's `magnitude`.
mod lent_floats_and_magnitudes {
    use super::check;
    use ad_runtime::{forward, reverse};
    use nalgebra::Vector3;

    #[forward]
    #[reverse]
    pub fn shifted(x: f64, new_val: &f64) -> f64 {
        let delta = new_val - x;
        delta * delta + x * new_val
    }

    #[forward]
    #[reverse]
    fn shifted_at(x: &[f64]) -> f64 {
        shifted(x[0], &x[1])
    }

    #[forward]
    #[reverse]
    fn magnitudes(x: &[f64]) -> f64 {
        let v = Vector3::new(x[0], x[1], x[2]);
        v.magnitude() + v.magnitude_squared() * x[0]
    }

    #[test]
    fn lent_floats_and_nalgebra_magnitudes() {
        check(2, shifted_at, shifted_at_jvp, shifted_at_vjp);
        check(3, magnitudes, magnitudes_jvp, magnitudes_vjp);
        let (value, tangent) = shifted_jvp(1.0, &2.0, 1.0, &0.5);
        assert_eq!(value, shifted(1.0, &2.0));
        // ∂/∂x = -2 (n - x) + n, ∂/∂n = 2 (n - x) + x.
        approx::assert_relative_eq!(tangent, 0.0 + 0.5 * 3.0, epsilon = 1e-15);
    }
}

/// Welford's aggregate `(count, mean, m2)` as a tuple mixing an integer and floats: forward mode
/// takes it (the integer is data; the tangent in its slot is not read). Reverse mode refuses
/// such a parameter with one message (`tests/ui`).
#[forward]
pub fn welford_variance(aggregate: (usize, f64, f64), new_val: f64) -> f64 {
    let (mut count, mut mean, mut m2) = aggregate;
    count += 1;
    let delta = new_val - mean;
    mean += delta / count as f64;
    m2 += delta * (new_val - mean);
    m2 / (count - 1) as f64
}

#[test]
fn a_tuple_mixing_an_integer_and_floats() {
    let at = |mean: f64, m2: f64, new_val: f64| welford_variance((3, mean, m2), new_val);
    let (value, tangent) = welford_variance_jvp((3, 1.0, 2.0), 4.0, (7, 0.3, -0.5), 0.9);
    assert_eq!(value, at(1.0, 2.0, 4.0));
    let h = 1e-6;
    let difference = (at(1.0 + 0.3 * h, 2.0 - 0.5 * h, 4.0 + 0.9 * h)
        - at(1.0 - 0.3 * h, 2.0 + 0.5 * h, 4.0 - 0.9 * h))
        / (2.0 * h);
    approx::assert_relative_eq!(tangent, difference, max_relative = 1e-8);
}

/// shorelark's constructors (`Self { a, b }`, `Layer::new(neurons: Vec<Neuron>)`), PCA's power
/// iteration (`b_k_prev.clone_from(&b_k)`), a Heston-style function of nine floats, and a
/// struct update from the type's default (forward mode).
mod constructors_and_wide_signatures {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct P {
        a: f64,
        b: f64,
    }

    #[forward]
    #[reverse]
    impl P {
        fn new(a: f64, b: f64) -> Self {
            Self { a, b }
        }
        fn swapped(&self) -> Self {
            let Self { a, b } = self;
            Self { a: *b, b: *a }
        }
        fn prod(&self) -> f64 {
            self.a * self.b
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Q {
        ps: Vec<P>,
    }

    #[forward]
    #[reverse]
    impl Q {
        fn new(ps: Vec<P>) -> Q {
            Q { ps }
        }
        fn head_product(&self) -> f64 {
            self.ps[0].a * self.ps[0].b
        }
    }

    #[forward]
    #[reverse]
    fn built_by_self(x: &[f64]) -> f64 {
        P::new(x[0], x[1]).swapped().prod() + x[0] * P::new(x[1], 2.0).prod()
    }

    #[forward]
    #[reverse]
    fn built_from_derived_values(x: &[f64]) -> f64 {
        Q::new(vec![P { a: x[0], b: x[1] }]).head_product()
    }

    #[forward]
    #[reverse]
    fn power_iteration(x: &[f64]) -> f64 {
        let m = [[x[0], x[1]], [x[1], x[2]]];
        let mut b_k = vec![1.0, 0.5];
        let mut b_k_prev = vec![0.0, 0.0];
        for _ in 0..5 {
            b_k_prev.clone_from(&b_k);
            let next = vec![
                m[0][0] * b_k_prev[0] + m[0][1] * b_k_prev[1],
                m[1][0] * b_k_prev[0] + m[1][1] * b_k_prev[1],
            ];
            let norm = (next[0] * next[0] + next[1] * next[1]).sqrt();
            b_k = vec![next[0] / norm, next[1] / norm];
        }
        b_k[0] * 3.0 + b_k_prev[1]
    }

    #[derive(Clone, Debug, Default, Differentiable)]
    pub struct Spring {
        pub k: f64,
        pub c: f64,
        pub x: f64,
        pub v: f64,
    }

    #[forward]
    fn spring_from_default(x: &[f64]) -> f64 {
        let s = Spring {
            k: x[0],
            x: x[1],
            ..Default::default()
        };
        s.k * s.x + s.c
    }

    #[test]
    fn constructors_buffers_and_defaults() {
        check(2, built_by_self, built_by_self_jvp, built_by_self_vjp);
        check(
            2,
            built_from_derived_values,
            built_from_derived_values_jvp,
            built_from_derived_values_vjp,
        );
        check(3, power_iteration, power_iteration_jvp, power_iteration_vjp);
        let (v, t) = spring_from_default_jvp(&[2.0, 3.0], &[1.0, 0.0]);
        assert_eq!((v, t), (6.0, 3.0));
    }

    #[forward]
    #[reverse]
    fn nine(a: f64, b: f64, c: f64, d: f64, e: f64, f: f64, g: f64, h: f64, i: f64) -> f64 {
        a * b + c * d + e * f * g + (h * i).sin()
    }

    #[test]
    fn nine_floats() {
        let (value, g) = nine_grad(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0);
        assert_eq!(value, nine(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0));
        assert_eq!(g.0, 2.0);
        assert_eq!(g.8, 8.0 * (72.0f64).cos());
        let (_, t) = nine_jvp(
            1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0,
        );
        assert_eq!(t, 2.0);
        let (_, _, hess) = nine_hessian(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0);
        assert_eq!(hess[0][1], 1.0);
    }
}

/// Cases a review of the mechanisms above raised, each checked to do what Rust does.
mod review_cases {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct Vec3 {
        pub x: f64,
        pub y: f64,
        pub z: f64,
    }

    #[forward]
    #[reverse]
    impl Vec3 {
        pub fn abs(self) -> Self {
            Vec3 {
                x: self.x.abs(),
                y: self.y.abs(),
                z: self.z.abs(),
            }
        }
    }

    /// `v.x.abs()` is the float's, though `Vec3` has a method `abs` returning a `Vec3`.
    #[forward]
    #[reverse]
    fn l1(x: &[f64]) -> f64 {
        let v = Vec3 {
            x: x[0],
            y: x[1],
            z: x[2],
        };
        let m = v.x.abs();
        m + v.y.abs() + v.abs().z
    }

    /// A parameter not naming `T` is data, as the generic function has it.
    #[forward]
    #[reverse]
    fn weighted<T: num_traits::Float, F: Fn(T) -> T>(f: F, a: T, b: T, w: f64) -> T {
        (f(a) + f(b)) * T::from(w).unwrap()
    }

    #[forward]
    #[reverse]
    fn ends(x: &[f64]) -> Option<f64> {
        let a: &f64 = x.first()?;
        Some(a * x[1])
    }

    #[forward]
    #[reverse]
    fn ends_or_zero(x: &[f64]) -> f64 {
        ends(x).unwrap_or(0.0)
    }

    #[test]
    fn review_cases_do_what_rust_does() {
        check(3, l1, l1_jvp, l1_vjp);
        check(2, ends_or_zero, ends_or_zero_jvp, ends_or_zero_vjp);
        // `w` is data: no adjoint for it.
        let (value, (da, db)) = weighted_grad(|t| t * t, 1.0, 2.0, 3.0);
        assert_eq!((value, da, db), (15.0, 6.0, 12.0));
        assert_eq!(value, weighted(|t| t * t, 1.0, 2.0, 3.0));
    }
}

/// shorelark's network: methods of a derived type called on a field of another (`self.first`,
/// not `Copy`) and on the elements of a `Vec` field (`for n in &self.neurons`,
/// `self.neurons[0]`, `self.neurons.iter().map(|neuron| ..)`).
mod layers_of_neurons {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Neuron {
        bias: f64,
        weights: Vec<f64>,
    }

    #[forward]
    #[reverse]
    impl Neuron {
        fn propagate(&self, inputs: &[f64]) -> f64 {
            let output = inputs
                .iter()
                .zip(&self.weights)
                .map(|(i, w)| i * w)
                .sum::<f64>();
            (self.bias + output).max(0.0) + 0.1 * output
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Layer {
        neurons: Vec<Neuron>,
        first: Neuron,
    }

    #[forward]
    #[reverse]
    impl Layer {
        fn total(&self, inputs: &[f64]) -> f64 {
            let mut s = self.first.propagate(inputs);
            for n in &self.neurons {
                s += n.propagate(inputs);
            }
            s + self.neurons[0].propagate(inputs)
        }

        fn outputs(&self, inputs: Vec<f64>) -> Vec<f64> {
            self.neurons
                .iter()
                .map(|neuron| neuron.propagate(&inputs))
                .collect()
        }
    }

    #[forward]
    #[reverse]
    fn net(x: &[f64]) -> f64 {
        let n1 = Neuron {
            bias: x[0],
            weights: vec![x[1], x[2]],
        };
        let n2 = Neuron {
            bias: 0.3,
            weights: vec![x[2], x[0]],
        };
        let layer = Layer {
            neurons: vec![n1.clone(), n2],
            first: n1,
        };
        let out = layer.outputs(vec![x[1], 2.0]);
        layer.total(&[x[0], x[1]]) + out[0] * out[1]
    }

    #[test]
    fn methods_of_the_elements_of_a_vec_field() {
        check(3, net, net_jvp, net_vjp);
    }
}
