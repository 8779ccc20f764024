//! Relu (and residual add + relu) epilogues fused into f32 GEMM steps.
//!
//! A loop fusion whose whole body is `maximum(g, 0)` or
//! `maximum(add(g, r), 0)` (either operand order), where `g` is an f32 dot
//! or convolution on the GEMM engine used by nothing else, runs inside that
//! GEMM: each finished C tile segment gets the add and the maximum while it
//! is in L1, and the fusion's step becomes an alias of the GEMM's value.
//! The planner part (`fuse`) only rewrites steps; the runtime part
//! (`apply`, `Tracker`) computes exactly what the evaluator's `add` and
//! `maximum` do (a NaN operand wins, `max(-0, +0) = +0`).
//!
//! This module must not change results: a raw GEMM value that is not
//! finite (the GEMM's guard may have to redo it exactly) or a tile segment
//! the GEMM hands over outside the output buffer makes the runtime redo the
//! product unfused and apply the epilogue to the whole buffer afterwards.

use crate::plan::{GemmPlan, Program, Step};
use rxla_ir::{BinaryOp, CompId, Computation, ElementType, InstrId, Module, Op, Shape};
use std::sync::atomic::{AtomicBool, Ordering};

/// The epilogue of a GEMM step: `max(g (+ residual), 0)`.
#[derive(Clone, Debug)]
pub struct GemmEpi {
    /// The residual added before the maximum (same shape and layout).
    pub residual: Option<InstrId>,
    /// `add(residual, g)` rather than `add(g, residual)` (NaN payloads).
    pub residual_first: bool,
    /// The fusion step now aliasing the GEMM's value.
    pub fused_into: InstrId,
    /// Elements per row of the output's minor dimension (prefetch
    /// distance unit).
    pub minor: usize,
}

/// The evaluator's `maximum(v, +0)` on f32: NaN stays, -0 becomes +0.
#[inline(always)]
fn relu(v: f32) -> f32 {
    if v <= 0.0 { 0.0 } else { v }
}

/// Applies the epilogue to `vals` (raw GEMM values), `res` the residual
/// values at the same positions.
#[inline]
pub fn apply(vals: &mut [f32], res: Option<&[f32]>, residual_first: bool) {
    match res {
        Some(r) if residual_first => {
            for (v, &x) in vals.iter_mut().zip(r) {
                *v = relu(x + *v);
            }
        }
        Some(r) => {
            for (v, &x) in vals.iter_mut().zip(r) {
                *v = relu(*v + x);
            }
        }
        None => vals.iter_mut().for_each(|v| *v = relu(*v)),
    }
}

/// The per-segment callback's state: where the output and residual are,
/// and whether the fused run must be redone unfused.
pub struct Tracker {
    pub out: usize,
    pub len: usize,
    pub res: Option<*const f32>,
    pub residual_first: bool,
    /// Residual elements ahead of a segment to prefetch (the GEMM's next
    /// micro-tile is usually the same columns some rows further).
    pub ahead: usize,
    pub redo: AtomicBool,
}

// SAFETY: the residual pointer is only read, and outlives the GEMM call.
unsafe impl Sync for Tracker {}

