//! Geometry in the forms of `kurbo`/`lyon` (Bezier curves over point arrays, `type` aliases),
//! `geo` (shoelace area, haversine distance with an Earth-radius `const`), robotics tutorials
//! (2-link arm kinematics), and nalgebra-free vector structs with `impl Sub for Vec3`.

use crate::harness::{one, Case};
use ad_runtime::{forward, reverse, Differentiable};
use std::ops::Sub;

/// A 2-D point as an array, as small geometry crates alias it.
pub type Point2 = [f64; 2];

// Form of a cubic Bezier point by Bernstein weights (kurbo's `CubicBez::eval`), aliases.
#[forward]
#[reverse]
pub fn cubic_bezier(ctrl: &[Point2; 4], t: f64) -> Point2 {
    let mt = 1.0 - t;
    let weights = [mt * mt * mt, 3.0 * mt * mt * t, 3.0 * mt * t * t, t * t * t];
    let mut p = [0.0; 2];
    for (w, c) in weights.iter().zip(ctrl) {
        p[0] += w * c[0];
        p[1] += w * c[1];
    }
    p
}

// Form of geo's shoelace area over `(x, y)` tuples: `windows(2)` plus the closing edge.
#[forward]
#[reverse]
pub fn polygon_area(vertices: &[(f64, f64)]) -> f64 {
    let n = vertices.len();
    let twice: f64 = vertices
        .windows(2)
        .map(|w| w[0].0 * w[1].1 - w[1].0 * w[0].1)
        .sum::<f64>()
        + (vertices[n - 1].0 * vertices[0].1 - vertices[0].0 * vertices[n - 1].1);
    0.5 * twice.abs()
}

/// Link lengths: data.
pub struct TwoLinkArm {
    pub l1: f64,
    pub l2: f64,
}

// Form of a 2-link planar arm's forward kinematics (robotics tutorials), data struct param.
#[forward]
#[reverse]
pub fn end_effector(arm: &TwoLinkArm, q: [f64; 2]) -> [f64; 2] {
    let (s1, c1) = q[0].sin_cos();
    let (s12, c12) = (q[0] + q[1]).sin_cos();
    [arm.l1 * c1 + arm.l2 * c12, arm.l1 * s1 + arm.l2 * s12]
}

// Form of an inverse-kinematics objective calling it.
#[forward]
#[reverse]
pub fn reach_error(arm: &TwoLinkArm, q: [f64; 2], target: [f64; 2]) -> f64 {
    let p = end_effector(arm, q);
    (p[0] - target[0]).powi(2) + (p[1] - target[1]).powi(2)
}

/// Mean Earth radius in kilometres.
const EARTH_RADIUS_KM: f64 = 6371.0;

// Form of geo's `HaversineDistance`, degrees in, `to_radians`.
#[forward]
#[reverse]
pub fn haversine_km(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (phi1, phi2) = (lat1.to_radians(), lat2.to_radians());
    let d_phi = (lat2 - lat1).to_radians();
    let d_lambda = (lon2 - lon1).to_radians();
    let a = (d_phi / 2.0).sin().powi(2) + phi1.cos() * phi2.cos() * (d_lambda / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_KM * a.sqrt().asin()
}

/// A nalgebra-free 3-vector, as small physics and graphics code writes it.
#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct Vec3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

// The attributes go on the `impl` blocks: the operator and the methods are then the twin's
// too, so the derivative code of `triangle_area` calls them on the values it builds.
#[forward]
#[reverse]
impl Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

#[forward]
#[reverse]
impl Vec3 {
    pub fn cross(&self, o: &Vec3) -> Vec3 {
        Vec3 {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }

    pub fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y + self.z * self.z).sqrt()
    }
}

// Form of a triangle's area through `impl Sub for Vec3` and methods returning `Vec3`
// (`ab.cross(&ac).norm()`, as in small ray tracers and mesh code), the corners `#[grad]`.
#[forward]
#[reverse]
pub fn triangle_area(#[grad] a: Vec3, #[grad] b: Vec3, #[grad] c: Vec3) -> f64 {
    let ab = b - a;
    let ac = c - a;
    0.5 * ab.cross(&ac).norm()
}

fn quad(x: &[f64]) -> [Point2; 4] {
    [[x[0], x[1]], [x[2], x[3]], [x[4], x[5]], [x[6], x[7]]]
}

#[test]
fn cubic_bezier_alias_arrays() {
    Case::new("cubic_bezier", 9, |x| cubic_bezier(&quad(x), x[8]).to_vec())
        .forward(|x, t| {
            let (p, d) = cubic_bezier_jvp(&quad(x), x[8], &quad(t), t[8]);
            (p.to_vec(), d.to_vec())
        })
        .reverse(|x, w| {
            let (p, (a_ctrl, a_t)) = cubic_bezier_vjp(&quad(x), x[8], [w[0], w[1]]);
            (p.to_vec(), [a_ctrl.concat(), vec![a_t]].concat())
        })
        .check(61);
}

