use ad_runtime::rule;

fn derivative_of_two(x: f64, y: f64) -> f64 {
    x + y
}

// The derivative takes the rule's parameters: here one, not two.
#[rule(derivative = derivative_of_two)]
fn square(x: f64) -> f64 {
    x * x
}

fn main() {}
