//! The builder: every call builds once with its exact result shape; the
//! spec's worked examples' shapes; the spec's invalid examples as errors
//! with their messages. Every built module passes the verifier
//! (`build_entry` verifies).

use rxla_ir::ElementType::{self, *};
use rxla_ir::builder::{ComputationBuilder, ConvGeneral, ModuleBuilder, Padding, Value};
use rxla_ir::{
    BinaryOp, ComparisonDirection, ConvDims, DotDims, GatherDims, Module, Op, PadDim, RngAlgorithm,
    ScatterDims, Shape, UnaryOp, Window, WindowDim, verify_module,
};

type R = rxla_ir::Result<Value>;

fn a(t: ElementType, d: &[i64]) -> Shape {
    Shape::array(t, d.to_vec()).unwrap()
}

/// Builds ENTRY main with `f`, verified.
fn entry(f: impl FnOnce(&mut ComputationBuilder<'_>) -> R) -> Module {
    let mut mb = ModuleBuilder::new("t");
    let mut b = mb.computation("main");
    let root = f(&mut b).unwrap_or_else(|e| panic!("builder call failed: {e}"));
    let id = b.build(root).unwrap();
    let m = mb.build_entry(id).unwrap();
    verify_module(&m).unwrap();
    m
}

/// The root shape (no layout) of the ENTRY built by `f`.
fn root(f: impl FnOnce(&mut ComputationBuilder<'_>) -> R) -> String {
    entry(f)
        .entry_computation()
        .root_instruction()
        .shape
        .to_string_no_layout()
}

/// The error message of a builder sequence that must fail.
fn fails(f: impl FnOnce(&mut ComputationBuilder<'_>) -> R) -> String {
    let mut mb = ModuleBuilder::new("t");
    let mut b = mb.computation("main");
    match f(&mut b) {
        Ok(v) => panic!("unexpectedly built {}", b.shape(v).unwrap()),
        Err(e) => e.to_string(),
    }
}

fn v423(b: &mut ComputationBuilder<'_>) -> R {
    b.parameter(0, a(F32, &[4, 2, 3]), "v")
}

fn opcodes(m: &Module) -> Vec<&'static str> {
    m.entry_computation()
        .instructions
        .iter()
        .map(|i| i.opcode())
        .collect()
}

#[test]
fn spec_collapse() {
    assert_eq!(
        root(|b| {
            let v = v423(b)?;
            b.collapse(v, &[0, 1, 2])
        }),
        "f32[24]"
    );
    // The page labels these two the other way round; its values (and its
    // rule: the listed dims become one dim of their product) give these.
    assert_eq!(
        root(|b| {
            let v = v423(b)?;
            b.collapse(v, &[0, 1])
        }),
        "f32[8,3]"
    );
    assert_eq!(
        root(|b| {
            let v = v423(b)?;
            b.collapse(v, &[1, 2])
        }),
        "f32[4,6]"
    );
    assert_eq!(
        fails(|b| {
            let v = v423(b)?;
            b.collapse(v, &[1, 0])
        }),
        "collapse: dimensions [1, 0] must be in order and consecutive"
    );
    assert_eq!(
        fails(|b| {
            let v = v423(b)?;
            b.collapse(v, &[0, 2])
        }),
        "collapse: dimensions [0, 2] must be in order and consecutive"
    );
    assert_eq!(
        fails(|b| {
            let v = v423(b)?;
            b.collapse(v, &[3])
        }),
        "collapse: dimension 3 is out of range for rank 3"
    );
}

#[test]
fn spec_reshape() {
    let cases: [(&[i64], &[i64], &str); 5] = [
        (&[0, 1, 2], &[24], "f32[24]"),
        (&[0, 1, 2], &[8, 3], "f32[8,3]"),
        (&[1, 2, 0], &[24], "f32[24]"),
        (&[1, 2, 0], &[8, 3], "f32[8,3]"),
        (&[1, 2, 0], &[2, 6, 2], "f32[2,6,2]"),
    ];
    for (dims, sizes, want) in cases {
        let m = entry(|b| {
            let v = v423(b)?;
            b.reshape_with_dimensions(v, dims, sizes)
        });
        assert_eq!(
            m.entry_computation()
                .root_instruction()
                .shape
                .to_string_no_layout(),
            want
        );
        // Out-of-order dimensions transpose first.
        let ops = opcodes(&m);
        if dims == [1, 2, 0] {
            assert_eq!(ops, ["parameter", "transpose", "reshape"]);
            assert_eq!(
                m.entry_computation().instructions[1]
                    .shape
                    .to_string_no_layout(),
                "f32[2,3,4]"
            );
        } else {
            assert_eq!(ops, ["parameter", "reshape"]);
        }
    }
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[1, 1]), "x")?;
            b.reshape_with_dimensions(x, &[0, 1], &[])
        }),
        "f32[]"
    );
    assert_eq!(
        root(|b| {
            let x = b.constant_r0(5f32)?;
            b.reshape_with_dimensions(x, &[], &[1, 1])
        }),
        "f32[1,1]"
    );
    assert_eq!(
        fails(|b| {
            let v = v423(b)?;
            b.reshape(v, &[5, 5])
        }),
        "reshape: element counts differ: f32[4,2,3] has 24 elements, f32[5,5] has 25"
    );
    assert_eq!(
        fails(|b| {
            let v = v423(b)?;
            b.reshape_with_dimensions(v, &[0, 0, 1], &[24])
        }),
        "reshape: dimensions [0, 0, 1] is not a permutation of 0..3"
    );
}

