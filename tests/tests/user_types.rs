//! User types in both modes: structs and enums that derive `Differentiable` taken as
//! `#[grad]` parameters (tangents and adjoints of the same shape), and types without the
//! derive as data. Each function carries `#[forward]` and `#[reverse]` and is checked at
//! random points along random directions: the forward derivative against central differences,
//! the reverse gradient against the forward derivative (the dot-product identity
//! <grad, t> = J t), and the value against the plain function, bit for bit.

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use common::{central_difference, check_user_type as check, Rng};

// ----- a struct, with a data field and a nested struct -----

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Vec2 {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Particle {
    pub position: Vec2,
    pub velocity: Vec2,
    pub mass: f64,
    /// Data: copied into tangents and adjoints, never differentiated.
    pub steps: usize,
}

/// Kinetic plus potential energy after `steps` explicit Euler steps in a field of strength `k`.
#[forward]
#[reverse]
fn energy(#[grad] p: &Particle, k: f64) -> f64 {
    let mut x = p.position.x;
    let mut y = p.position.y;
    let mut vx = p.velocity.x;
    let mut vy = p.velocity.y;
    let dt = 0.1;
    for _ in 0..p.steps {
        vx -= dt * k * x / p.mass;
        vy -= dt * k * y.sin() / p.mass;
        x += dt * vx;
        y += dt * vy;
    }
    0.5 * p.mass * (vx * vx + vy * vy) + k * (x * x + (1.0 - y.cos())) + p.steps as f64
}

#[test]
fn a_struct_with_a_nested_struct_and_a_data_field() {
    let mut rng = Rng::new(11);
    for _ in 0..4 {
        let p = Particle {
            position: Vec2 {
                x: rng.uniform(-1.0, 1.0),
                y: rng.uniform(-1.0, 1.0),
            },
            velocity: Vec2 {
                x: rng.uniform(-1.0, 1.0),
                y: rng.uniform(-1.0, 1.0),
            },
            mass: rng.uniform(0.5, 2.0),
            steps: 5,
        };
        let k = rng.uniform(0.5, 2.0);
        check(energy, energy_jvp, energy_vjp, &p, k, &mut rng);
    }
    // The adjoint has the value's shape; its data field is the value's.
    let p = Particle {
        position: Vec2 { x: 1.0, y: 0.0 },
        velocity: Vec2 { x: 0.0, y: 0.0 },
        mass: 1.0,
        steps: 0,
    };
    let (_, (adjoint, dk)) = energy_grad(&p, 3.0);
    assert_eq!(adjoint.steps, 0);
    assert_eq!(adjoint.position, Vec2 { x: 6.0, y: 0.0 });
    assert_eq!(dk, 1.0);
}

/// By value, with the struct built anew in forward mode.
#[forward]
#[reverse]
fn distance(#[grad] a: Vec2, b: f64) -> f64 {
    let dx = a.x - b;
    let dy = a.y * b;
    (dx * dx + dy * dy).sqrt()
}

#[test]
fn a_struct_by_value() {
    let mut rng = Rng::new(12);
    let a = Vec2 { x: 0.3, y: -1.2 };
    check(
        |a: &Vec2, b| distance(a.clone(), b),
        |a: &Vec2, b, da: &Vec2, db| distance_jvp(a.clone(), b, da.clone(), db),
        |a: &Vec2, b, ct| distance_vjp(a.clone(), b, ct),
        &a,
        0.7,
        &mut rng,
    );
}

/// Forward mode builds values of a derived type in the body.
#[forward]
fn rotated_x(#[grad] a: &Vec2, angle: f64) -> f64 {
    let (s, c) = angle.sin_cos();
    let turned = Vec2 {
        x: c * a.x - s * a.y,
        y: s * a.x + c * a.y,
    };
    let Vec2 { x, y: _ } = turned;
    x
}

#[test]
fn forward_builds_structs() {
    let a = Vec2 { x: 1.0, y: 2.0 };
    let (value, tangent) = rotated_x_jvp(&a, 0.5, &Vec2 { x: 0.0, y: 0.0 }, 1.0);
    assert_eq!(value, rotated_x(&a, 0.5));
    let difference = central_difference(|t| rotated_x(&a, t), 0.5, 1e-4);
    assert_relative_eq!(tangent, difference, max_relative = 1e-9);
}

// ----- seed 000's recursive data: product of a list, sum of a tree -----

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum List {
    Nil,
    Cons(f64, Box<List>),
}

/// `x` at the end of the list, times every element: seed 000's list example.
#[forward]
#[reverse]
fn list_product(#[grad] l: &List, x: f64) -> f64 {
    match l {
        List::Nil => x,
        List::Cons(head, tail) => *head * list_product(tail, x),
    }
}

fn list_of(values: &[f64]) -> List {
    values
        .iter()
        .rev()
        .fold(List::Nil, |tail, &head| List::Cons(head, Box::new(tail)))
}

#[test]
fn product_of_a_list() {
    let mut rng = Rng::new(13);
    for length in [0, 1, 2, 7] {
        let values: Vec<f64> = (0..length).map(|_| rng.uniform(0.5, 1.5)).collect();
        let l = list_of(&values);
        check(
            list_product,
            list_product_jvp,
            list_product_vjp,
            &l,
            1.3,
            &mut rng,
        );
    }
    // The seed's numbers: the list [5, 6] and x = 2.
    let l = list_of(&[5.0, 6.0]);
    let (value, (adjoint, dx)) = list_product_grad(&l, 2.0);
    assert_eq!(value, 60.0);
    assert_eq!(adjoint, list_of(&[12.0, 10.0]));
    assert_eq!(dx, 30.0);
}

/// The head of a list times `x`, taken apart by `let ... else`, and the head of its tail.
#[forward]
#[reverse]
fn list_heads(#[grad] l: &List, x: f64) -> f64 {
    let List::Cons(head, tail) = l else { return x };
    let List::Cons(second, _) = &**tail else {
        return head * x;
    };
    head * x + second.sin()
}

#[test]
fn heads_of_a_list_by_let_else() {
    let mut rng = Rng::new(17);
    for length in [0, 1, 2, 5] {
        let values: Vec<f64> = (0..length).map(|_| rng.uniform(0.5, 1.5)).collect();
        let l = list_of(&values);
        check(
            list_heads,
            list_heads_jvp,
            list_heads_vjp,
            &l,
            0.7,
            &mut rng,
        );
    }
    let (value, (adjoint, dx)) = list_heads_grad(&list_of(&[2.0, 0.5, 9.0]), 3.0);
    assert_eq!(value, 6.0 + 0.5_f64.sin());
    assert_eq!(adjoint, list_of(&[3.0, 0.5_f64.cos(), 0.0]));
    assert_eq!(dx, 2.0);
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Tree {
    Leaf,
    Node {
        value: f64,
        left: Box<Tree>,
        right: Box<Tree>,
    },
}

/// Every node's value, and `x` at each leaf: seed 000's tree example.
#[forward]
#[reverse]
fn tree_sum(#[grad] t: &Tree, x: f64) -> f64 {
    match t {
        Tree::Leaf => x,
        Tree::Node { value, left, right } => value * value + tree_sum(left, x) * tree_sum(right, x),
    }
}

fn random_tree(depth: usize, rng: &mut Rng) -> Tree {
    if depth == 0 || rng.uniform(0.0, 1.0) < 0.2 {
        Tree::Leaf
    } else {
        Tree::Node {
            value: rng.uniform(-1.0, 1.0),
            left: Box::new(random_tree(depth - 1, rng)),
            right: Box::new(random_tree(depth - 1, rng)),
        }
    }
}

#[test]
fn sum_of_a_tree() {
    let mut rng = Rng::new(14);
    for depth in [0, 1, 3, 5] {
        let t = random_tree(depth, &mut rng);
        check(tree_sum, tree_sum_jvp, tree_sum_vjp, &t, 0.9, &mut rng);
    }
}

// ----- fields holding containers and options -----

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Layer {
    pub weights: Vec<f64>,
    pub bias: [f64; 2],
    pub next: Option<Box<Layer>>,
}

/// Reads `weights[i]` and `bias[j]` of every layer down the `next` chain.
#[forward]
#[reverse]
fn layers(#[grad] layer: &Layer, x: f64) -> f64 {
    let mut sum = layer.bias[0] * x + layer.bias[1];
    for i in 0..layer.weights.len() {
        sum += (layer.weights[i] * x).tanh();
    }
    match &layer.next {
        Some(next) => sum * layers(next, x),
        None => sum,
    }
}

#[test]
fn vectors_arrays_and_options_in_a_struct() {
    let mut rng = Rng::new(15);
    let inner = Layer {
        weights: vec![0.2, -0.4],
        bias: [0.5, 1.0],
        next: None,
    };
    let outer = Layer {
        weights: vec![0.3, 0.1, -0.7],
        bias: [-0.2, 0.8],
        next: Some(Box::new(inner)),
    };
    check(layers, layers_jvp, layers_vjp, &outer, 0.6, &mut rng);
}

// ----- types without the derive are data -----

pub struct Config {
    pub scale: f64,
    pub rounds: usize,
}

pub enum Shape {
    Empty,
    Cons(f64, Box<Shape>),
}

#[forward]
#[reverse]
fn with_data(cfg: &Config, shape: &Shape, x: f64) -> f64 {
    let mut s = x;
    for _ in 0..cfg.rounds {
        s = cfg.scale * s.sin();
    }
    s * data_product(shape, x)
}

#[forward]
#[reverse]
fn data_product(shape: &Shape, x: f64) -> f64 {
    match shape {
        Shape::Empty => x,
        Shape::Cons(head, tail) => *head * data_product(tail, x) + head,
    }
}

#[test]
fn types_without_the_derive_are_data() {
    let cfg = Config {
        scale: 1.5,
        rounds: 3,
    };
    let shape = Shape::Cons(2.0, Box::new(Shape::Cons(3.0, Box::new(Shape::Empty))));
    for x in [-0.7_f64, 0.2, 1.1] {
        let (value, tangent) = with_data_jvp(&cfg, &shape, x, 1.0);
        assert_eq!(value.to_bits(), with_data(&cfg, &shape, x).to_bits());
        let difference = central_difference(|x| with_data(&cfg, &shape, x), x, 1e-4);
        assert_relative_eq!(tangent, difference, max_relative = 1e-8);
        let (value, adjoint) = with_data_grad(&cfg, &shape, x);
        assert_eq!(value.to_bits(), with_data(&cfg, &shape, x).to_bits());
        assert_relative_eq!(adjoint, tangent, max_relative = 1e-12);
    }
    // Seed 000's list example with the list as data: d/dx (5 * 6 * x) = 30.
    let list = Shape::Cons(5.0, Box::new(Shape::Cons(6.0, Box::new(Shape::Empty))));
    assert_eq!(data_product_grad(&list, 2.0).1, 30.0);
    assert_eq!(data_product_jvp(&list, 2.0, 1.0).1, 30.0);
}

// ----- tuple and container results -----

/// A function of two floats: forward against differences, reverse against forward.
fn check2_against_differences(
    plain: impl Fn(f64, f64) -> f64,
    jvp: impl Fn(f64, f64, f64, f64) -> (f64, f64),
    vjp: impl Fn(f64, f64, f64) -> (f64, (f64, f64)),
) {
    for (x, y) in [(0.7, -0.4), (1.3, 2.1), (-0.9, 0.3)] {
        let (_, tangent_x, tangent_y) = common::forward_checked2(&plain, &jvp, x, y);
        let (value, (ax, ay)) = vjp(x, y, 1.0);
        assert_eq!(value.to_bits(), plain(x, y).to_bits());
        assert_relative_eq!(ax, tangent_x, max_relative = 1e-12, epsilon = 1e-14);
        assert_relative_eq!(ay, tangent_y, max_relative = 1e-12, epsilon = 1e-14);
    }
}

#[forward]
#[reverse]
fn polar(r: f64, theta: f64) -> (f64, f64) {
    let (s, c) = theta.sin_cos();
    (r * c, r * s)
}

#[forward]
#[reverse]
fn doubled(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| 2.0 * v).collect()
}

#[forward]
#[reverse]
fn scaled_squares(x: &[f64], k: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for v in x {
        out.push(k * v * v);
    }
    if k < 0.0 {
        return out;
    }
    out
}

#[forward]
#[reverse]
fn rotate(p: [f64; 2], angle: f64) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [c * p[0] - s * p[1], s * p[0] + c * p[1]]
}

