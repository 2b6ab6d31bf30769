//! The hand-written ("Manual") derivatives the benchmarks time, against ADBench's reference
//! outputs and against our `#[reverse]` gradients, under ADBench's measure
//! |x - y| / max(1, |x| + |y|) <= 1e-8.

use ad_bench::adbench::ba::{reprojection_error_vjp, weight_error_grad, Ba};
use ad_bench::adbench::ba_whole::BaProblem;
use ad_bench::adbench::gmm::Gmm;
use ad_bench::adbench::lstm::Lstm;
use ad_bench::adbench::{assert_agrees, data_dir, manual, read};

fn reference(name: &str) -> Vec<f64> {
    read::numbers(&data_dir().join(format!("reference_outputs/{name}.txt")))
        .expect("the reference output")
}

fn assert_all_agree(what: &str, ours: &[f64], reference: &[f64]) {
    assert_eq!(ours.len(), reference.len(), "{what}: lengths");
    for (i, (a, b)) in ours.iter().zip(reference).enumerate() {
        assert_agrees(&format!("{what}[{i}]"), *a, *b);
    }
}

fn check_gmm(input: &str, prefix: &str) {
    let gmm = Gmm::read(&data_dir().join(format!("gmm/{input}.txt"))).expect("the GMM input");
    let (value, gradient) = manual::gmm_gradient(&gmm);
    assert_agrees(
        "manual objective",
        value,
        reference(&format!("{prefix}_F_Manual"))[0],
    );
    assert_all_agree(
        "manual gradient vs reference",
        &gradient,
        &reference(&format!("{prefix}_J_Manual")),
    );
    let (ours_value, ours) = gmm.gradient();
    assert_agrees("objective vs ours", value, ours_value);
    assert_all_agree("manual gradient vs #[reverse]", &gradient, &ours);
    let (idiomatic_value, idiomatic) = gmm.gradient_idiomatic();
    assert_agrees("objective vs idiomatic", value, idiomatic_value);
    assert_agrees(
        "objective vs idiomatic primal",
        value,
        gmm.objective_idiomatic(),
    );
    assert_all_agree(
        "manual gradient vs idiomatic #[reverse]",
        &gradient,
        &idiomatic,
    );
}

#[test]
fn manual_gmm_test_instance() {
    check_gmm("test", "gmm_test");
}

#[test]
fn manual_gmm_d2_k5() {
    check_gmm("1k/gmm_d2_K5", "gmm_1k_d2_K5");
}

#[test]
fn manual_gmm_d10_k25() {
    check_gmm("1k/gmm_d10_K25", "gmm_1k_d10_K25");
}

#[test]
fn manual_lstm_l2_c1024() {
    let lstm = Lstm::read(&data_dir().join("lstm/lstm_l2_c1024.txt")).expect("the LSTM input");
    let (value, gradient) = manual::lstm_gradient(&lstm);
    assert_agrees("manual loss", value, reference("lstm_l2_c1024_F_Manual")[0]);
    assert_all_agree(
        "manual gradient vs reference",
        &gradient,
        &reference("lstm_l2_c1024_J_Manual"),
    );
    let (ours_value, ours) = lstm.gradient();
    assert_agrees("loss vs ours", value, ours_value);
    assert_all_agree("manual gradient vs #[reverse]", &gradient, &ours);
    let (idiomatic_value, idiomatic) = lstm.gradient_idiomatic();
    assert_agrees("loss vs idiomatic", value, idiomatic_value);
    assert_agrees(
        "loss vs idiomatic primal",
        value,
        lstm.objective_idiomatic(),
    );
    assert_all_agree(
        "manual gradient vs idiomatic #[reverse]",
        &gradient,
        &idiomatic,
    );
}