fn pentagon(x: &[f64]) -> Vec<(f64, f64)> {
    (0..5)
        .map(|k| {
            let a = 2.0 * std::f64::consts::PI * k as f64 / 5.0;
            (
                (2.0 + 0.3 * x[2 * k]) * a.cos(),
                (2.0 + 0.3 * x[2 * k + 1]) * a.sin(),
            )
        })
        .collect()
}

#[test]
fn polygon_area_tuples() {
    Case::new("polygon_area", 10, |x| one(polygon_area(&pentagon(x))))
        .forward(|x, t| {
            // The polygon is linear in each coordinate's perturbation: push `t` through it.
            let (p, q) = (pentagon(x), pentagon(&[0.0; 10]));
            let dp: Vec<(f64, f64)> = pentagon(t)
                .iter()
                .zip(&q)
                .map(|(a, b)| (a.0 - b.0, a.1 - b.1))
                .collect();
            let (v, d) = polygon_area_jvp(&p, &dp);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            // Back through `pentagon`: each coordinate scales one vertex coordinate.
            let (v, adjoints) = polygon_area_vjp(&pentagon(x), w[0]);
            let mut back = vec![0.0; 10];
            for (k, (ax, ay)) in adjoints.iter().enumerate() {
                let a = 2.0 * std::f64::consts::PI * k as f64 / 5.0;
                back[2 * k] = ax * 0.3 * a.cos();
                back[2 * k + 1] = ay * 0.3 * a.sin();
            }
            (one(v), back)
        })
        .check(62);
}

#[test]
fn two_link_arm() {
    let arm = || TwoLinkArm { l1: 1.0, l2: 0.7 };
    Case::new("end_effector", 2, move |x| {
        end_effector(&arm(), [x[0], x[1]]).to_vec()
    })
    .forward(move |x, t| {
        let (p, d) = end_effector_jvp(&arm(), [x[0], x[1]], [t[0], t[1]]);
        (p.to_vec(), d.to_vec())
    })
    .reverse(move |x, w| {
        let (p, d) = end_effector_vjp(&arm(), [x[0], x[1]], [w[0], w[1]]);
        (p.to_vec(), d.to_vec())
    })
    .check(63);
    Case::new("reach_error", 4, move |x| {
        one(reach_error(&arm(), [x[0], x[1]], [x[2], x[3]]))
    })
    .forward(move |x, t| {
        let (v, d) = reach_error_jvp(
            &arm(),
            [x[0], x[1]],
            [x[2], x[3]],
            [t[0], t[1]],
            [t[2], t[3]],
        );
        (one(v), one(d))
    })
    .reverse(move |x, w| {
        let (v, (a, b)) = reach_error_vjp(&arm(), [x[0], x[1]], [x[2], x[3]], w[0]);
        (one(v), vec![a[0], a[1], b[0], b[1]])
    })
    .check(64);
}

#[test]
fn haversine_with_const() {
    Case::new("haversine_km", 4, |x| {
        one(haversine_km(x[0], x[1], x[2], x[3]))
    })
    .within(&[
        (-60.0, 60.0),
        (-170.0, 170.0),
        (-60.0, 60.0),
        (-170.0, 170.0),
    ])
    .forward(|x, t| {
        let (v, d) = haversine_km_jvp(x[0], x[1], x[2], x[3], t[0], t[1], t[2], t[3]);
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (a, b, c, d)) = haversine_km_vjp(x[0], x[1], x[2], x[3], w[0]);
        (one(v), vec![a, b, c, d])
    })
    .check(65);
}

fn vec3(x: &[f64]) -> Vec3 {
    Vec3 {
        x: x[0],
        y: x[1],
        z: x[2],
    }
}

#[test]
fn triangle_area_vec3_sub() {
    Case::new("triangle_area", 9, |x| {
        one(triangle_area(vec3(x), vec3(&x[3..]), vec3(&x[6..])))
    })
    .forward(|x, t| {
        let (v, d) = triangle_area_jvp(
            vec3(x),
            vec3(&x[3..]),
            vec3(&x[6..]),
            vec3(t),
            vec3(&t[3..]),
            vec3(&t[6..]),
        );
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (a, b, c)) = triangle_area_vjp(vec3(x), vec3(&x[3..]), vec3(&x[6..]), w[0]);
        let flat = |v: Vec3| vec![v.x, v.y, v.z];
        (one(v), [flat(a), flat(b), flat(c)].concat())
    })
    .check(66);
}