#[test]
fn spec_concatenate() {
    assert_eq!(
        root(|b| {
            let x = b.constant_r1(vec![2i32, 3])?;
            let y = b.constant_r1(vec![4i32, 5])?;
            let z = b.constant_r1(vec![6i32, 7])?;
            b.concat_in_dim(&[x, y, z], 0)
        }),
        "s32[6]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(S32, &[3, 2]), "a")?;
            let y = b.parameter(1, a(S32, &[1, 2]), "b")?;
            b.concat_in_dim(&[x, y], 0)
        }),
        "s32[4,2]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(S32, &[3, 2]), "a")?;
            let y = b.parameter(1, a(S32, &[3, 1]), "b")?;
            b.concat_in_dim(&[x, y], -1)
        }),
        "s32[3,3]"
    );
    assert_eq!(
        fails(|b| {
            let x = b.constant_r0(1f32)?;
            let y = b.constant_r0(2f32)?;
            b.concat_in_dim(&[x, y], 0)
        }),
        "concatenate: cannot concatenate scalars (f32[])"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(S32, &[3, 2]), "a")?;
            let y = b.parameter(1, a(S32, &[1, 3]), "b")?;
            b.concat_in_dim(&[x, y], 0)
        }),
        "concatenate: operands s32[3,2] and s32[1,3] differ in dimension 1 (only dimension 0 may differ)"
    );
    assert_eq!(
        fails(|b| b.concat_in_dim(&[], 0)),
        "concatenate: expects at least one operand"
    );
}

#[test]
fn spec_slices() {
    assert_eq!(
        root(|b| {
            let x = b.constant_r1(vec![0f32, 1., 2., 3., 4.])?;
            b.slice(x, &[2], &[4])
        }),
        "f32[2]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[4, 3]), "b")?;
            b.slice(x, &[2, 1], &[4, 3])
        }),
        "f32[2,2]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[10, 3]), "b")?;
            b.slice_strided(x, &[1, 0], &[10, 3], &[4, 2])
        }),
        "f32[3,2]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[10, 3]), "b")?;
            b.slice_in_dim(x, 2, 8, 3, 0)
        }),
        "f32[2,3]"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[4, 3]), "b")?;
            b.slice(x, &[2, 1], &[5, 3])
        }),
        "slice: dimension 0: [2:5] is out of range for f32[4,3] (need 0 <= start <= limit <= 4)"
    );
    // DynamicSlice with the spec's rank-1 start vector.
    assert_eq!(
        root(|b| {
            let x = b.constant_r1(vec![0f32, 1., 2., 3., 4.])?;
            let s = b.constant_r1(vec![2i32])?;
            b.dynamic_slice(x, &[s], &[2])
        }),
        "f32[2]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[4, 3]), "b")?;
            let i = b.constant_r0(2i32)?;
            let j = b.constant_r0(1i32)?;
            b.dynamic_slice(x, &[i, j], &[2, 2])
        }),
        "f32[2,2]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[4, 3]), "b")?;
            let u = b.parameter(1, a(F32, &[3, 2]), "u")?;
            let s = b.constant_r1(vec![1i32, 1])?;
            b.dynamic_update_slice(x, u, &[s])
        }),
        "f32[4,3]"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[4, 3]), "b")?;
            let s = b.constant_r1(vec![1i32, 1])?;
            b.dynamic_slice(x, &[s], &[5, 2])
        }),
        "dynamic-slice: slice size 5 of dimension 0 is out of range for f32[4,3] (need 0 <= size <= 4)"
    );
}

#[test]
fn spec_dot() {
    let dot = |l: &[i64], r: &[i64]| {
        let (l, r) = (l.to_vec(), r.to_vec());
        root(move |b| {
            let x = b.parameter(0, a(F32, &l), "l")?;
            let y = b.parameter(1, a(F32, &r), "r")?;
            b.dot(x, y)
        })
    };
    assert_eq!(dot(&[3], &[3]), "f32[]");
    assert_eq!(dot(&[2, 3], &[3]), "f32[2]");
    assert_eq!(dot(&[2, 3], &[3, 4]), "f32[2,4]");
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "l")?;
            let y = b.parameter(1, a(F32, &[4, 3]), "r")?;
            b.dot(x, y)
        }),
        "dot: contracting dimension sizes differ: lhs f32[2,3] dimension 1 vs rhs f32[4,3] dimension 0"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2, 2, 3]), "l")?;
            let y = b.parameter(1, a(F32, &[3]), "r")?;
            b.dot(x, y)
        }),
        "dot: operands must be vectors or matrices, got ranks 3 and 1 (use dot_general)"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[5, 2, 3]), "l")?;
            let y = b.parameter(1, a(F32, &[5, 3, 4]), "r")?;
            b.dot_general(
                x,
                y,
                DotDims {
                    lhs_batch: vec![0],
                    lhs_contracting: vec![-1],
                    rhs_batch: vec![0],
                    rhs_contracting: vec![1],
                },
            )
        }),
        "f32[5,2,4]"
    );
}

fn add_comp(b: &mut ComputationBuilder<'_>, ty: ElementType) -> rxla_ir::CompId {
    b.scalar_binary_computation(BinaryOp::Add, ty).unwrap()
}

