//! Differential test: random well-typed modules from the fuzzer's
//! generator (every evaluable opcode, random layouts) compiled by the JIT
//! and compared with the reference evaluator on the same random arguments
//! (special values included). Integers and preds must match exactly,
//! floats within a small tolerance (reductions, dots and transcendentals
//! may round differently; NaN matches NaN).

use rxla_eval::{RunOptions, compare_with_tolerance, evaluate};
use rxla_fuzzgen::{GenConfig, generate_from_seed, random_args};
use rxla_jit::{CompileOptions, compile};

/// Ok(None): not judged; Ok(Some(row groups formed)): agrees.
fn check(seed: u64, cfg: &GenConfig, opts: &CompileOptions) -> Result<Option<usize>, String> {
    let module = generate_from_seed(seed, cfg);
    let args = random_args(&module, seed);
    // Modules the evaluator rejects (or panics on) are not the JIT's to judge.
    let want = match std::panic::catch_unwind(|| evaluate(&module, &args, &RunOptions::default())) {
        Ok(Ok(w)) => w,
        _ => return Ok(None),
    };
    let exe = compile(&module, opts).map_err(|e| format!("compile: {e}"))?;
    let got = exe.run(&args).map_err(|e| format!("run: {e}"))?;
    let (g, w) = (got.leaves(), want.leaves());
    if g.len() != w.len() {
        return Err(format!("{} leaves, expected {}", g.len(), w.len()));
    }
    for (i, (g, w)) in g.iter().zip(&w).enumerate() {
        let (rtol, atol) = if w.shape.element_type.is_float() {
            (2e-3, 1e-3)
        } else {
            (0.0, 0.0)
        };
        if let Err(e) = compare_with_tolerance(g, w, rtol, atol) {
            // The fuzzer's JIT oracle knows the documented divergences
            // (an overflow reached in another order by a reassociated or
            // fused dot: -inf against NaN); anything else is a failure.
            return match rxla_oracles::jit::check_with(&module, seed, opts) {
                Ok(_) => Ok(Some(exe.stats().row_groups)),
                Err(why) => Err(format!("leaf {i}: {e}; oracle: {why}")),
            };
        }
    }
    Ok(Some(exe.stats().row_groups))
}

/// Checks every seed; returns the number of modules with a row group.
fn sweep(cfg: GenConfig, opts: CompileOptions, seeds: std::ops::Range<u64>) -> usize {
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut grouped = 0;
    for seed in seeds {
        match check(seed, &cfg, &opts) {
            Ok(Some(g)) => {
                checked += 1;
                grouped += usize::from(g > 0);
            }
            Ok(None) => {}
            Err(e) => {
                println!(
                    "seed {seed}: {e}\n{}",
                    rxla_ir::print_module(&generate_from_seed(seed, &cfg))
                );
                failures.push(format!("seed {seed}: {e}"));
            }
        }
    }
    println!("{checked} modules agree");
    assert!(checked >= 50, "only {checked} modules were checked");
    rxla_testkit::assert_no_failures(&failures);
    grouped
}

#[test]
fn random_modules_match_the_evaluator() {
    let _ = sweep(
        GenConfig::evaluable(),
        CompileOptions {
            threads: Some(1),
            ..CompileOptions::default()
        },
        0..150,
    );
}

#[test]
fn random_modules_match_the_evaluator_with_row_groups_everywhere() {
    // Every eligible chain of kernels grouped, however small, on two
    // threads (the fuzzer's JIT oracle options and tolerance rules): the
    // row-locality analysis is checked against the evaluator.
    let cfg = GenConfig::evaluable();
    let opts = rxla_oracles::jit::options();
    assert_eq!(opts.row_group_min_bytes, 0);
    let (mut grouped, mut failures) = (0, Vec::new());
    for seed in 2000..2300 {
        let module = generate_from_seed(seed, &cfg);
        if let Err(e) = rxla_oracles::jit::check_with(&module, seed, &opts) {
            failures.push(format!("seed {seed}: {e}"));
            continue;
        }
        if let Ok(exe) = compile(&module, &opts) {
            grouped += usize::from(exe.stats().row_groups > 0);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{grouped} modules ran a row group");
    assert!(grouped >= 10, "only {grouped} modules formed a row group");
}

#[test]
fn random_modules_match_the_evaluator_scalar_and_unfused() {
    let opts = CompileOptions {
        threads: Some(1),
        vectorize: false,
        fusion: false,
        ..CompileOptions::default()
    };
    let _ = sweep(GenConfig::evaluable(), opts, 1000..1100);
}

#[test]
#[ignore]
fn debug_seed() {
    let seed: u64 = std::env::var("SEED").unwrap().parse().unwrap();
    let module = generate_from_seed(seed, &GenConfig::evaluable());
    let args = random_args(&module, seed);
    for a in &args {
        println!("arg {a}");
    }
    let want = evaluate(&module, &args, &RunOptions::default()).unwrap();
    let exe = compile(
        &module,
        &CompileOptions {
            threads: Some(1),
            vectorize: false,
            fusion: false,
            ..CompileOptions::default()
        },
    )
    .unwrap();
    println!("fallbacks {:?}", exe.stats().fallbacks);
    let got = exe.run(&args).unwrap();
    println!("want {want}\ngot  {got}");
}