/// Destructures a tuple returned by a differentiated function.
#[forward]
#[reverse]
fn through_polar(r: f64, theta: f64) -> f64 {
    let (a, b) = polar(r, theta);
    let (mut c, d) = polar(b, a);
    c += d;
    a * c
}

#[test]
fn tuple_and_container_results() {
    check2_against_differences(through_polar, through_polar_jvp, through_polar_vjp);
    let mut rng = Rng::new(16);
    for _ in 0..4 {
        let (r, theta) = (rng.uniform(0.1, 2.0), rng.uniform(-3.0, 3.0));
        let (dr, dtheta) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let (c0, c1) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let (value, tangent) = polar_jvp(r, theta, dr, dtheta);
        assert_eq!(value, polar(r, theta));
        let along = |h: f64| polar(r + h * dr, theta + h * dtheta);
        assert_relative_eq!(
            tangent.0,
            central_difference(|h| along(h).0, 0.0, 1e-4),
            max_relative = 1e-8,
            epsilon = 1e-10
        );
        let (value, (ar, atheta)) = polar_vjp(r, theta, (c0, c1));
        assert_eq!(value, polar(r, theta));
        assert_relative_eq!(
            ar * dr + atheta * dtheta,
            c0 * tangent.0 + c1 * tangent.1,
            max_relative = 1e-12,
            epsilon = 1e-14
        );

        let x: Vec<f64> = (0..5).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let dx: Vec<f64> = (0..5).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let cot: Vec<f64> = (0..5).map(|_| rng.uniform(-1.0, 1.0)).collect();
        for k in [-0.5, 1.5] {
            let (value, tangent) = scaled_squares_jvp(&x, k, &dx, 0.3);
            assert_eq!(value, scaled_squares(&x, k));
            let (value, (ax, ak)) = scaled_squares_vjp(&x, k, cot.clone());
            assert_eq!(value, scaled_squares(&x, k));
            let left: f64 = ax.iter().zip(&dx).map(|(a, d)| a * d).sum::<f64>() + ak * 0.3;
            let right: f64 = cot.iter().zip(&tangent).map(|(c, t)| c * t).sum();
            assert_relative_eq!(left, right, max_relative = 1e-12, epsilon = 1e-14);
        }
        let (_, twice) = doubled_vjp(&x, cot.clone());
        assert_eq!(twice, cot.iter().map(|c| 2.0 * c).collect::<Vec<f64>>());
        assert_eq!(
            doubled_jvp(&x, &dx).1,
            dx.iter().map(|d| 2.0 * d).collect::<Vec<f64>>()
        );
        let p = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)];
        let (value, tangent) = rotate_jvp(p, theta, [dr, 0.0], dtheta);
        assert_eq!(value, rotate(p, theta));
        let (value, (ap, atheta)) = rotate_vjp(p, theta, [c0, c1]);
        assert_eq!(value, rotate(p, theta));
        assert_relative_eq!(
            ap[0] * dr + atheta * dtheta,
            c0 * tangent[0] + c1 * tangent[1],
            max_relative = 1e-12,
            epsilon = 1e-14
        );
    }
}

