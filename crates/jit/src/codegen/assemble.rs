//! The kernel of a data-movement root cut into regions (`regions.rs`):
//! loops over the output's leading physical dims (the outermost bounded
//! by `lo..hi` for threads), and at each of their positions every region
//! that holds it, in write order. Inside a region the remaining dims are
//! collapsed where both sides are contiguous across them (so `C = 3`
//! pixels of one row form one run) and its innermost run is
//! - copied from a kernel input as wide moves (16-byte moves and an
//!   overlapping last one, small moves under 16 bytes, `memcpy` for long
//!   runs; reversed runs as 16-byte moves with their elements swapped),
//! - filled with a scalar leaf's bytes (the pad value),
//! - or computed by the emitter at the leaf's affine index (elementwise
//!   pieces), F32X4 where it vectorizes.
//!
//! Every address is an in-bounds element of the input or the output (the
//! decomposition keeps each leaf index inside its operand). Must not
//! decide the regions (that is `regions.rs`) nor compute on elements.

use super::emit::{Emitter, Sym};
use super::jit::{Jit, KernelSpec};
use super::regions::{Decomposition, Region};
use crate::error::{JitError, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32X4, I8, I8X16, I16, I16X8, I32, I32X4, I64, I64X2};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Type, Value};
use cranelift_module::Module as _;
use rxla_ir::index::physical_strides;
use rxla_ir::{ArrayShape, ElementType, InstrId, Module};

/// Runs at least this long (bytes) are copied by `memcpy`.
const MEMCPY_MIN: i64 = 256;

/// Fused dims stop once the dims inside them hold fewer elements.
const INNER_MIN: i64 = 256;

/// Whether the regions of `dec` are worth their own kernel: a cut
/// concatenate or pad, or one region copied from an input whose rows run
/// forward or backward (a slice of a reverse) — unless a region copies a
/// large transposed block, which the loop nest's tiles do better.
pub fn worth_it(dec: &Decomposition, spec: &KernelSpec, module: &Module) -> bool {
    let root = module.comp(spec.comp).get(spec.root);
    let Ok(out) = root.shape.as_array() else {
        return false;
    };
    let mtm = &out.layout.minor_to_major;
    let Some(&minor) = mtm.first() else {
        return false;
    };
    let minor = minor as usize;
    let second = mtm.get(1).map(|&d| d as usize);
    // Per buffer region, the input's element stride along the output's
    // contiguous dim.
    let strides = dec.regions.iter().filter_map(|r| {
        let (_, shape) = spec.inputs.iter().find(|(i, _)| *i == r.leaf)?;
        let pst = physical_strides(shape);
        let l: i64 = r
            .map
            .iter()
            .zip(&pst)
            .filter(|(a, _)| a.p == Some(minor))
            .map(|(a, &p)| a.s * p as i64)
            .sum();
        Some((r, l))
    });
    let mut strides = strides.peekable();
    let transposed = strides.clone().any(|(r, l)| {
        l.abs() > 1 && r.count[minor] >= 64 && second.is_some_and(|d| r.count[d] >= 64)
    });
    if dec.regions.is_empty() || transposed {
        return false;
    }
    if dec.split {
        return true;
    }
    // One region: worth it for a reversed copy only.
    dec.regions.len() == 1
        && strides
            .peek()
            .is_some_and(|&(_, l)| l == -1 && out.dims[minor] >= 4)
}

/// How a region's values are produced.
enum Source {
    /// Copied from an input buffer at this base.
    Buffer(Value, ArrayShape),
    /// Filled with an element's bytes (scalar pattern, 16-byte splat).
    Fill(Value, Value),
    /// Computed by the emitter.
    Emit,
}

