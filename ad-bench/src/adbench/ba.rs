//! One residual block of ADBench's bundle adjustment (`src/cpp/shared/ba.h` upstream): the
//! weighted reprojection error of a 3-D point seen by a camera with Rodrigues rotation, centre,
//! focal length, principal point and two radial distortion coefficients, and the weight's own
//! error `1 - w^2`.

use std::path::Path;

use ad_runtime::{forward, reverse};

use super::read::Numbers;

/// Camera parameters: rotation (3), centre (3), focal length, principal point (2), radial
/// distortion (2).
pub const CAMERA: usize = 11;

/// A BA instance: every observation of the file is the same block.
#[derive(Clone, Debug)]
pub struct Ba {
    pub n: usize,
    pub m: usize,
    pub p: usize,
    pub camera: Vec<f64>,
    pub point: Vec<f64>,
    pub weight: f64,
    pub feature: Vec<f64>,
}

impl Ba {
    pub fn read(path: &Path) -> std::io::Result<Ba> {
        let mut numbers = Numbers::open(path)?;
        let (n, m, p) = (numbers.count(), numbers.count(), numbers.count());
        Ok(Ba {
            n,
            m,
            p,
            camera: numbers.take(CAMERA),
            point: numbers.take(3),
            weight: numbers.number(),
            feature: numbers.take(2),
        })
    }
}

/// Component `row` (0 or 1) of the weighted reprojection error.
#[forward]
#[reverse]
pub fn reprojection_error(
    camera: &[f64],
    point: &[f64],
    weight: f64,
    #[no_grad] feature: &[f64],
    row: usize,
) -> f64 {
    let x0 = point[0] - camera[3];
    let x1 = point[1] - camera[4];
    let x2 = point[2] - camera[5];
    let (r0, r1, r2) = (camera[0], camera[1], camera[2]);
    let squared_angle = r0 * r0 + r1 * r1 + r2 * r2;
    let (y0, y1, y2);
    if squared_angle != 0.0 {
        let angle = squared_angle.sqrt();
        let (cos, sin) = (angle.cos(), angle.sin());
        let (w0, w1, w2) = (r0 / angle, r1 / angle, r2 / angle);
        let along = (w0 * x0 + w1 * x1 + w2 * x2) * (1.0 - cos);
        y0 = x0 * cos + (w1 * x2 - w2 * x1) * sin + w0 * along;
        y1 = x1 * cos + (w2 * x0 - w0 * x2) * sin + w1 * along;
        y2 = x2 * cos + (w0 * x1 - w1 * x0) * sin + w2 * along;
    } else {
        y0 = x0 + r1 * x2 - r2 * x1;
        y1 = x1 + r2 * x0 - r0 * x2;
        y2 = x2 + r0 * x1 - r1 * x0;
    }
    let p0 = y0 / y2;
    let p1 = y1 / y2;
    let squared_radius = p0 * p0 + p1 * p1;
    let distortion =
        1.0 + camera[9] * squared_radius + camera[10] * squared_radius * squared_radius;
    if row == 0 {
        weight * (p0 * distortion * camera[6] + camera[7] - feature[0])
    } else {
        weight * (p1 * distortion * camera[6] + camera[8] - feature[1])
    }
}

/// Both components of the weighted reprojection error, as ADBench's `computeReprojError`
/// returns them: the function whose Jacobian `reprojection_errors_jacfwd` gives in passes of
/// the vector forward mode.
#[forward]
pub fn reprojection_errors(
    camera: &[f64],
    point: &[f64],
    weight: f64,
    #[no_grad] feature: &[f64],
) -> [f64; 2] {
    let x0 = point[0] - camera[3];
    let x1 = point[1] - camera[4];
    let x2 = point[2] - camera[5];
    let (r0, r1, r2) = (camera[0], camera[1], camera[2]);
    let squared_angle = r0 * r0 + r1 * r1 + r2 * r2;
    let (y0, y1, y2);
    if squared_angle != 0.0 {
        let angle = squared_angle.sqrt();
        let (cos, sin) = (angle.cos(), angle.sin());
        let (w0, w1, w2) = (r0 / angle, r1 / angle, r2 / angle);
        let along = (w0 * x0 + w1 * x1 + w2 * x2) * (1.0 - cos);
        y0 = x0 * cos + (w1 * x2 - w2 * x1) * sin + w0 * along;
        y1 = x1 * cos + (w2 * x0 - w0 * x2) * sin + w1 * along;
        y2 = x2 * cos + (w0 * x1 - w1 * x0) * sin + w2 * along;
    } else {
        y0 = x0 + r1 * x2 - r2 * x1;
        y1 = x1 + r2 * x0 - r0 * x2;
        y2 = x2 + r0 * x1 - r1 * x0;
    }
    let p0 = y0 / y2;
    let p1 = y1 / y2;
    let squared_radius = p0 * p0 + p1 * p1;
    let distortion =
        1.0 + camera[9] * squared_radius + camera[10] * squared_radius * squared_radius;
    [
        weight * (p0 * distortion * camera[6] + camera[7] - feature[0]),
        weight * (p1 * distortion * camera[6] + camera[8] - feature[1]),
    ]
}

/// Column `column` (0..15: camera, point, weight) of row `row` of the residual block's
/// Jacobian, by one forward-mode JVP along that basis direction.
pub fn reprojection_error_column(
    camera: &[f64],
    point: &[f64],
    weight: f64,
    feature: &[f64],
    row: usize,
    column: usize,
) -> f64 {
    let mut tangent = [0.0; 15];
    tangent[column] = 1.0;
    reprojection_error_jvp(
        camera,
        point,
        weight,
        feature,
        row,
        &tangent[..CAMERA],
        &tangent[CAMERA..CAMERA + 3],
        tangent[14],
    )
    .1
}

/// The weight's error.
#[forward]
#[reverse]
pub fn weight_error(weight: f64) -> f64 {
    1.0 - weight * weight
}
