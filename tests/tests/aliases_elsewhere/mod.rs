//! Type aliases of another file of the package, for `type_aliases.rs`.

/// A point in the plane.
pub type Pair = [f64; 2];

/// Rows of values.
pub type Grid<T> = Vec<Vec<T>>;
