//! Compile options and compile statistics of the JIT. Plain data; the
//! compiler reads the options, the executable exposes the stats.

/// How to compile a module.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// When an instruction has no native code path, run just that
    /// instruction with the reference evaluator (recorded in
    /// [`CompileStats::fallbacks`]). When false such a module is an error.
    pub allow_interpreter_fallback: bool,
    /// Worker threads for large loops; `None` reads `RXLA_THREADS`, else
    /// the number of cores. 1 keeps everything on the calling thread.
    pub threads: Option<usize>,
    /// Keep the Cranelift IR text of every kernel (`--emit=clif`).
    pub keep_clif: bool,
    /// Keep the disassembly of every kernel (`--emit=asm`).
    pub keep_asm: bool,
    /// Vectorize inner loops (F32X4). Off only for testing the scalar path.
    pub vectorize: bool,
    /// Run the backend pipeline (`executable::backend_passes`:
    /// `fusion{dots=false}`) on a copy of the module first (each fusion
    /// becomes one loop nest). Off when the caller already ran it (`rxla
    /// run` does, to print it). Modules already fused are left as they are.
    pub fusion: bool,
    /// Run consecutive kernels that read each other row by row block of
    /// rows by block of rows (`rows`): intermediates stay in cache.
    pub row_groups: bool,
    /// Output bytes a row group's kernels must write together before it
    /// pays (smaller data fits in cache anyway). The fuzzer's JIT oracle
    /// sets 0 so that every eligible chain is grouped.
    pub row_group_min_bytes: usize,
    /// Run Cranelift's IR verifier on every kernel (default: in debug
    /// builds only; the tests and the fuzz targets are debug builds).
    pub verify_clif: bool,
    /// Compute f32 exp/tanh at a row's own index with the wide block
    /// routines (`crate::wide`, AVX-512) when the host has them; results
    /// are bit-identical either way. Off only for testing.
    pub wide_math: bool,
    /// Lower data-movement roots that concatenate or pad (and slices of
    /// a reverse) region by region as wide copies and fills
    /// (`codegen/regions.rs`, `codegen/assemble.rs`) instead of one
    /// select per element. Off only for testing.
    pub region_copies: bool,
    /// Run a relu (or residual add + relu) fusion over an f32 dot or
    /// convolution inside the GEMM's tiles (`gemm_epilogue`). Off only for
    /// testing.
    pub gemm_epilogues: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            allow_interpreter_fallback: true,
            threads: None,
            keep_clif: false,
            keep_asm: false,
            vectorize: true,
            fusion: true,
            row_groups: true,
            row_group_min_bytes: 4 << 20,
            verify_clif: cfg!(debug_assertions),
            wide_math: true,
            region_copies: true,
            gemm_epilogues: true,
        }
    }
}

impl CompileOptions {
    /// The thread count to use: the option, else `RXLA_THREADS`, else the
    /// number of cores.
    pub fn resolved_threads(&self) -> usize {
        if let Some(n) = self.threads {
            return n.max(1);
        }
        if let Some(n) = std::env::var("RXLA_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
        {
            return n.max(1);
        }
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    }
}

/// What the compiler did.
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    /// Native kernels compiled (one per fused loop nest).
    pub kernels: usize,
    /// Of those, kernels whose innermost loop is vectorized.
    pub vectorized_kernels: usize,
    /// Instructions run by the reference evaluator, as
    /// `computation/instruction (opcode): reason`.
    pub fallbacks: Vec<String>,
    /// Custom calls, as `computation/instruction (custom-call): target`:
    /// the registered function (`RunOptions::custom_calls`) is called
    /// directly on the buffers, not through the evaluator; and ffts, as
    /// `computation/instruction (fft): FFT of length [n] (rustfft)`.
    pub runtime_calls: Vec<String>,
    /// Instructions handled on the host (tuple, get-tuple-element,
    /// bitcast, control flow, parameters, constants, and the runtime steps
    /// sort, topk, rng, rng-bit-generator, custom-call, fft, infeed,
    /// outfeed, all-reduce).
    pub host_steps: usize,
    /// Row groups formed (consecutive kernels run block of rows by block
    /// of rows).
    pub row_groups: usize,
    /// Reductions that keep the minor dimension, run as row-streaming
    /// host steps (`runtime::colreduce`).
    pub column_reductions: usize,
    /// `dynamic-update-slice`s written into a while loop's own carry
    /// buffer instead of a copy of it (`runtime::dus`).
    pub in_place_updates: usize,
    /// Kernels built region by region (`codegen/assemble.rs`: a
    /// concatenate, pad or reversed copy as wide moves and fills).
    pub region_kernels: usize,
    /// Relu / residual-add epilogues run inside GEMM steps
    /// (`gemm_epilogue`).
    pub gemm_epilogues: usize,
    /// Scatter operands (index arithmetic, broadcast zeros, computed
    /// updates) computed inside the scatter's kernel instead of their own
    /// (`scatter_inputs`).
    pub fused_scatter_inputs: usize,
    /// `(kernel name, text)` of each kernel when `keep_clif` was set.
    pub clif: Vec<(String, String)>,
    /// `(kernel name, text)` of each kernel when `keep_asm` was set.
    pub asm: Vec<(String, String)>,
    /// The ISA tiers that run: the GEMM engine's micro-kernel tier
    /// (`avx512`, `avx2`, `portable`, `cranelift`) and the element math
    /// (`avx512` block routines for exp/tanh, else `128-bit` inline code).
    pub isa: String,
    /// How `Executable::run_replicated` runs the module's collectives:
    /// empty without collectives; `native` when the only ones are
    /// cross-replica all-reduces (runtime steps with compiled reducers,
    /// one thread per replica, one partition); else `evaluator: <why>` —
    /// multi-device runs of the module go to
    /// `rxla_eval::evaluate_replicated` (single-device runs stay compiled,
    /// with the collectives as 1×1 interpreter fallbacks).
    pub collectives: String,
}
