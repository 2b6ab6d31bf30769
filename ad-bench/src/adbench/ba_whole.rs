//! A whole ADBench BA instance, as ADBench's runner builds it: the file's one camera, point,
//! weight and feature replicated `n`, `m`, `p` and `p` times; observation `i` sees camera
//! `i % n` and point `i % m`. The objective is every observation's two weighted reprojection
//! errors and every weight's error; the Jacobian is sparse: for each observation a 2 x 15
//! block over its camera (11), point (3) and weight (1), and for each weight error its
//! derivative `-2 w`. Here it is computed block by block with our reverse mode (one
//! `reprojection_error_vjp` per residual), our forward mode (one JVP per column and residual)
//! and by hand (`manual::ba_block`).

use std::path::Path;

use super::ba::{
    reprojection_error_vjp, reprojection_errors_jacfwd, weight_error_grad, Ba, CAMERA,
};
use super::manual;

/// One whole BA problem.
#[derive(Clone, Debug)]
pub struct BaProblem {
    /// Cameras.
    pub n: usize,
    /// Points.
    pub m: usize,
    /// Observations.
    pub p: usize,
    /// `n` rows of 11 camera parameters.
    pub cameras: Vec<f64>,
    /// `m` rows of 3 coordinates.
    pub points: Vec<f64>,
    /// `p` weights.
    pub weights: Vec<f64>,
    /// `p` rows of 2 feature coordinates.
    pub features: Vec<f64>,
    /// `p` pairs (camera, point).
    pub observations: Vec<[usize; 2]>,
}

/// The sparse Jacobian, block by block: `blocks[i]` is observation `i`'s 2 x 15 block,
/// row-major (columns camera 11, point 3, weight 1); `weight_derivatives[i]` is
/// d(1 - w_i^2)/dw_i.
#[derive(Clone, Debug, Default)]
pub struct BaJacobian {
    /// One block per observation.
    pub blocks: Vec<[f64; 30]>,
    /// One derivative per weight error.
    pub weight_derivatives: Vec<f64>,
}

impl BaJacobian {
    fn sized(p: usize) -> BaJacobian {
        BaJacobian {
            blocks: vec![[0.0; 30]; p],
            weight_derivatives: vec![0.0; p],
        }
    }
}

impl BaProblem {
    /// Reads an ADBench BA file and replicates its one block as ADBench's runner does.
    pub fn read(path: &Path) -> std::io::Result<BaProblem> {
        let block = Ba::read(path)?;
        let (n, m, p) = (block.n, block.m, block.p);
        Ok(BaProblem {
            n,
            m,
            p,
            cameras: block.camera.repeat(n),
            points: block.point.repeat(m),
            weights: vec![block.weight; p],
            features: block.feature.repeat(p),
            observations: (0..p).map(|i| [i % n, i % m]).collect(),
        })
    }

    fn parts(&self, i: usize) -> (&[f64], &[f64], f64, &[f64]) {
        let [camera, point] = self.observations[i];
        (
            &self.cameras[camera * CAMERA..(camera + 1) * CAMERA],
            &self.points[point * 3..point * 3 + 3],
            self.weights[i],
            &self.features[2 * i..2 * i + 2],
        )
    }

    /// The objective: `2p` reprojection errors and `p` weight errors.
    pub fn objective(&self) -> (Vec<f64>, Vec<f64>) {
        let mut residuals = vec![0.0; 2 * self.p];
        let mut weight_errors = vec![0.0; self.p];
        self.objective_into(&mut residuals, &mut weight_errors);
        (residuals, weight_errors)
    }

    /// The objective into given buffers; both residuals of an observation are computed
    /// together, as ADBench's objective does.
    pub fn objective_into(&self, residuals: &mut [f64], weight_errors: &mut [f64]) {
        for i in 0..self.p {
            let (camera, point, weight, feature) = self.parts(i);
            residuals[2 * i..2 * i + 2]
                .copy_from_slice(&manual::ba_residuals(camera, point, weight, feature));
            weight_errors[i] = 1.0 - weight * weight;
        }
    }

    /// The Jacobian by our reverse mode: two VJPs per observation, one gradient per weight.
    pub fn jacobian_reverse(&self) -> BaJacobian {
        let mut jacobian = BaJacobian::sized(self.p);
        self.jacobian_reverse_into(&mut jacobian);
        jacobian
    }

    /// [`BaProblem::jacobian_reverse`] into a Jacobian of the right size.
    pub fn jacobian_reverse_into(&self, jacobian: &mut BaJacobian) {
        for i in 0..self.p {
            let (camera, point, weight, feature) = self.parts(i);
            let block = &mut jacobian.blocks[i];
            for row in 0..2 {
                let (_, (d_camera, d_point, d_weight)) =
                    reprojection_error_vjp(camera, point, weight, feature, row, 1.0);
                let out = &mut block[15 * row..15 * row + 15];
                out[..CAMERA].copy_from_slice(&d_camera);
                out[CAMERA..CAMERA + 3].copy_from_slice(&d_point);
                out[14] = d_weight;
            }
            jacobian.weight_derivatives[i] = weight_error_grad(weight).1;
        }
    }

    /// The Jacobian by our forward mode: `reprojection_errors_jacfwd` per block, the vector
    /// forward mode over the block's 15 inputs.
    pub fn jacobian_forward(&self) -> BaJacobian {
        let mut jacobian = BaJacobian::sized(self.p);
        self.jacobian_forward_into(&mut jacobian);
        jacobian
    }

    /// [`BaProblem::jacobian_forward`] into a Jacobian of the right size.
    pub fn jacobian_forward_into(&self, jacobian: &mut BaJacobian) {
        for i in 0..self.p {
            let (camera, point, weight, feature) = self.parts(i);
            let block = &mut jacobian.blocks[i];
            let (_, rows) = reprojection_errors_jacfwd(camera, point, weight, feature);
            block[..15].copy_from_slice(&rows[0]);
            block[15..].copy_from_slice(&rows[1]);
            jacobian.weight_derivatives[i] = weight_error_grad(weight).1;
        }
    }

    /// The Jacobian by hand: `manual::ba_block` per observation.
    pub fn jacobian_manual(&self) -> BaJacobian {
        let mut jacobian = BaJacobian::sized(self.p);
        self.jacobian_manual_into(&mut jacobian);
        jacobian
    }

    /// [`BaProblem::jacobian_manual`] into a Jacobian of the right size.
    pub fn jacobian_manual_into(&self, jacobian: &mut BaJacobian) {
        for i in 0..self.p {
            let (camera, point, weight, feature) = self.parts(i);
            let block = manual::ba_block(camera, point, weight, feature);
            jacobian.blocks[i][..15].copy_from_slice(&block.jacobian[0]);
            jacobian.blocks[i][15..].copy_from_slice(&block.jacobian[1]);
            jacobian.weight_derivatives[i] = manual::ba_weight_error(weight).1;
        }
    }

    /// An empty Jacobian of this problem's size, for the `_into` functions.
    pub fn empty_jacobian(&self) -> BaJacobian {
        BaJacobian::sized(self.p)
    }
}
