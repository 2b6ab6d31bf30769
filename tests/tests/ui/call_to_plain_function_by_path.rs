use ad_runtime::{forward, reverse};

mod util {
    pub fn sq(x: f64) -> f64 {
        x * x
    }
}

#[forward]
fn through_module(x: f64) -> f64 {
    util::sq(x) + x
}

#[reverse]
fn through_module_reverse(x: f64) -> f64 {
    util::sq(x) + x
}

fn main() {}
