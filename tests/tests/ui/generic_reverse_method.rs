use ad_runtime::reverse;
use num_traits::Float;

#[derive(Clone, ad_runtime::Differentiable)]
struct Model {
    scale: f64,
}

impl Model {
    // Reverse mode does not take generic methods yet.
    #[reverse]
    fn norm<T: Float>(&self, x: &[T]) -> T {
        x.iter().fold(T::zero(), |s, &v| s + v * v).sqrt() * T::from(self.scale).unwrap()
    }
}

fn main() {}