#[test]
fn spec_reduce() {
    let red = |dims: &[i64], shape: &[i64]| {
        let (dims, shape) = (dims.to_vec(), shape.to_vec());
        root(move |b| {
            let add = add_comp(b, F32);
            let x = b.parameter(0, a(F32, &shape), "x")?;
            let z = b.constant_r0(0f32)?;
            b.reduce(&[x], &[z], add, &dims)
        })
    };
    assert_eq!(red(&[0], &[2, 3]), "f32[3]");
    assert_eq!(red(&[1], &[2, 3]), "f32[2]");
    assert_eq!(red(&[0], &[4, 2, 3]), "f32[2,3]");
    assert_eq!(red(&[2], &[4, 2, 3]), "f32[4,2]");
    assert_eq!(red(&[0, 1], &[4, 2, 3]), "f32[3]");
    assert_eq!(red(&[0, 1, 2], &[4, 2, 3]), "f32[]");
    assert_eq!(red(&[-1], &[4, 2, 3]), "f32[4,2]");
    // Variadic: (max value, min index).
    assert_eq!(
        root(|b| {
            let pair = {
                let mut c = b.sub_computation("pair");
                let x = c.parameter(0, Shape::scalar(F32), "x")?;
                let xi = c.parameter(1, Shape::scalar(S32), "xi")?;
                let y = c.parameter(2, Shape::scalar(F32), "y")?;
                let yi = c.parameter(3, Shape::scalar(S32), "yi")?;
                let m = c.max(x, y)?;
                let mi = c.min(xi, yi)?;
                let t = c.tuple(&[m, mi])?;
                c.build(t)?
            };
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let i = b.iota(a(S32, &[2, 3]), 1)?;
            let z = b.constant_r0(f32::NEG_INFINITY)?;
            let zi = b.constant_r0(0i32)?;
            b.reduce(&[x, i], &[z, zi], pair, &[1])
        }),
        "(f32[2], s32[2])"
    );
    assert_eq!(
        fails(|b| {
            let add = add_comp(b, S32);
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let z = b.constant_r0(0f32)?;
            b.reduce(&[x], &[z], add, &[0])
        }),
        "reduce: the reduction computation add_s32 must have signature (f32[], f32[]) -> f32[], got (s32[], s32[]) -> s32[]"
    );
}

#[test]
fn spec_reduce_window_and_select_and_scatter() {
    let rw = |strides: [i64; 2], padding: Padding| {
        root(move |b| {
            let max = b.scalar_binary_computation(BinaryOp::Maximum, F32)?;
            let x = b.parameter(0, a(F32, &[4, 6]), "input")?;
            let init = b.constant_r0(f32::MIN)?;
            b.reduce_window(&[x], &[init], max, &[2, 3], &strides, padding)
        })
    };
    assert_eq!(rw([2, 3], Padding::Valid), "f32[2,2]");
    assert_eq!(rw([1, 1], Padding::Valid), "f32[3,4]");
    assert_eq!(rw([1, 1], Padding::Same), "f32[4,6]");
    assert_eq!(rw([2, 3], Padding::Same), "f32[2,2]");
    let m = entry(|b| {
        let max = b.scalar_binary_computation(BinaryOp::Maximum, F32)?;
        let x = b.parameter(0, a(F32, &[4, 6]), "input")?;
        let init = b.constant_r0(f32::MIN)?;
        b.reduce_window(&[x], &[init], max, &[2, 3], &[1, 1], Padding::Same)
    });
    match &m.entry_computation().root_instruction().op {
        Op::ReduceWindow { window, .. } => {
            let pads: Vec<(i64, i64)> = window
                .dims
                .iter()
                .map(|d| (d.pad_low, d.pad_high))
                .collect();
            assert_eq!(pads, [(0, 1), (1, 1)]);
        }
        op => panic!("expected reduce-window, got {}", op.opcode()),
    }
    assert_eq!(
        fails(|b| {
            let max = b.scalar_binary_computation(BinaryOp::Maximum, F32)?;
            let x = b.parameter(0, a(F32, &[4, 6]), "input")?;
            let init = b.constant_r0(f32::MIN)?;
            b.reduce_window(&[x], &[init], max, &[2], &[1], Padding::Valid)
        }),
        "reduce-window: window dimensions [2] and strides [1] need one entry per dimension of the operand (rank 2)"
    );
    assert_eq!(
        root(|b| {
            let win = Window {
                dims: vec![
                    WindowDim {
                        window_dilation: 2,
                        ..WindowDim::new(2)
                    },
                    WindowDim::new(1),
                ],
            };
            let add = add_comp(b, F32);
            let x = b.parameter(0, a(F32, &[4, 6]), "input")?;
            let init = b.constant_r0(0f32)?;
            b.reduce_window_general(&[x], &[init], add, win)
        }),
        "f32[2,6]"
    );
    // SelectAndScatter: operand 4x6, 2x3 windows, source 2x2.
    let sas = |src: [i64; 2]| {
        move |b: &mut ComputationBuilder<'_>| {
            let ge = b.scalar_compare_computation(ComparisonDirection::Ge, F32)?;
            let add = add_comp(b, F32);
            let x = b.parameter(0, a(F32, &[4, 6]), "operand")?;
            let s = b.parameter(1, a(F32, &src), "source")?;
            let init = b.constant_r0(0f32)?;
            b.select_and_scatter(x, ge, &[2, 3], &[2, 3], Padding::Valid, s, init, add)
        }
    };
    assert_eq!(root(sas([2, 2])), "f32[4,6]");
    assert_eq!(
        fails(sas([2, 3])),
        "select-and-scatter: the source must have the windowed operand's shape f32[2,2], got f32[2,3]"
    );
}

#[test]
fn spec_pad_select_broadcast() {
    let pd = |low, high, interior| PadDim {
        low,
        high,
        interior,
    };
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let z = b.constant_r0(0f32)?;
            b.pad(x, z, &[pd(1, 2, 1), pd(-1, 0, 0)])
        }),
        "f32[6,2]"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let z = b.constant_r0(0i32)?;
            b.pad(x, z, &[pd(0, 0, 0), pd(0, 0, 0)])
        }),
        "pad: the padding value must be a f32 scalar, got s32[]"
    );
    // Select with a pred array and with a scalar pred.
    assert_eq!(
        root(|b| {
            let p = b.constant_r1(vec![true, false, false, true])?;
            let x = b.constant_r1(vec![1i32, 2, 3, 4])?;
            let y = b.constant_r1(vec![100i32, 200, 300, 400])?;
            b.select(p, x, y)
        }),
        "s32[4]"
    );
    assert_eq!(
        root(|b| {
            let p = b.constant_r0(true)?;
            let x = b.constant_r1(vec![1i32, 2, 3, 4])?;
            let y = b.constant_r1(vec![100i32, 200, 300, 400])?;
            b.select(p, x, y)
        }),
        "s32[4]"
    );
    // Broadcast: new dims on the left.
    assert_eq!(
        root(|b| {
            let x = b.constant_r0(2f32)?;
            b.broadcast(x, &[2, 3])
        }),
        "f32[2,3]"
    );
    let m = entry(|b| {
        let x = b.parameter(0, a(F32, &[3]), "x")?;
        b.broadcast(x, &[2])
    });
    assert_eq!(
        m.entry_computation().root_instruction().op,
        Op::Broadcast {
            dimensions: vec![1]
        }
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2]), "x")?;
            b.broadcast_in_dim(x, &[2, 3], &[0])
        }),
        "f32[2,3]"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2]), "x")?;
            b.broadcast_in_dim(x, &[2, 3], &[1])
        }),
        "broadcast: operand dimension 0 of f32[2] (size 2) maps to result dimension 1 of f32[2,3] (size 3)"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[3, 2]), "x")?;
            b.broadcast_in_dim(x, &[2, 3], &[1, 0])
        }),
        "broadcast_in_dim: dimensions [1, 0] must be strictly increasing"
    );
}

