use ad_runtime::{forward, reverse, Differentiable};

#[derive(Clone, Differentiable)]
pub enum List {
    Nil,
    Cons(f64, Box<List>),
}

impl List {
    #[forward]
    #[reverse]
    pub fn product(&self, x: f64) -> f64 {
        match self {
            Self::Nil => x,
            Self::Cons(head, tail) => head * tail.product(x),
        }
    }
}

fn main() {}

#[derive(Clone, Differentiable)]
pub struct Point {
    pub x: f64,
}

impl Point {
    #[ad_runtime::checkpoint]
    pub fn squared(&self) -> f64 {
        self.x * self.x
    }
}
