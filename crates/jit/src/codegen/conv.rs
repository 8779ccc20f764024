//! `convolution` as exact scalar loops at one output index, with the
//! evaluator's semantics and accumulation order
//! (crates/eval/src/kernels/conv.rs): from zero in the computation type
//! (f32 for f16/bf16/f32 results, rounded once at the end; f64; wrapping
//! integers; or/and for pred), over window positions in row-major order of
//! the window dimensions, and for each position over the group's input
//! features in increasing order, `acc = acc + input * kernel` (a rounded
//! multiply then a rounded add, never fused). Window positions on padding
//! or base-dilation holes are skipped (the accumulator is kept), feature
//! and batch groups as StableHLO defines them. Used for every convolution
//! the GEMM engine does not take (non-f32 types, padded layouts). Loads are
//! clamped into the operands; malformed dimension numbers are
//! `Unsupported` (the evaluator then reports them).

use super::emit::{At, Emitter, Sym};
use super::repr;
use super::scalar;
use crate::error::{JitError, Result};
use cranelift_codegen::ir::{InstBuilder, Value};
use rxla_ir::{BinaryOp, ConvDims, ElementType, Window};

/// `convolution(lhs, rhs)` of `at` at its output index (scalar), with
/// `fgc` feature groups and `bgc` batch groups.
pub fn convolution(
    em: &mut Emitter,
    at: &At,
    window: &Window,
    dims: &ConvDims,
    fgc: i64,
    bgc: i64,
) -> Result<Value> {
    let (c, out, idx) = (at.c, &at.shape, at.idx);
    let (lhs, rhs) = (at.instr.operands[0], at.instr.operands[1]);
    let ls = em.array_shape(c, lhs)?;
    let rs = em.array_shape(c, rhs)?;
    let bad = |_| JitError::unsupported("convolution dimension numbers");
    let (ld, rd, od) = (&ls.dims, &rs.dims, &out.dims);
    // Malformed numbers are `Unsupported` here: the evaluator, which checks
    // with the same `rxla_ir::geometry`, then reports them.
    let g = rxla_ir::geometry::conv_geometry(ld, rd, od, window, dims, fgc, bgc).map_err(bad)?;
    if idx.len() != od.len() {
        return Err(bad(String::new()));
    }
    let (in_b, in_f, in_sp) = (g.input.batch, g.input.feature, g.input.spatial);
    let (k_i, k_o, k_sp) = (g.kernel.batch, g.kernel.feature, g.kernel.spatial);
    let (out_b, out_f, out_sp) = (g.output.batch, g.output.feature, g.output.spatial);
    let (c_k, c_out) = (g.group_in, g.c_out);
    let nsp = in_sp.len();
    let et = out.element_type;
    let ct = if repr::is_half(et) {
        ElementType::F32
    } else {
        et
    };
    let zero = scalar::zero(em, ct)?;
    // An empty operand contributes nothing (and must not be loaded).
    if ld.contains(&0) || rd.contains(&0) {
        return finish(em, zero, et);
    }
    let (group_in, fg_out, bg_out, batch_out) = (c_k, c_out / fgc, c_out / bgc, ld[in_b] / bgc);
    let acc = em.var(repr::storage(ct)?);
    em.b.def_var(acc, zero);
    // Output feature o_f: feature group o_f / fg_out, batch group
    // o_f / bg_out reading input batch bg * batch_out + b.
    let o_f = idx[out_f];
    let fg = em.b.ins().sdiv_imm_s(o_f, fg_out);
    let bg = em.b.ins().sdiv_imm_s(o_f, bg_out);
    let bb = em.b.ins().imul_imm_s(bg, batch_out);
    let batch = em.b.ins().iadd(bb, idx[out_b]);
    let f0 = em.b.ins().imul_imm_s(fg, group_in);
    let ospatial: Vec<Value> = out_sp.iter().map(|&d| idx[d]).collect();
    let in_spatial: Vec<i64> = in_sp.iter().map(|&d| ld[d]).collect();
    let wsizes: Vec<i64> = window.dims.iter().map(|w| w.size).collect();
    let (lt, rt) = (ls.element_type, rs.element_type);
    em.nest(&wsizes, &mut Vec::new(), &mut |em, ks| {
        let (valid, pos) = em.window_position(window, &in_spatial, &ospatial, ks);
        let zero_i = em.iconst(0);
        let mut li = vec![zero_i; ld.len()];
        let mut ri = vec![zero_i; rd.len()];
        li[in_b] = batch;
        ri[k_o] = o_f;
        for s in 0..nsp {
            li[in_sp[s]] = pos[s];
            ri[k_sp[s]] = if window.dims[s].window_reversal {
                let r = em.iconst(window.dims[s].size - 1);
                em.b.ins().isub(r, ks[s])
            } else {
                ks[s]
            };
        }
        em.nest(&[group_in], &mut Vec::new(), &mut |em, j| {
            let mut li = li.clone();
            let mut ri = ri.clone();
            li[in_f] = em.b.ins().iadd(f0, j[0]);
            ri[k_i] = j[0];
            let a = em.emit(c, lhs, &li, None)?;
            let b = em.emit(c, rhs, &ri, None)?;
            let a = scalar::convert(em, a, lt, ct)?;
            let b = scalar::convert(em, b, rt, ct)?;
            let s = em.b.use_var(acc);
            let r = if ct == ElementType::Pred {
                let p = em.b.ins().band(a, b);
                em.b.ins().bor(s, p)
            } else {
                let p = em.binary(BinaryOp::Multiply, ct, a, b, false)?;
                em.binary(BinaryOp::Add, ct, s, p, false)?
            };
            let r = em.b.ins().select(valid, r, s);
            em.b.def_var(acc, r);
            Ok(())
        })
    })?;
    let r = em.b.use_var(acc);
    finish(em, r, et)
}