#[test]
fn spec_while() {
    // T = (s32[], f32[10]); 1000 iterations adding a constant vector.
    let m = entry(|b| {
        let t = Shape::tuple(vec![Shape::scalar(S32), a(F32, &[10])]);
        let cond = {
            let mut c = b.sub_computation("condition");
            let p = c.parameter(0, t.clone(), "p")?;
            let i = c.get_tuple_element(p, 0)?;
            let n = c.constant_r0(1000i32)?;
            let r = c.lt(i, n)?;
            c.build(r)?
        };
        let body = {
            let mut c = b.sub_computation("body");
            let p = c.parameter(0, t.clone(), "p")?;
            let i = c.get_tuple_element(p, 0)?;
            let v = c.get_tuple_element(p, 1)?;
            let one = c.constant_r0(1i32)?;
            let i2 = c.add(i, one)?;
            let k = c.constant_r1(vec![1f32; 10])?;
            let v2 = c.add(v, k)?;
            let r = c.tuple(&[i2, v2])?;
            c.build(r)?
        };
        let i0 = b.constant_r0(0i32)?;
        let z = b.constant_r1(vec![0f32; 10])?;
        let init = b.tuple(&[i0, z])?;
        b.while_loop(cond, body, init)
    });
    assert_eq!(
        m.entry_computation()
            .root_instruction()
            .shape
            .to_string_no_layout(),
        "(s32[], f32[10])"
    );
    assert_eq!(m.computations.len(), 3);
    assert_eq!(
        fails(|b| {
            let cond = b.scalar_binary_computation(BinaryOp::Add, S32)?;
            let init = b.constant_r0(0i32)?;
            b.while_loop(cond, cond, init)
        }),
        "while: the condition add_s32 must have signature (s32[]) -> pred[], got (s32[], s32[]) -> s32[]"
    );
}

#[test]
fn transpose_is_a_reshape_with_dimensions() {
    // Spec: Transpose(x, p) == Reshape(x, p, Permute(p, x.dims)).
    for perm in [[0i64, 1, 2], [2, 0, 1], [1, 2, 0], [2, 1, 0]] {
        let t = root(|b| {
            let v = v423(b)?;
            b.transpose(v, &perm)
        });
        let dims = [4i64, 2, 3];
        let permuted: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
        let r = root(|b| {
            let v = v423(b)?;
            b.reshape_with_dimensions(v, &perm, &permuted)
        });
        assert_eq!(t, r);
    }
}

#[test]
fn every_unary_op() {
    for u in UnaryOp::ALL {
        let ty = if u.float_only() {
            F32
        } else if u.int_only() || u == UnaryOp::Not {
            S32
        } else {
            F32
        };
        let out = if u == UnaryOp::IsFinite { Pred } else { ty };
        let got = root(|b| {
            let x = b.parameter(0, a(ty, &[2, 3]), "x")?;
            b.unary(u, x)
        });
        assert_eq!(got, format!("{out}[2,3]"), "{}", u.name());
    }
    // The named conveniences.
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[3]), "x")?;
            let y = b.abs(x)?;
            let y = b.ceil(y)?;
            let y = b.exp(y)?;
            let y = b.floor(y)?;
            let y = b.log(y)?;
            let y = b.neg(y)?;
            let y = b.sign(y)?;
            let y = b.tanh(y)?;
            let y = b.sqrt(y)?;
            let y = b.rsqrt(y)?;
            b.is_finite(y)
        }),
        "pred[3]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(Pred, &[3]), "x")?;
            b.not(x)
        }),
        "pred[3]"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(S32, &[3]), "x")?;
            b.exp(x)
        }),
        "exponential: expects a floating-point operand, got s32[3]"
    );
}

#[test]
fn every_binary_op_and_comparison() {
    for op in BinaryOp::ALL {
        let ty = if op.is_bitwise() || op.is_shift() {
            S32
        } else {
            F32
        };
        let got = root(|b| {
            let x = b.parameter(0, a(ty, &[2, 3]), "x")?;
            let y = b.parameter(1, a(ty, &[2, 3]), "y")?;
            b.binary(op, x, y, &[])
        });
        assert_eq!(got, format!("{ty}[2,3]"), "{}", op.name());
    }
    type Bin = fn(&mut ComputationBuilder<'_>, Value, Value) -> R;
    let named: [(Bin, ElementType); 15] = [
        (|b, x, y| b.add(x, y), F32),
        (|b, x, y| b.sub(x, y), F32),
        (|b, x, y| b.mul(x, y), F32),
        (|b, x, y| b.div(x, y), F32),
        (|b, x, y| b.rem(x, y), F32),
        (|b, x, y| b.max(x, y), F32),
        (|b, x, y| b.min(x, y), F32),
        (|b, x, y| b.pow(x, y), F32),
        (|b, x, y| b.atan2(x, y), F32),
        (|b, x, y| b.and(x, y), Pred),
        (|b, x, y| b.or(x, y), Pred),
        (|b, x, y| b.xor(x, y), S32),
        (|b, x, y| b.shift_left(x, y), S32),
        (|b, x, y| b.shift_right_arithmetic(x, y), S32),
        (|b, x, y| b.shift_right_logical(x, y), U32),
    ];
    for (f, ty) in named {
        let got = root(|b| {
            let x = b.parameter(0, a(ty, &[4]), "x")?;
            let y = b.parameter(1, a(ty, &[4]), "y")?;
            f(b, x, y)
        });
        assert_eq!(got, format!("{ty}[4]"));
    }
    let cmps: [Bin; 6] = [
        |b, x, y| b.eq(x, y),
        |b, x, y| b.ne(x, y),
        |b, x, y| b.ge(x, y),
        |b, x, y| b.gt(x, y),
        |b, x, y| b.le(x, y),
        |b, x, y| b.lt(x, y),
    ];
    for f in cmps {
        let got = root(|b| {
            let x = b.parameter(0, a(F32, &[4]), "x")?;
            let y = b.parameter(1, a(F32, &[4]), "y")?;
            f(b, x, y)
        });
        assert_eq!(got, "pred[4]");
    }
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[4]), "x")?;
            let y = b.parameter(1, a(S32, &[4]), "y")?;
            b.add(x, y)
        }),
        "add: operands have different element types f32[4] and s32[4]"
    );
}

