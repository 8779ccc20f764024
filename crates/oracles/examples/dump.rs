//! Debugging aid: prints the module of a seed, its arguments and its
//! evaluation. `cargo run -p rxla-oracles --example dump -- SEED [all|evaluable]`
fn main() {
    let mut a = std::env::args().skip(1);
    let seed: u64 = a.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let cfg = match a.next().as_deref() {
        Some("all") => rxla_fuzzgen::GenConfig::all_ops(),
        _ => rxla_fuzzgen::GenConfig::evaluable(),
    };
    let m = rxla_fuzzgen::generate_from_seed(seed, &cfg);
    print!("{}", rxla_ir::print_module(&m));
    let args = rxla_fuzzgen::random_args(&m, seed);
    for (i, x) in args.iter().enumerate() {
        println!("// arg {i}: {}", x.to_text());
    }
    match rxla_oracles::eval(&m, &args) {
        Ok(r) => println!("// result: {}", r.to_text()),
        Err(e) => println!("// evaluation error: {e}"),
    }
}
