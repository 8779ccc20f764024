//! Oracle 5 (placeholder while the builder lands).
use super::{OracleResult, Verdict};
pub fn check(seed: u64) -> OracleResult {
    let _ = seed;
    Ok(Verdict::Skipped("builder oracle pending".into()))
}
