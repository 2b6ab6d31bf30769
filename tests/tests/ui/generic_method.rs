use ad_runtime::forward;
use num_traits::Float;

struct Scale(f64);

impl Scale {
    #[forward]
    fn apply<T: Float>(&self, x: T) -> T {
        x * T::from(self.0).unwrap()
    }
}

fn main() {}
