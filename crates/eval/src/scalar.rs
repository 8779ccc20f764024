//! A copyable scalar value and an allocation-free interpreter for small
//! called computations whose instructions are all scalar elementwise ops
//! (sort comparators, reducers, scatter and select bodies). The arithmetic
//! itself is `elementwise`'s scalar functions, so results are identical to
//! the general path; this module only avoids building a literal per
//! instruction. Anything it does not handle is left to the general path.

use crate::elementwise;
use crate::error::{EvalError, Result};
use half::{bf16, f16};
use rxla_ir::{
    ArrayData, ArrayLiteral, ArrayShape, BinaryOp, ComparisonDirection, ComparisonType,
    Computation, ElementType, Literal, Op, Shape, UnaryOp,
};

/// One element of any array element type (token excluded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Pred(bool),
    S8(i8),
    S16(i16),
    S32(i32),
    S64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(f16),
    BF16(bf16),
    F32(f32),
    F64(f64),
}

macro_rules! each_scalar {
    ($m:ident) => {
        $m!(Pred, bool);
        $m!(S8, i8);
        $m!(S16, i16);
        $m!(S32, i32);
        $m!(S64, i64);
        $m!(U8, u8);
        $m!(U16, u16);
        $m!(U32, u32);
        $m!(U64, u64);
        $m!(F16, f16);
        $m!(BF16, bf16);
        $m!(F32, f32);
        $m!(F64, f64);
    };
}

impl Scalar {
    pub fn element_type(self) -> ElementType {
        macro_rules! arm {
            ($($v:ident),*) => {
                match self { $(Scalar::$v(_) => ElementType::$v,)* }
            };
        }
        arm!(
            Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64
        )
    }

    /// Element `i` of `data`; `None` for tokens or out of range.
    pub fn from_data(data: &ArrayData, i: usize) -> Option<Scalar> {
        macro_rules! arm {
            ($v:ident, $t:ty) => {
                if let ArrayData::$v(x) = data {
                    return x.get(i).map(|&e| Scalar::$v(e));
                }
            };
        }
        each_scalar!(arm);
        None
    }

    /// A one-element data vector.
    pub fn to_data(self) -> ArrayData {
        macro_rules! arm {
            ($($v:ident),*) => {
                match self { $(Scalar::$v(x) => ArrayData::$v(vec![x]),)* }
            };
        }
        arm!(
            Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64
        )
    }

    /// A rank-0 literal.
    pub fn to_literal(self) -> Literal {
        let shape = ArrayShape::new(self.element_type(), Vec::new()).expect("scalar shape");
        Literal::Array(ArrayLiteral {
            shape,
            data: self.to_data(),
            runtime_sizes: Vec::new(),
        })
    }
}

#[derive(Clone, Debug)]
enum Step {
    Param(usize),
    Const(Scalar),
    Unary(UnaryOp, usize),
    Binary(BinaryOp, usize, usize),
    Compare(ComparisonDirection, Option<ComparisonType>, usize, usize),
    Select(usize, usize, usize),
    Clamp(usize, usize, usize),
    Convert(ElementType, usize),
    /// Live value slots are dense; dead instructions become `Skip`.
    Skip,
}

/// A scalar computation ready to run without allocating per instruction.
#[derive(Clone, Debug)]
pub struct ScalarProgram {
    steps: Vec<Step>,
    /// Declared element type of each step's result (checked when run).
    types: Vec<ElementType>,
    params: Vec<ElementType>,
    root: Vec<usize>,
    tuple_root: bool,
}

fn scalar_type(s: &Shape) -> Option<ElementType> {
    match s {
        Shape::Array(a) if a.dims.is_empty() && a.element_type != ElementType::Token => {
            Some(a.element_type)
        }
        _ => None,
    }
}

