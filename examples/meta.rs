//! Prints the registry's documentation (every family and reasoning parser, with models and
//! descriptions) as JSON. The package build turns it into `pkg/meta.js`: the wasm itself leaves
//! these texts out (see `text!` in lib.rs).
fn main() {
    println!("{{\"parsers\":{},\"reasoningParsers\":{}}}", toolwire::registry::to_json(), toolwire::registry::reasoning_to_json());
}
