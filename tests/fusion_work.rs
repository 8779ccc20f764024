//! Fusion never multiplies work: on generated modules, every expensive
//! instruction (reduce, dot, reduce-window, transcendentals) inside a
//! fused computation is computed at most once per element, and the whole
//! fused module's estimated element operations stay within a small factor
//! of the unfused module's (cheap elementwise ops may be recomputed
//! through a broadcast). See `rxla_passes::work`.

use rxla_fuzzgen::GenConfig;
use rxla_passes::fusion::fuse_module;
use rxla_passes::work::{estimate_work, fused_recomputation};

const EXPENSIVE: &[&str] = &[
    "reduce",
    "dot",
    "convolution",
    "reduce-window",
    "exponential",
    "exponential-minus-one",
    "log",
    "log-plus-one",
    "logistic",
    "tanh",
    "sine",
    "cosine",
    "tan",
    "cbrt",
    "power",
    "atan2",
    "remainder",
];

/// Cheap ops duplicated through broadcasts cost at most this factor.
const MAX_FACTOR: f64 = 4.0;

#[test]
fn fusion_never_multiplies_work_on_generated_modules() {
    let cfg = GenConfig::evaluable();
    let mut fused_any = 0;
    for seed in 0..seeds() {
        let module = rxla_fuzzgen::generate_from_seed(seed, &cfg);
        let mut fused = module.clone();
        if let Err(e) = fuse_module(&mut fused) {
            panic!(
                "seed {seed}: fusion failed: {e}\n{}",
                rxla_ir::print_module(&module)
            );
        }
        let before = estimate_work(&module);
        let after = estimate_work(&fused);
        if after != before {
            fused_any += 1;
        }
        for (comp, name, opcode, times) in fused_recomputation(&fused) {
            // Fusions the generator wrote itself are not this pass's doing.
            let created = module.find_computation(&comp).is_none();
            assert!(
                !created || !EXPENSIVE.contains(&opcode) || times <= 1.0 + 1e-9,
                "seed {seed}: {name} ({opcode}) is computed {times:.1} times per element after fusion:\n{}",
                rxla_ir::print_module(&fused)
            );
        }
        assert!(
            after <= MAX_FACTOR * before + 64.0,
            "seed {seed}: fusion raised the work from {before} to {after} element ops:\n{}",
            rxla_ir::print_module(&fused)
        );
    }
    assert!(
        fused_any > 50,
        "only {fused_any} of {} modules changed: the test sees too little",
        seeds()
    );
}

/// Multi-output fusion after fusion (every node merged, whatever its size)
/// adds no work, keeps the module valid and its values bit for bit: each
/// value is still computed once per element, only in a shared loop.
#[test]
fn multi_output_fusion_adds_no_work_and_keeps_values() {
    let cfg = GenConfig::evaluable();
    let registry = rxla_passes::registry::Registry::standard();
    let mut merged_any = 0;
    for seed in 0..seeds() / 2 {
        let module = rxla_fuzzgen::generate_from_seed(seed, &cfg);
        let mut fused = module.clone();
        fuse_module(&mut fused).unwrap_or_else(|e| panic!("seed {seed}: fusion: {e}"));
        let mut merged = fused.clone();
        let mut pm = rxla_passes::manager::PassManager::from_text(
            "multi-output-fusion{min-elements=1}",
            &registry,
        )
        .expect("parses");
        pm.run(&mut merged).unwrap_or_else(|e| {
            panic!(
                "seed {seed}: multi-output-fusion: {e}\n{}",
                rxla_ir::print_module(&fused)
            )
        });
        if merged == fused {
            continue;
        }
        merged_any += 1;
        rxla_ir::verify_module(&merged).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let (before, after) = (estimate_work(&fused), estimate_work(&merged));
        assert!(
            after <= before + 1e-6,
            "seed {seed}: multi-output fusion raised the work from {before} to {after}:\n{}",
            rxla_ir::print_module(&merged)
        );
        let args = rxla_fuzzgen::values::random_args(&module, seed);
        let opts = rxla_eval::RunOptions::default();
        let want = rxla_eval::evaluate(&fused, &args, &opts);
        let got = rxla_eval::evaluate(&merged, &args, &opts);
        if let (Ok(w), Ok(g)) = (&want, &got) {
            assert_eq!(
                format!("{w:?}"),
                format!("{g:?}"),
                "seed {seed}: values differ after multi-output fusion:\n{}",
                rxla_ir::print_module(&merged)
            );
        } else {
            assert_eq!(
                want.is_ok(),
                got.is_ok(),
                "seed {seed}: {want:?} vs {got:?}"
            );
        }
    }
    assert!(
        merged_any > 20,
        "only {merged_any} of {} modules merged: the test sees too little",
        seeds() / 2
    );
}

fn seeds() -> u64 {
    std::env::var("RXLA_WORK_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

/// Every corpus module (as JAX hands it to XLA, and XLA's optimized form),
/// after the O2 pipeline, fuses into a module that verifies: the JIT runs
/// exactly this, and a fusion error there silently sent the whole module
/// to the interpreter (`corpus_jax/threefry_normal`: a moved producer was
/// still read by another group that had copied its user).
#[test]
fn fusion_verifies_on_every_corpus_module() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for dir in ["corpus", "corpus_jax"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("corpus dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("reads");
            let name = path.display().to_string();
            let mut m = rxla_ir::parse_module(&text, &name).unwrap_or_else(|e| panic!("{e}"));
            let registry = rxla_passes::registry::Registry::standard();
            let o2 = rxla_passes::pipeline::named_pipeline_text("O2").expect("O2");
            let mut pm =
                rxla_passes::manager::PassManager::from_text(o2, &registry).expect("O2 parses");
            pm.run(&mut m).unwrap_or_else(|e| panic!("{name}: O2: {e}"));
            fuse_module(&mut m).unwrap_or_else(|e| panic!("{name}: fusion: {e}"));
            rxla_ir::verify_module(&m).unwrap_or_else(|e| panic!("{name}: after fusion: {e}"));
            n += 1;
        }
    }
    assert!(n >= 2 * (24 + 142), "only {n} corpus modules");
}
