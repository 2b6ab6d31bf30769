use ad_runtime::forward;

struct Model {
    scale: f64,
}

impl Model {
    #[forward]
    fn apply(&self, x: f64) -> f64 {
        self.scale * x
    }
}

fn main() {}
