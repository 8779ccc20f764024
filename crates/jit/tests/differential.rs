//! Differential test: random well-typed modules from the fuzzer's
//! generator (every evaluable opcode, random layouts) compiled by the JIT
//! and compared with the reference evaluator on the same random arguments
//! (special values included). Integers and preds must match exactly,
//! floats within a small tolerance (reductions, dots and transcendentals
//! may round differently; NaN matches NaN).

use rxla_eval::{RunOptions, compare_with_tolerance, evaluate};
use rxla_fuzzgen::{GenConfig, generate_from_seed, random_args};
use rxla_jit::{CompileOptions, compile};

fn check(seed: u64, cfg: &GenConfig, opts: &CompileOptions) -> Result<bool, String> {
    let module = generate_from_seed(seed, cfg);
    let args = random_args(&module, seed);
    // Modules the evaluator rejects (or panics on) are not the JIT's to judge.
    let want = match std::panic::catch_unwind(|| evaluate(&module, &args, &RunOptions::default())) {
        Ok(Ok(w)) => w,
        _ => return Ok(false),
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
        compare_with_tolerance(g, w, rtol, atol).map_err(|e| format!("leaf {i}: {e}"))?;
    }
    Ok(true)
}

fn sweep(cfg: GenConfig, opts: CompileOptions, seeds: std::ops::Range<u64>) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for seed in seeds {
        match check(seed, &cfg, &opts) {
            Ok(true) => checked += 1,
            Ok(false) => {}
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
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn random_modules_match_the_evaluator() {
    sweep(
        GenConfig::evaluable(),
        CompileOptions {
            threads: Some(1),
            ..CompileOptions::default()
        },
        0..150,
    );
}

#[test]
fn random_modules_match_the_evaluator_scalar_and_unfused() {
    let opts = CompileOptions {
        threads: Some(1),
        vectorize: false,
        fusion: false,
        ..CompileOptions::default()
    };
    sweep(GenConfig::evaluable(), opts, 1000..1100);
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
