//! Shapes of published numerical Rust that the macros refused before, each reduced from its
//! source and checked three ways (`common::check_gradient`: reverse against forward along every
//! basis direction, forward against central differences, and the dot-product identity):
//! kurbo's `const fn` constructors, operators whose `Output` is another derived type and
//! aliases of derived types (`type Point = Vec2`); TheAlgorithms' argument checks returning
//! `Result<(), LossError>`, activation enums held in locals and medians of a `Vec` taken by
//! value; derived values built inside `vec![..]` and calls, parameters of derived types
//! without `#[grad]`, `last()` of an iterator chain and `x.first()?`.

#![allow(clippy::float_cmp, clippy::double_ended_iterator_last, clippy::useless_vec)]

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

/// kurbo's `impl Sub for Point { type Output = Vec2; .. }` and `type Point = Vec2` in a
/// method's signature.
mod other_derived_outputs {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};
    use std::ops::Sub;

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

    pub type Point = V2;

    #[forward]
    #[reverse]
    impl V2 {
        pub fn midpoint(self, other: Point) -> Point {
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

    #[test]
    fn operators_and_aliases_of_other_derived_types() {
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