// ----- methods -----

impl Vec2 {
    #[forward]
    #[reverse]
    pub fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }

    /// Calls another differentiated method on `self`.
    #[forward]
    #[reverse]
    pub fn scaled_norm(&self, k: f64) -> f64 {
        k * self.norm() + self.y.sin()
    }
}

/// Calls a method on a `#[grad]` parameter.
#[forward]
#[reverse]
fn through_a_method(#[grad] p: &Vec2, k: f64) -> f64 {
    p.scaled_norm(k) * p.x
}

#[test]
fn methods_of_a_derived_struct() {
    let mut rng = Rng::new(17);
    for _ in 0..4 {
        let p = Vec2 {
            x: rng.uniform(-2.0, 2.0),
            y: rng.uniform(-2.0, 2.0),
        };
        let k = rng.uniform(-2.0, 2.0);
        check(
            |p: &Vec2, k| p.scaled_norm(k),
            |p: &Vec2, k, dp: &Vec2, dk| p.scaled_norm_jvp(k, dp, dk),
            |p: &Vec2, k, ct| p.scaled_norm_vjp(k, ct),
            &p,
            k,
            &mut rng,
        );
        check(
            through_a_method,
            through_a_method_jvp,
            through_a_method_vjp,
            &p,
            k,
            &mut rng,
        );
    }
    let p = Vec2 { x: 3.0, y: 4.0 };
    let (value, tangent) = p.norm_jvp(&Vec2 { x: 1.0, y: 0.0 });
    assert_eq!(value, 5.0);
    assert_relative_eq!(tangent, 0.6, max_relative = 1e-15);
    let (value, adjoint) = p.norm_grad();
    assert_eq!(value, 5.0);
    assert_relative_eq!(adjoint.x, 0.6, max_relative = 1e-15);
    assert_relative_eq!(adjoint.y, 0.8, max_relative = 1e-15);
}

