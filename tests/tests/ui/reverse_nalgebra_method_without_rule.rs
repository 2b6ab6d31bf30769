use ad_runtime::reverse;
use nalgebra::{Matrix3, Vector3};

/// `symmetric_eigen` has no rule: the message names the method and the rules there are.
#[reverse]
fn largest_eigenvalue(m: &Matrix3<f64>, v: &Vector3<f64>) -> f64 {
    let eigen = m.symmetric_eigen();
    eigen.eigenvalues.max() + v.norm()
}

fn main() {}
