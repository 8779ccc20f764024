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

use super::emit::Emitter;
use cranelift_codegen::ir::types::{I32, I32X4};
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::Variable;

/// The running mask of lanes a fast path could not handle.
pub struct RowCheck {
    bad: Variable,
    used: bool,
}

impl RowCheck {
    /// Starts a row's check (before its vector loops): no lane bad yet.
    pub fn begin(em: &mut Emitter) -> RowCheck {
        let bad = em.b.declare_var(I32X4);
        let zero = em.b.ins().iconst(I32, 0);
        let zero = em.b.ins().splat(I32X4, zero);
        em.b.def_var(bad, zero);
        RowCheck { bad, used: false }
    }

    /// Marks the lanes set in `mask` (an I32X4 lane mask, as from `fcmp`).
    pub fn flag(&mut self, em: &mut Emitter, mask: Value) {
        let acc = em.b.use_var(self.bad);
        let acc = em.b.ins().bor(acc, mask);
        em.b.def_var(self.bad, acc);
        self.used = true;
    }

    /// Whether any fast path was emitted under this check.
    pub fn used(&self) -> bool {
        self.used
    }

    /// After the loops: a scalar flag, set when some lane was marked.
    pub fn failed(&self, em: &mut Emitter) -> Value {
        let acc = em.b.use_var(self.bad);
        em.b.ins().vany_true(acc)
    }
}