#[test]
fn implicit_and_explicit_broadcasting() {
    // broadcast_dimensions: f32[3] joins dim 1 of f32[2,3].
    let m = entry(|b| {
        let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
        let y = b.parameter(1, a(F32, &[3]), "y")?;
        b.binary(BinaryOp::Add, x, y, &[1])
    });
    assert_eq!(opcodes(&m), ["parameter", "parameter", "broadcast", "add"]);
    assert_eq!(
        m.entry_computation().instructions[2].op,
        Op::Broadcast {
            dimensions: vec![1]
        }
    );
    assert_eq!(
        m.entry_computation()
            .root_instruction()
            .shape
            .to_string_no_layout(),
        "f32[2,3]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let y = b.parameter(1, a(F32, &[2]), "y")?;
            b.binary(BinaryOp::Multiply, y, x, &[0])
        }),
        "f32[2,3]"
    );
    // Scalar with array.
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let k = b.constant_r0(2f32)?;
            b.mul(k, x)
        }),
        "f32[2,3]"
    );
    // Degenerate dims: [2,1] + [1,3] -> [2,3].
    let m = entry(|b| {
        let x = b.parameter(0, a(F32, &[2, 1]), "x")?;
        let y = b.parameter(1, a(F32, &[1, 3]), "y")?;
        b.add(x, y)
    });
    assert_eq!(
        m.entry_computation()
            .root_instruction()
            .shape
            .to_string_no_layout(),
        "f32[2,3]"
    );
    assert_eq!(
        opcodes(&m),
        [
            "parameter",
            "parameter",
            "reshape",
            "broadcast",
            "reshape",
            "broadcast",
            "add"
        ]
    );
    // Comparison with broadcast_dimensions.
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let y = b.parameter(1, a(F32, &[2]), "y")?;
            b.compare(ComparisonDirection::Gt, x, y, &[0])
        }),
        "pred[2,3]"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let y = b.parameter(1, a(F32, &[3]), "y")?;
            b.add(x, y)
        }),
        "add: operands have incompatible shapes f32[2,3] and f32[3]; pass broadcast_dimensions to broadcast the lower-rank one"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let y = b.parameter(1, a(F32, &[3]), "y")?;
            b.binary(BinaryOp::Add, x, y, &[0])
        }),
        "add: operands f32[2,3] and f32[3] are not broadcast-compatible in dimension 0 (2 vs 3)"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let y = b.parameter(1, a(F32, &[3]), "y")?;
            b.binary(BinaryOp::Add, x, y, &[2])
        }),
        "add: broadcast_dimensions [2]: dimension 2 is out of range for rank 2"
    );
}

#[test]
fn leaves_tuples_converts() {
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2]), "x")?;
            let i = b.iota(a(S32, &[2, 3]), -1)?;
            let c = b.constant_r1(vec![1u8, 2])?;
            b.tuple(&[x, i, c])
        }),
        "(f32[2], s32[2,3], u8[2])"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2]), "x")?;
            let t = b.tuple(&[x, x])?;
            b.get_tuple_element(t, 1)
        }),
        "f32[2]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(S32, &[2]), "x")?;
            b.convert_element_type(x, F32)
        }),
        "f32[2]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2]), "x")?;
            b.bitcast_convert_type(x, U8)
        }),
        "u8[2,4]"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2]), "x")?;
            let t = b.tuple(&[x])?;
            b.convert_element_type(t, S32)
        }),
        "convert_element_type: tuples cannot be converted"
    );
    assert_eq!(
        root(|b| {
            let lo = b.constant_r0(0f32)?;
            let x = b.parameter(0, a(F32, &[5]), "x")?;
            let hi = b.constant_r0(1f32)?;
            b.clamp(lo, x, hi)
        }),
        "f32[5]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let y = b.transpose(x, &[1, 0])?;
            let y = b.rev(y, &[0, -1])?;
            let y = b.copy(y)?;
            let y = b.bitcast(y, a(F32, &[6]))?;
            b.optimization_barrier(y)
        }),
        "f32[6]"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            b.transpose(x, &[0, 0])
        }),
        "transpose: dimensions [0, 0] is not a permutation of 0..2"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            b.transpose(x, &[1, 0, 2])
        }),
        "transpose: permutation [1, 0, 2] must have 2 entries"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            b.get_tuple_element(x, 0)
        }),
        "get-tuple-element: the operand must be a tuple, got f32[2,3]"
    );
}

