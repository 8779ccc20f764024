//! Prints the module of a seed (debugging aid): `cargo run -p rxla-fuzzgen --example dump -- SEED [all|evaluable]`.
fn main() {
    let mut a = std::env::args().skip(1);
    let seed: u64 = a.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let cfg = match a.next().as_deref() {
        Some("evaluable") => rxla_fuzzgen::GenConfig::evaluable(),
        _ => rxla_fuzzgen::GenConfig::all_ops(),
    };
    let m = rxla_fuzzgen::generate_from_seed(seed, &cfg);
    print!("{}", rxla_ir::print_module(&m));
    let total: usize = (0..1000)
        .map(|s| rxla_fuzzgen::generate_from_seed(s, &cfg).instruction_count())
        .sum();
    eprintln!(
        "avg instructions over 1000 seeds: {}",
        total as f64 / 1000.0
    );
}
