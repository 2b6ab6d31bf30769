use ad_runtime::forward;

#[forward]
fn count(n: usize) -> usize {
    n * 2
}

fn main() {}
