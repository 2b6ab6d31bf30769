//! Expansion snapshots: what `#[reverse]` makes of a few representative functions, committed
//! in `ad-macros/snapshots/` so that a reviewer sees what a change does to the generated code.
//! Each `<name>.rs` holds one function; `<name>.expanded.rs` is its expansion, formatted. Run
//! with `UPDATE_SNAPSHOTS=1` to write them after an intended change.
//!
//! The snapshots are of the IR engine, so they are checked with its feature:
//! `cargo test -p ad-macros`.

#[test]
fn reverse_expansions_match_their_snapshots() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots");
    let mut inputs: Vec<_> = std::fs::read_dir(&directory)
        .expect("the snapshots directory")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "rs")
                && !path.to_string_lossy().ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no snapshot inputs in {directory:?}");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut stale = Vec::new();
    for input in inputs {
        let source = std::fs::read_to_string(&input).expect("a snapshot input");
        let item: proc_macro2::TokenStream = source.parse().expect("tokens");
        let expanded = crate::driver::reverse(quote::quote!(), item);
        let file: syn::File = syn::parse2(expanded).expect("the expansion parses as a file");
        let text = format!(
            "// The expansion of {} by #[reverse] (IR engine). Written by `UPDATE_SNAPSHOTS=1 \
             cargo test -p ad-macros`.\n\n{}",
            input.file_name().unwrap().to_string_lossy(),
            prettyplease::unparse(&file)
        );
        let snapshot = input.with_extension("expanded.rs");
        if update {
            std::fs::write(&snapshot, &text).expect("the snapshot written");
        } else if std::fs::read_to_string(&snapshot).ok().as_deref() != Some(text.as_str()) {
            stale.push(snapshot.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "expansions differ from their snapshots (review, then UPDATE_SNAPSHOTS=1): {stale:?}"
    );
}
