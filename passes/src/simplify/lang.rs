//! The e-graph language of `simplify`: one variant per modeled HLO op.
//! Static attributes (permutations, target dims, slice bounds, dot
//! dimension numbers, ...) are leaf children ([`Attr`]) so rules can bind
//! them with pattern variables; constants are [`ConstVal`] leaves compared
//! by value bits; tuples and `get-tuple-element` are nodes (so rules see
//! through tuples); every op the language does not model (variadic reduce
//! included) is an [`Hlo::Opaque`] node bound to the original instruction
//! by name, with its operands as children (so they are still simplified).
//! A node stands for a *logical* value: layouts are not part of the
//! language (see `lower.rs` and `raise.rs` for how physical placement is
//! kept). Data types and text only: no rewriting, no shape logic.

use egg::{Id, Symbol, define_language};
use rxla_ir::{
    ArrayData, ArrayLiteral, ArrayShape, BinaryOp, ComparisonDirection, ComparisonType,
    ElementType, UnaryOp,
};
use std::fmt;
use std::str::FromStr;

define_language! {
    /// Modeled HLO ops. Children: attribute leaves first, then operands.
    pub enum Hlo {
        "not" = Not([Id; 1]),
        "negate" = Negate([Id; 1]),
        "abs" = Abs([Id; 1]),
        "sign" = Sign([Id; 1]),
        "floor" = Floor([Id; 1]),
        "ceil" = Ceil([Id; 1]),
        "round-nearest-afz" = RoundAfz([Id; 1]),
        "round-nearest-even" = RoundEven([Id; 1]),
        "sqrt" = Sqrt([Id; 1]),
        "rsqrt" = Rsqrt([Id; 1]),
        "cbrt" = Cbrt([Id; 1]),
        "exponential" = Exp([Id; 1]),
        "exponential-minus-one" = Expm1([Id; 1]),
        "log" = Log([Id; 1]),
        "log-plus-one" = Log1p([Id; 1]),
        "logistic" = Logistic([Id; 1]),
        "tanh" = Tanh([Id; 1]),
        "sine" = Sin([Id; 1]),
        "cosine" = Cos([Id; 1]),
        "tan" = Tan([Id; 1]),
        "is-finite" = IsFinite([Id; 1]),
        "popcnt" = Popcnt([Id; 1]),
        "count-leading-zeros" = Clz([Id; 1]),
        "erf" = Erf([Id; 1]),
        "add" = Add([Id; 2]),
        "subtract" = Sub([Id; 2]),
        "multiply" = Mul([Id; 2]),
        "divide" = Div([Id; 2]),
        "remainder" = Rem([Id; 2]),
        "maximum" = Max([Id; 2]),
        "minimum" = Min([Id; 2]),
        "power" = Pow([Id; 2]),
        "atan2" = Atan2([Id; 2]),
        "and" = And([Id; 2]),
        "or" = Or([Id; 2]),
        "xor" = Xor([Id; 2]),
        "shift-left" = Shl([Id; 2]),
        "shift-right-arithmetic" = Sra([Id; 2]),
        "shift-right-logical" = Srl([Id; 2]),
        // (compare CMP a b)
        "compare" = Compare([Id; 3]),
        // (select p t f)
        "select" = Select([Id; 3]),
        // (clamp lo x hi)
        "clamp" = Clamp([Id; 3]),
        // (convert TY x)
        "convert" = Convert([Id; 2]),
        "copy" = Copy([Id; 1]),
        // (reshape DIMS x)
        "reshape" = Reshape([Id; 2]),
        // (transpose PERM x)
        "transpose" = Transpose([Id; 2]),
        // (broadcast BCAST x)
        "broadcast" = Broadcast([Id; 2]),
        // (reverse DIMS x)
        "reverse" = Reverse([Id; 2]),
        // (slice SLICE x)
        "slice" = Slice([Id; 2]),
        // (concatenate DIM x...)
        "concatenate" = Concatenate(Box<[Id]>),
        // (pad PAD x value)
        "pad" = Pad([Id; 3]),
        // (dot DOT a b)
        "dot" = Dot([Id; 3]),
        // (reduce REDUCE x init)
        "reduce" = Reduce([Id; 3]),
        // (tuple x...): a tuple of arrays and tuples
        "tuple" = Tuple(Box<[Id]>),
        // (get-tuple-element INDEX t): INDEX is `Ints([i])`
        "get-tuple-element" = Gte([Id; 2]),
        Attr(Attr),
        Const(ConstVal),
        // An instruction the language does not model, by name, with its
        // operands.
        Opaque(Symbol, Vec<Id>),
    }
}

