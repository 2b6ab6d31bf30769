use ad_runtime::{forward, reverse, Differentiable};

#[derive(Clone, Copy, Differentiable)]
pub struct Body {
    pub position: [f64; 3],
    pub mass: f64,
}

impl Body {
    #[forward]
    #[reverse]
    pub fn weight(&self) -> f64 {
        9.81 * self.mass
    }
}

// Written in place: forward mode takes it, reverse mode not yet.
#[reverse]
fn moved(#[grad] bodies: &mut [Body], dt: f64) -> f64 {
    bodies[0].mass * dt
}

// A container of containers of a derived type is not taken.
#[forward]
fn systems(#[grad] systems: &[Vec<Body>]) -> f64 {
    systems[0][0].mass
}

fn main() {}