impl Tracker {
    /// The `map` callback body: one C segment `vals`.
    pub fn segment(&self, vals: &mut [f32]) {
        let p = vals.as_ptr() as usize;
        let inside = p >= self.out
            && (p - self.out).is_multiple_of(4)
            && (p - self.out) / 4 + vals.len() <= self.len;
        if !inside {
            self.redo.store(true, Ordering::Relaxed);
            return;
        }
        let off = (p - self.out) / 4;
        // SAFETY: the residual holds `len` floats (checked by the runtime)
        // and `off + vals.len() <= len`.
        let res = self
            .res
            .map(|r| unsafe { std::slice::from_raw_parts(r.add(off), vals.len()) });
        #[cfg(target_arch = "x86_64")]
        if let Some(r) = self.res {
            // A prefetch never faults; the address is only computed.
            let next = r.wrapping_add(off + self.ahead);
            for q in (0..vals.len()).step_by(16) {
                // SAFETY: prefetching has no memory effects.
                unsafe {
                    std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                        next.wrapping_add(q) as *const i8,
                    )
                };
            }
        }
        // One pass: the raw values' non-finite check (branch-free, so it
        // vectorizes) and the epilogue; a non-finite value redoes it all.
        const EXP: u32 = 0x7f80_0000;
        let bad = |v: f32| ((v.to_bits() & EXP) == EXP) as u32;
        let mut any = 0u32;
        match res {
            Some(r) if self.residual_first => {
                for (v, &x) in vals.iter_mut().zip(r) {
                    any |= bad(*v);
                    *v = relu(x + *v);
                }
            }
            Some(r) => {
                for (v, &x) in vals.iter_mut().zip(r) {
                    any |= bad(*v);
                    *v = relu(*v + x);
                }
            }
            None => {
                for v in vals.iter_mut() {
                    any |= bad(*v);
                    *v = relu(*v);
                }
            }
        }
        if any != 0 {
            self.redo.store(true, Ordering::Relaxed);
        }
    }
}

/// Runs the f32 GEMM `plan` into `out` (`len` floats) with the epilogue
/// fused; returns `Ok(false)` when some part must be redone (see the module
/// doc: the caller reruns the GEMM unfused, its guard if needed, then
/// `apply` on the whole buffer).
///
/// # Safety
/// `lhs`/`rhs`/`out` are the plan's live buffers (`out` distinct from the
/// inputs, `len` floats); `res`, if any, holds `len` floats and is not
/// `out`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn run_fused(
    plan: &GemmPlan,
    lhs: *const f32,
    rhs: *const f32,
    out: *mut f32,
    len: usize,
    res: Option<*const f32>,
    residual_first: bool,
    ahead: usize,
    opts: &rxla_gemm::Options,
) -> rxla_gemm::Result<bool> {
    let t = Tracker {
        out: out as usize,
        len,
        res,
        residual_first,
        ahead,
        redo: AtomicBool::new(false),
    };
    let map = |_: usize, _: usize, v: &mut [f32]| t.segment(v);
    let epi = rxla_gemm::Epilogue {
        bias: None,
        relu: false,
        map: Some(&map),
    };
    // SAFETY: forwarded contract.
    unsafe {
        match plan {
            GemmPlan::Dot(p) => p.run_f32_raw(lhs, rhs, out, Some(&epi), opts)?,
            GemmPlan::Conv(p) => p.run_f32_raw_any_order(lhs, rhs, out, Some(&epi), opts)?,
        }
    }
    // (The GEMM engine applies an epilogue once to every output element,
    // on every path.)
    Ok(!t.redo.load(Ordering::Relaxed))
}

/// Whether `id` is a scalar or broadcast f32 constant +0.
fn is_pos_zero(comp: &Computation, id: InstrId) -> bool {
    let i = comp.get(id);
    match &i.op {
        Op::Broadcast { .. } if i.operands.len() == 1 => is_pos_zero(comp, i.operands[0]),
        Op::Constant { literal } => literal
            .as_slice::<f32>()
            .is_some_and(|s| s.len() == 1 && s[0].to_bits() == 0),
        _ => false,
    }
}

/// The fusion body's pattern: `(gemm parameter number, residual parameter
/// number and whether it comes first)`.
fn pattern(fc: &Computation) -> Option<(usize, Option<(usize, bool)>)> {
    let root = fc.root_instruction();
    if root.op != Op::Binary(BinaryOp::Maximum) || root.operands.len() != 2 {
        return None;
    }
    let (a, z) = (root.operands[0], root.operands[1]);
    let x = if is_pos_zero(fc, z) {
        a
    } else if is_pos_zero(fc, a) {
        z
    } else {
        return None;
    };
    let param = |id: InstrId| match fc.get(id).op {
        Op::Parameter { number } => Some(number as usize),
        _ => None,
    };
    let xi = fc.get(x);
    if let Some(p) = param(x) {
        return Some((p, None));
    }
    if xi.op != Op::Binary(BinaryOp::Add) || xi.operands.len() != 2 {
        return None;
    }
    let (p0, p1) = (param(xi.operands[0])?, param(xi.operands[1])?);
    // Which one is the GEMM is decided by the caller; offer p0 as the GEMM.
    (p0 != p1).then_some((p0, Some((p1, false))))
}

