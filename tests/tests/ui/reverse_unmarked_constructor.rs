use ad_runtime::{reverse, Differentiable};

#[derive(Clone, Copy, Differentiable)]
struct Particle {
    pos: f64,
    vel: f64,
}

impl Particle {
    fn new(vel: f64) -> Self {
        Particle { pos: 0.0, vel }
    }
}

#[reverse]
fn flight(v0: f64) -> f64 {
    let p = Particle::new(v0 * 2.0);
    p.pos + p.vel
}

fn main() {}
