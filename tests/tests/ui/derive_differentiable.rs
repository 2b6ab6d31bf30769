use ad_runtime::Differentiable;

#[derive(Differentiable)]
pub struct Generic<T> {
    pub x: T,
}

#[derive(Differentiable)]
pub union Bits {
    pub f: f64,
    pub u: u64,
}

#[derive(Differentiable)]
pub struct OnlyData {
    pub n: usize,
    #[no_grad]
    pub label: String,
}

#[derive(Differentiable)]
pub struct BadMarker {
    #[no_grad(yes)]
    pub x: f64,
    pub y: f64,
}

fn main() {}
