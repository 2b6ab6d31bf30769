//! The laws of seed `002`, Figures 3-5, for every combinator and every primitive rule, on
//! random inputs: linearity, the transpose property `<m^T t, s> = <t, m s>`, and the algebra
//! of transposes (`(a ∘ b)^T = b^T ∘ a^T`, `(a + b)^T = a^T + b^T`, `vcat^T = hcat` of
//! transposes, `(m^T)^T = m`).

mod common;

use ad_runtime::linear::{
    Compose, HCat, HCatVec, Identity, LinearMap, Scale, Scaled, SingularScale, Sum, Transpose,
    VCat, VCatVec, VectorSpace, Zero,
};
use ad_runtime::rules;
use approx::assert_relative_eq;
use common::Rng;

const TRIALS: usize = 200;

/// `<m^T t, s> = <t, m s>` and linearity `m(a s1 + b s2) = a m s1 + b m s2`.
fn check_laws<M: LinearMap<Domain: VectorSpace<Field = f64>>>(
    m: &M,
    s1: M::Domain,
    s2: M::Domain,
    t: M::Codomain,
) {
    let lhs = m.reverse_apply(t.clone()).dot(&s1);
    let rhs = t.dot(&m.apply(s1.clone()));
    assert_relative_eq!(lhs, rhs, epsilon = 1e-10, max_relative = 1e-12);

    let (a, b) = (1.5, -0.75);
    let combined = m.apply(s1.clone().times(a).plus(s2.clone().times(b)));
    let separate = m.apply(s1).times(a).plus(m.apply(s2).times(b));
    let difference = combined.clone().plus(separate.times(-1.0));
    assert!(
        difference.dot(&difference).sqrt() <= 1e-10 * (1.0 + combined.dot(&combined).sqrt()),
        "map is not linear"
    );
}

fn vector(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.uniform(-2.0, 2.0)).collect()
}

#[test]
fn scalar_maps() {
    let mut rng = Rng::new(1);
    for _ in 0..TRIALS {
        let (s1, s2, t) = (
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
        );
        let k = rng.uniform(-5.0, 5.0);
        check_laws(&Scale(k), s1, s2, t);
        check_laws(&SingularScale(k), s1, s2, t);
        check_laws(&Identity::<f64>::new(), s1, s2, t);
        check_laws(&Zero::new(0.0, 0.0), s1, s2, t);
        check_laws(&Compose(Scale(k), Scale(2.0)), s1, s2, t);
        check_laws(&Sum(Scale(k), Identity::new()), s1, s2, t);
        check_laws(&Scaled(k, Scale(3.0)), s1, s2, t);
        check_laws(&Transpose(Scale(k)), s1, s2, t);
    }
}

#[test]
fn concatenations_of_pairs() {
    let mut rng = Rng::new(2);
    for _ in 0..TRIALS {
        let (a, b) = (rng.uniform(-3.0, 3.0), rng.uniform(-3.0, 3.0));
        let (x, y, z, w) = (
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
        );
        let vcat = VCat(Scale(a), Scale(b));
        let hcat = HCat(Scale(a), Scale(b));
        check_laws(&vcat, x, y, (z, w));
        check_laws(&hcat, (x, y), (z, w), x);
        check_laws(&Transpose(vcat), (z, w), (x, y), x);
        // vcat(a, b)^T = hcat(a^T, b^T)
        assert_eq!(vcat.reverse_apply((z, w)), hcat.apply((z, w)));
        // (m^T)^T = m
        assert_eq!(Transpose(Transpose(hcat)).apply((x, y)), hcat.apply((x, y)));
        // Nested shapes: ((x, y), z) -> ...
        let nested = HCat(HCat(Scale(a), Identity::new()), Scale(b));
        check_laws(&nested, ((x, y), z), ((y, z), w), w);
        check_laws(&Zero::new((0.0, 0.0), 0.0), (x, y), (z, w), a);
    }
}

#[test]
fn concatenations_of_vectors() {
    let mut rng = Rng::new(3);
    for n in 0..6 {
        for _ in 0..20 {
            let factors = vector(&mut rng, n);
            let maps: Vec<Scale<f64>> = factors.iter().map(|&k| Scale(k)).collect();
            let vcat = VCatVec::new(maps.clone(), 0.0);
            let hcat = HCatVec::new(maps, 0.0);
            let (x, y) = (rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0));
            let (u, v) = (vector(&mut rng, n), vector(&mut rng, n));
            check_laws(&vcat, x, y, u.clone());
            check_laws(&hcat, u.clone(), v.clone(), x);
            // vcat^T = hcat of the transposes (scales are their own transposes)
            assert_relative_eq!(vcat.reverse_apply(u.clone()), hcat.apply(u.clone()));
            // Vectors of pairs.
            let pairs = VCatVec::new(
                factors.iter().map(|&k| VCat(Scale(k), Scale(-k))).collect(),
                0.0,
            );
            let t: Vec<(f64, f64)> = u.iter().zip(&v).map(|(&a, &b)| (a, b)).collect();
            check_laws(&pairs, x, y, t);
        }
    }
}

