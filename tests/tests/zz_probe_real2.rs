#![allow(clippy::all, unused)]
mod common;

use ad_runtime::num_traits::{Float, FromPrimitive};
use ad_runtime::{forward, reverse, Differentiable};

/// Fourth-order central difference.
fn cd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-4 * x.abs().max(1.0);
    (-f(x + 2.0 * h) + 8.0 * f(x + h) - 8.0 * f(x - h) + f(x - 2.0 * h)) / (12.0 * h)
}

fn close(name: &str, got: f64, want: f64, tol: f64) {
    let ok = (got - want).abs() <= tol * (1.0 + want.abs());
    println!("{name}: got {got:e} want {want:e} {}", if ok { "OK" } else { "MISMATCH" });
    assert!(ok, "{name}: got {got} want {want}");
}

// ======================= TheAlgorithms/Rust =======================
// src/math/sigmoid.rs
mod alg_sigmoid {
    use super::*;
    use std::f32::consts::E;

    #[forward]
    #[reverse]
    pub fn sigmoid(array: &mut Vec<f32>) -> &mut Vec<f32> {
        //note that these calculations are assuming the Vector values consists of real numbers in radians
        for value in &mut *array {
            *value = 1. / (1. + E.powf(-1. * *value));
        }

        array
    }
}

// src/math/softmax.rs
mod alg_softmax {
    use super::*;
    use std::f32::consts::E;

    #[forward]
    #[reverse]
    pub fn softmax(array: Vec<f32>) -> Vec<f32> {
        let mut softmax_array = array;

        for value in &mut softmax_array {
            *value = E.powf(*value);
        }

        let sum: f32 = softmax_array.iter().sum();

        for value in &mut softmax_array {
            *value /= sum;
        }

        softmax_array
    }
}

// src/math/gaussian_error_linear_unit.rs
mod alg_gelu {
    use super::*;
    use std::f64::consts::E;
    use std::f64::consts::PI;

    #[forward]
    #[reverse]
    fn tanh(vector: f64) -> f64 {
        (2. / (1. + E.powf(-2. * vector.to_owned()))) - 1.
    }

    #[forward]
    #[reverse]
    pub fn gaussian_error_linear_unit(vector: &Vec<f64>) -> Vec<f64> {
        let mut gelu_vec = vector.to_owned();
        for value in &mut gelu_vec {
            *value = *value
                * 0.5
                * (1. + tanh(f64::powf(2. / PI, 0.5) * (*value + 0.044715 * value.powf(3.))));
        }

        gelu_vec
    }
}

// src/math/exponential_linear_unit.rs and leaky_relu.rs
mod alg_elu {
    use super::*;
    use std::f64::consts::E;

    #[forward]
    #[reverse]
    pub fn exponential_linear_unit(vector: &Vec<f64>, alpha: f64) -> Vec<f64> {
        let mut _vector = vector.to_owned();

        for value in &mut _vector {
            if value < &mut 0. {
                *value *= alpha * (E.powf(*value) - 1.);
            }
        }

        _vector
    }

    #[forward]
    #[reverse]
    pub fn leaky_relu(vector: &Vec<f64>, alpha: f64) -> Vec<f64> {
        let mut _vector = vector.to_owned();

        for value in &mut _vector {
            if value < &mut 0. {
                *value *= alpha;
            }
        }

        _vector
    }
}

// src/math/huber_loss.rs, src/math/cross_entropy_loss.rs
mod alg_losses {
    use super::*;

    #[forward]
    #[reverse]
    pub fn huber_loss(actual: &[f64], predicted: &[f64], delta: f64) -> f64 {
        let mut loss: Vec<f64> = Vec::new();
        for (a, p) in actual.iter().zip(predicted.iter()) {
            if (a - p).abs() <= delta {
                loss.push(0.5 * (a - p).powf(2.));
            } else {
                loss.push(delta * (a - p).abs() - (0.5 * delta));
            }
        }

        loss.iter().sum()
    }

    #[forward]
    #[reverse]
    pub fn cross_entropy_loss(actual: &[f64], predicted: &[f64]) -> f64 {
        let mut loss: Vec<f64> = Vec::new();
        for (a, p) in actual.iter().zip(predicted.iter()) {
            loss.push(-a * p.ln());
        }
        loss.iter().sum()
    }
}