// ----- `Option`s -----

#[forward]
#[reverse]
fn shifted(x: f64, shift: Option<f64>) -> f64 {
    match shift {
        Some(s) if s > 0.0 => x * s,
        Some(s) => x + s,
        None => x.sin(),
    }
}

#[forward]
#[reverse]
fn with_default(x: f64, shift: Option<f64>) -> f64 {
    let s = shift.unwrap_or(2.0);
    if let Some(t) = shift {
        x * s * t
    } else {
        x * s
    }
}

/// Forward mode keeps floats in an `Option` built in the body.
#[forward]
fn local_option(x: f64) -> f64 {
    let m = if x > 0.0 { Some(x * x) } else { None };
    match m {
        Some(v) => v.sin(),
        None => x,
    }
}

#[test]
fn options() {
    for x in [-0.8_f64, 0.5, 1.3] {
        let (value, tangent) = local_option_jvp(x, 1.0);
        assert_eq!(value, local_option(x));
        assert_relative_eq!(
            tangent,
            central_difference(local_option, x, 1e-4),
            max_relative = 1e-8
        );
    }
    assert_eq!(shifted_grad(2.0, Some(3.0)).1, 3.0);
    assert_eq!(shifted_jvp(2.0, Some(-3.0), 1.0).1, 1.0);
    assert_eq!(with_default_grad(2.0, Some(3.0)).1, 9.0);
    assert_eq!(with_default_jvp(2.0, None, 1.0).1, 2.0);
    // Data `Option`s in both modes: forward against differences, reverse against forward.
    for shift in [Some(3.0), Some(-0.5), None] {
        for x in [-0.7_f64, 0.4, 1.9] {
            for (plain, jvp, grad) in [
                (
                    shifted as fn(f64, Option<f64>) -> f64,
                    shifted_jvp as fn(f64, Option<f64>, f64) -> (f64, f64),
                    shifted_grad as fn(f64, Option<f64>) -> (f64, f64),
                ),
                (with_default, with_default_jvp, with_default_grad),
            ] {
                let (value, tangent) = jvp(x, shift, 1.0);
                assert_eq!(value.to_bits(), plain(x, shift).to_bits());
                let difference = central_difference(|x| plain(x, shift), x, 1e-4);
                assert_relative_eq!(tangent, difference, epsilon = 1e-9, max_relative = 1e-8);
                let (reverse_value, adjoint) = grad(x, shift);
                assert_eq!(reverse_value.to_bits(), value.to_bits());
                assert_relative_eq!(adjoint, tangent, epsilon = 1e-14, max_relative = 1e-12);
            }
        }
    }
}

