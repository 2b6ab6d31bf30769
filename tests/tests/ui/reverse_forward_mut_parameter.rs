// Stacked the other way round: reverse mode refuses the `&mut self` method with one message;
// the forward part is emitted (main compiles against it).
use ad_runtime::{forward, reverse, Differentiable};

#[derive(Clone, Differentiable)]
pub struct Pendulum {
    pub theta: f64,
    pub omega: f64,
}

impl Pendulum {
    #[reverse]
    #[forward]
    pub fn step(&mut self, dt: f64) {
        self.omega -= dt * self.theta.sin();
        self.theta += dt * self.omega;
    }
}

fn main() {
    let mut p = Pendulum { theta: 0.5, omega: 0.0 };
    let mut dp = Pendulum { theta: 1.0, omega: 0.0 };
    p.step_jvp(0.1, &mut dp, 0.0);
}