#[test]
fn convolutions() {
    let conv = |lhs: &[i64], rhs: &[i64], strides: &[i64], padding: Padding| {
        let (lhs, rhs, strides) = (lhs.to_vec(), rhs.to_vec(), strides.to_vec());
        root(move |b| {
            let x = b.parameter(0, a(F32, &lhs), "lhs")?;
            let k = b.parameter(1, a(F32, &rhs), "rhs")?;
            b.conv(x, k, &strides, padding)
        })
    };
    assert_eq!(
        conv(&[1, 2, 5, 5], &[4, 2, 3, 3], &[1, 1], Padding::Same),
        "f32[1,4,5,5]"
    );
    assert_eq!(
        conv(&[1, 2, 5, 5], &[4, 2, 3, 3], &[1, 1], Padding::Valid),
        "f32[1,4,3,3]"
    );
    assert_eq!(
        conv(&[1, 2, 5, 5], &[4, 2, 3, 3], &[2, 2], Padding::Same),
        "f32[1,4,3,3]"
    );
    assert_eq!(
        conv(&[2, 1, 7], &[3, 1, 2], &[3], Padding::Valid),
        "f32[2,3,2]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[1, 2, 5, 5]), "lhs")?;
            let k = b.parameter(1, a(F32, &[4, 2, 3, 3]), "rhs")?;
            b.conv_with_general_padding(x, k, &[1, 1], &[(0, 0), (1, -1)], &[2, 1], &[1, 2])
        }),
        "f32[1,4,7,1]"
    );
    // ConvGeneral: NHWC / HWIO with 2 feature groups.
    let nhwc = ConvDims::nhwc(2);
    let args = ConvGeneral {
        strides: vec![1, 1],
        padding: vec![(1, 1), (1, 1)],
        lhs_dilation: vec![1, 1],
        rhs_dilation: vec![1, 1],
        dims: nhwc,
        feature_group_count: 2,
        batch_group_count: 1,
    };
    let a2 = args.clone();
    assert_eq!(
        root(move |b| {
            let x = b.parameter(0, a(F32, &[1, 6, 6, 4]), "lhs")?;
            let k = b.parameter(1, a(F32, &[3, 3, 2, 8]), "rhs")?;
            b.conv_general(x, k, &a2)
        }),
        "f32[1,6,6,8]"
    );
    assert_eq!(
        fails(move |b| {
            let x = b.parameter(0, a(F32, &[1, 6, 6, 4]), "lhs")?;
            let k = b.parameter(1, a(F32, &[3, 3, 4, 8]), "rhs")?;
            b.conv_general(x, k, &args)
        }),
        "convolution: input features 4 / feature_group_count 2 must equal the kernel's input features 4 (lhs f32[1,6,6,4], rhs f32[3,3,4,8])"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[1, 2, 5, 5]), "lhs")?;
            let k = b.parameter(1, a(F32, &[4, 2, 3, 3]), "rhs")?;
            b.conv(x, k, &[1], Padding::Same)
        }),
        "conv: 1 strides for 2 spatial dimensions"
    );
}

#[test]
fn calls_and_control_flow() {
    assert_eq!(
        root(|b| {
            let add = add_comp(b, F32);
            let x = b.parameter(0, Shape::scalar(F32), "x")?;
            let y = b.call(add, &[x, x])?;
            b.fusion("kLoop", add, &[y, x])
        }),
        "f32[]"
    );
    assert_eq!(
        fails(|b| {
            let add = add_comp(b, F32);
            let x = b.parameter(0, Shape::scalar(F32), "x")?;
            b.call(add, &[x])
        }),
        "call: arguments (f32[]) do not match the parameters of add_f32 (f32[], f32[]) -> f32[]"
    );
    // Zero-argument call.
    assert_eq!(
        root(|b| {
            let k = {
                let mut c = b.sub_computation("k");
                let r = c.constant_r0(7i32)?;
                c.build(r)?
            };
            b.call(k, &[])
        }),
        "s32[]"
    );
    let branches = |b: &mut ComputationBuilder<'_>| -> rxla_ir::Result<_> {
        let neg = {
            let mut c = b.sub_computation("neg");
            let x = c.parameter(0, Shape::scalar(F32), "x")?;
            let r = c.neg(x)?;
            c.build(r)?
        };
        let id = {
            let mut c = b.sub_computation("id");
            let x = c.parameter(0, Shape::scalar(F32), "x")?;
            c.build(x)?
        };
        Ok((neg, id))
    };
    assert_eq!(
        root(|b| {
            let (neg, id) = branches(b)?;
            let p = b.parameter(0, Shape::scalar(Pred), "p")?;
            let x = b.parameter(1, Shape::scalar(F32), "x")?;
            b.conditional(p, x, neg, x, id)
        }),
        "f32[]"
    );
    assert_eq!(
        root(|b| {
            let (neg, id) = branches(b)?;
            let i = b.parameter(0, Shape::scalar(S32), "i")?;
            let x = b.parameter(1, Shape::scalar(F32), "x")?;
            b.conditional_indexed(i, &[neg, id, neg], &[x, x, x])
        }),
        "f32[]"
    );
    assert_eq!(
        fails(|b| {
            let (neg, id) = branches(b)?;
            let i = b.parameter(0, Shape::scalar(F32), "i")?;
            let x = b.parameter(1, Shape::scalar(F32), "x")?;
            b.conditional_indexed(i, &[neg, id], &[x, x])
        }),
        "conditional: the selector must be pred[] or s32[], got f32[]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[3]), "x")?;
            let y = b.parameter(1, a(F32, &[3]), "y")?;
            b.custom_call("myfunc", &[x, y], a(F32, &[3, 3]))
        }),
        "f32[3,3]"
    );
}

