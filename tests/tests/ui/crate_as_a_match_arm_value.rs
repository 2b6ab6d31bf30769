// `crate` as a match arm's value made reverse mode panic (found by the token-mutation
// fuzzer): the arm was rebuilt from its tokens, where `crate` reads as the start of an
// item. Now the arm is kept as a syntax tree, and reverse mode refuses `crate` as a value.
use ad_runtime::reverse;

#[reverse]
fn f(x: f64, k: i32) -> f64 {
    match k {
        _ => crate,
    }
}

fn main() {}