/// Builds the kernel into `jit.ctx`. Returns (outer extent, output
/// elements, vectorized).
pub fn build(
    jit: &mut Jit,
    module: &Module,
    spec: &KernelSpec,
    dec: &Decomposition,
    vec_outer: bool,
    vec_reduce: bool,
) -> Result<(i64, usize, bool)> {
    let comp = module.comp(spec.comp);
    let root = comp.get(spec.root);
    let out: ArrayShape = root
        .shape
        .as_array()
        .map_err(|_| JitError::unsupported("tuple-shaped result"))?
        .clone();
    if out.layout.is_padded() || out.rank() == 0 {
        return Err(JitError::unsupported("regions: padded or scalar output"));
    }
    let elements = out.element_count()?;
    let esize = out.element_type.byte_size() as i64;
    if !matches!(esize, 1 | 2 | 4 | 8 | 16) {
        return Err(JitError::unsupported("regions: element size"));
    }
    let frontend = jit.jm.isa().frontend_config();
    let (mut em, [ins, outs, lo, hi]) = jit.kernel_emitter(module);
    em.vec_reduce = vec_reduce;
    em.allow_strided = !super::kernel::reads_through_reductions(module, spec);
    let flags = MemFlagsData::trusted();
    let mut bases = Vec::new();
    for (k, (id, shape)) in spec.inputs.iter().enumerate() {
        let base = em.b.ins().load(I64, flags, ins, (8 * k) as i32);
        em.inputs.insert((spec.comp, *id), (base, shape.clone()));
        bases.push((*id, base, shape.clone()));
    }
    let out_base = em.b.ins().load(I64, flags, outs, 0);
    let order: Vec<usize> = out
        .layout
        .minor_to_major
        .iter()
        .rev()
        .map(|&d| d as usize)
        .collect();
    // Sources, fill patterns made once before the loops.
    let mut sources = Vec::with_capacity(dec.regions.len());
    for r in &dec.regions {
        let buffer = bases.iter().find(|(id, _, s)| {
            *id == r.leaf && !s.layout.is_padded() && s.element_type == out.element_type
        });
        sources.push(match buffer {
            // A scalar (a pad value, even one read from an input) is a fill.
            _ if r.map.is_empty() && esize <= 8 => {
                let (s, v) = fill_pattern(&mut em, spec, r.leaf, out.element_type, esize)?;
                Source::Fill(s, v)
            }
            Some((_, base, shape)) => Source::Buffer(*base, shape.clone()),
            None => Source::Emit,
        });
    }
    let pst_out: Vec<i64> = physical_strides(&out)
        .iter()
        .map(|&s| s as i64 * esize)
        .collect();
    // Leading dims looped jointly: at least the outermost (threads split it).
    let rank = out.rank();
    let mut fused = 1;
    let mut inner: i64 = order[1..].iter().map(|&d| out.dims[d]).product();
    while fused < rank && inner >= INNER_MIN && fused + 1 < rank {
        let next_inner = inner / out.dims[order[fused]].max(1);
        if next_inner < INNER_MIN {
            break;
        }
        inner = next_inner;
        fused += 1;
    }
    let a = Assembler {
        spec,
        out: &out,
        order: &order,
        fused,
        esize,
        pst_out,
        out_base,
        vec_outer,
        regions: &dec.regions,
        sources: &sources,
    };
    let mut vectorized = false;
    if elements > 0 {
        let mut pos = Vec::new();
        a.level(&mut em, &mut pos, lo, hi, &mut vectorized)?;
    }
    em.b.ins().return_(&[]);
    em.b.seal_all_blocks();
    em.b.finalize(frontend);
    Ok((out.dims[order[0]], elements, vectorized))
}

/// A fill's byte pattern: the scalar leaf stored once to a stack slot,
/// read back as an integer of the element's width and splat to 16 bytes.
fn fill_pattern(
    em: &mut Emitter,
    spec: &KernelSpec,
    leaf: InstrId,
    et: ElementType,
    esize: i64,
) -> Result<(Value, Value)> {
    let (ity, vty) = int_types(esize)?;
    let v = em.emit(spec.comp, leaf, &[], None)?;
    let slot =
        em.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 4));
    let p = em.b.ins().stack_addr(I64, slot, 0);
    em.store_elem(v, p, et)?;
    let s = em.b.ins().load(ity, MemFlagsData::trusted(), p, 0);
    let vec = em.b.ins().splat(vty, s);
    Ok((s, vec))
}

/// The integer and 16-byte vector types of an element of `esize` bytes.
fn int_types(esize: i64) -> Result<(Type, Type)> {
    Ok(match esize {
        1 => (I8, I8X16),
        2 => (I16, I16X8),
        4 => (I32, I32X4),
        8 => (I64, I64X2),
        _ => return Err(JitError::unsupported("regions: fill of a wide element")),
    })
}

/// One collapsed dim of a region body: counters, output and input byte
/// strides (the input's 0 for fills and computed leaves).
#[derive(Clone, Copy, Debug)]
struct Dim {
    n: i64,
    o: i64,
    l: i64,
}