// ----- reverse mode takes user values apart with `let` and `if let` too -----

#[forward]
#[reverse]
fn taken_apart(#[grad] p: &Particle, x: f64) -> f64 {
    let Particle { position, mass, .. } = p;
    let velocity = &p.velocity;
    let speed = velocity.x * velocity.x + velocity.y * velocity.y;
    let mut total = mass * speed + position.x * x;
    let Vec2 { x: px, y: py } = position;
    total += px * py;
    total
}

#[forward]
#[reverse]
fn first_or(#[grad] l: &List, x: f64) -> f64 {
    if let List::Cons(head, tail) = l {
        if let List::Cons(second, _) = &**tail {
            return head * second * x;
        }
        head * x
    } else {
        x
    }
}

#[test]
fn let_and_if_let_over_user_values() {
    let mut rng = Rng::new(18);
    let p = Particle {
        position: Vec2 { x: 0.4, y: -0.3 },
        velocity: Vec2 { x: 1.1, y: 0.2 },
        mass: 1.7,
        steps: 3,
    };
    check(
        taken_apart,
        taken_apart_jvp,
        taken_apart_vjp,
        &p,
        0.8,
        &mut rng,
    );
    for length in [0, 1, 2, 3] {
        let values: Vec<f64> = (0..length).map(|_| rng.uniform(-1.5, 1.5)).collect();
        check(
            first_or,
            first_or_jvp,
            first_or_vjp,
            &list_of(&values),
            1.2,
            &mut rng,
        );
    }
}

// ----- loops over containers inside user values -----

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Cloud {
    pub weights: Vec<f64>,
    pub points: Vec<Vec2>,
}

#[forward]
#[reverse]
fn cloud_energy(#[grad] c: &Cloud, x: f64) -> f64 {
    let mut s = x;
    for w in &c.weights {
        s += (w * x).sin();
    }
    for p in c.points.iter() {
        s += p.x * p.y + Vec2::norm(p);
    }
    let total: f64 = c.weights.iter().map(|w| w * w).sum();
    s * total
}

