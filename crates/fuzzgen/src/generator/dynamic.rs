//! Generators of bounded dynamic dimensions: `set-dimension-size` (its
//! size a constant within the bound, so every run is defined) followed by
//! a short chain of consumers XLA's dynamic padder handles — elementwise
//! ops (with the static original or the dynamic value itself), transpose,
//! reshapes that keep or merge the dynamic dim, a reduce over some dims,
//! reverse, pad, sort, a reduce-window, a dynamic-slice, a dot — and
//! `get-dimension-size` of dynamic
//! or static dims. Dynamic values are never offered to other generators
//! (`Gen::candidates` skips them), so no op meets a dynamic operand it
//! does not define. Nothing here may emit an invalid instruction.

use super::{Cb, Gen, scalar};
use crate::values::Choices;
use rxla_ir::{
    ArrayShape, BinaryOp, ComparisonDirection, DotDims, ElementType, InstrId, Op, PadDim, Shape,
    UnaryOp, Window, WindowDim,
};

pub(super) fn by_name(g: &mut Gen, cb: &mut Cb, name: &str) -> bool {
    if !matches!(name, "get-dimension-size" | "set-dimension-size") || g.scalar_mode {
        return false;
    }
    if name == "get-dimension-size" && g.coin() {
        // Of a static value: folds to a constant.
        let x = g.any_array(cb, 1);
        let Some(a) = cb.array(x).cloned() else {
            return false;
        };
        if a.element_type == ElementType::Token || a.rank() == 0 {
            return false;
        }
        let dimension = g.range(0, a.rank() as i64 - 1);
        g.emit(
            cb,
            Op::GetDimensionSize { dimension },
            vec![x],
            Shape::scalar(ElementType::S32),
        );
        return true;
    }
    chain(g, cb)
}

/// Element types of the chains: every op below is defined on them.
const TYPES: [ElementType; 8] = [
    ElementType::S8,
    ElementType::S16,
    ElementType::S32,
    ElementType::S64,
    ElementType::F16,
    ElementType::BF16,
    ElementType::F32,
    ElementType::F64,
];

fn signed_or_float(t: ElementType) -> bool {
    TYPES.contains(&t)
}

/// `set-dimension-size` of a numeric array and a few consumers.
fn chain(g: &mut Gen, cb: &mut Cb) -> bool {
    let x = g.array_where(cb, signed_or_float, |g| g.pick(&TYPES), 1);
    let Some(a) = cb.array(x).cloned() else {
        return false;
    };
    let dims: Vec<usize> = (0..a.rank().min(64)).filter(|&d| a.dims[d] > 0).collect();
    if dims.is_empty() || !signed_or_float(a.element_type) {
        return false;
    }
    let d = g.pick(&dims);
    let bound = a.dims[d];
    let n = g.range(0, bound);
    let literal = crate::values::splat_int(&scalar(ElementType::S32), n);
    let size = g.emit(
        cb,
        Op::Constant { literal },
        vec![],
        Shape::scalar(ElementType::S32),
    );
    let mut dyn_shape = a.clone();
    dyn_shape.dynamic = dyn_shape.dynamic.with(d);
    let mut v = g.emit(
        cb,
        Op::SetDimensionSize {
            dimension: d as i64,
        },
        vec![x, size],
        Shape::Array(dyn_shape.clone()),
    );
    let steps = g.range(1, 3);
    for _ in 0..steps {
        let cur = cb.array(v).cloned().unwrap_or_else(|| dyn_shape.clone());
        v = match g.range(0, 10) {
            0 => {
                let op = g.pick(&[UnaryOp::Negate, UnaryOp::Abs]);
                g.emit(cb, Op::Unary(op), vec![v], Shape::Array(cur))
            }
            1 | 2 => {
                let op = g.pick(&[
                    BinaryOp::Add,
                    BinaryOp::Multiply,
                    BinaryOp::Maximum,
                    BinaryOp::Subtract,
                ]);
                // The other operand: the value itself or a static one of
                // the same dims (the padding of neither reaches a result).
                let other = if g.coin() {
                    v
                } else {
                    g.value_of(cb, &cur.to_static())
                };
                g.emit(cb, Op::Binary(op), vec![v, other], Shape::Array(cur))
            }
            3 if cur.rank() >= 2 => {
                let perm = g.permutation(cur.rank());
                let mut t = ArrayShape::new(
                    cur.element_type,
                    perm.iter()
                        .map(|&p| cur.dims[p as usize])
                        .collect::<Vec<_>>(),
                )
                .unwrap_or_else(|_| cur.clone());
                for (i, &p) in perm.iter().enumerate() {
                    if cur.is_dynamic_dim(p as usize) {
                        t.dynamic = t.dynamic.with(i);
                    }
                }
                g.emit(
                    cb,
                    Op::Transpose { permutation: perm },
                    vec![v],
                    Shape::Array(t),
                )
            }
            // Other generators assume ranks ≤ 4 (a reduce may make the
            // value static again).
            4 if cur.rank() < 4 => reshape(g, cb, v, &cur),
            5 => {
                let dimensions = g.subset(cur.rank());
                g.emit(cb, Op::Reverse { dimensions }, vec![v], Shape::Array(cur))
            }
            6 => pad(g, cb, v, &cur),
            7 if cur.rank() > 0 => sort(g, cb, v, &cur),
            8 if cur.rank() > 0 => reduce_window(g, cb, v, &cur),
            9 if cur.rank() > 0 && !cur.dims.contains(&0) => dynamic_slice(g, cb, v, &cur),
            _ => reduce(g, cb, v, &cur),
        };
    }
    if g.coin() {
        let cur = cb.array(v).cloned().unwrap_or_else(|| dyn_shape.clone());
        if cur.rank() > 0 {
            let dimension = g.range(0, cur.rank() as i64 - 1);
            g.emit(
                cb,
                Op::GetDimensionSize { dimension },
                vec![v],
                Shape::scalar(ElementType::S32),
            );
        }
    }
    if g.chance(1, 3) {
        let cur = cb.array(v).cloned().unwrap_or_else(|| dyn_shape.clone());
        if cur.rank() == 2 {
            dot(g, cb, v, &cur);
        }
    }
    true
}

