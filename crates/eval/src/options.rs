//! Run options of an evaluation: RNG seed, infeed queue, outfeed record,
//! loop cap, replica count and custom-call registry. Plain state; no
//! evaluation logic.

use crate::kernels::custom_call::CustomCallRegistry;
use rxla_ir::Literal;
use std::collections::VecDeque;
use std::sync::Mutex;

/// Default cap on the iterations of one `while` execution.
pub const DEFAULT_MAX_WHILE_ITERATIONS: u64 = 1 << 24;

/// Default cap on the element count of any one value (2^30).
pub const DEFAULT_MAX_ELEMENTS: usize = 1 << 30;

/// Default cap on the loop iterations of a whole run, all `while`
/// executions together (nested loops included).
pub const DEFAULT_MAX_TOTAL_ITERATIONS: u64 = 1 << 26;

/// Options (and the small mutable state: infeed, outfeed) of a run.
#[derive(Debug)]
pub struct RunOptions {
    /// Seed of the deterministic `rng` state.
    pub seed: u64,
    /// Values popped by `infeed`, front first. Shared by all replicas.
    pub infeed: Mutex<VecDeque<Literal>>,
    /// Values recorded by `outfeed`, in execution order.
    pub outfeed: Mutex<Vec<Literal>>,
    /// A `while` running more iterations than this is an error.
    pub max_while_iterations: u64,
    /// Replica count for `evaluate_replicated` (default: the module's
    /// `replica_count`, else the number of argument lists).
    pub replica_count: Option<usize>,
    /// Partition count for `evaluate_replicated` (default: the module's
    /// `num_partitions`, else 1). Devices are `replica · P + partition`.
    pub partition_count: Option<usize>,
    /// Custom-call targets.
    pub custom_calls: CustomCallRegistry,
    /// An instruction whose result (any array leaf) has more elements than
    /// this is an error before anything is allocated.
    pub max_elements: usize,
    /// Bytes of live values a run may hold (the evaluator: values alive at
    /// once; the JIT: its buffer plan). Checked before allocating; default
    /// [`crate::limits::default_max_memory`] (half the physical memory).
    pub max_memory: u64,
    /// A run executing more loop iterations than this, summed over every
    /// `while` execution (nested loops included), is an error.
    pub max_total_iterations: u64,
    /// A run still going at this instant stops with an error at the next
    /// loop iteration or instruction (`rxla run --timeout`).
    pub deadline: Option<std::time::Instant>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: 0,
            infeed: Mutex::new(VecDeque::new()),
            outfeed: Mutex::new(Vec::new()),
            max_while_iterations: DEFAULT_MAX_WHILE_ITERATIONS,
            replica_count: None,
            partition_count: None,
            custom_calls: CustomCallRegistry::default(),
            max_elements: DEFAULT_MAX_ELEMENTS,
            max_memory: crate::limits::default_max_memory(),
            max_total_iterations: DEFAULT_MAX_TOTAL_ITERATIONS,
            deadline: None,
        }
    }
}

impl RunOptions {
    /// Appends a value to the infeed queue.
    pub fn push_infeed(&self, value: Literal) {
        self.infeed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(value);
    }

    /// Pops the next infeed value.
    pub fn pop_infeed(&self) -> Option<Literal> {
        self.infeed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front()
    }

    /// Records an outfeed value.
    pub fn push_outfeed(&self, value: Literal) {
        self.outfeed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(value);
    }

    /// An error when the deadline has passed.
    pub fn check_deadline(&self) -> crate::Result<()> {
        match self.deadline {
            Some(d) if std::time::Instant::now() >= d => Err(crate::EvalError::new(
                "the run exceeded its time limit (--timeout)",
            )),
            _ => Ok(()),
        }
    }

    /// Takes every recorded outfeed value.
    pub fn take_outfeed(&self) -> Vec<Literal> {
        std::mem::take(&mut *self.outfeed.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
