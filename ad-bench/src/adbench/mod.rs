//! ADBench (Šrajer, Kukelova, Fitzgibbon 2018): problems, readers and reference outputs. The
//! data lives in `../shared/adbench` beside the repository.

pub mod ba;
pub mod ba_whole;
pub mod gmm;
pub mod idiomatic;
pub mod lstm;
pub mod manual;
pub mod read;

use std::path::PathBuf;

/// `../shared/adbench` relative to the workspace.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/adbench")
}

/// ADBench's measure of agreement: `|x - y| / max(1, |x| + |y|)`.
pub fn relative_difference(x: f64, y: f64) -> f64 {
    (x - y).abs() / (x.abs() + y.abs()).max(1.0)
}

/// The tolerance under which ADBench counts two results as the same.
pub const TOLERANCE: f64 = 1e-8;

/// Panics unless `ours` agrees with `reference` under ADBench's measure.
pub fn assert_agrees(what: &str, ours: f64, reference: f64) {
    let difference = relative_difference(ours, reference);
    assert!(
        difference <= TOLERANCE,
        "{what}: ours {ours}, reference {reference}, ADBench difference {difference:e}"
    );
}
