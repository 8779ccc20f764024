//! `layout-assignment`: gives every array value a physical layout, making
//! the module layout-sensitive (see `docs/LAYOUT.md`). The ENTRY follows
//! `entry_computation_layout` (any permutation, padded layouts included):
//! parameters arrive in their declared layouts and the result leaves in
//! its declared layout. Inside, layouts are chosen to move as little data
//! as possible: transposes and reshapes that only rename the physical
//! order become `bitcast`s, elementwise chains stay congruent, dot and
//! convolution operands get what the emitter accepts
//! ([`LayoutConstraints`]), and a `copy` is inserted only where
//! constraints conflict. Every computation is assigned independently
//! against fixed interfaces ([`rules::Interfaces`]).
//!
//! The pass never changes values; existing bitcasts, custom calls and
//! feeds keep the layouts they were written with. It does not honour
//! fuel per rewrite (the manager charges one unit per run).

pub mod assign;
pub mod constraints;
pub mod padding;
pub mod physical;
pub mod rules;

use crate::error::{PassError, Result};
use crate::pass::{Pass, PassContext, PassOption};
use crate::util::module_instruction_names;
pub use assign::AssignStats;
pub use constraints::{DefaultConstraints, LayoutConstraints, RowMajorOperands};
use rules::{Interfaces, Rules};
use rxla_ir::Module;

/// Which emitter constraints the pass uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DotOperands {
    /// [`DefaultConstraints`]: row-major or transposed dot operands.
    #[default]
    Flexible,
    /// [`RowMajorOperands`]: row-major dot operands only.
    RowMajor,
}

/// The pass.
#[derive(Default)]
pub struct LayoutAssignment {
    pub dot_operands: DotOperands,
    /// Pad intermediate minor dims to a multiple of this (0 = off).
    pub simd_pad: i64,
}

const OPTIONS: &[PassOption] = &[
    PassOption {
        key: "dot-operands",
        description: "dot operand layouts the emitter accepts: `flexible` (row-major or transposed packing) or `row-major`",
        default: "flexible",
    },
    PassOption {
        key: "simd-pad",
        description: "pad the minor dim of eligible intermediates to a multiple of N (0 = off)",
        default: "0",
    },
];

impl Pass for LayoutAssignment {
    fn name(&self) -> &'static str {
        "layout-assignment"
    }

    fn description(&self) -> &'static str {
        "assign physical layouts (honours entry_computation_layout; free transposes/reshapes become bitcasts; copies only where constraints conflict); makes the module layout-sensitive"
    }

    fn options(&self) -> &'static [PassOption] {
        OPTIONS
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        match (key, value) {
            ("dot-operands", "flexible") => self.dot_operands = DotOperands::Flexible,
            ("dot-operands", "row-major") => self.dot_operands = DotOperands::RowMajor,
            ("simd-pad", v) => {
                self.simd_pad = v
                    .parse::<i64>()
                    .ok()
                    .filter(|n| (0..=64).contains(n))
                    .ok_or_else(|| {
                        PassError::option(
                            self.name(),
                            key,
                            format!("expected an integer 0..=64, got `{v}`"),
                        )
                    })?;
            }
            ("dot-operands", v) => {
                return Err(PassError::option(
                    self.name(),
                    key,
                    format!("expected `flexible` or `row-major`, got `{v}`"),
                ));
            }
            _ => return Err(PassError::option(self.name(), key, "unknown option")),
        }
        Ok(())
    }

    fn option_values(&self) -> Vec<(String, String)> {
        let v = match self.dot_operands {
            DotOperands::Flexible => "flexible",
            DotOperands::RowMajor => "row-major",
        };
        vec![
            ("dot-operands".into(), v.into()),
            ("simd-pad".into(), self.simd_pad.to_string()),
        ]
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let mut stats = match self.dot_operands {
            DotOperands::Flexible => assign_layouts(module, &DefaultConstraints)?,
            DotOperands::RowMajor => assign_layouts(module, &RowMajorOperands)?,
        };
        if self.simd_pad > 0 {
            for c in &mut module.computations {
                stats.padded += padding::pad_minor_dims(c, self.simd_pad);
            }
            ctx.stat("values padded", stats.padded);
        }
        ctx.stat("copies inserted", stats.copies);
        ctx.stat("transposes made bitcasts", stats.transposes_to_bitcast);
        ctx.stat("reshapes made bitcasts", stats.reshapes_to_bitcast);
        ctx.stat("layouts changed", stats.layouts_changed);
        Ok(stats != AssignStats::default())
    }
}

/// Assigns layouts to every computation of `module` with the emitter
/// constraints `emitter`; returns what it did.
pub fn assign_layouts(module: &mut Module, emitter: &dyn LayoutConstraints) -> Result<AssignStats> {
    let iface = Interfaces::of(module);
    let mut names = module_instruction_names(module);
    let mut stats = AssignStats::default();
    let mut comps = Vec::with_capacity(module.computations.len());
    {
        let rules = Rules {
            module,
            iface: &iface,
            emitter,
        };
        for cid in module.comp_ids() {
            comps.push(assign::assign_computation(
                &rules, cid, &mut names, &mut stats,
            )?);
        }
    }
    module.computations = comps;
    if let Some(l) = &mut module.entry_layout {
        let e = module.entry.index();
        if let (Some(p), Some(r)) = (iface.params.get(e), iface.results.get(e)) {
            l.parameters = p.clone();
            l.result = r.clone();
        }
    }
    Ok(stats)
}