/// A plain f32 array shape without padding.
fn plain(s: &Shape) -> bool {
    matches!(s, Shape::Array(a) if a.element_type == ElementType::F32)
        && crate::plan::unpad(s) == *s
}

/// Rewrites `prog`: each fusion matching the module doc's pattern over a
/// single-use f32 GEMM step becomes an alias of that step, which gets the
/// epilogue. Returns how many it fused.
pub fn fuse(module: &Module, cid: CompId, prog: &mut Program) -> usize {
    let comp = module.comp(cid);
    let mut fused = 0;
    let users = comp.users();
    for f in comp.ids() {
        let instr = comp.get(f);
        let Op::Fusion { calls, .. } = &instr.op else {
            continue;
        };
        if !matches!(prog.steps[f.index()], Step::Kernel { post: None, .. })
            || !plain(&instr.shape)
            || prog.in_group.get(f.index()).is_none_or(|g| g.is_some())
        {
            continue;
        }
        let fc = module.comp(*calls);
        if fc.ids().count() > 6 {
            continue;
        }
        let Some((p, res)) = pattern(fc) else {
            continue;
        };
        // Try the pattern's GEMM operand, then (for an add) the other one.
        let mut cands = vec![(p, res)];
        if let Some((q, _)) = res {
            cands.push((q, Some((p, true))));
        }
        for (gp, res) in cands {
            let Some(&g) = instr.operands.get(gp) else {
                continue;
            };
            let r = match res {
                Some((rp, first)) => match instr.operands.get(rp) {
                    Some(&r) => Some((r, first)),
                    None => continue,
                },
                None => None,
            };
            let ok_shape = |id: InstrId| comp.get(id).shape == instr.shape;
            let gemm_ok = matches!(
                &prog.steps[g.index()],
                Step::Gemm { types, epi: None, plan, .. }
                    if types.iter().all(|&t| t == ElementType::F32)
                        && matches!(plan.as_ref(), GemmPlan::Dot(_) | GemmPlan::Conv(_))
            );
            let single = users[g.index()].len() == 1
                && instr.operands.iter().filter(|&&o| o == g).count() == 1
                && g != comp.root;
            // The residual must be computed before the GEMM runs.
            // (Row-grouped steps run later, block by block.)
            let ungrouped =
                |id: InstrId| prog.in_group.get(id.index()).is_some_and(|g| g.is_none());
            // (A parameter's value is there from the start.)
            let res_ok = r.is_none_or(|(r, _)| {
                r != g
                    && (r.index() < g.index() || matches!(prog.steps[r.index()], Step::Param(_)))
                    && ok_shape(r)
                    && ungrouped(r)
            });
            if !(gemm_ok && single && res_ok && ok_shape(g) && ungrouped(g)) {
                continue;
            }
            if let Step::Gemm { epi, .. } = &mut prog.steps[g.index()] {
                *epi = Some(Box::new(GemmEpi {
                    residual: r.map(|x| x.0),
                    residual_first: r.is_some_and(|x| x.1),
                    fused_into: f,
                    minor: match &instr.shape {
                        Shape::Array(a) => a
                            .layout
                            .minor_to_major
                            .first()
                            .and_then(|&d| a.dims.get(d as usize))
                            .map_or(1, |&n| n.max(1) as usize),
                        _ => 1,
                    },
                }));
            }
            prog.steps[f.index()] = Step::Alias {
                src: g,
                start: 0,
                len: 1,
            };
            fused += 1;
            break;
        }
    }
    fused
}
