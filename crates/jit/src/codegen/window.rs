//! `reduce-window` at one output element (the window in row-major order,
//! padding and base-dilation holes skipped: the evaluator's order; small
//! windows unrolled), and the window positions it and the whole-op
//! kernels (`whole`, `scatter`) share: [`Emitter::window_position`],
//! cached per scope for unrolled windows. Must not reorder the window's
//! combiner calls nor depend on another lowering family.

use super::emit::{At, Emitter, Sym};
use super::vector;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I8;
use cranelift_codegen::ir::{InstBuilder, Value};
use rxla_ir::{CompId, InstrId, Window};

/// Windows of at most this many elements are unrolled (pooling).
const MAX_UNROLLED_WINDOW: i64 = 16;

/// `reduce-window` at `idx`: the window in row-major order, padding and
/// base-dilation holes skipped (the evaluator's order). With `lanes`,
/// the lanes are consecutive outputs along dims whose window has no
/// padding or base dilation, so every lane's window position is in
/// bounds and valid exactly when the first lane's is; their operand
/// elements are `stride` apart (a strided vector load).
pub fn reduce_window(em: &mut Emitter, at: &At, window: &Window, reducer: CompId) -> Result<Value> {
    let (c, id, idx, lanes) = (at.c, at.id, at.idx, at.lanes);
    let (operand, init) = {
        let ops = &at.instr.operands;
        (ops[0], ops[1])
    };
    let os = em.array_shape(c, operand)?;
    if window.dims.len() != os.rank() || idx.len() != os.rank() {
        return Err(JitError::unsupported("reduce-window rank"));
    }
    let interior: Vec<usize> = em
        .interior
        .iter()
        .filter(|(ic, ii, _)| *ic == c && *ii == id)
        .map(|&(_, _, d)| d)
        .collect();
    let operand_sym = match lanes {
        None => None,
        Some(sym) => {
            let coefs = sym.dims(os.rank())?;
            let mut oc = Vec::with_capacity(coefs.len());
            for (d, (&cf, w)) in coefs.iter().zip(&window.dims).enumerate() {
                let padded = w.pad_low != 0 || w.pad_high != 0;
                if cf != 0 && (w.base_dilation != 1 || padded && !interior.contains(&d)) {
                    return Err(JitError::unsupported("vector reduce-window over padding"));
                }
                oc.push(cf * w.stride);
            }
            Some(Sym::Dims(oc))
        }
    };
    let init_s = em.emit(c, init, &[], None)?;
    let init_v = match lanes {
        Some(_) => vector::splat(em, init_s, os.element_type)?,
        None => init_s,
    };
    if os.dims.contains(&0) {
        return Ok(init_v);
    }
    let ty = em.b.func.dfg.value_type(init_v);
    let acc = em.b.declare_var(ty);
    em.b.def_var(acc, init_v);
    // Window dims of size 1 need no loop.
    let moving: Vec<usize> = (0..os.rank())
        .filter(|&d| window.dims[d].size != 1)
        .collect();
    let extents: Vec<i64> = moving.iter().map(|&d| window.dims[d].size).collect();
    let zero = em.iconst(0);
    let step = |em: &mut Emitter, ks_moving: &[Value], kc_moving: Option<&[i64]>| -> Result<()> {
        let mut ks = vec![zero; os.rank()];
        for (&d, &k) in moving.iter().zip(ks_moving) {
            ks[d] = k;
        }
        let kc: Option<Vec<i64>> = kc_moving.map(|kcm| {
            let mut kc = vec![0i64; os.rank()];
            for (&d, &k) in moving.iter().zip(kcm) {
                kc[d] = k;
            }
            kc
        });
        let (valid, oi) =
            em.window_position_opt(window, &os.dims, idx, &ks, &interior, kc.as_deref());
        let v = em.emit(c, operand, &oi, operand_sym.as_ref())?;
        let a = em.b.use_var(acc);
        let r = em.inline(reducer, &[a, v], operand_sym.is_some())?;
        let r = match valid {
            Some(valid) => em.b.ins().select(valid, r, a),
            None => r,
        };
        em.b.def_var(acc, r);
        Ok(())
    };
    let count: i64 = extents.iter().product();
    if count <= MAX_UNROLLED_WINDOW {
        // Small windows (pooling): straight-line code, row-major order.
        let mut ks = vec![0i64; extents.len()];
        for _ in 0..count {
            step(em, &[], Some(&ks))?;
            for d in (0..ks.len()).rev() {
                ks[d] += 1;
                if ks[d] < extents[d] {
                    break;
                }
                ks[d] = 0;
            }
        }
    } else {
        em.nest(&extents, &mut Vec::new(), &mut |em, ks_moving| {
            step(em, ks_moving, None)
        })?;
    }
    Ok(em.b.use_var(acc))
}