fn check_ba_block(input: &str, reference_name: &str) {
    let ba = Ba::read(&data_dir().join(format!("ba/{input}.txt"))).expect("the BA input");
    let expected = reference(reference_name);
    let block = manual::ba_block(&ba.camera, &ba.point, ba.weight, &ba.feature);
    assert_all_agree("manual residuals", &block.residuals, &expected[0..2]);
    assert_all_agree(
        "manual jacobian",
        block.jacobian.as_flattened(),
        &expected[3..33],
    );
    let (w_error, w_derivative) = manual::ba_weight_error(ba.weight);
    assert_agrees("manual weight error", w_error, expected[2]);
    assert_agrees("manual weight derivative", w_derivative, expected[33]);
    assert_agrees(
        "manual weight derivative vs #[reverse]",
        w_derivative,
        weight_error_grad(ba.weight).1,
    );
    for row in 0..2 {
        let (value, (d_camera, d_point, d_weight)) =
            reprojection_error_vjp(&ba.camera, &ba.point, ba.weight, &ba.feature, row, 1.0);
        assert_agrees("residual vs #[reverse]", block.residuals[row], value);
        let ours = [d_camera, d_point, vec![d_weight]].concat();
        assert_all_agree("manual row vs #[reverse]", &block.jacobian[row], &ours);
    }
}

#[test]
fn manual_ba_test_block() {
    check_ba_block("test", "ba_test_block_Manual");
}

#[test]
fn manual_ba1_block() {
    check_ba_block("ba1_n49_m7776_p31843", "ba1_n49_m7776_p31843_block_Manual");
}

#[test]
fn manual_ba_zero_rotation_agrees_with_reverse() {
    // The first-order branch (rotation exactly zero) is not in ADBench's data.
    let ba = Ba::read(&data_dir().join("ba/test.txt")).expect("the BA input");
    let mut camera = ba.camera.clone();
    camera[..3].copy_from_slice(&[0.0; 3]);
    let block = manual::ba_block(&camera, &ba.point, ba.weight, &ba.feature);
    for row in 0..2 {
        let (_, (d_camera, d_point, d_weight)) =
            reprojection_error_vjp(&camera, &ba.point, ba.weight, &ba.feature, row, 1.0);
        let ours = [d_camera, d_point, vec![d_weight]].concat();
        assert_all_agree("zero rotation row", &block.jacobian[row], &ours);
    }
}

#[test]
fn whole_ba1_jacobians_agree() {
    let problem =
        BaProblem::read(&data_dir().join("ba/ba1_n49_m7776_p31843.txt")).expect("the BA input");
    assert_eq!((problem.n, problem.m, problem.p), (49, 7776, 31843));
    let expected = reference("ba1_n49_m7776_p31843_block_Manual");
    let manual = problem.jacobian_manual();
    let reverse = problem.jacobian_reverse();
    let forward = problem.jacobian_forward();
    let (residuals, weight_errors) = problem.objective();
    assert_eq!(residuals.len(), 2 * problem.p);
    assert_eq!(weight_errors.len(), problem.p);
    // Every observation is the same block (the reader replicates one camera, point, weight,
    // feature), so every block must equal the reference block.
    for (i, ((m, r), f)) in manual
        .blocks
        .iter()
        .zip(&reverse.blocks)
        .zip(&forward.blocks)
        .enumerate()
        .step_by(97)
    {
        assert_all_agree(&format!("manual block {i}"), m, &expected[3..33]);
        assert_all_agree(&format!("reverse block {i}"), r, m);
        assert_all_agree(&format!("forward block {i}"), f, m);
        assert_all_agree(
            &format!("residuals {i}"),
            &residuals[2 * i..2 * i + 2],
            &expected[0..2],
        );
        assert_agrees("weight error", weight_errors[i], expected[2]);
        assert_agrees(
            "manual weight derivative",
            manual.weight_derivatives[i],
            expected[33],
        );
        assert_agrees(
            "reverse weight derivative",
            reverse.weight_derivatives[i],
            expected[33],
        );
        assert_agrees(
            "forward weight derivative",
            forward.weight_derivatives[i],
            expected[33],
        );
    }
    assert_eq!(manual.blocks.len(), problem.p);
    assert_eq!(reverse.blocks.len(), problem.p);
    assert_eq!(forward.weight_derivatives.len(), problem.p);
}
