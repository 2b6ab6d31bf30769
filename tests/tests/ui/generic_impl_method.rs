use ad_runtime::forward;
use num_traits::Float;

struct Quadratic<T> {
    a: T,
    b: T,
}

impl<T: Float> Quadratic<T> {
    #[forward]
    fn eval(&self, x: T) -> T {
        self.a * x * x + self.b * x
    }
}

fn main() {}
