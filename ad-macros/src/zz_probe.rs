use proc_macro2::TokenStream;
#[test]
fn zz_probe() {
    let text = std::fs::read_to_string("/tmp/probe_in.rs").unwrap();
    let tokens: TokenStream = text.parse().unwrap();
    let mode = std::env::var("PROBE_MODE").unwrap_or_else(|_| "reverse".into());
    let out = match mode.as_str() {
        "forward" => crate::driver::forward(TokenStream::new(), tokens),
        "checkpoint" => crate::driver::checkpoint(TokenStream::new(), tokens),
        _ => crate::driver::reverse(TokenStream::new(), tokens),
    };
    match syn::parse2::<syn::File>(out.clone()) {
        Ok(file) => println!("{}", prettyplease::unparse(&file)),
        Err(_) => println!("{}", out),
    }
}
