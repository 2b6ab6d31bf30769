use ad_runtime::{reverse, Differentiable};

#[derive(Clone, Differentiable)]
pub enum List {
    Nil,
    Cons(f64, Box<List>),
}

#[reverse]
fn walk(#[grad] l: &List, x: f64) -> f64 {
    let mut sum = x;
    let mut rest = l;
    while let List::Cons(head, tail) = rest {
        sum += head;
        rest = tail;
    }
    sum
}

fn main() {}

#[reverse]
fn reassigned(#[grad] l: &List, x: f64) -> f64 {
    let mut sum = x;
    let mut rest = l;
    loop {
        match rest {
            List::Cons(head, tail) => {
                sum += head;
                rest = tail;
            }
            List::Nil => break,
        }
    }
    sum
}

#[derive(Clone, Copy, Differentiable)]
pub struct P2 {
    pub x: f64,
    pub y: f64,
}

#[ad_runtime::checkpoint]
fn checkpointed_by_reference(#[grad] p: &P2, x: f64) -> f64 {
    (x * p.x).sin() + p.y
}

#[reverse]
fn checkpointed_region_reads_it(#[grad] p: &P2, x: f64) -> f64 {
    let mut s = x;
    #[checkpoint(every = 2)]
    for _ in 0..4 {
        s = s * p.x;
    }
    s
}

#[derive(Clone, Differentiable)]
pub struct Weights {
    pub w: Vec<f64>,
}

#[derive(Clone, Differentiable)]
pub struct Body {
    pub pos: P2,
    pub m: f64,
}

#[reverse]
fn struct_with_a_container_field(x: f64) -> f64 {
    let v = vec![x, 2.0 * x];
    let c = Weights { w: v };
    c.w[1] * x
}

#[reverse]
fn struct_with_a_struct_field(x: f64) -> f64 {
    let inner = P2 { x, y: 2.0 * x };
    let b = Body { pos: inner, m: x };
    b.m * b.pos.x
}

#[reverse]
fn takes_data(#[no_grad] l: &List, x: f64) -> f64 {
    match l {
        List::Nil => x,
        List::Cons(head, _) => head * x,
    }
}

#[reverse]
fn grad_value_to_a_data_parameter(#[grad] l: &List, x: f64) -> f64 {
    takes_data(l, x)
}
