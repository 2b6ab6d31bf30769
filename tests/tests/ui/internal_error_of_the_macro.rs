// A bug of the macro (here: `crate` as a match arm's value in reverse mode, found by the
// token-mutation fuzzer) is one error at the function's name, not "custom attribute panicked".
use ad_runtime::reverse;

#[reverse]
fn f(x: f64, k: i32) -> f64 {
    match k {
        _ => crate,
    }
}

fn main() {}
