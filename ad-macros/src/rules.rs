//! The derivative rules of `ad_runtime::rules` as the macros know them, by name: which float
//! methods have a rule and of how many floats, and which methods give data. Both reverse-mode
//! engines read these lists.

/// Float methods with a rule of one argument (the receiver).
pub const UNARY_RULES: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "exp",
    "exp2",
    "exp_m1",
    "ln",
    "log2",
    "log10",
    "ln_1p",
    "sqrt",
    "cbrt",
    "abs",
    "signum",
    "recip",
    "to_degrees",
    "to_radians",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fract",
];
/// Float methods with a rule of two arguments.
pub const BINARY_RULES: &[&str] = &[
    "atan2", "log", "powf", "hypot", "min", "max", "midpoint", "copysign",
];
/// Float methods with a rule of three arguments.
pub const TERNARY_RULES: &[&str] = &["mul_add", "clamp"];
/// Float methods of `std` that have no derivative rule here.
pub const FLOAT_METHODS_WITHOUT_RULES: &[&str] = &[
    "rem_euclid",
    "div_euclid",
    "to_bits",
    "sin_cos",
    "gamma",
    "ln_gamma",
];

/// Float methods whose result is not a float: only the value is used.
pub const VALUE_ONLY_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_normal",
    "is_sign_positive",
    "is_sign_negative",
    "partial_cmp",
    "total_cmp",
    "to_string",
];

/// Float methods whose rule's linear map follows from the method's value alone (`exp`'s is the
/// value): `ad_runtime::rules::<method>_from_value` makes it, so reverse mode keeps the value
/// rather than both.
pub const MAPS_FROM_VALUES: &[&str] = &["exp", "tanh", "sqrt"];

/// A float method with a rule: its name, and whether each argument after the receiver is a
/// float (`powi`'s exponent is data).
#[derive(Clone, Copy)]
pub struct FloatMethodRule {
    pub method: &'static str,
    pub float_args: &'static [bool],
}

impl FloatMethodRule {
    /// Whether the rule's linear map follows from the value (`MAPS_FROM_VALUES`).
    pub fn map_from_value(&self) -> bool {
        MAPS_FROM_VALUES.contains(&self.method)
    }
}

/// The rule of the float method `name` called with `arity` arguments after the receiver.
pub fn float_method_rule(name: &str, arity: usize) -> Option<FloatMethodRule> {
    let (list, float_args): (&[&'static str], &'static [bool]) = match arity {
        0 => (UNARY_RULES, &[]),
        1 if name == "powi" => (&["powi"], &[false]),
        1 => (BINARY_RULES, &[true]),
        2 => (TERNARY_RULES, &[true, true]),
        _ => return None,
    };
    let method = list.iter().find(|rule| **rule == name)?;
    Some(FloatMethodRule { method, float_args })
}