#[test]
fn effects_and_rng() {
    assert_eq!(root(|b| b.infeed(a(F32, &[2, 2]))), "f32[2,2]");
    assert_eq!(
        root(|b| {
            let t = b.after_all(&[])?;
            b.infeed_with_token(t, Shape::tuple(vec![]), "")
        }),
        "((), token[])"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2]), "x")?;
            b.outfeed(x)
        }),
        "token[]"
    );
    assert_eq!(
        root(|b| {
            let t1 = b.after_all(&[])?;
            let t2 = b.after_all(&[])?;
            b.after_all(&[t1, t2])
        }),
        "token[]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[2, 2]), "x")?;
            b.cross_replica_sum(x)
        }),
        "f32[2,2]"
    );
    assert_eq!(
        root(|b| {
            let add = add_comp(b, S32);
            let x = b.parameter(0, a(S32, &[3]), "x")?;
            let y = b.parameter(1, a(S32, &[4]), "y")?;
            b.all_reduce(&[x, y], add, vec![vec![0, 1]])
        }),
        "(s32[3], s32[4])"
    );
    assert_eq!(
        root(|b| {
            let lo = b.constant_r0(0f32)?;
            let hi = b.constant_r0(1f32)?;
            b.rng_uniform(lo, hi, a(F32, &[3, 2]))
        }),
        "f32[3,2]"
    );
    assert_eq!(
        root(|b| {
            let lo = b.constant_r0(0i32)?;
            let hi = b.constant_r0(10i32)?;
            b.rng_uniform(lo, hi, a(S32, &[4]))
        }),
        "s32[4]"
    );
    assert_eq!(
        root(|b| {
            let mu = b.constant_r0(0f32)?;
            let sigma = b.constant_r0(1f32)?;
            b.rng_normal(mu, sigma, a(F32, &[5]))
        }),
        "f32[5]"
    );
    let m = entry(|b| {
        let mean = b.constant_r0(0.25f32)?;
        b.rng_bernoulli(mean, a(U32, &[2, 3]))
    });
    assert_eq!(
        m.entry_computation()
            .root_instruction()
            .shape
            .to_string_no_layout(),
        "u32[2,3]"
    );
    assert_eq!(
        opcodes(&m),
        [
            "constant",
            "constant",
            "constant",
            "rng",
            "broadcast",
            "compare",
            "convert"
        ]
    );
    assert_eq!(
        fails(|b| {
            let mean = b.constant_r0(1i32)?;
            b.rng_bernoulli(mean, a(U32, &[2]))
        }),
        "rng_bernoulli: the mean must be a float scalar, got s32[]"
    );
    assert_eq!(
        fails(|b| {
            let mu = b.constant_r0(0i32)?;
            b.rng_normal(mu, mu, a(S32, &[5]))
        }),
        "rng_normal: rng: rng_normal does not support element type s32"
    );
    assert_eq!(
        root(|b| {
            let s = b.parameter(0, a(U64, &[2]), "state")?;
            b.rng_bit_generator(RngAlgorithm::ThreeFry, s, a(U32, &[4, 4]))
        }),
        "(u64[2], u32[4,4])"
    );
}

#[test]
fn map_and_sort() {
    assert_eq!(
        root(|b| {
            let add = add_comp(b, F32);
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            let y = b.parameter(1, a(F32, &[2, 3]), "y")?;
            b.map(&[x, y], add)
        }),
        "f32[2,3]"
    );
    assert_eq!(
        fails(|b| {
            let add = add_comp(b, F32);
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            b.map(&[x], add)
        }),
        "map: computation add_f32 must take scalars (f32[]) and return a scalar, got (f32[], f32[]) -> f32[]"
    );
    // Static operands: f(x, k) with k broadcast.
    let m = entry(|b| {
        let add = add_comp(b, F32);
        let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
        let k = b.constant_r0(10f32)?;
        b.map_with_static(&[x], add, &[k])
    });
    assert_eq!(opcodes(&m), ["parameter", "constant", "broadcast", "map"]);
    assert_eq!(
        m.entry_computation()
            .root_instruction()
            .shape
            .to_string_no_layout(),
        "f32[2,3]"
    );
    assert_eq!(
        fails(|b| {
            let add = add_comp(b, F32);
            let x = b.parameter(0, a(F32, &[2, 3]), "x")?;
            b.map_with_static(&[x], add, &[x])
        }),
        "map: static operands must be scalars, got f32[2,3]"
    );
    let m = entry(|b| {
        let x = b.parameter(0, a(F32, &[5]), "x")?;
        b.sort_ascending(x)
    });
    assert_eq!(
        m.entry_computation()
            .root_instruction()
            .shape
            .to_string_no_layout(),
        "f32[5]"
    );
    assert_eq!(m.computations[0].name, "compare_LT_f32");
    assert_eq!(
        root(|b| {
            let cmp = {
                let mut c = b.sub_computation("by_key");
                let k1 = c.parameter(0, Shape::scalar(F32), "k1")?;
                let k2 = c.parameter(1, Shape::scalar(F32), "k2")?;
                c.parameter(2, Shape::scalar(S32), "v1")?;
                c.parameter(3, Shape::scalar(S32), "v2")?;
                let r = c.lt(k1, k2)?;
                c.build(r)?
            };
            let k = b.parameter(0, a(F32, &[2, 5]), "k")?;
            let v = b.iota(a(S32, &[2, 5]), 1)?;
            b.sort(&[k, v], cmp, -1, true)
        }),
        "(f32[2,5], s32[2,5])"
    );
}

#[test]
fn gather_and_scatter() {
    let dims = GatherDims {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..GatherDims::default()
    };
    let d2 = dims.clone();
    assert_eq!(
        root(move |b| {
            let x = b.parameter(0, a(F32, &[5, 4]), "x")?;
            let i = b.constant_r1(vec![0i32, 3, 1])?;
            let i = b.reshape(i, &[3, 1])?;
            b.gather(x, i, d2, &[1, 4])
        }),
        "f32[3,4]"
    );
    assert_eq!(
        fails(move |b| {
            let x = b.parameter(0, a(F32, &[5, 4]), "x")?;
            let i = b.parameter(1, a(S32, &[3, 1]), "i")?;
            b.gather(x, i, dims, &[1, 4, 1])
        }),
        "gather: slice_sizes [1, 4, 1] must have one entry per dimension of f32[5,4]"
    );
    let sd = ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..ScatterDims::default()
    };
    assert_eq!(
        root(move |b| {
            let add = add_comp(b, F32);
            let x = b.parameter(0, a(F32, &[5, 4]), "x")?;
            let i = b.parameter(1, a(S32, &[3, 1]), "i")?;
            let u = b.parameter(2, a(F32, &[3, 4]), "u")?;
            b.scatter(&[x], i, &[u], add, sd)
        }),
        "f32[5,4]"
    );
}

