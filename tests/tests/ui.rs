//! Compile-fail tests: every message the macros give, one small file per failure, with the
//! expected output in the `.stderr` next to it. Regenerate with `TRYBUILD=overwrite`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
