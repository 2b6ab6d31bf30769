//! Parameters written as patterns (`(t, r): (f64, f64)`, `[x, y]: [f64; 2]`, `_: f64`) are taken apart at the top of the body; the generated functions name them after
//! their patterns (`t_r`, `x_y`; `arg3` for `_` in fourth place) and take them whole.

// The previous engine does not take array patterns in `let`.

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;

#[forward]
#[reverse]
fn patterned((t, r): (f64, f64), [x, y]: [f64; 2], s: f64, _: f64) -> f64 {
    (r * t).exp() * x * y.sin() + s * s
}

#[test]
fn pattern_parameters_in_both_modes() {
    let at = |t: f64, r: f64, x: f64, y: f64, s: f64| patterned((t, r), [x, y], s, 9.0);
    let point = [0.7, -0.3, 1.2, 0.4, 2.0];
    let h = 1e-6;
    let central: Vec<f64> = (0..5)
        .map(|i| {
            let mut plus = point;
            let mut minus = point;
            plus[i] += h;
            minus[i] -= h;
            (at(plus[0], plus[1], plus[2], plus[3], plus[4])
                - at(minus[0], minus[1], minus[2], minus[3], minus[4]))
                / (2.0 * h)
        })
        .collect();
    let [t, r, x, y, s] = point;
    let (value, ((dt, dr), dxy, ds, d_unused)) = patterned_grad((t, r), [x, y], s, 9.0);
    assert_eq!(value.to_bits(), at(t, r, x, y, s).to_bits());
    assert_eq!(d_unused, 0.0);
    for (got, expected) in [dt, dr, dxy[0], dxy[1], ds].iter().zip(&central) {
        assert_relative_eq!(*got, *expected, max_relative = 1e-6);
    }
    for (i, expected) in central.iter().enumerate() {
        let mut e = [0.0; 5];
        e[i] = 1.0;
        let (_, tangent) = patterned_jvp(
            (t, r),
            [x, y],
            s,
            9.0,
            (e[0], e[1]),
            [e[2], e[3]],
            e[4],
            0.0,
        );
        assert_relative_eq!(tangent, *expected, max_relative = 1e-6);
    }
}