/// Merges dims (major to minor) that are contiguous on both sides and
/// drops the size-1 ones.
fn collapse(dims: &[Dim]) -> Vec<Dim> {
    let mut v: Vec<Dim> = Vec::new();
    for &d in dims.iter().filter(|d| d.n != 1) {
        v.push(d);
        while v.len() >= 2 {
            let (i, o) = (v[v.len() - 1], v[v.len() - 2]);
            if o.o == i.o * i.n && o.l == i.l * i.n {
                v.pop();
                let last = v.len() - 1;
                v[last] = Dim {
                    n: o.n * i.n,
                    o: i.o,
                    l: i.l,
                };
            } else {
                break;
            }
        }
    }
    v
}

struct Assembler<'s> {
    spec: &'s KernelSpec,
    out: &'s ArrayShape,
    order: &'s [usize],
    fused: usize,
    esize: i64,
    /// Output byte stride per logical dim.
    pst_out: Vec<i64>,
    out_base: Value,
    vec_outer: bool,
    regions: &'s [Region],
    sources: &'s [Source],
}

impl Assembler<'_> {
    /// The fused loops; at the innermost, every region holding the position.
    fn level(
        &self,
        em: &mut Emitter,
        pos: &mut Vec<Value>,
        lo: Value,
        hi: Value,
        vectorized: &mut bool,
    ) -> Result<()> {
        let l = pos.len();
        if l == self.fused {
            for (r, src) in self.regions.iter().zip(self.sources) {
                self.region(em, pos, r, src, vectorized)?;
            }
            return Ok(());
        }
        let (lo, hi) = if l == 0 {
            (lo, hi)
        } else {
            (em.iconst(0), em.iconst(self.out.dims[self.order[l]]))
        };
        em.for_range(lo, hi, 1, |em, i| {
            pos.push(i);
            let r = self.level(em, pos, lo, hi, vectorized);
            pos.pop();
            r
        })
    }

    /// Region `r` at the fused position `pos` (output indices along
    /// `order[..fused]`), when it holds it.
    fn region(
        &self,
        em: &mut Emitter,
        pos: &[Value],
        r: &Region,
        src: &Source,
        vectorized: &mut bool,
    ) -> Result<()> {
        // Activity test and the fused dims' counters.
        let mut cond: Option<Value> = None;
        let mut ts: Vec<(usize, Value, i64)> = Vec::new();
        for (l, &i) in pos.iter().enumerate() {
            let d = self.order[l];
            let (start, step, count) = (r.start[d], r.step[d], r.count[d]);
            let t = em.b.ins().iadd_imm_s(i, -start);
            if !(start == 0 && step == 1 && count == self.out.dims[d]) {
                let span = step * (count - 1) + 1;
                let mut c = em.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, t, span);
                if step > 1 {
                    let rem = em.b.ins().urem_imm_u(t, step);
                    let z = em.b.ins().icmp_imm_s(IntCC::Equal, rem, 0);
                    c = em.b.ins().band(c, z);
                }
                cond = Some(match cond {
                    Some(p) => em.b.ins().band(p, c),
                    None => c,
                });
            }
            ts.push((d, t, step));
        }
        let mut body = |em: &mut Emitter| -> Result<()> {
            let mut k = vec![None; self.out.rank()];
            for &(d, t, step) in &ts {
                k[d] = Some(if step == 1 {
                    t
                } else {
                    em.b.ins().udiv_imm_u(t, step)
                });
            }
            self.body(em, r, src, &k, vectorized)
        };
        match cond {
            None => {
                em.push_scope();
                let res = body(em);
                em.pop_scope();
                res
            }
            Some(c) => {
                let then = em.b.create_block();
                let join = em.b.create_block();
                em.b.ins().brif(c, then, &[], join, &[]);
                em.b.switch_to_block(then);
                em.b.seal_block(then);
                em.push_scope();
                let res = body(em);
                em.pop_scope();
                res?;
                em.b.ins().jump(join, &[]);
                em.b.switch_to_block(join);
                em.b.seal_block(join);
                Ok(())
            }
        }
    }

    /// The region's loops over its inner dims, the fused counters `k`
    /// known (`Some` for the fused dims).
    fn body(
        &self,
        em: &mut Emitter,
        r: &Region,
        src: &Source,
        k: &[Option<Value>],
        vectorized: &mut bool,
    ) -> Result<()> {
        let inner = &self.order[self.fused..];
        // Output base: the region's start plus the fused counters.
        let mut dst_off: i64 = 0;
        for d in 0..self.out.rank() {
            dst_off += r.start[d] * self.pst_out[d];
        }
        let mut dst = em.b.ins().iadd_imm_s(self.out_base, dst_off);
        for (d, kd) in k.iter().enumerate() {
            if let Some(kd) = kd {
                let t = em.b.ins().imul_imm_s(*kd, r.step[d] * self.pst_out[d]);
                dst = em.b.ins().iadd(dst, t);
            }
        }
        match src {
            Source::Buffer(base, shape) => {
                let pst: Vec<i64> = physical_strides(shape)
                    .iter()
                    .map(|&s| s as i64 * self.esize)
                    .collect();
                // Input byte stride per output counter, and the constant part.
                let mut lstride = vec![0i64; self.out.rank()];
                let mut off = 0i64;
                for (j, a) in r.map.iter().enumerate() {
                    off += a.c * pst[j];
                    if let Some(p) = a.p {
                        lstride[p] += a.s * pst[j];
                    }
                }
                let mut s = em.b.ins().iadd_imm_s(*base, off);
                for (d, kd) in k.iter().enumerate() {
                    if let Some(kd) = kd
                        && lstride[d] != 0
                    {
                        let t = em.b.ins().imul_imm_s(*kd, lstride[d]);
                        s = em.b.ins().iadd(s, t);
                    }
                }
                let dims: Vec<Dim> = inner
                    .iter()
                    .map(|&d| Dim {
                        n: r.count[d],
                        o: r.step[d] * self.pst_out[d],
                        l: lstride[d],
                    })
                    .collect();
                let dims = collapse(&dims);
                self.copy_nest(em, &dims, dst, s)
            }
            Source::Fill(scalar, vector) => {
                let dims: Vec<Dim> = inner
                    .iter()
                    .map(|&d| Dim {
                        n: r.count[d],
                        o: r.step[d] * self.pst_out[d],
                        l: 0,
                    })
                    .collect();
                let dims = collapse(&dims);
                self.fill_nest(em, &dims, dst, *scalar, *vector)
            }
            Source::Emit => {
                // Constant axes and the fused counters' axes now.
                let zero = em.iconst(0);
                let mut idx = vec![zero; r.map.len()];
                for (j, a) in r.map.iter().enumerate() {
                    idx[j] = match a.p {
                        None => em.iconst(a.c),
                        Some(p) => match k[p] {
                            Some(kp) => {
                                let m = em.b.ins().imul_imm_s(kp, a.s);
                                em.b.ins().iadd_imm_s(m, a.c)
                            }
                            None => zero,
                        },
                    };
                }
                self.emit_nest(em, r, inner, &mut idx, dst, vectorized)
            }
        }
    }

    /// Loops over all but the innermost collapsed dim, then one run copy
    /// (large transposed blocks never get here: `worth_it`).
    fn copy_nest(&self, em: &mut Emitter, dims: &[Dim], dst: Value, src: Value) -> Result<()> {
        let e = self.esize;
        match dims {
            [] => copy_bytes(em, dst, src, e),
            [run] if run.o == e && run.l == e => copy_bytes(em, dst, src, run.n * e),
            [run] if run.o == e && run.l == -e && e <= 8 && run.n * e >= 16 => {
                copy_reversed(em, dst, src, run.n, e)
            }
            [run] => copy_strided(em, *run, dst, src, e),
            [first, rest @ ..] => {
                let (lo, hi) = (em.iconst(0), em.iconst(first.n));
                em.for_range(lo, hi, 1, |em, i| {
                    let a = em.b.ins().imul_imm_s(i, first.o);
                    let d2 = em.b.ins().iadd(dst, a);
                    let b = em.b.ins().imul_imm_s(i, first.l);
                    let s2 = em.b.ins().iadd(src, b);
                    self.copy_nest(em, rest, d2, s2)
                })
            }
        }
    }

    /// Loops over all but the innermost collapsed dim, then one run fill.
    fn fill_nest(
        &self,
        em: &mut Emitter,
        dims: &[Dim],
        dst: Value,
        scalar: Value,
        vector: Value,
    ) -> Result<()> {
        let e = self.esize;
        let Some((run, outer)) = dims.split_last() else {
            store(em, scalar, dst, 0);
            return Ok(());
        };
        if let Some((first, rest)) = outer.split_first() {
            let (lo, hi) = (em.iconst(0), em.iconst(first.n));
            return em.for_range(lo, hi, 1, |em, i| {
                let a = em.b.ins().imul_imm_s(i, first.o);
                let d2 = em.b.ins().iadd(dst, a);
                let mut sub = rest.to_vec();
                sub.push(*run);
                self.fill_nest(em, &sub, d2, scalar, vector)
            });
        }
        if run.o == e && run.n * e >= 16 {
            fill_bytes(em, dst, run.n * e, vector)
        } else {
            let (lo, hi) = (em.iconst(0), em.iconst(run.n));
            em.for_range(lo, hi, 1, |em, i| {
                let a = em.b.ins().imul_imm_s(i, run.o);
                let p = em.b.ins().iadd(dst, a);
                store(em, scalar, p, 0);
                Ok(())
            })
        }
    }

    /// The leaf computed by the emitter over the region's inner dims
    /// (`inner`, major to minor), `idx` the leaf index so far: each axis
    /// is computed once, in the loop of its counter, so the innermost
    /// loop moves one index and reuses the row's address prefix.
    fn emit_nest(
        &self,
        em: &mut Emitter,
        r: &Region,
        inner: &[usize],
        idx: &mut Vec<Value>,
        dst: Value,
        vectorized: &mut bool,
    ) -> Result<()> {
        let comp = self.spec.comp;
        let et = self.out.element_type;
        let Some((&d, rest)) = inner.split_first() else {
            let v = em.emit(comp, r.leaf, idx, None)?;
            return em.store_elem(v, dst, et);
        };
        // Sets the axes that move with counter `d` to counter `k`.
        let set = |em: &mut Emitter, idx: &mut Vec<Value>, k: Value| {
            for (j, a) in r.map.iter().enumerate() {
                if a.p == Some(d) {
                    idx[j] = if a.s == 1 && a.c == 0 {
                        k
                    } else {
                        let m = em.b.ins().imul_imm_s(k, a.s);
                        em.b.ins().iadd_imm_s(m, a.c)
                    };
                }
            }
        };
        let o = r.step[d] * self.pst_out[d];
        let n = r.count[d];
        let (zero, nn) = (em.iconst(0), em.iconst(n));
        let vector = rest.is_empty()
            && self.vec_outer
            && et == ElementType::F32
            && o == self.esize
            && n >= 4;
        let mut vhi = zero;
        if vector {
            *vectorized = true;
            let coef: Vec<i64> = r
                .map
                .iter()
                .map(|a| if a.p == Some(d) { a.s } else { 0 })
                .collect();
            let sym = Sym::Dims(coef);
            // Row-invariant values and the row's address prefixes first.
            set(em, idx, zero);
            em.hoist(comp, r.leaf, idx, &sym);
            vhi = em.iconst(n & !3);
            em.for_range(zero, vhi, 4, |em, i| {
                set(em, idx, i);
                let v = em.emit(comp, r.leaf, idx, Some(&sym))?;
                if em.b.func.dfg.value_type(v) != F32X4 {
                    return Err(JitError::unsupported(
                        "regions: vector leaf of another type",
                    ));
                }
                let a = em.b.ins().ishl_imm_s(i, 2);
                let p = em.b.ins().iadd(dst, a);
                em.store_elem(v, p, et)
            })?;
        }
        em.for_range(vhi, nn, 1, |em, i| {
            set(em, idx, i);
            let a = em.b.ins().imul_imm_s(i, o);
            let p = em.b.ins().iadd(dst, a);
            self.emit_nest(em, r, rest, idx, p, vectorized)
        })
    }
}

