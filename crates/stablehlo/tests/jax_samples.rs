//! StableHLO samples beyond the shared corpus (`tests/jax/gen.py`: text
//! with `loc(...)` annotations and `#loc` aliases, complex numbers, FFTs,
//! LAPACK custom calls, composites, optimization barriers, the rbg PRNG):
//! each is read, verified, evaluated on its JSON inputs and compared with
//! JAX's outputs.

use rxla_eval::json::read_case;
use rxla_eval::{RunOptions, evaluate};
use std::path::Path;

/// Samples whose values rxla's evaluator does not promise to match.
const BITS_DIFFER: &[&str] = &["rbg_bits"];

#[test]
fn jax_samples_match_jax() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jax");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/jax")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_string_lossy()
                .strip_suffix(".mlir")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let path = dir.join(format!("{name}.mlir"));
        let text = std::fs::read_to_string(&path).unwrap();
        let case = read_case(&dir.join(format!("{name}.json")).display().to_string()).unwrap();
        let r = (|| -> Result<(), String> {
            let m = rxla_stablehlo::parse_stablehlo(&text, &format!("{name}.mlir"))
                .map_err(|e| e.to_string())?;
            let got = evaluate(&m, &case.inputs, &RunOptions::default())
                .map_err(|e| format!("evaluation: {e}"))?;
            let leaves = got.leaves();
            if BITS_DIFFER.contains(&name.as_str()) {
                // rxla's rng-bit-generator is not XLA's bit for bit
                // (docs/SEMANTICS.md): compare shapes only.
                for (g, w) in leaves.iter().zip(&case.outputs) {
                    if g.shape.dims != w.shape.dims {
                        return Err(format!("shape {:?}, want {:?}", g.shape.dims, w.shape.dims));
                    }
                }
                return Ok(());
            }
            case.check_outputs(&leaves, case.rtol, case.atol)
        })();
        match r {
            Ok(()) => println!("ok    {name}"),
            Err(e) => {
                println!("FAIL  {name}: {e}");
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
