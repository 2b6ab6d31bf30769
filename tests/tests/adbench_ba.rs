//! ADBench BA: one residual block (2 residuals, 2 x 15 Jacobian over camera, point and
//! weight, and the weight error) by `#[reverse]` (one gradient per residual) and by `#[forward]`
//! (one column per parameter), against the suite's reference block under ADBench's measure.

use ad_bench::adbench::ba::{
    reprojection_error, reprojection_error_column, reprojection_error_vjp, weight_error,
    weight_error_grad, Ba,
};
use ad_bench::adbench::{assert_agrees, data_dir, read};

fn check_block(input: &str, reference: &str) {
    let dir = data_dir();
    let ba = Ba::read(&dir.join(format!("ba/{input}.txt"))).expect("the BA input file");
    let reference = read::numbers(&dir.join(format!("reference_outputs/{reference}.txt")))
        .expect("the reference block");
    let (residuals, w_error, jacobian, w_derivative) = (
        &reference[0..2],
        reference[2],
        &reference[3..33],
        reference[33],
    );
    let (camera, point, weight, feature) = (&ba.camera, &ba.point, ba.weight, &ba.feature);
    for row in 0..2 {
        let value = reprojection_error(camera, point, weight, feature, row);
        assert_agrees(&format!("residual {row}"), value, residuals[row]);
        // Reverse mode: the row of the Jacobian.
        let (_, (d_camera, d_point, d_weight)) =
            reprojection_error_vjp(camera, point, weight, feature, row, 1.0);
        let reverse_row: Vec<f64> = [d_camera, d_point, vec![d_weight]].concat();
        for (column, ours) in reverse_row.iter().enumerate() {
            assert_agrees(
                &format!("reverse J[{row}][{column}]"),
                *ours,
                jacobian[15 * row + column],
            );
        }
        // Forward mode: column by column.
        for column in 0..15 {
            let along = reprojection_error_column(camera, point, weight, feature, row, column);
            assert_agrees(
                &format!("forward J[{row}][{column}]"),
                along,
                jacobian[15 * row + column],
            );
        }
    }
    assert_agrees("weight error", weight_error(weight), w_error);
    assert_agrees(
        "weight error derivative",
        weight_error_grad(weight).1,
        w_derivative,
    );
}

#[test]
fn ba_test_block() {
    check_block("test", "ba_test_block_Manual");
}

#[test]
fn ba1_block() {
    check_block("ba1_n49_m7776_p31843", "ba1_n49_m7776_p31843_block_Manual");
}