/// `p + off` as an address and an `i32` displacement.
fn displaced(em: &mut Emitter, p: Value, off: i64) -> (Value, i32) {
    match i32::try_from(off) {
        Ok(o) => (p, o),
        Err(_) => (em.b.ins().iadd_imm_s(p, off), 0),
    }
}

fn load(em: &mut Emitter, ty: Type, p: Value, off: i64) -> Value {
    let flags = MemFlagsData::new().with_notrap().with_readonly();
    let (p, o) = displaced(em, p, off);
    em.b.ins().load(ty, flags, p, o)
}

fn store(em: &mut Emitter, v: Value, p: Value, off: i64) {
    let (p, o) = displaced(em, p, off);
    em.b.ins().store(MemFlagsData::new().with_notrap(), v, p, o);
}

/// `n` bytes from `src` to `dst` (non-overlapping buffers).
fn copy_bytes(em: &mut Emitter, dst: Value, src: Value, n: i64) -> Result<()> {
    if n >= MEMCPY_MIN {
        let len = em.iconst(n);
        em.call("memcpy", &[dst, src, len])?;
        return Ok(());
    }
    let mv = |em: &mut Emitter, ty: Type, off: i64| {
        let v = load(em, ty, src, off);
        store(em, v, dst, off);
    };
    if n >= 16 {
        let mut off = 0;
        while off + 16 <= n {
            mv(em, I8X16, off);
            off += 16;
        }
        if off < n {
            mv(em, I8X16, n - 16);
        }
        return Ok(());
    }
    // Under 16 bytes: two (possibly overlapping) moves of the widest
    // size that fits.
    for (w, ty) in [(8, I64), (4, I32), (2, I16), (1, I8)] {
        if n >= w {
            mv(em, ty, 0);
            if n > w {
                mv(em, ty, n - w);
            }
            return Ok(());
        }
    }
    Ok(())
}