/// A static attribute, stored as a leaf e-node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Attr {
    /// Permutation, target dims, reversed dims, concatenate dimension
    /// (one element).
    Ints(Vec<i64>),
    /// Broadcast: output dims and operand-dim → output-dim map.
    Bcast {
        out: Vec<i64>,
        map: Vec<i64>,
    },
    Slice {
        starts: Vec<i64>,
        limits: Vec<i64>,
        strides: Vec<i64>,
    },
    /// (low, high, interior) per dimension.
    Pad(Vec<(i64, i64, i64)>),
    Dot {
        lb: Vec<i64>,
        lc: Vec<i64>,
        rb: Vec<i64>,
        rc: Vec<i64>,
    },
    Cmp {
        dir: ComparisonDirection,
        kind: Option<ComparisonType>,
    },
    Ty(ElementType),
    /// Reduce dimensions and the reducer (computation index).
    Reduce {
        dims: Vec<i64>,
        comp: u32,
    },
}

fn ints(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attr::Ints(v) => write!(f, "{{{}}}", ints(v)),
            Attr::Bcast { out, map } => write!(f, "bcast[{}]{{{}}}", ints(out), ints(map)),
            Attr::Slice {
                starts,
                limits,
                strides,
            } => {
                let parts: Vec<String> = (0..starts.len())
                    .map(|i| format!("{}:{}:{}", starts[i], limits[i], strides[i]))
                    .collect();
                write!(f, "slice[{}]", parts.join(","))
            }
            Attr::Pad(p) => {
                let parts: Vec<String> = p.iter().map(|(l, h, i)| format!("{l}_{h}_{i}")).collect();
                write!(f, "pad[{}]", parts.join("x"))
            }
            Attr::Dot { lb, lc, rb, rc } => write!(
                f,
                "dot[lb={{{}}},lc={{{}}},rb={{{}}},rc={{{}}}]",
                ints(lb),
                ints(lc),
                ints(rb),
                ints(rc)
            ),
            Attr::Cmp { dir, kind } => match kind {
                Some(k) => write!(f, "cmp[{},{}]", dir.name(), k.name()),
                None => write!(f, "cmp[{}]", dir.name()),
            },
            Attr::Ty(t) => write!(f, "ty[{t}]"),
            Attr::Reduce { dims, comp } => write!(f, "reduce[{{{}}},comp#{comp}]", ints(dims)),
        }
    }
}

/// Attributes are never written in rule patterns (rules bind them with
/// variables), so parsing always fails.
impl FromStr for Attr {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Err(format!("attributes are not parsed: `{s}`"))
    }
}

/// A constant array, compared and hashed by element type, dims and the
/// exact little-endian bytes of its row-major data (so -0 ≠ +0 and NaNs
/// are equal only with equal bits).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConstVal {
    pub ty: ElementType,
    pub dims: Vec<i64>,
    pub bytes: Vec<u8>,
}

impl ConstVal {
    /// The constant of an array literal (layout dropped: data is row-major).
    pub fn from_literal(l: &ArrayLiteral) -> ConstVal {
        ConstVal {
            ty: l.shape.element_type,
            dims: l.shape.dims.clone(),
            bytes: l.data.to_le_bytes(),
        }
    }

    /// A scalar constant from the little-endian bits of one element.
    pub fn scalar(ty: ElementType, bits: u64) -> ConstVal {
        let n = ty.byte_size();
        let mut bytes = bits.to_le_bytes()[..n].to_vec();
        if ty.is_narrow() {
            // One byte per element, integers masked (`ArrayData::narrow`).
            bytes[0] = rxla_ir::narrow::canonical(ty, bytes[0]);
        }
        ConstVal {
            ty,
            dims: Vec::new(),
            bytes,
        }
    }