#[test]
fn loops_over_containers_in_user_values() {
    let mut rng = Rng::new(19);
    for n in [0, 1, 4] {
        let c = Cloud {
            weights: (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect(),
            points: (0..n + 1)
                .map(|_| Vec2 {
                    x: rng.uniform(0.2, 1.0),
                    y: rng.uniform(0.2, 1.0),
                })
                .collect(),
        };
        check(
            cloud_energy,
            cloud_energy_jvp,
            cloud_energy_vjp,
            &c,
            0.7,
            &mut rng,
        );
    }
}

// ----- regressions from the review of user types -----

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Knot {
    pub w: f64,
    pub scale: Option<f64>,
    pub boxed: Box<f64>,
    pub pair: (f64, f64),
    pub n: usize,
    pub ids: Vec<usize>,
    pub next: Option<Box<Self>>,
}

#[forward]
#[reverse]
fn square(o: f64) -> f64 {
    o * o
}

/// `if let` on an `Option` field and on an optional child passed to a recursive call (once
/// silently zero in reverse mode); a by-value match binding passed to a call and used in a
/// guard; a data field matched by value; `Box<f64>`, tuple and `Self` fields.
#[forward]
#[reverse]
fn knots(#[grad] k: &Knot, x: f64) -> f64 {
    let mut s = k.w * x + *k.boxed * k.pair.0 - k.pair.1;
    if let Some(scale) = k.scale {
        s *= scale;
    }
    s += match k.scale {
        Some(v) if v > 0.0 => square(v) * x,
        Some(v) => v,
        None => x,
    };
    s += match k.n {
        0 => x,
        m => {
            let mut p = k.w;
            for _ in 0..m {
                p *= x;
            }
            p + k.ids.len() as f64
        }
    };
    if let Some(next) = &k.next {
        s * knots(next, x)
    } else {
        s
    }
}

#[test]
fn regressions_from_the_review() {
    let mut rng = Rng::new(20);
    let knot = |scale: Option<f64>, n: usize, next: Option<Box<Knot>>, rng: &mut Rng| Knot {
        w: rng.uniform(-1.0, 1.0),
        scale,
        boxed: Box::new(rng.uniform(-1.0, 1.0)),
        pair: (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)),
        n,
        ids: vec![1, 2],
        next,
    };
    let inner = knot(Some(-0.5), 0, None, &mut rng);
    let middle = knot(None, 2, Some(Box::new(inner)), &mut rng);
    let outer = knot(Some(1.5), 3, Some(Box::new(middle)), &mut rng);
    check(knots, knots_jvp, knots_vjp, &outer, 0.9, &mut rng);
    // The gradient reaches the innermost knot through `if let Some(next)`.
    let (_, (adjoint, _)) = knots_grad(&outer, 0.9);
    let innermost = adjoint
        .next
        .as_ref()
        .and_then(|k| k.next.as_ref())
        .expect("three knots");
    assert!(innermost.w != 0.0);
    // A parameter named `o` has the tangent `d_o` (`do` is a keyword).
    assert_eq!(square_jvp(3.0, 1.0), (9.0, 6.0));
}

// ----- floats computed from data, and `#[no_grad]` fields -----