/// A reshape that keeps the dynamic dims: flattening when only the major
/// dim is dynamic (its size then counts whole rows), else a new leading
/// dim of size 1.
fn reshape(g: &mut Gen, cb: &mut Cb, v: InstrId, a: &ArrayShape) -> InstrId {
    let only_major = a.rank() >= 2 && a.dynamic.iter().eq([0usize]);
    let out = if only_major && g.coin() {
        let n: i64 = a.dims.iter().product();
        let mut s = ArrayShape::new(a.element_type, vec![n]).unwrap_or_else(|_| a.clone());
        if n > 0 {
            s.dynamic = s.dynamic.with(0);
        }
        s
    } else {
        let mut dims = vec![1];
        dims.extend(&a.dims);
        let mut s = ArrayShape::new(a.element_type, dims).unwrap_or_else(|_| a.clone());
        for d in a.dynamic.iter() {
            s.dynamic = s.dynamic.with(d + 1);
        }
        s
    };
    g.emit(cb, Op::Reshape, vec![v], Shape::Array(out))
}

/// `pad` of `v` with small non-negative edge and interior padding: every
/// dim keeps its dynamism (a dynamic dim's size grows with its bound).
fn pad(g: &mut Gen, cb: &mut Cb, v: InstrId, a: &ArrayShape) -> InstrId {
    let ty = a.element_type;
    let value = g.scalar(cb, ty);
    let mut config = Vec::with_capacity(a.rank());
    let mut dims = Vec::with_capacity(a.rank());
    for &d in &a.dims {
        let p = PadDim {
            low: g.range(0, 2),
            high: g.range(0, 2),
            interior: g.range(0, 1),
        };
        dims.push(d + (d - 1).max(0) * p.interior + p.low + p.high);
        config.push(p);
    }
    let mut out = ArrayShape::new(ty, dims).unwrap_or_else(|_| a.clone());
    out.dynamic = a.dynamic;
    g.emit(cb, Op::Pad { config }, vec![v, value], Shape::Array(out))
}

/// `sort` of `v` along one dim with a less-than (or greater-than)
/// comparator: only the valid prefix is sorted.
fn sort(g: &mut Gen, cb: &mut Cb, v: InstrId, a: &ArrayShape) -> InstrId {
    let ty = a.element_type;
    let (mut ccb, ps) = g.sub(&[Shape::scalar(ty), Shape::scalar(ty)], usize::MAX);
    let direction = g.pick(&[ComparisonDirection::Lt, ComparisonDirection::Gt]);
    let root = g.emit(
        &mut ccb,
        Op::Compare {
            direction,
            kind: None,
        },
        vec![ps[0], ps[1]],
        Shape::scalar(ElementType::Pred),
    );
    let comparator = g.finish(ccb, root);
    let dimension = g.range(0, a.rank() as i64 - 1);
    let is_stable = g.coin();
    g.emit(
        cb,
        Op::Sort {
            dimension,
            is_stable,
            comparator,
        },
        vec![v],
        Shape::Array(a.clone()),
    )
}