/// `n` elements of `e` bytes (`n·e >= 16`), `dst` forward from `src`
/// backward (`src` is the first element read): 16-byte moves with the
/// elements swapped, the last one overlapping.
fn copy_reversed(em: &mut Emitter, dst: Value, src: Value, n: i64, e: i64) -> Result<()> {
    let bytes = n * e;
    let mask: Vec<u8> = (0..16u8)
        .map(|i| {
            let (el, b) = (i / e as u8, i % e as u8);
            (16 / e as u8 - 1 - el) * e as u8 + b
        })
        .collect();
    let mask = em.b.func.dfg.immediates.push(mask.into());
    // dst[off..off+16] = swap(src[e - off - 16 .. e - off]).
    let mv = |em: &mut Emitter, off: Value| {
        let s = em.b.ins().isub(src, off);
        let v = load(em, I8X16, s, e - 16);
        let w = em.b.ins().shuffle(v, v, mask);
        let d = em.b.ins().iadd(dst, off);
        store(em, w, d, 0);
    };
    // Four moves per loop step, the rest unrolled.
    let chunks = bytes / 16;
    let looped = if chunks > 8 { chunks / 4 * 4 } else { 0 };
    if looped > 0 {
        let (lo, hi) = (em.iconst(0), em.iconst(16 * looped));
        em.for_range(lo, hi, 64, |em, off| {
            for u in 0..4 {
                let o = em.b.ins().iadd_imm_s(off, 16 * u);
                mv(em, o);
            }
            Ok(())
        })?;
    }
    for c in looped..chunks {
        let off = em.iconst(16 * c);
        mv(em, off);
    }
    if bytes % 16 != 0 {
        let off = em.iconst(bytes - 16);
        mv(em, off);
    }
    Ok(())
}

