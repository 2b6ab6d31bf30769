use ad_runtime::forward;

macro_rules! total {
    ($($e:expr),*) => {
        0.0 $(+ $e)*
    };
}

#[forward]
fn f(x: f64) -> f64 {
    total!(x, 2.0 * x)
}

#[forward]
fn g(x: f64) -> f64 {
    dbg!(x)
}

macro_rules! scaled {
    ($e:expr) => {{
        let t = 2.0;
        $e * t
    }};
}

#[forward]
fn h(x: f64) -> f64 {
    let t = 3.0;
    scaled!(t * x)
}

fn main() {}