#[test]
fn builder_misuse() {
    assert_eq!(
        fails(|b| {
            b.parameter(0, a(F32, &[2]), "x")?;
            b.parameter(0, a(F32, &[2]), "y")
        }),
        "parameter: number 0 is already used by x"
    );
    assert_eq!(
        fails(|b| {
            let x = b.parameter(0, a(F32, &[2]), "x")?;
            let stranger = Value(rxla_ir::InstrId(x.0.0 + 5));
            b.add(x, stranger)
        }),
        "add: value %5 does not belong to computation main"
    );
    let mut mb = ModuleBuilder::new("t");
    assert_eq!(
        mb.computation("main")
            .build(Value(rxla_ir::InstrId(0)))
            .unwrap_err()
            .to_string(),
        "build: value %0 does not belong to computation main"
    );
    assert_eq!(
        ModuleBuilder::new("t")
            .build_entry(rxla_ir::CompId(0))
            .unwrap_err()
            .to_string(),
        "build_entry: computation comp#0 does not exist"
    );
    // Fresh, readable, unique names.
    let m = entry(|b| {
        let x = b.parameter(0, a(F32, &[2]), "x")?;
        let y = b.add(x, x)?;
        b.mul(y, x)
    });
    let names: Vec<&str> = m
        .entry_computation()
        .instructions
        .iter()
        .map(|i| i.name.as_str())
        .collect();
    assert_eq!(names, ["x", "add.1", "multiply.2"]);
    // Two computations built from the same name get distinct names.
    let mut mb = ModuleBuilder::new("t");
    let mut b = mb.computation("main");
    let c1 = b.scalar_binary_computation(BinaryOp::Add, F32).unwrap();
    let c2 = b.scalar_binary_computation(BinaryOp::Add, F32).unwrap();
    let x = b.constant_r0(1f32).unwrap();
    let r = b.call(c2, &[x, x]).unwrap();
    let r = b.call(c1, &[r, x]).unwrap();
    let main = b.build(r).unwrap();
    let m = mb.build_entry(main).unwrap();
    let names: Vec<&str> = m.computations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["add_f32", "add_f32.1", "main"]);
}

#[test]
fn erf_reduce_precision_and_top_k_shapes() {
    let mut mb = rxla_ir::builder::ModuleBuilder::new("m");
    let mut b = mb.computation("main");
    let x = b
        .parameter(
            0,
            rxla_ir::Shape::array(rxla_ir::ElementType::F32, vec![2, 5]).unwrap(),
            "x",
        )
        .unwrap();
    let e = b.erf(x).unwrap();
    let r = b.reduce_precision(e, 5, 10).unwrap();
    let t = b.top_k(r, 3, true).unwrap();
    assert_eq!(
        b.shape(t).unwrap().to_string(),
        "(f32[2,3]{1,0}, s32[2,3]{1,0})"
    );
    let err = b.top_k(r, 6, true).unwrap_err().to_string();
    assert!(err.contains("k=6"), "{err}");
    let i = b
        .parameter(
            1,
            rxla_ir::Shape::array(rxla_ir::ElementType::S32, vec![2]).unwrap(),
            "i",
        )
        .unwrap();
    assert!(b.erf(i).unwrap_err().to_string().contains("floating-point"));
    assert!(b.reduce_precision(i, 5, 10).is_err());
}

#[test]
fn cholesky_and_triangular_solve_shapes() {
    use rxla_ir::{ElementType, Shape, TransposeA, TriangularSolveOptions};
    let mut mb = rxla_ir::builder::ModuleBuilder::new("m");
    let mut b = mb.computation("main");
    let f = |dims: Vec<i64>| Shape::array(ElementType::F64, dims).unwrap();
    let a = b.parameter(0, f(vec![2, 3, 3]), "a").unwrap();
    let rhs = b.parameter(1, f(vec![2, 3, 4]), "b").unwrap();
    let rect = b.parameter(2, f(vec![2, 3, 4]), "r").unwrap();
    let l = b.cholesky(a, true).unwrap();
    assert_eq!(b.shape(l).unwrap().to_string(), "f64[2,3,3]{2,1,0}");
    let err = b.cholesky(rect, false).unwrap_err().to_string();
    assert!(err.contains("cholesky") && err.contains("square"), "{err}");
    let mut o = TriangularSolveOptions {
        transpose_a: TransposeA::Adjoint,
        ..TriangularSolveOptions::default()
    };
    let x = b.triangular_solve(l, rhs, o).unwrap();
    assert_eq!(b.shape(x).unwrap().to_string(), "f64[2,3,4]{2,1,0}");
    // Right side: b must be [..., n, m].
    o.left_side = false;
    let err = b.triangular_solve(l, rhs, o).unwrap_err().to_string();
    assert!(
        err.contains("triangular-solve") && err.contains("shared dimension"),
        "{err}"
    );
    let i = b
        .parameter(3, Shape::array(ElementType::S32, vec![3, 3]).unwrap(), "i")
        .unwrap();
    let err = b.cholesky(i, true).unwrap_err().to_string();
    assert!(err.contains("f32, f64, c64 or c128"), "{err}");
    // Complex operands are accepted.
    let c = b
        .parameter(4, Shape::array(ElementType::C64, vec![3, 3]).unwrap(), "c")
        .unwrap();
    let lc = b.cholesky(c, true).unwrap();
    assert_eq!(b.shape(lc).unwrap().to_string(), "c64[3,3]{1,0}");
}