/// Element by element along a run of any strides.
fn copy_strided(em: &mut Emitter, run: Dim, dst: Value, src: Value, e: i64) -> Result<()> {
    let ty = match e {
        16 => I8X16,
        e => int_types(e)?.0,
    };
    if run.n <= 8 {
        for i in 0..run.n {
            let v = load(em, ty, src, i * run.l);
            store(em, v, dst, i * run.o);
        }
        return Ok(());
    }
    let (lo, hi) = (em.iconst(0), em.iconst(run.n));
    em.for_range(lo, hi, 1, |em, i| {
        let a = em.b.ins().imul_imm_s(i, run.l);
        let s = em.b.ins().iadd(src, a);
        let b = em.b.ins().imul_imm_s(i, run.o);
        let d = em.b.ins().iadd(dst, b);
        let v = load(em, ty, s, 0);
        store(em, v, d, 0);
        Ok(())
    })
}

/// `n >= 16` bytes at `dst` filled with the 16-byte pattern `vector`
/// (whole elements: `n` is a multiple of the element size, which divides 16).
fn fill_bytes(em: &mut Emitter, dst: Value, n: i64, vector: Value) -> Result<()> {
    // Four stores per loop step, the rest unrolled.
    let chunks = n / 16;
    let looped = if chunks > 8 { chunks / 4 * 4 } else { 0 };
    if looped > 0 {
        let (lo, hi) = (em.iconst(0), em.iconst(16 * looped));
        em.for_range(lo, hi, 64, |em, off| {
            let d = em.b.ins().iadd(dst, off);
            for u in 0..4 {
                store(em, vector, d, 16 * u);
            }
            Ok(())
        })?;
    }
    for c in looped..chunks {
        store(em, vector, dst, 16 * c);
    }
    if n % 16 != 0 {
        store(em, vector, dst, n - 16);
    }
    Ok(())
}