/// Windows of at most this many positions are unrolled in the vector form.
const MAX_UNROLLED_TAPS: i64 = 64;

/// A depthwise f32 `convolution` (one input feature per group, one output
/// feature per group: MobileNet, ConvNeXt) in vector lanes along the
/// output feature dim: lane k is output feature `o + k`, which reads input
/// feature `o + k` and kernel output feature `o + k`, so each lane is the
/// scalar form's loop (window positions in row-major order, `acc = acc +
/// input * kernel`, multiply and add rounded apart) and the result is
/// bit-identical. `Unsupported` for any other convolution or lane
/// direction (the scalar form then runs).
pub fn convolution_lanes(
    em: &mut Emitter,
    at: &At,
    window: &Window,
    dims: &ConvDims,
    (fgc, bgc): (i64, i64),
    sym: &Sym,
) -> Result<Value> {
    let (c, out, idx) = (at.c, &at.shape, at.idx);
    let (lhs, rhs) = (at.instr.operands[0], at.instr.operands[1]);
    let ls = em.array_shape(c, lhs)?;
    let rs = em.array_shape(c, rhs)?;
    let no = || JitError::unsupported("vector convolution other than depthwise f32");
    let (ld, rd, od) = (&ls.dims, &rs.dims, &out.dims);
    let g = rxla_ir::geometry::conv_geometry(ld, rd, od, window, dims, fgc, bgc)
        .map_err(|_| JitError::unsupported("convolution dimension numbers"))?;
    let f32s = [out.element_type, ls.element_type, rs.element_type]
        .iter()
        .all(|&t| t == ElementType::F32);
    if !f32s || bgc != 1 || g.group_in != 1 || g.c_out != fgc || idx.len() != od.len() {
        return Err(no());
    }
    if ld.contains(&0) || rd.contains(&0) {
        return Err(no());
    }
    let coef = sym.dims(od.len())?;
    let (in_f, k_o, out_f) = (g.input.feature, g.kernel.feature, g.output.feature);
    if coef
        .iter()
        .enumerate()
        .any(|(d, &k)| if d == out_f { k != 1 } else { k != 0 })
    {
        return Err(no());
    }
    let (in_b, in_sp, k_sp, out_b, out_sp) = (
        g.input.batch,
        &g.input.spatial,
        &g.kernel.spatial,
        g.output.batch,
        &g.output.spatial,
    );
    let mut lsym = vec![0i64; ld.len()];
    lsym[in_f] = 1;
    let mut rsym = vec![0i64; rd.len()];
    rsym[k_o] = 1;
    let (lsym, rsym) = (Sym::Dims(lsym), Sym::Dims(rsym));
    let o_f = idx[out_f];
    let ospatial: Vec<Value> = out_sp.iter().map(|&d| idx[d]).collect();
    let in_spatial: Vec<i64> = in_sp.iter().map(|&d| ld[d]).collect();
    let wsizes: Vec<i64> = window.dims.iter().map(|w| w.size).collect();
    let taps: i64 = wsizes.iter().product();
    if taps > MAX_UNROLLED_TAPS {
        return Err(no());
    }
    let mut acc = em.vconst(0.0);
    let zero = em.iconst(0);
    let mut ks = vec![0i64; wsizes.len()];
    for _ in 0..taps {
        let kv = vec![zero; wsizes.len()];
        let (valid, pos) =
            em.window_position_opt(window, &in_spatial, &ospatial, &kv, &[], Some(&ks));
        let mut li = vec![zero; ld.len()];
        let mut ri = vec![zero; rd.len()];
        li[in_b] = idx[out_b];
        li[in_f] = o_f;
        ri[k_o] = o_f;
        for (s, &w) in ks.iter().enumerate() {
            li[in_sp[s]] = pos[s];
            let k = if window.dims[s].window_reversal {
                window.dims[s].size - 1 - w
            } else {
                w
            };
            ri[k_sp[s]] = em.iconst(k);
        }
        let a = em.emit(c, lhs, &li, Some(&lsym))?;
        let b = em.emit(c, rhs, &ri, Some(&rsym))?;
        let p = em.b.ins().fmul(a, b);
        let r = em.b.ins().fadd(acc, p);
        acc = match valid {
            Some(v) => em.b.ins().select(v, r, acc),
            None => r,
        };
        for d in (0..ks.len()).rev() {
            ks[d] += 1;
            if ks[d] < wsizes[d] {
                break;
            }
            ks[d] = 0;
        }
    }
    Ok(acc)
}

/// The accumulator as the result type (half results rounded once).
fn finish(em: &mut Emitter, r: Value, et: ElementType) -> Result<Value> {
    if repr::is_half(et) {
        repr::round_half(em, r, et)
    } else if et.is_int_n() {
        Ok(repr::wrap_int_n(em, r, et))
    } else {
        Ok(r)
    }
}