    /// The literal back, with the default layout.
    pub fn to_literal(&self) -> rxla_ir::Result<ArrayLiteral> {
        let shape = ArrayShape::new(self.ty, self.dims.clone())?;
        let data = ArrayData::from_le_bytes(self.ty, &self.bytes)?;
        ArrayLiteral::new(shape, data)
    }

    /// The bits of element `i` (zero-extended), if in range.
    pub fn element_bits(&self, i: usize) -> Option<u64> {
        let n = self.ty.byte_size();
        let chunk = self.bytes.get(i * n..(i + 1) * n)?;
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(chunk);
        Some(u64::from_le_bytes(b))
    }

    /// The common bits of every element, when all elements are equal.
    pub fn splat_bits(&self) -> Option<u64> {
        let n = self.ty.byte_size();
        if n == 0 {
            return None;
        }
        let first = self.bytes.get(..n)?;
        if self.bytes.chunks_exact(n).all(|c| c == first) {
            self.element_bits(0)
        } else {
            None
        }
    }
}

impl fmt::Display for ConstVal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.dims.is_empty(), self.to_literal()) {
            (true, Ok(l)) => {
                let mut s = String::new();
                l.data.format_element(0, &mut s);
                write!(f, "{}[]{{{s}}}", self.ty)
            }
            _ => write!(f, "{}[{}]{{...}}", self.ty, ints(&self.dims)),
        }
    }
}

impl FromStr for ConstVal {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Err(format!("constants are not parsed: `{s}`"))
    }
}

impl Hlo {
    /// The node of unary op `u` applied to `x` (`None` for an op the
    /// language does not model yet: it is lowered as opaque).
    pub fn unary(u: UnaryOp, x: Id) -> Option<Hlo> {
        Some(match u {
            UnaryOp::Not => Hlo::Not([x]),
            UnaryOp::Negate => Hlo::Negate([x]),
            UnaryOp::Abs => Hlo::Abs([x]),
            UnaryOp::Sign => Hlo::Sign([x]),
            UnaryOp::Floor => Hlo::Floor([x]),
            UnaryOp::Ceil => Hlo::Ceil([x]),
            UnaryOp::RoundNearestAfz => Hlo::RoundAfz([x]),
            UnaryOp::RoundNearestEven => Hlo::RoundEven([x]),
            UnaryOp::Sqrt => Hlo::Sqrt([x]),
            UnaryOp::Rsqrt => Hlo::Rsqrt([x]),
            UnaryOp::Cbrt => Hlo::Cbrt([x]),
            UnaryOp::Exp => Hlo::Exp([x]),
            UnaryOp::Expm1 => Hlo::Expm1([x]),
            UnaryOp::Log => Hlo::Log([x]),
            UnaryOp::Log1p => Hlo::Log1p([x]),
            UnaryOp::Logistic => Hlo::Logistic([x]),
            UnaryOp::Tanh => Hlo::Tanh([x]),
            UnaryOp::Sin => Hlo::Sin([x]),
            UnaryOp::Cos => Hlo::Cos([x]),
            UnaryOp::Tan => Hlo::Tan([x]),
            UnaryOp::IsFinite => Hlo::IsFinite([x]),
            UnaryOp::Popcnt => Hlo::Popcnt([x]),
            UnaryOp::Clz => Hlo::Clz([x]),
            UnaryOp::Erf => Hlo::Erf([x]),
            #[allow(unreachable_patterns)]
            _ => return None,
        })
    }

    /// The node of binary op `b` applied to `x`, `y`.
    pub fn binary(b: BinaryOp, x: Id, y: Id) -> Hlo {
        match b {
            BinaryOp::Add => Hlo::Add([x, y]),
            BinaryOp::Subtract => Hlo::Sub([x, y]),
            BinaryOp::Multiply => Hlo::Mul([x, y]),
            BinaryOp::Divide => Hlo::Div([x, y]),
            BinaryOp::Remainder => Hlo::Rem([x, y]),
            BinaryOp::Maximum => Hlo::Max([x, y]),
            BinaryOp::Minimum => Hlo::Min([x, y]),
            BinaryOp::Power => Hlo::Pow([x, y]),
            BinaryOp::Atan2 => Hlo::Atan2([x, y]),
            BinaryOp::And => Hlo::And([x, y]),
            BinaryOp::Or => Hlo::Or([x, y]),
            BinaryOp::Xor => Hlo::Xor([x, y]),
            BinaryOp::ShiftLeft => Hlo::Shl([x, y]),
            BinaryOp::ShiftRightArithmetic => Hlo::Sra([x, y]),
            BinaryOp::ShiftRightLogical => Hlo::Srl([x, y]),
        }
    }

