//! Optimistic vector loops: a fast path that holds for almost every input
//! (exp without its overflow and underflow handling, ...) runs with no
//! branch per vector; it ORs the lanes it cannot handle into a running
//! mask, and after a row's vector loops one test decides whether the row
//! is redone with the complete code (`kernel` emits the loops twice).
//!
//! Only for a kernel's own vector loops: they write their output buffer
//! and never an input, so running them twice gives the same result. Not
//! active while row-invariant values are hoisted before the loop (those
//! are not redone).

use cranelift_codegen::ir::types::{I32, I32X4};
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

/// The running mask of lanes a fast path could not handle.
pub struct RowCheck {
    bad: Variable,
    used: bool,
}

impl RowCheck {
    /// Starts a row's check (before its vector loops): no lane bad yet.
    pub fn begin(b: &mut FunctionBuilder) -> RowCheck {
        let bad = b.declare_var(I32X4);
        let zero = b.ins().iconst(I32, 0);
        let zero = b.ins().splat(I32X4, zero);
        b.def_var(bad, zero);
        RowCheck { bad, used: false }
    }

    /// Marks the lanes set in `mask` (an I32X4 lane mask, as from `fcmp`).
    pub fn flag(&mut self, b: &mut FunctionBuilder, mask: Value) {
        let acc = b.use_var(self.bad);
        let acc = b.ins().bor(acc, mask);
        b.def_var(self.bad, acc);
        self.used = true;
    }

    /// Whether any fast path was emitted under this check.
    pub fn used(&self) -> bool {
        self.used
    }

    /// After the loops: a scalar flag, set when some lane was marked.
    pub fn failed(&self, b: &mut FunctionBuilder) -> Value {
        let acc = b.use_var(self.bad);
        b.ins().vany_true(acc)
    }
}
