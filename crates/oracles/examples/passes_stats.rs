//! Debugging aid: how often each pass configuration changes generated
//! modules. `cargo run -p rxla-oracles --example passes_stats -- N`
use rxla_oracles::passes::{configurations, run_config};
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let reg = rxla_passes::Registry::standard();
    let cfg = rxla_fuzzgen::GenConfig::evaluable();
    for c in configurations() {
        let mut changed = 0;
        let mut removed = 0usize;
        for s in 0..n {
            let m = rxla_fuzzgen::generate_from_seed(s, &cfg);
            if let Ok(r) = run_config(&m, &c, &reg) {
                if r != m {
                    changed += 1;
                }
                removed += m.instruction_count().saturating_sub(r.instruction_count());
            }
        }
        println!("{c}: changed {changed}/{n} modules, removed {removed} instructions");
    }
}