/// A reduce-window of `v`: a window of 1 or 2 (stride 1 or 2, low padding
/// 0 or 1) along one dim, plain along the others.
fn reduce_window(g: &mut Gen, cb: &mut Cb, v: InstrId, a: &ArrayShape) -> InstrId {
    let ty = a.element_type;
    let init = g.scalar(cb, ty);
    let along = g.range(0, a.rank() as i64 - 1) as usize;
    let mut dims = Vec::with_capacity(a.rank());
    let mut out_dims = Vec::with_capacity(a.rank());
    for (d, &n) in a.dims.iter().enumerate() {
        let mut w = WindowDim::new(1);
        if d == along {
            w.size = g.range(1, 2);
            w.stride = g.range(1, 2);
            w.pad_low = g.range(0, 1);
        }
        out_dims.push(rxla_ir::geometry::window_output_size(n, &w));
        dims.push(w);
    }
    let mut out = ArrayShape::new(ty, out_dims).unwrap_or_else(|_| a.clone());
    for d in a.dynamic.iter() {
        if out.dims.get(d).is_some_and(|&n| n > 0) {
            out.dynamic = out.dynamic.with(d);
        }
    }
    let to_apply = g.scalar_comp(&[ty, ty], &[ty]);
    g.emit(
        cb,
        Op::ReduceWindow {
            window: Window { dims },
            to_apply,
        },
        vec![v, init],
        Shape::Array(out),
    )
}

/// A dynamic-slice of `v` at random (often out-of-range) starts. Along a
/// dynamic dim the size is the bound or at least 2 (a slice of one
/// element is static and an error when the runtime size is 0), giving a
/// dynamic dim of size min(size, n).
fn dynamic_slice(g: &mut Gen, cb: &mut Cb, v: InstrId, a: &ArrayShape) -> InstrId {
    let ty = g.ty_index();
    let mut sizes = Vec::with_capacity(a.rank());
    let mut starts = Vec::with_capacity(a.rank());
    for (d, &b) in a.dims.iter().enumerate() {
        let s = if a.is_dynamic_dim(d) && b > 1 && g.coin() {
            g.range(2, b)
        } else if a.is_dynamic_dim(d) {
            b
        } else {
            g.range(1, b)
        };
        sizes.push(s);
        starts.push(g.index_scalar(cb, ty));
    }
    let mut out = ArrayShape::new(a.element_type, sizes.clone()).unwrap_or_else(|_| a.clone());
    out.dynamic = a.dynamic;
    let mut operands = vec![v];
    operands.extend(starts);
    g.emit(cb, Op::DynamicSlice { sizes }, operands, Shape::Array(out))
}

/// A reduce of the dynamic value `v` over a random subset of its dims.
fn reduce(g: &mut Gen, cb: &mut Cb, v: InstrId, a: &ArrayShape) -> InstrId {
    let ty = a.element_type;
    let init = g.scalar(cb, ty);
    let dimensions = g.subset(a.rank());
    let kept: Vec<usize> = (0..a.rank())
        .filter(|i| !dimensions.contains(&(*i as i64)))
        .collect();
    let mut out = ArrayShape::new(ty, kept.iter().map(|&i| a.dims[i]).collect::<Vec<_>>())
        .unwrap_or_else(|_| scalar(ty));
    for (j, &i) in kept.iter().enumerate() {
        if a.is_dynamic_dim(i) {
            out.dynamic = out.dynamic.with(j);
        }
    }
    let to_apply = g.scalar_comp(&[ty, ty], &[ty]);
    g.emit(
        cb,
        Op::Reduce {
            dimensions,
            to_apply,
        },
        vec![v, init],
        Shape::Array(out),
    )
}

/// `dot(v, w)` contracting v's last dim (dynamic or not) with a static
/// `[k, m]` of the same type.
fn dot(g: &mut Gen, cb: &mut Cb, v: InstrId, a: &ArrayShape) -> InstrId {
    let k = a.dims[1];
    let m = g.range(1, 3);
    let Ok(w_shape) = ArrayShape::new(a.element_type, vec![k, m]) else {
        return v;
    };
    let w = g.value_of(cb, &w_shape);
    let mut out = ArrayShape::new(a.element_type, vec![a.dims[0], m]).unwrap_or_else(|_| a.clone());
    if a.is_dynamic_dim(0) {
        out.dynamic = out.dynamic.with(0);
    }
    g.emit(
        cb,
        Op::Dot {
            dims: DotDims {
                lhs_batch: vec![],
                lhs_contracting: vec![1],
                rhs_batch: vec![],
                rhs_contracting: vec![0],
            },
        },
        vec![v, w],
        Shape::Array(out),
    )
}
