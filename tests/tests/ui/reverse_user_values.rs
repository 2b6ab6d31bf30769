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

#[reverse]
fn let_else(#[grad] l: &List, x: f64) -> f64 {
    let List::Cons(head, _) = l else { return x };
    head * x
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
