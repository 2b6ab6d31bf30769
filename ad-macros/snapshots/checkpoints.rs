// Inner `#[checkpoint]`s: a region whose value is bound by `let`, and a loop stepped by a
// schedule, its state kept every 4 iterations.
fn checkpoints(x: f64, n: usize) -> f64 {
    let a = #[checkpoint]
    {
        let t = x.sin() * x;
        t.exp()
    };
    let mut s = a;
    #[checkpoint(every = 4)]
    for i in 0..n {
        s = s * 0.5 + (x * i as f64).cos();
    }
    s
}
