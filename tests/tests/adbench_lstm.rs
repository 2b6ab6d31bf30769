//! ADBench LSTM: the loss and its gradient by `#[reverse]` against the suite's reference
//! outputs under ADBench's measure (<= 1e-8), and `#[forward]` columns of the same Jacobian.

use ad_bench::adbench::lstm::{lstm_objective_jvp, Lstm};
use ad_bench::adbench::{assert_agrees, data_dir, read};

#[test]
fn lstm_l2_c1024() {
    let dir = data_dir();
    let lstm = Lstm::read(&dir.join("lstm/lstm_l2_c1024.txt")).expect("the LSTM input file");
    let reference_value = read::numbers(&dir.join("reference_outputs/lstm_l2_c1024_F_Manual.txt"))
        .expect("the reference loss")[0];
    let reference_gradient =
        read::numbers(&dir.join("reference_outputs/lstm_l2_c1024_J_Manual.txt"))
            .expect("the reference gradient");
    assert_agrees("loss", lstm.objective(), reference_value);
    let (value, gradient) = lstm.gradient();
    assert_eq!(value.to_bits(), lstm.objective().to_bits());
    assert_eq!(gradient.len(), reference_gradient.len());
    for (i, (ours, reference)) in gradient.iter().zip(&reference_gradient).enumerate() {
        assert_agrees(&format!("gradient[{i}]"), *ours, *reference);
    }
    // Forward mode: every 13th column of the Jacobian, and the last.
    let (main, total) = (lstm.main_params.len(), reference_gradient.len());
    for column in (0..total).step_by(13).chain([total - 1]) {
        let mut tangent = vec![0.0; total];
        tangent[column] = 1.0;
        let (_, along) = lstm_objective_jvp(
            &lstm.main_params,
            &lstm.extra_params,
            &lstm.state,
            &lstm.sequence,
            lstm.l,
            lstm.c,
            lstm.b,
            &tangent[..main],
            &tangent[main..],
        );
        assert_agrees(
            &format!("forward column {column}"),
            along,
            reference_gradient[column],
        );
    }
}
