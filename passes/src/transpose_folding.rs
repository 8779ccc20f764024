//! `transpose-folding`: a `dot` whose operand is a `transpose` reads the
//! transpose's operand directly, with its batch and contracting dimension
//! numbers mapped through the permutation (XLA's TransposeFolding). The
//! GEMM engine reads any operand strides, so the transposed copy — in
//! attention, the heads' `transpose(reshape(x @ wq))` — is never made.
//!
//! Only where the result keeps its dimension order: the operand's free
//! dimensions must keep their relative order through the permutation
//! (the dot's output lists them in operand order). Must not change any
//! result; the transpose stays for its other users (`dce` removes it
//! when none is left). Honours fuel: one unit per folded operand.

use crate::error::Result;
use crate::pass::{Pass, PassContext};
use rxla_ir::{InstrId, Module, Op};

/// The transpose folding pass.
pub struct TransposeFolding;

impl Pass for TransposeFolding {
    fn name(&self) -> &'static str {
        "transpose-folding"
    }

    fn description(&self) -> &'static str {
        "fold a transpose feeding a dot operand into the dot's dimension numbers (where the result's dimension order is kept); honours fuel"
    }

    fn honours_fuel(&self) -> bool {
        true
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let mut folded = 0u64;
        for cid in module.comp_ids().collect::<Vec<_>>() {
            let comp = module.comp(cid);
            let mut edits = Vec::new();
            for (idx, instr) in comp.instructions.iter().enumerate() {
                let Op::Dot { dims } = &instr.op else {
                    continue;
                };
                let mut dims = dims.clone();
                let mut operands = instr.operands.clone();
                let mut changed = false;
                for side in 0..2 {
                    let Some(&o) = operands.get(side) else {
                        continue;
                    };
                    let t = comp.get(o);
                    let Op::Transpose { permutation: perm } = &t.op else {
                        continue;
                    };
                    let (batch, contracting) = if side == 0 {
                        (&dims.lhs_batch, &dims.lhs_contracting)
                    } else {
                        (&dims.rhs_batch, &dims.rhs_contracting)
                    };
                    let Some((nb, nc)) = fold(perm, batch, contracting) else {
                        continue;
                    };
                    if !ctx.consume_fuel(format_args!(
                        "transpose-folding: {} operand {side} of {} in {}",
                        t.name, instr.name, comp.name
                    )) {
                        continue;
                    }
                    operands[side] = t.operands[0];
                    if side == 0 {
                        (dims.lhs_batch, dims.lhs_contracting) = (nb, nc);
                    } else {
                        (dims.rhs_batch, dims.rhs_contracting) = (nb, nc);
                    }
                    changed = true;
                    folded += 1;
                }
                if changed {
                    edits.push((InstrId(idx as u32), dims, operands));
                }
            }
            let comp = module.comp_mut(cid);
            for (id, dims, operands) in edits {
                let i = comp.get_mut(id);
                i.op = Op::Dot { dims };
                i.operands = operands;
            }
        }
        ctx.stat("transposes folded", folded);
        Ok(folded > 0)
    }
}

/// The operand's batch and contracting dims mapped through `perm`
/// (transpose output dim `i` is input dim `perm[i]`), if its free dims keep
/// their order.
fn fold(perm: &[i64], batch: &[i64], contracting: &[i64]) -> Option<(Vec<i64>, Vec<i64>)> {
    let map = |d: i64| usize::try_from(d).ok().and_then(|d| perm.get(d).copied());
    let nb = batch.iter().map(|&d| map(d)).collect::<Option<Vec<_>>>()?;
    let nc = contracting
        .iter()
        .map(|&d| map(d))
        .collect::<Option<Vec<_>>>()?;
    let free: Vec<i64> = (0..perm.len() as i64)
        .filter(|d| !batch.contains(d) && !contracting.contains(d))
        .map(|d| perm[d as usize])
        .collect();
    free.windows(2).all(|w| w[0] < w[1]).then_some((nb, nc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_only_order_keeping_permutations() {
        // Attention heads: transpose [s,h,d] -> [h,s,d], batch h, contract d.
        assert_eq!(fold(&[1, 0, 2], &[0], &[2]), Some((vec![1], vec![2])));
        // A plain 2-D transpose contracted on its first dim: free dim 1 -> 0.
        assert_eq!(fold(&[1, 0], &[], &[0]), Some((vec![], vec![1])));
        // Two free dims swapped: the result order would change.
        assert_eq!(fold(&[0, 2, 1, 3], &[0], &[3]), None);
    }
}
