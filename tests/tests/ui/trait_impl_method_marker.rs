// A method of a trait `impl` marked with a macro that is not on the block: one message saying
// to put it on the block.
use ad_runtime::{reverse, Differentiable};

pub trait Density {
    fn ln_pdf(&self, x: f64) -> f64;
}

#[derive(Clone, Differentiable)]
pub struct Unit {
    pub scale: f64,
}

#[reverse]
impl Density for Unit {
    #[ad_runtime::forward]
    fn ln_pdf(&self, x: f64) -> f64 {
        -0.5 * x * x / self.scale
    }
}

fn main() {
    let u = Unit { scale: 1.0 };
    let _ = u.ln_pdf_grad(0.5);
}