#[test]
fn composition_and_sum_transpose_in_reverse_order() {
    let mut rng = Rng::new(4);
    for _ in 0..TRIALS {
        let (a, b, c) = (
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
        );
        let (x, y) = (rng.uniform(-3.0, 3.0), rng.uniform(-3.0, 3.0));
        // (p ∘ q)^T = q^T ∘ p^T with q: R -> R^2, p: R^2 -> R
        let q = VCat(Scale(a), Scale(b));
        let p = HCat(Scale(c), Identity::new());
        let composed = Compose(p, q);
        check_laws(&composed, x, y, x);
        assert_relative_eq!(
            composed.reverse_apply(y),
            Compose(Transpose(q), Transpose(p)).apply(y),
            max_relative = 1e-14
        );
        // Associativity.
        let left = Compose(Compose(Scale(a), Scale(b)), Scale(c));
        let right = Compose(Scale(a), Compose(Scale(b), Scale(c)));
        assert_relative_eq!(left.apply(x), right.apply(x), max_relative = 1e-14);
        // (p + q)^T = p^T + q^T
        let sum = Sum(VCat(Scale(a), Scale(b)), VCat(Scale(c), Identity::new()));
        check_laws(&sum, x, y, (x, y));
        // Identity and zero are units.
        assert_eq!(
            Compose(Identity::new(), Scale(a)).apply(x),
            Scale(a).apply(x)
        );
        assert_eq!(
            Sum(Zero::new(0.0, 0.0), Scale(a)).apply(x),
            Scale(a).apply(x)
        );
    }
}

/// Every primitive's derivative obeys the transpose law at random points of its domain.
#[test]
fn every_primitive_rule_is_a_linear_map() {
    let mut rng = Rng::new(5);
    for _ in 0..TRIALS {
        let x = rng.uniform(0.05, 0.95);
        let y = rng.uniform(0.1, 3.0);
        let (s1, s2, t) = (
            rng.uniform(-2.0, 2.0),
            rng.uniform(-2.0, 2.0),
            rng.uniform(-2.0, 2.0),
        );
        macro_rules! unary {
            ($($rule:ident($arg:expr)),*) => {$(
                check_laws(&rules::$rule($arg).1, s1, s2, t);
            )*};
        }
        unary!(
            neg(x),
            sin(x),
            cos(x),
            tan(x),
            asin(x),
            acos(x),
            atan(x),
            sinh(x),
            cosh(x),
            tanh(x),
            asinh(x),
            acosh(1.0 + y),
            atanh(x),
            exp(x),
            exp2(x),
            exp_m1(x),
            ln(y),
            log2(y),
            log10(y),
            ln_1p(x),
            sqrt(y),
            cbrt(y),
            abs(x - 0.5),
            signum(x),
            recip(y),
            to_degrees(x),
            to_radians(x),
            floor(y),
            ceil(y),
            round(y),
            trunc(y),
            fract(y)
        );
        check_laws(&rules::powi(y, 3).1, s1, s2, t);
        macro_rules! binary {
            ($($rule:ident($a:expr, $b:expr)),*) => {$(
                check_laws(&rules::$rule($a, $b).1, (s1, s2), (s2, t), t);
            )*};
        }
        binary!(
            add(x, y),
            sub(x, y),
            mul(x, y),
            div(x, y),
            rem(y, x),
            atan2(x, y),
            log(y, 1.0 + x),
            powf(y, x),
            hypot(x, y),
            min(x, y),
            max(x, y),
            abs_sub(y, x),
            abs_sub(x, y),
            copysign(x, -y)
        );
        check_laws(&rules::mul_add(x, y, t).1, (s1, (s2, t)), (t, (s1, s2)), s2);
        check_laws(&rules::clamp(y, x, 2.0).1, (s1, (s2, t)), (t, (s1, s2)), s2);
        check_laws(&rules::sin_cos(x).1, s1, s2, (t, s1));
    }
}