    /// The unary op of an elementwise unary node.
    pub fn as_unary(&self) -> Option<(UnaryOp, Id)> {
        Some(match self {
            Hlo::Not([x]) => (UnaryOp::Not, *x),
            Hlo::Negate([x]) => (UnaryOp::Negate, *x),
            Hlo::Abs([x]) => (UnaryOp::Abs, *x),
            Hlo::Sign([x]) => (UnaryOp::Sign, *x),
            Hlo::Floor([x]) => (UnaryOp::Floor, *x),
            Hlo::Ceil([x]) => (UnaryOp::Ceil, *x),
            Hlo::RoundAfz([x]) => (UnaryOp::RoundNearestAfz, *x),
            Hlo::RoundEven([x]) => (UnaryOp::RoundNearestEven, *x),
            Hlo::Sqrt([x]) => (UnaryOp::Sqrt, *x),
            Hlo::Rsqrt([x]) => (UnaryOp::Rsqrt, *x),
            Hlo::Cbrt([x]) => (UnaryOp::Cbrt, *x),
            Hlo::Exp([x]) => (UnaryOp::Exp, *x),
            Hlo::Expm1([x]) => (UnaryOp::Expm1, *x),
            Hlo::Log([x]) => (UnaryOp::Log, *x),
            Hlo::Log1p([x]) => (UnaryOp::Log1p, *x),
            Hlo::Logistic([x]) => (UnaryOp::Logistic, *x),
            Hlo::Tanh([x]) => (UnaryOp::Tanh, *x),
            Hlo::Sin([x]) => (UnaryOp::Sin, *x),
            Hlo::Cos([x]) => (UnaryOp::Cos, *x),
            Hlo::Tan([x]) => (UnaryOp::Tan, *x),
            Hlo::IsFinite([x]) => (UnaryOp::IsFinite, *x),
            Hlo::Popcnt([x]) => (UnaryOp::Popcnt, *x),
            Hlo::Clz([x]) => (UnaryOp::Clz, *x),
            Hlo::Erf([x]) => (UnaryOp::Erf, *x),
            _ => return None,
        })
    }

    /// The binary op of an elementwise binary node.
    pub fn as_binary(&self) -> Option<(BinaryOp, Id, Id)> {
        Some(match self {
            Hlo::Add([x, y]) => (BinaryOp::Add, *x, *y),
            Hlo::Sub([x, y]) => (BinaryOp::Subtract, *x, *y),
            Hlo::Mul([x, y]) => (BinaryOp::Multiply, *x, *y),
            Hlo::Div([x, y]) => (BinaryOp::Divide, *x, *y),
            Hlo::Rem([x, y]) => (BinaryOp::Remainder, *x, *y),
            Hlo::Max([x, y]) => (BinaryOp::Maximum, *x, *y),
            Hlo::Min([x, y]) => (BinaryOp::Minimum, *x, *y),
            Hlo::Pow([x, y]) => (BinaryOp::Power, *x, *y),
            Hlo::Atan2([x, y]) => (BinaryOp::Atan2, *x, *y),
            Hlo::And([x, y]) => (BinaryOp::And, *x, *y),
            Hlo::Or([x, y]) => (BinaryOp::Or, *x, *y),
            Hlo::Xor([x, y]) => (BinaryOp::Xor, *x, *y),
            Hlo::Shl([x, y]) => (BinaryOp::ShiftLeft, *x, *y),
            Hlo::Sra([x, y]) => (BinaryOp::ShiftRightArithmetic, *x, *y),
            Hlo::Srl([x, y]) => (BinaryOp::ShiftRightLogical, *x, *y),
            _ => return None,
        })
    }

    /// Attribute leaves and constants.
    pub fn is_leaf_value(&self) -> bool {
        matches!(self, Hlo::Attr(_) | Hlo::Const(_))
    }
}