// src/math/euclidean_distance.rs (the alias declared after the function)
mod alg_euclid {
    use super::*;

    #[forward]
    #[reverse]
    pub fn euclidean_distance(vector_1: &Vector, vector_2: &Vector) -> f64 {
        // Calculate the Euclidean distance using the provided vectors.
        let squared_sum: f64 = vector_1
            .iter()
            .zip(vector_2.iter())
            .map(|(&a, &b)| (a - b).powi(2))
            .sum();

        squared_sum.sqrt()
    }

    type Vector = Vec<f64>;
}

// src/math/interest.rs
mod alg_interest {
    use super::*;
    use std::f64::consts::E;

    #[forward]
    #[reverse]
    pub fn simple_interest(principal: f64, annual_rate: f64, years: f64) -> (f64, f64) {
        let interest = principal * annual_rate * years;
        let value = principal * (1.0 + (annual_rate * years));

        println!("Interest earned: {interest}");
        println!("Future value: {value}");

        (interest, value)
    }

    #[forward]
    #[reverse]
    pub fn compound_interest(principal: f64, annual_rate: f64, years: f64, period: Option<f64>) -> f64 {
        // checks if the period is None type, if so calculates continuous compounding interest
        let value = if period.is_none() {
            principal * E.powf(annual_rate * years)
        } else {
            // unwraps the option type or defaults to 0 if None type and assigns it to prim_period
            let prim_period: f64 = period.unwrap_or(0.0);
            // checks if the period is less than or equal to zero
            if prim_period <= 0.0_f64 {
                return f64::NAN;
            }
            principal * (1.0 + (annual_rate / prim_period).powf(prim_period * years))
        };
        println!("Future value: {value}");
        value
    }
}

// src/math/sum_of_geometric_progression.rs, src/math/geometric_series.rs
mod alg_geometric {
    use super::*;

    #[forward]
    #[reverse]
    pub fn sum_of_geometric_progression(first_term: f64, common_ratio: f64, num_of_terms: i32) -> f64 {
        if common_ratio == 1.0 {
            // Formula for sum if the common ratio is 1
            return (num_of_terms as f64) * first_term;
        }

        // Formula for finding the sum of n terms of a Geometric Progression
        (first_term / (1.0 - common_ratio)) * (1.0 - common_ratio.powi(num_of_terms))
    }

    #[forward]
    #[reverse]
    pub fn geometric_series(nth_term: f64, start_term_a: f64, common_ratio_r: f64) -> Vec<f64> {
        let mut series = Vec::new();
        let mut multiple = 1.0;

        for _ in 0..(nth_term as i32) {
            series.push(start_term_a * multiple);
            multiple *= common_ratio_r;
        }

        series
    }
}

// src/math/vector_cross_product.rs
mod alg_cross {
    use super::*;

    #[forward]
    #[reverse]
    pub fn cross_product(vec1: [f64; 3], vec2: [f64; 3]) -> [f64; 3] {
        let x = vec1[1] * vec2[2] - vec1[2] * vec2[1];
        let y = -(vec1[0] * vec2[2] - vec1[2] * vec2[0]);
        let z = vec1[0] * vec2[1] - vec1[1] * vec2[0];
        [x, y, z]
    }

    #[forward]
    #[reverse]
    pub fn vector_magnitude(vec: [f64; 3]) -> f64 {
        (vec[0].powi(2) + vec[1].powi(2) + vec[2].powi(2)).sqrt()
    }
}

// src/math/square_root.rs (Newton's method in a `while`)
mod alg_sqrt {
    use super::*;

    #[forward]
    #[reverse]
    pub fn square_root(num: f64) -> f64 {
        if num < 0.0_f64 {
            return f64::NAN;
        }

        let mut root = 1.0_f64;

        while (root * root - num).abs() > 1e-10_f64 {
            root -= (root * root - num) / (2.0_f64 * root);
        }

        root
    }
}

// src/math/newton_raphson.rs (function pointers passed on)
mod alg_newton {
    use super::*;

