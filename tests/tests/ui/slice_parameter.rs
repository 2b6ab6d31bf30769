use ad_runtime::reverse;

// A container without an adjoint type (nested `Vec`s and slices of floats are taken).
#[reverse]
fn first(queue: &std::collections::VecDeque<f64>) -> f64 {
    queue[0]
}

fn main() {}