pub struct Limits {
    pub lo: f64,
    pub hi: f64,
    pub weights: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Tagged {
    pub a: f64,
    #[no_grad]
    pub c: f64,
}

#[forward]
#[reverse]
fn data_expressions(limits: &Limits, #[grad] t: &Tagged, x: f64) -> f64 {
    (limits.lo + limits.hi) * x
        + x * limits.weights[1]
        + f64::sin(limits.lo) * x
        + limits.weights[0] * limits.weights[0] * x
        + t.a * x
        + t.c * x
        + (2.0 * limits.hi).exp() * t.a
}

#[test]
fn floats_computed_from_data() {
    let mut rng = Rng::new(21);
    let limits = Limits {
        lo: 0.3,
        hi: 1.2,
        weights: vec![0.5, -0.7],
    };
    let t = Tagged { a: 0.8, c: 2.5 };
    check(
        |t: &Tagged, x| data_expressions(&limits, t, x),
        |t: &Tagged, x, dt: &Tagged, dx| data_expressions_jvp(&limits, t, x, dt, dx),
        |t: &Tagged, x, ct| data_expressions_vjp(&limits, t, x, ct),
        &t,
        0.4,
        &mut rng,
    );
    // The `#[no_grad]` field is data: its adjoint is the value's.
    assert_eq!(data_expressions_grad(&limits, &t, 0.4).1 .0.c, 2.5);
}

// ----- regressions from the review of results, tuples and data floats -----

impl Vec2 {
    #[forward]
    #[reverse]
    pub fn pair(&self, k: f64) -> (f64, f64) {
        (self.x * k, self.y + k)
    }
}

/// Data floats in closures with untyped parameters, in the path form of float functions, in a
/// data local that is later updated with floats; a tuple copied, a tuple result called with
/// data only and one returned by a method; `v[i] *= v[i]`.
#[forward]
#[reverse]
fn data_in_many_places(limits: &Limits, #[grad] p: &Vec2, x: f64, n: usize) -> f64 {
    let scaled: f64 = limits.weights.iter().map(|w| w * limits.hi).sum();
    let pair = [x, 2.0 * x];
    let picked: f64 = pair
        .iter()
        .filter(|v| **v > limits.lo)
        .map(|v| v * limits.hi)
        .sum();
    let mut k = limits.lo;
    k *= 2.0;
    k += x;
    let t = (x * k, p.y);
    let u = t;
    let (a, b) = polar(n as f64, 2.0);
    let (c, d) = p.pair(x);
    let mut v = [x, k, 3.0];
    v[1] *= v[1];
    f64::max(limits.hi, x) * scaled
        + picked
        + limits.weights[1].clamp(x, x + 5.0)
        + u.0 * u.1
        + a * b * c
        + d * v[1]
}

#[test]
fn data_floats_tuples_and_results_in_more_places() {
    let mut rng = Rng::new(22);
    let limits = Limits {
        lo: 0.3,
        hi: 1.2,
        weights: vec![0.5, -0.7],
    };
    for x in [0.1, 0.9] {
        let p = Vec2 {
            x: rng.uniform(-1.0, 1.0),
            y: rng.uniform(-1.0, 1.0),
        };
        check(
            |p: &Vec2, x| data_in_many_places(&limits, p, x, 3),
            |p: &Vec2, x, dp: &Vec2, dx| data_in_many_places_jvp(&limits, p, x, 3, dp, dx),
            |p: &Vec2, x, ct| data_in_many_places_vjp(&limits, p, x, 3, ct),
            &p,
            x,
            &mut rng,
        );
    }
}

#[test]
#[should_panic(expected = "a cotangent must have the shape of the result")]
fn a_cotangent_of_the_wrong_length_is_refused() {
    let _ = doubled_vjp(&[1.0, 2.0], vec![1.0]);
}

// ----- values of derived types built in the body -----

/// Builds `Vec2`s from floats (one from a `#[grad]` parameter's parts), reads them, matches
/// them, passes them to functions and methods taking `#[grad]` values.
#[forward]
#[reverse]
fn built_in_the_body(#[grad] p: &Vec2, x: f64) -> f64 {
    let q = Vec2 {
        y: p.x * x,
        x: x.sin() + p.y,
    };
    let r = Vec2 { x: q.y, y: 2.0 };
    let Vec2 { x: qx, y: qy } = &q;
    let mut s = qx * qy + r.x * r.y;
    for k in 0..3 {
        let step = Vec2 {
            x: s * 0.1,
            y: k as f64,
        };
        s += distance(step.clone(), x) + step.norm();
    }
    s + q.norm() * r.scaled_norm(x)
}

#[test]
fn structs_built_in_the_body() {
    let mut rng = Rng::new(24);
    for _ in 0..3 {
        let p = Vec2 {
            x: rng.uniform(-1.0, 1.0),
            y: rng.uniform(-1.0, 1.0),
        };
        check(
            built_in_the_body,
            built_in_the_body_jvp,
            built_in_the_body_vjp,
            &p,
            rng.uniform(0.2, 1.0),
            &mut rng,
        );
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct State {
    pub position: [f64; 2],
    pub velocity: [f64; 2],
}

/// Floats copied out of a `#[grad]` value by destructuring with `mut`, then changed.
#[forward]
#[reverse]
fn advanced(#[grad] s: &State, dt: f64) -> f64 {
    let [mut x, mut y] = s.position;
    let [vx, vy] = s.velocity;
    let rounds = s.position.len() + 1;
    for _ in 0..rounds {
        x += dt * vx * y;
        y -= dt * vy * x;
    }
    x * y
}

#[test]
fn floats_destructured_out_of_user_values() {
    let mut rng = Rng::new(25);
    let s = State {
        position: [0.4, -0.8],
        velocity: [1.1, 0.6],
    };
    check(advanced, advanced_jvp, advanced_vjp, &s, 0.3, &mut rng);
}

/// Data that is neither `Debug` nor `PartialEq`, held in a `#[no_grad]` field.
#[derive(Clone)]
pub struct Settings {
    pub rounds: usize,
}

#[derive(Clone, Differentiable)]
pub struct Tuned {
    pub gain: f64,
    #[no_grad]
    pub settings: Settings,
}

#[forward]
#[reverse]
fn tuned(#[grad] t: &Tuned, x: f64) -> f64 {
    let mut s = x;
    for _ in 0..t.settings.rounds {
        s = (s * t.gain).sin();
    }
    s
}

#[test]
fn data_fields_need_only_clone() {
    let mut rng = Rng::new(26);
    let t = Tuned {
        gain: 1.3,
        settings: Settings { rounds: 3 },
    };
    check(tuned, tuned_jvp, tuned_vjp, &t, 0.4, &mut rng);
}

/// A `String` field is data; the twin is not `Copy` then.
#[derive(Clone, Differentiable)]
pub struct Named {
    pub value: f64,
    pub name: String,
}

#[forward]
#[reverse]
fn named(#[grad] n: &Named, x: f64) -> f64 {
    n.value * x + n.name.len() as f64
}

#[test]
fn string_fields_are_data() {
    let mut rng = Rng::new(27);
    let n = Named {
        value: 0.7,
        name: String::from("abc"),
    };
    check(named, named_jvp, named_vjp, &n, 1.1, &mut rng);
}

// ----- enum values built in the body -----

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Figure {
    Circle(f64),
    Rect { w: f64, h: f64 },
    Segment(f64, usize, f64),
}

#[forward]
#[reverse]
fn figure_area(#[grad] f: &Figure) -> f64 {
    match f {
        Figure::Circle(r) => std::f64::consts::PI * r * r,
        Figure::Rect { w, h } => w * h,
        Figure::Segment(a, n, b) => (b - a) * *n as f64,
    }
}

/// Variants built from floats (a tuple variant, a struct variant, a tuple variant with a data
/// field), passed to a differentiated function and matched.
#[forward]
#[reverse]
fn built_figures(a: f64, b: f64) -> f64 {
    let circle = Figure::Circle(a.sin());
    let rect = Figure::Rect { w: a * b, h: b };
    let segment = Figure::Segment(a, 3, b * b);
    let bonus = match &rect {
        Figure::Rect { w, .. } => w * 2.0,
        _ => 0.0,
    };
    figure_area(&circle) * figure_area(&rect) + figure_area(&segment) + bonus
}

#[test]
fn enum_values_built_in_the_body() {
    check2_against_differences(built_figures, built_figures_jvp, built_figures_vjp);
}

// ----- a user method named like a container's -----

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Segment {
    pub a: f64,
    pub b: f64,
}

impl Segment {
    /// A float-valued method named `len`: not a container's length (found by review: its
    /// derivative was dropped).
    #[forward]
    #[reverse]
    pub fn len(&self) -> f64 {
        (self.a * self.a + self.b * self.b).sqrt()
    }
}

#[forward]
#[reverse]
fn segment_len(#[grad] s: &Segment, t: f64) -> f64 {
    let l = s.len();
    let doubled = 2.0 * s.len() + 1.0;
    l * t + s.a + doubled * t
}

#[test]
fn a_method_named_len_returning_a_float() {
    let mut rng = Rng::new(31);
    for _ in 0..4 {
        let s = Segment {
            a: rng.uniform(-1.5, 1.5),
            b: rng.uniform(-1.5, 1.5),
        };
        let t = rng.uniform(-1.5, 1.5);
        check(
            segment_len,
            segment_len_jvp,
            segment_len_vjp,
            &s,
            t,
            &mut rng,
        );
    }
}

/// Variants built in the branches of an `if` or a `match` (and a copy of one built before),
/// bound by `let` and passed to a differentiated function.
#[forward]
#[reverse]
fn figures_from_branches(a: f64, b: f64) -> f64 {
    let s = if a > 0.0 {
        Figure::Circle(a * b)
    } else {
        Figure::Rect { w: a, h: b * b }
    };
    let t = match (b > 0.5) as usize {
        0 => Figure::Rect { w: b, h: 2.0 },
        _ => {
            let r = a.sin();
            Figure::Circle(r)
        }
    };
    let u = if b > 0.0 {
        t.clone()
    } else if a > 0.5 {
        Figure::Segment(b, 2, a)
    } else {
        s.clone()
    };
    figure_area(&s) * figure_area(&t) + figure_area(&u)
}

#[test]
fn enum_values_from_branches() {
    for (a, b) in [
        (0.7, -0.4),
        (-0.3, 0.8),
        (0.5, 0.6),
        (-1.2, -0.9),
        (0.8, -0.2),
    ] {
        let (value, along_a, along_b) =
            common::forward_checked2(figures_from_branches, figures_from_branches_jvp, a, b);
        let (reverse_value, (ga, gb)) = figures_from_branches_grad(a, b);
        assert_eq!(reverse_value.to_bits(), value.to_bits());
        assert_relative_eq!(ga, along_a, max_relative = 1e-12, epsilon = 1e-14);
        assert_relative_eq!(gb, along_b, max_relative = 1e-12, epsilon = 1e-14);
    }
}

/// Variants and structs built from constants only, passed to differentiated code (found by
/// review: they stayed plain values where twins were expected, a compile error inside
/// generated code).
#[forward]
#[reverse]
fn figures_of_constants(a: f64, b: f64) -> f64 {
    let n = 3;
    let e = Figure::Circle(2.0);
    let d = Figure::Circle(n as f64);
    let r = Figure::Rect { w: 1.5, h: 0.5 };
    figure_area(&e) * a + figure_area(&d) * b + figure_area(&r) * a * b
}

#[test]
fn user_values_of_constants() {
    check2_against_differences(
        figures_of_constants,
        figures_of_constants_jvp,
        figures_of_constants_vjp,
    );
}