impl ScalarProgram {
    /// Compiles `comp` when every live instruction is a scalar parameter,
    /// constant, unary/binary op, compare, select, clamp or convert, and
    /// the root is a scalar or a tuple of scalars. `live` masks dead code.
    pub fn compile(comp: &Computation, live: &[bool]) -> Option<ScalarProgram> {
        let n = comp.len();
        let root = comp.root.index();
        let mut steps = Vec::with_capacity(n);
        let mut types = Vec::with_capacity(n);
        let mut params: Vec<Option<ElementType>> = Vec::new();
        let (root_ops, tuple_root) = match &comp.instructions.get(root)?.op {
            Op::Tuple => (comp.instructions[root].operands.clone(), true),
            _ => (vec![comp.root], false),
        };
        for (i, instr) in comp.instructions.iter().enumerate() {
            if !live.get(i).copied().unwrap_or(false) || (tuple_root && i == root) {
                steps.push(Step::Skip);
                types.push(ElementType::Pred);
                continue;
            }
            let ty = scalar_type(&instr.shape)?;
            types.push(ty);
            let o = |k: usize| -> Option<usize> {
                let id = instr.operands.get(k)?.index();
                (id < i).then_some(id)
            };
            let arity_ok = |a: usize| instr.operands.len() == a;
            let step = match &instr.op {
                Op::Parameter { number } => {
                    let p = usize::try_from(*number).ok()?;
                    if params.len() <= p {
                        params.resize(p + 1, None);
                    }
                    params[p] = Some(ty);
                    Step::Param(p)
                }
                Op::Constant { literal } => {
                    let a = literal.as_array().ok()?;
                    if a.shape.element_type != ty || a.data.len() != 1 {
                        return None;
                    }
                    Step::Const(Scalar::from_data(&a.data, 0)?)
                }
                Op::Unary(u) if arity_ok(1) => Step::Unary(*u, o(0)?),
                Op::Binary(b) if arity_ok(2) => Step::Binary(*b, o(0)?, o(1)?),
                Op::Compare { direction, kind } if arity_ok(2) => {
                    Step::Compare(*direction, *kind, o(0)?, o(1)?)
                }
                Op::Select if arity_ok(3) => Step::Select(o(0)?, o(1)?, o(2)?),
                Op::Clamp if arity_ok(3) => Step::Clamp(o(0)?, o(1)?, o(2)?),
                Op::Convert if arity_ok(1) => Step::Convert(ty, o(0)?),
                _ => return None,
            };
            steps.push(step);
        }
        let root: Vec<usize> = root_ops.iter().map(|r| r.index()).collect();
        if root
            .iter()
            .any(|&r| r >= n || matches!(steps[r], Step::Skip))
        {
            return None;
        }
        Some(ScalarProgram {
            steps,
            types,
            params: params.into_iter().collect::<Option<Vec<_>>>()?,
            root,
            tuple_root,
        })
    }

    /// Scalar arguments when `args` are rank-0 arrays of the parameter
    /// types; `None` sends the call to the general path.
    pub fn scalar_args(&self, args: &[Literal]) -> Option<Vec<Scalar>> {
        if args.len() != self.params.len() {
            return None;
        }
        args.iter()
            .zip(&self.params)
            .map(|(a, &ty)| match a {
                Literal::Array(x) if x.shape.dims.is_empty() && x.shape.element_type == ty => {
                    Scalar::from_data(&x.data, 0)
                }
                _ => None,
            })
            .collect()
    }

    /// Runs the program.
    pub fn run(&self, args: &[Scalar]) -> Result<Literal> {
        let mut v: Vec<Scalar> = Vec::with_capacity(self.steps.len());
        let filler = Scalar::Pred(false);
        for (step, &ty) in self.steps.iter().zip(&self.types) {
            let x = match *step {
                Step::Skip => filler,
                Step::Param(p) => *args
                    .get(p)
                    .ok_or_else(|| EvalError::new(format!("parameter {p} missing")))?,
                Step::Const(c) => c,
                Step::Unary(op, a) => elementwise::scalar_unary(op, v[a])?,
                Step::Binary(op, a, b) => elementwise::scalar_binary(op, v[a], v[b])?,
                Step::Compare(d, k, a, b) => {
                    Scalar::Pred(elementwise::scalar_compare(d, k, v[a], v[b])?)
                }
                Step::Select(p, t, f) => match v[p] {
                    Scalar::Pred(true) => v[t],
                    Scalar::Pred(false) => v[f],
                    other => {
                        return Err(EvalError::new(format!(
                            "select predicate is {}",
                            other.element_type()
                        )));
                    }
                },
                Step::Clamp(lo, x, hi) => {
                    let m = elementwise::scalar_binary(BinaryOp::Maximum, v[x], v[lo])?;
                    elementwise::scalar_binary(BinaryOp::Minimum, m, v[hi])?
                }
                Step::Convert(ty, a) => elementwise::scalar_convert(v[a], ty)?,
            };
            if !matches!(step, Step::Skip) && x.element_type() != ty {
                return Err(EvalError::new(format!(
                    "produced {} where {ty} was declared",
                    x.element_type()
                )));
            }
            v.push(x);
        }
        if self.tuple_root {
            Ok(Literal::Tuple(
                self.root.iter().map(|&r| v[r].to_literal()).collect(),
            ))
        } else {
            Ok(v[self.root[0]].to_literal())
        }
    }
}
