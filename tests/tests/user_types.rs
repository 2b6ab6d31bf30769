use ad_runtime::{forward, reverse};

pub struct Config {
    pub scale: f64,
    pub n: usize,
}

#[forward]
#[reverse]
fn scaled(cfg: &Config, x: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..cfg.n {
        s += cfg.scale * x;
    }
    s
}

#[test]
fn data_struct() {
    let c = Config { scale: 3.0, n: 2 };
    assert_eq!(scaled_jvp(&c, 2.0, 1.0), (12.0, 6.0));
    assert_eq!(scaled_grad(&c, 2.0), (12.0, 6.0));
}

pub enum List {
    Nil,
    Cons(f64, Box<List>),
}

#[forward]
#[reverse]
fn product(l: &List, x: f64) -> f64 {
    match l {
        List::Nil => x,
        List::Cons(head, tail) => head * product(tail, x),
    }
}

pub enum Tree {
    Leaf,
    Node(f64, Box<Tree>, Box<Tree>),
}

#[forward]
#[reverse]
fn tree_sum(t: &Tree, x: f64) -> f64 {
    match t {
        Tree::Leaf => x,
        Tree::Node(value, left, right) => *value + tree_sum(left, x) + tree_sum(right, x),
    }
}

#[test]
fn data_list() {
    let l = List::Cons(5.0, Box::new(List::Cons(6.0, Box::new(List::Nil))));
    let (v, d) = product_jvp(&l, 2.0, 1.0);
    assert_eq!((v, d), (60.0, 30.0));
    let (v, d) = product_grad(&l, 2.0);
    assert_eq!((v, d), (60.0, 30.0));
    let t = Tree::Node(
        5.0,
        Box::new(Tree::Node(1.0, Box::new(Tree::Leaf), Box::new(Tree::Leaf))),
        Box::new(Tree::Leaf),
    );
    assert_eq!(tree_sum_jvp(&t, 2.0, 1.0), (12.0, 3.0));
    assert_eq!(tree_sum_grad(&t, 2.0), (12.0, 3.0));
}
