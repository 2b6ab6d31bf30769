//! The refusals whose reason is the whole message (`NotYet::is_final`): no other engine
//! would take the construct instead.

/// The refusal of a value built from floats carrying derivatives, of a type the file defines
/// without the derive.
pub(crate) const UNDERIVED_BUILT: &str =
    "a value built from floats carrying derivatives, of a type defined without \
     `#[derive(Differentiable)]`: it has no derivatives to carry; add \
     `#[derive(ad_runtime::Differentiable)]` to the type (or compute the float with \
     `if`/`match` directly)";

/// The refusal of a method of a nalgebra value that has no rule in `ad_runtime::linalg`.
pub(crate) const LINALG_WITHOUT_RULE: &str =
    "this method of a nalgebra vector or matrix: derivative code has no rule for it yet \
     (`ad_runtime::linalg`). The rules are the \
     operators, element access, `dot`, `norm`, `norm_squared` (`magnitude`, `magnitude_squared`), \
     `sum`, `transpose`, `cross`, \
     `component_mul`, `component_div`, `scale`, `map`, `determinant`, `trace`, `try_inverse`, \
     `cholesky` (then `solve`, `l`, `determinant`), `column`, `row`, `columns`, `rows` \
     (copies), `as_slice`, `iter`, `len`, `nrows`, `ncols`, `shape` and `clone`; write this one with those or with a loop over the elements (forward mode takes \
     it in a function generic over `T: RealField`)";

/// The refusal of `2.0 * v` with `v` of a derived type.
pub(crate) const DERIVED_ON_THE_RIGHT: &str =
    "an operator with a value of a derived type on its right only (`k * v`): that is the \
     float's operator, which has no derivative code here; put `#[forward]`/`#[reverse]` on \
     its `impl` block (`impl Mul<Vec3> for f64`) in this file, or write the derived value on \
     the left (`v * k`), whose type's operator has";