/// Before a row's loop: the positions of an unrolled window whose
/// moving dims are not the lanes' (pooling with lanes along the
/// features), and the address prefixes of an input operand there, so
/// the loop body reuses them instead of recomputing them per element.
pub fn hoist(em: &mut Emitter, c: CompId, id: InstrId, window: &Window, idx: &[Value], sym: &Sym) {
    let operand = em.module.comp(c).get(id).operands[0];
    let Ok(os) = em.array_shape(c, operand) else {
        return;
    };
    let Ok(cs) = sym.dims(os.rank()) else {
        return;
    };
    if window.dims.len() != os.rank() || idx.len() != os.rank() {
        return;
    }
    let moving: Vec<usize> = (0..os.rank())
        .filter(|&d| window.dims[d].size != 1)
        .collect();
    let count: i64 = moving.iter().map(|&d| window.dims[d].size).product();
    if moving.is_empty() || count > MAX_UNROLLED_WINDOW || moving.iter().any(|&d| cs[d] != 0) {
        return;
    }
    let interior: Vec<usize> = em
        .interior
        .iter()
        .filter(|(ic, ii, _)| *ic == c && *ii == id)
        .map(|&(_, _, d)| d)
        .collect();
    let input = em.inputs.get(&(c, operand)).cloned();
    let zero = em.iconst(0);
    let ks = vec![zero; os.rank()];
    let mut kc = vec![0i64; os.rank()];
    for _ in 0..count {
        let (_, oi) = em.window_position_opt(window, &os.dims, idx, &ks, &interior, Some(&kc));
        if let Some((base, shape)) = &input {
            let _ = em.address(*base, shape, &oi);
        }
        for &d in moving.iter().rev() {
            kc[d] += 1;
            if kc[d] < window.dims[d].size {
                break;
            }
            kc[d] = 0;
        }
    }
}

impl Emitter<'_, '_> {
    /// The operand position of window element `ks` of window position
    /// `idx` (the evaluator's `window_base_index`): `valid` (an `i8`) is
    /// false on padding and base-dilation holes; the index is clamped into
    /// `dims` either way, so it can always be loaded.
    pub fn window_position(
        &mut self,
        window: &Window,
        dims: &[i64],
        idx: &[Value],
        ks: &[Value],
    ) -> (Value, Vec<Value>) {
        let (valid, oi) = self.window_position_opt(window, dims, idx, ks, &[], None);
        let valid = valid.unwrap_or_else(|| self.b.ins().iconst(I8, 1));
        (valid, oi)
    }

    /// [`Emitter::window_position`], with `None` for "always valid" (no dim
    /// has padding or base dilation).
    /// `interior` lists dims whose positions the caller knows to be in
    /// bounds (no base dilation, outputs away from the padding).
    pub fn window_position_opt(
        &mut self,
        window: &Window,
        dims: &[i64],
        idx: &[Value],
        ks: &[Value],
        interior: &[usize],
        ks_const: Option<&[i64]>,
    ) -> (Option<Value>, Vec<Value>) {
        let mut valid: Option<Value> = None;
        let mut oi = Vec::with_capacity(ks.len().max(window.dims.len()));
        let kc = ks_const;
        for (d, w) in window.dims.iter().enumerate() {
            // An unrolled window's position along `d` depends only on the
            // index and the offset: computed once per scope for all steps
            // and elements that share them (Cranelift's mid-end is off, so
            // nothing else would share them).
            let unpadded = w.pad_low == 0 && w.pad_high == 0;
            let checked = !(w.base_dilation == 1 && (unpadded || interior.contains(&d)));
            let key = kc.map(|kc| {
                let off = kc[d] * w.window_dilation - w.pad_low;
                (idx[d], w.stride, off, dims[d], checked, w.base_dilation)
            });
            if let Some(key) = key {
                let hit = self.win_pos.iter().rev().find_map(|m| m.get(&key).copied());
                if let Some((p, ok)) = hit {
                    oi.push(p);
                    if let Some(ok) = ok {
                        valid = Some(match valid {
                            Some(v) => self.b.ins().band(v, ok),
                            None => ok,
                        });
                    }
                    continue;
                }
            }
            let a = if w.stride == 1 {
                idx[d]
            } else {
                self.b.ins().imul_imm_s(idx[d], w.stride)
            };
            let p = match key {
                Some((_, _, 0, _, _, _)) => a,
                Some((_, _, off, _, _, _)) => self.b.ins().iadd_imm_s(a, off),
                None => {
                    let k = self.b.ins().imul_imm_s(ks[d], w.window_dilation);
                    let p = self.b.ins().iadd(a, k);
                    self.b.ins().iadd_imm_s(p, -w.pad_low)
                }
            };
            // A plain window dim (no padding or dilation) is always in bounds.
            let (p, ok) = if !checked {
                (p, None)
            } else {
                let ge = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, p, 0);
                let zero = self.iconst(0);
                let pp = self.b.ins().smax(p, zero);
                let (q, ok) = if w.base_dilation <= 1 {
                    (pp, ge)
                } else {
                    let q = self.b.ins().udiv_imm_u(pp, w.base_dilation);
                    let r = self.b.ins().urem_imm_u(pp, w.base_dilation);
                    let r0 = self.b.ins().icmp_imm_s(IntCC::Equal, r, 0);
                    (q, self.b.ins().band(ge, r0))
                };
                let lt = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, q, dims[d]);
                let ok = self.b.ins().band(ok, lt);
                (self.clamp_idx(q, 0, dims[d] - 1), Some(ok))
            };
            if let (Some(key), Some(top)) = (key, self.win_pos.last_mut()) {
                top.insert(key, (p, ok));
            }
            oi.push(p);
            if let Some(ok) = ok {
                valid = Some(match valid {
                    Some(v) => self.b.ins().band(v, ok),
                    None => ok,
                });
            }
        }
        (valid, oi)
    }
}