    #[forward]
    #[reverse]
    pub fn find_root(f: fn(f64) -> f64, fd: fn(f64) -> f64, guess: f64, iterations: i32) -> f64 {
        let mut result = guess;
        for _ in 0..iterations {
            result = iteration(f, fd, result);
        }
        result
    }

    #[forward]
    #[reverse]
    pub fn iteration(f: fn(f64) -> f64, fd: fn(f64) -> f64, guess: f64) -> f64 {
        guess - f(guess) / fd(guess)
    }
}

// src/machine_learning/linear_regression.rs
mod alg_linreg {
    use super::*;

    #[forward]
    #[reverse]
    pub fn linear_regression(data_points: Vec<(f64, f64)>) -> Option<(f64, f64)> {
        if data_points.is_empty() {
            return None;
        }

        let count = data_points.len() as f64;
        let mean_x = data_points.iter().fold(0.0, |sum, y| sum + y.0) / count;
        let mean_y = data_points.iter().fold(0.0, |sum, y| sum + y.1) / count;

        let mut covariance = 0.0;
        let mut std_dev_sqr_x = 0.0;
        let mut std_dev_sqr_y = 0.0;

        for data_point in data_points {
            covariance += (data_point.0 - mean_x) * (data_point.1 - mean_y);
            std_dev_sqr_x += (data_point.0 - mean_x).powi(2);
            std_dev_sqr_y += (data_point.1 - mean_y).powi(2);
        }

        let std_dev_x = std_dev_sqr_x.sqrt();
        let std_dev_y = std_dev_sqr_y.sqrt();
        let std_dev_prod = std_dev_x * std_dev_y;

        let pcc = covariance / std_dev_prod; //Pearson's correlation constant
        let b = pcc * (std_dev_y / std_dev_x); //Slope of the line
        let a = mean_y - b * mean_x; //Y-Intercept of the line

        Some((a, b))
    }
}

// src/machine_learning/logistic_regression.rs: the gradient of the logistic loss (a Vec).
mod alg_logreg {
    use super::*;
    use std::f64::consts::E;

    #[forward]
    #[reverse]
    pub fn derivative(params: &[f64], data_points: &[(Vec<f64>, f64)]) -> Vec<f64> {
        let num_features = params.len();
        let mut gradients = vec![0.0; num_features];

        for (features, y_i) in data_points {
            let z = params[0]
                + params[1..]
                    .iter()
                    .zip(features)
                    .map(|(p, x)| p * x)
                    .sum::<f64>();
            let prediction = 1.0 / (1.0 + E.powf(-z));

            gradients[0] += prediction - y_i;
            for (i, x_i) in features.iter().enumerate() {
                gradients[i + 1] += (prediction - y_i) * x_i;
            }
        }

        gradients
    }
}

// src/machine_learning/optimization/adam.rs: `&mut self` of a struct without the derive.
mod alg_adam {
    use super::*;

    pub struct Adam {
        learning_rate: f64, // alpha: initial step size for iterative optimization
        betas: (f64, f64),  // betas: exponential decay rates for moment estimates
        epsilon: f64,       // epsilon: prevent division by zero
        weight_decay: f64,  // lambda: decoupled weight decay coefficient (0.0 = standard Adam)
        m: Vec<f64>,        // m: biased first moment estimate of the gradient vector
        v: Vec<f64>,        // v: biased second raw moment estimate of the gradient vector
        t: usize,           // t: time step
    }

    impl Adam {
        pub fn new(
            learning_rate: Option<f64>,
            betas: Option<(f64, f64)>,
            epsilon: Option<f64>,
            weight_decay: Option<f64>,
            params_len: usize,
        ) -> Self {
            Adam {
                learning_rate: learning_rate.unwrap_or(1e-3), // typical good default lr
                betas: betas.unwrap_or((0.9, 0.999)),         // typical good default decay rates
                epsilon: epsilon.unwrap_or(1e-8),             // typical good default epsilon
                weight_decay: weight_decay.unwrap_or(0.0),    // 0.0 = standard Adam, > 0.0 = AdamW
                m: vec![0.0; params_len], // first moment vector elements all initialized to zero
                v: vec![0.0; params_len], // second moment vector elements all initialized to zero
                t: 0,                     // time step initialized to zero
            }
        }

