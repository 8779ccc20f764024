//! Optional SIMD padding (`layout-assignment{simd-pad=4}`): pads the minor
//! dimension of intermediate values to a multiple of the SIMD width so
//! their elementwise kernels need no remainder loop. Values are padded as
//! whole clusters of layout-preserving ops (elementwise, map,
//! dynamic-update-slice), since those must stay congruent, and only when
//! every member is an intermediate computed by a kernel that writes
//! through strides (not a parameter, the root, a bitcast, a call result)
//! and every user outside the cluster reads through strides too (reduce,
//! transpose, slice, copy, ...), so no interface or bitcast ever sees the
//! padding. The padding value is 0 (`V(0)`). Never changes values.

use rxla_ir::layout_verifier::{operand_must_match_result, same_dims};
use rxla_ir::{Computation, Literal, Op, Shape};

fn find(parent: &mut [usize], x: usize) -> usize {
    let mut r = x;
    while parent[r] != r {
        r = parent[r];
    }
    let mut y = x;
    while parent[y] != r {
        let next = parent[y];
        parent[y] = r;
        y = next;
    }
    r
}

/// Ops that write their result through strides and so may produce a
/// padded value.
fn may_produce_padded(op: &Op) -> bool {
    op.is_elementwise()
        || matches!(
            op,
            Op::Map { .. }
                | Op::DynamicUpdateSlice
                | Op::Constant { .. }
                | Op::Iota { .. }
                | Op::Broadcast { .. }
                | Op::Reduce { .. }
                | Op::Transpose { .. }
                | Op::Reshape
                | Op::Slice { .. }
                | Op::DynamicSlice { .. }
                | Op::Pad { .. }
                | Op::Reverse { .. }
                | Op::Concatenate { .. }
                | Op::Copy
        )
}

/// Ops that read an operand through strides (any padding is fine).
fn reads_any_layout(op: &Op) -> bool {
    matches!(
        op,
        Op::Reduce { .. }
            | Op::Transpose { .. }
            | Op::Reshape
            | Op::Broadcast { .. }
            | Op::Slice { .. }
            | Op::DynamicSlice { .. }
            | Op::Pad { .. }
            | Op::Reverse { .. }
            | Op::Concatenate { .. }
            | Op::Copy
            | Op::ReduceWindow { .. }
            | Op::Gather { .. }
    )
}

/// Pads eligible clusters of `c` to a minor dim that is a multiple of
/// `width`; returns the number of values padded.
pub fn pad_minor_dims(c: &mut Computation, width: i64) -> u64 {
    if width < 2 {
        return 0;
    }
    let n = c.len();
    let mut parent: Vec<usize> = (0..n).collect();
    for (u, instr) in c.instructions.iter().enumerate() {
        for (k, o) in instr.operands.iter().enumerate() {
            if o.index() < n
                && operand_must_match_result(&instr.op, k)
                && same_dims(&c.instructions[o.index()].shape, &instr.shape)
            {
                let (a, b) = (find(&mut parent, u), find(&mut parent, o.index()));
                parent[a] = b;
            }
        }
    }
    let root_of: Vec<usize> = (0..n).map(|x| find(&mut parent, x)).collect();
    // A cluster is eligible when every member is.
    let mut ok = vec![true; n];
    for (x, instr) in c.instructions.iter().enumerate() {
        let member_ok = match &instr.shape {
            Shape::Array(a) => {
                let minor = a
                    .layout
                    .minor_to_major
                    .first()
                    .and_then(|&d| a.dims.get(d as usize));
                x != c.root.index()
                    && !a.layout.is_padded()
                    && a.layout.extras.is_empty()
                    && a.layout.element_size_in_bits.is_none()
                    && may_produce_padded(&instr.op)
                    && minor.is_some_and(|&m| m >= width && m % width != 0)
            }
            Shape::Tuple(_) => false,
        };
        if !member_ok {
            ok[root_of[x]] = false;
        }
    }
    for (u, instr) in c.instructions.iter().enumerate() {
        for (k, o) in instr.operands.iter().enumerate() {
            let Some(&r) = root_of.get(o.index()) else {
                continue;
            };
            let inside = root_of[u] == r
                && operand_must_match_result(&instr.op, k)
                && same_dims(&c.instructions[o.index()].shape, &instr.shape);
            if !inside && !reads_any_layout(&instr.op) {
                ok[r] = false;
            }
        }
    }
    let mut padded = 0;
    for x in 0..n {
        if !ok[root_of[x]] {
            continue;
        }
        let instr = &mut c.instructions[x];
        let Shape::Array(a) = &mut instr.shape else {
            continue;
        };
        let minor = a.layout.minor_to_major[0] as usize;
        let mut p = a.dims.clone();
        p[minor] = (p[minor] + width - 1) / width * width;
        let layout = a.layout.clone().with_padding(p, Some(0.0));
        if layout.validate(&a.dims).is_err() {
            continue;
        }
        a.layout = layout.clone();
        if let Op::Constant {
            literal: Literal::Array(l),
        } = &mut instr.op
        {
            l.shape.layout = layout;
        }
        padded += 1;
    }
    padded
}
