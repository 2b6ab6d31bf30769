//! How much of the test suite's reverse-mode code the IR engine takes: every `#[reverse]` or
//! `#[checkpoint]` function and method of `tests/tests/*.rs`, lowered and emitted by it, with
//! what stops it on the others. A floor that only goes up keeps what it takes from sliding back while
//! it grows (`cargo test -p ad-macros -- --nocapture coverage` prints the
//! table).

/// Functions of the suite the IR engine must take; raised as it grows.
const TAKEN_AT_LEAST: usize = 1218;

#[test]
fn ir_engine_coverage_of_the_test_suite() {
    use std::collections::BTreeMap;

    fn functions(items: &[syn::Item], found: &mut Vec<syn::ItemFn>) {
        for item in items {
            match item {
                syn::Item::Fn(function) => found.push(function.clone()),
                syn::Item::Mod(module) => {
                    if let Some((_, inner)) = &module.content {
                        functions(inner, found);
                    }
                }
                // Methods, as the macro sees them: a function with a receiver.
                syn::Item::Impl(block) => {
                    for item in &block.items {
                        if let syn::ImplItem::Fn(method) = item {
                            found.push(syn::ItemFn {
                                attrs: method.attrs.clone(),
                                vis: method.vis.clone(),
                                sig: method.sig.clone(),
                                block: Box::new(method.block.clone()),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }

    let is_reverse = |attr: &syn::Attribute| {
        attr.path().is_ident("reverse") || attr.path().is_ident("checkpoint")
    };
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/tests");
    let mut files: Vec<_> = std::fs::read_dir(&directory)
        .expect("the test directory")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        // Scratch files of a session's probes (`zz_*.rs`) are not the suite.
        .filter(|path| {
            !path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("zz_"))
        })
        .collect();
    files.sort();
    let (mut taken, mut total) = (0, 0);
    let mut reasons: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a test file");
        let Ok(parsed) = syn::parse_file(&text) else {
            continue;
        };
        let mut found = Vec::new();
        functions(&parsed.items, &mut found);
        for mut item in found {
            if !item.attrs.iter().any(is_reverse) {
                continue;
            }
            item.attrs
                .retain(|attr| !is_reverse(attr) && !attr.path().is_ident("forward"));
            let cx = crate::ctxt::Ctxt::new();
            let function = crate::ast::Function::from_item(&cx, item, "reverse");
            let refused = cx.has_errors();
            drop(cx.into_compile_errors());
            if refused {
                continue;
            }
            total += 1;
            match crate::expand::reverse_ir::companion_body(&function, false) {
                Ok(_) => taken += 1,
                Err(not_yet) => reasons.entry(not_yet.what).or_default().push(format!(
                    "{}::{}",
                    file.file_stem()
                        .map_or("".into(), |stem| stem.to_string_lossy()),
                    function.name()
                )),
            }
        }
    }
    let mut sorted: Vec<_> = reasons.into_iter().collect();
    sorted.sort_by_key(|(_, functions)| std::cmp::Reverse(functions.len()));
    println!(
        "the IR engine takes {taken} of the suite's {total} reverse-mode functions; the others:"
    );
    for (reason, functions) in sorted {
        println!("{:6}  {reason}: {}", functions.len(), functions.join(", "));
    }
    assert!(
        taken >= TAKEN_AT_LEAST,
        "the IR engine takes {taken} functions of the suite, fewer than {TAKEN_AT_LEAST}"
    );
}