        #[forward]
        #[reverse]
        pub fn step(&mut self, gradients: &[f64], params: &[f64]) -> Vec<f64> {
            assert_eq!(
                gradients.len(),
                params.len(),
                "gradients and params must have the same length"
            );

            let mut updated_params = vec![0.0; params.len()];
            self.t += 1;

            for i in 0..gradients.len() {
                self.m[i] = self.betas.0 * self.m[i] + (1.0 - self.betas.0) * gradients[i];
                self.v[i] = self.betas.1 * self.v[i] + (1.0 - self.betas.1) * gradients[i].powf(2f64);

                let m_hat = self.m[i] / (1.0 - self.betas.0.powi(self.t as i32));
                let v_hat = self.v[i] / (1.0 - self.betas.1.powi(self.t as i32));

                updated_params[i] = params[i]
                    - self.learning_rate * m_hat / (v_hat.sqrt() + self.epsilon)
                    - self.learning_rate * self.weight_decay * params[i];
            }
            updated_params // return updated model parameters
        }
    }
}

// src/math/area_of_polygon.rs (Point given the derive; `p` a reference chosen by an `if`)
mod alg_polygon {
    use super::*;

    #[derive(Clone, Debug, PartialEq, Differentiable)]
    pub struct Point {
        pub x: f64,
        pub y: f64,
    }

    #[forward]
    #[reverse]
    pub fn area_of_polygon(#[grad] fig: &[Point]) -> f64 {
        let mut res = 0.0;

        for i in 0..fig.len() {
            let p = if i > 0 {
                &fig[i - 1]
            } else {
                &fig[fig.len() - 1]
            };
            let q = &fig[i];

            res += (p.x - q.x) * (p.y + q.y);
        }

        f64::abs(res) / 2.0
    }
}

// src/math/interquartile_range.rs
mod alg_iqr {
    use super::*;
    use std::cmp::Ordering;

    #[forward]
    #[reverse]
    pub fn find_median(numbers: &[f64]) -> f64 {
        let mut numbers = numbers.to_vec();
        numbers.sort_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));

        let length = numbers.len();
        let mid = length / 2;

        if length.is_multiple_of(2) {
            f64::midpoint(numbers[mid - 1], numbers[mid])
        } else {
            numbers[mid]
        }
    }
}

// src/math/gaussian_elimination.rs
mod alg_gauss {
    use super::*;

    #[forward]
    #[reverse]
    pub fn gaussian_elimination(matrix: &mut [Vec<f32>]) -> Vec<f32> {
        let size = matrix.len();
        assert_eq!(size, matrix[0].len() - 1);

        for i in 0..size - 1 {
            for j in i..size - 1 {
                echelon(matrix, i, j);
            }
        }

        for i in (1..size).rev() {
            eliminate(matrix, i);
        }

        #[allow(clippy::needless_range_loop)]
        for i in 0..size {
            if matrix[i][i] == 0f32 {
                println!("Infinitely many solutions");
            }
        }

        let mut result: Vec<f32> = vec![0f32; size];
        for i in 0..size {
            result[i] = matrix[i][size] / matrix[i][i];
        }
        result
    }

    #[forward]
    #[reverse]
    fn echelon(matrix: &mut [Vec<f32>], i: usize, j: usize) {
        let size = matrix.len();
        if matrix[i][i] == 0f32 {
        } else {
            let factor = matrix[j + 1][i] / matrix[i][i];
            (i..=size).for_each(|k| {
                matrix[j + 1][k] -= factor * matrix[i][k];
            });
        }
    }

    #[forward]
    #[reverse]
    fn eliminate(matrix: &mut [Vec<f32>], i: usize) {
        let size = matrix.len();
        if matrix[i][i] == 0f32 {
        } else {
            for j in (1..=i).rev() {
                let factor = matrix[j - 1][i] / matrix[i][i];
                for k in (0..=size).rev() {
                    matrix[j - 1][k] -= factor * matrix[i][k];
                }
            }
        }
    }
}
