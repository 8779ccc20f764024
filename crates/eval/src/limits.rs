//! Resource limits of a run, shared by the evaluator and the JIT: the
//! memory budget's default, the call-nesting depth of a module (measured
//! without recursion) and running deep work on a thread whose stack is
//! sized from that depth. The numbers are listed in docs/SEMANTICS.md
//! ("Limits").

use crate::error::{EvalError, Result};
use rxla_ir::{Module, Shape};

/// Deepest nesting of called computations (call, while, conditional,
/// fusion, reducers, comparators…) a run accepts. Deeper modules are an
/// error before anything runs.
pub const MAX_NESTING_DEPTH: usize = 4096;

/// Nesting depth up to which work runs on the caller's stack.
const INLINE_DEPTH: usize = 24;

/// Stack reserved per nesting level on a worker thread (generous: debug
/// builds use several KiB per level for the evaluator's frames).
const STACK_PER_LEVEL: usize = 64 << 10;

/// Stack of a worker thread beyond the per-level part.
const STACK_BASE: usize = 16 << 20;

/// Memory budget when none is given: half of the physical memory
/// (`MemTotal` of /proc/meminfo), or 8 GiB when that cannot be read.
pub fn default_max_memory() -> u64 {
    static V: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *V.get_or_init(|| {
        std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("MemTotal:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|kb| kb.parse::<u64>().ok())
            })
            .map(|kb| kb.saturating_mul(1024) / 2)
            .unwrap_or(8 << 30)
    })
}

/// Bytes of a value of `shape` (saturating; tokens are free).
pub fn shape_bytes(shape: &Shape) -> u64 {
    shape
        .leaves()
        .iter()
        .map(|a| {
            let n = a.element_count().map(|n| n as u64).unwrap_or(u64::MAX);
            match a.packed_bits() {
                // Packed narrow integers (E(4)): ceil(n * bits / 8).
                Some(bits) => n.saturating_mul(bits as u64).div_ceil(8),
                None => n.saturating_mul(a.element_type.byte_size() as u64),
            }
        })
        .fold(0u64, u64::saturating_add)
}

/// The nesting depth of called computations below the ENTRY (1 = the
/// ENTRY calls nothing), computed with an explicit stack. A cycle (which
/// the verifier rejects) counts as too deep.
pub fn nesting_depth(module: &Module) -> usize {
    let n = module.computations.len();
    // 0 = unvisited, usize::MAX = on the stack, else depth.
    let mut depth = vec![0usize; n];
    let root = module.entry.index();
    if root >= n {
        return 0;
    }
    let callees = |c: usize| -> Vec<usize> {
        module.computations[c]
            .instructions
            .iter()
            .flat_map(|i| i.op.called_computations())
            .map(|c| c.index())
            .filter(|&c| c < n)
            .collect()
    };
    let mut stack: Vec<(usize, Vec<usize>)> = vec![(root, callees(root))];
    depth[root] = usize::MAX;
    while let Some((c, pending)) = stack.last_mut() {
        let c = *c;
        if let Some(next) = pending.pop() {
            match depth[next] {
                0 => {
                    depth[next] = usize::MAX;
                    let cs = callees(next);
                    stack.push((next, cs));
                }
                usize::MAX => return usize::MAX,
                _ => {}
            }
            continue;
        }
        let d = 1 + module.computations[c]
            .instructions
            .iter()
            .flat_map(|i| i.op.called_computations())
            .filter(|x| x.index() < n)
            .map(|x| depth[x.index()])
            .max()
            .unwrap_or(0);
        depth[c] = d;
        stack.pop();
    }
    depth[root]
}

/// Fails when the module nests called computations deeper than
/// [`MAX_NESTING_DEPTH`]; else returns the depth.
pub fn check_depth(module: &Module) -> Result<usize> {
    let d = nesting_depth(module);
    if d > MAX_NESTING_DEPTH {
        let shown = if d == usize::MAX {
            "unbounded (recursive)".to_string()
        } else {
            d.to_string()
        };
        return Err(EvalError::new(format!(
            "the module nests called computations (call, while, conditional, …) {shown} deep; at most {MAX_NESTING_DEPTH} levels are supported"
        )));
    }
    Ok(d)
}

/// Stack bytes for work nested `depth` levels deep.
pub fn stack_for_depth(depth: usize) -> usize {
    STACK_BASE + depth.saturating_mul(STACK_PER_LEVEL)
}

/// Runs `f` on the calling thread when `depth` is shallow, else on a
/// scoped thread whose stack is sized for `depth` levels (no recursion
/// on untrusted depth can overflow the caller's stack). A thread that
/// cannot be started or panics is reported through `err`.
pub fn with_stack<T: Send>(
    depth: usize,
    err: impl Fn(String) -> T,
    f: impl FnOnce() -> T + Send,
) -> T {
    if depth <= INLINE_DEPTH {
        return f();
    }
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .name("rxla-deep".into())
            .stack_size(stack_for_depth(depth))
            .spawn_scoped(s, f)
        {
            Ok(h) => h
                .join()
                .unwrap_or_else(|_| err("the worker thread panicked".into())),
            Err(e) => err(format!("cannot start a worker thread: {e}")),
        }
    })
}
