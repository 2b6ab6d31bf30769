use ad_runtime::forward;

// TheAlgorithms' sigmoid returns the slice it wrote, for chaining: one message at the result.
#[forward]
pub fn sigmoid(array: &mut Vec<f32>) -> &mut Vec<f32> {
    for value in &mut *array {
        *value = 1. / (1. + (-1. * *value).exp());
    }
    array
}

fn main() {}
