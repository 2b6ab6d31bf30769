use ad_runtime::{forward, reverse};

/// An optimizer's state, without the derive: its fields are data.
pub struct Momentum {
    pub decay: f64,
    pub m: Vec<f64>,
    pub steps: usize,
}

impl Momentum {
    // TheAlgorithms' `Adam::step` shape: the moments, computed from the gradient, stored in
    // `self`. Counting the steps is data, and taken.
    #[forward]
    #[reverse]
    pub fn step(&mut self, gradients: &[f64]) -> f64 {
        self.steps += 1;
        let mut total = 0.0;
        for i in 0..gradients.len() {
            self.m[i] = self.decay * self.m[i] + gradients[i];
            total += self.m[i];
        }
        total
    }
}

fn main() {}
