//! Debugging aid for a fuzz failure file (or its reduction): prints the
//! arguments the oracles give it for SEED, the evaluator's result and the
//! JIT's (with the oracle's compile options).
//! `cargo run --release -p rxla-oracles --example args_of -- FILE SEED`
fn main() {
    let mut a = std::env::args().skip(1);
    let path = a.next().expect("usage: args_of FILE SEED");
    let seed: u64 = a.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let text = std::fs::read_to_string(&path).expect("readable file");
    let m = rxla_ir::parse_module(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    let args = rxla_fuzzgen::random_args(&m, seed);
    for (i, x) in args.iter().enumerate() {
        println!("// arg {i}: {}", x.to_text());
    }
    match rxla_oracles::eval(&m, &args) {
        Ok(w) => println!("// evaluator: {}", w.to_text()),
        Err(e) => println!("// evaluator error: {e}"),
    }
    match rxla_jit::compile(&m, &rxla_oracles::jit::options()) {
        Ok(exe) => match exe.run(&args) {
            Ok(g) => println!("// jit: {}", g.to_text()),
            Err(e) => println!("// jit run error: {e}"),
        },
        Err(e) => println!("// jit compile error: {e}"),
    }
}
