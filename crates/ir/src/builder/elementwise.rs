//! Builder calls for elementwise ops: every unary op, every binary op and
//! the comparisons (with the spec's `broadcast_dimensions` and implicit
//! scalar/degenerate broadcasting, expressed as explicit reshape +
//! broadcast instructions since HLO has no implicit broadcasting), clamp,
//! select, convert, bitcast-convert and map. Never converts element types
//! implicitly.

use super::{ComputationBuilder, Value};
use crate::element_type::ElementType;
use crate::error::{IrError, Result};
use crate::ops::{BinaryOp, CompId, ComparisonDirection, ComparisonType, Op, UnaryOp};
use crate::shape::Shape;

macro_rules! unary_calls {
    ($($fn:ident => $op:ident),* $(,)?) => {
        impl ComputationBuilder<'_> {
            $(
                #[doc = concat!("Elementwise `", stringify!($op), "`.")]
                pub fn $fn(&mut self, x: Value) -> Result<Value> {
                    self.unary(UnaryOp::$op, x)
                }
            )*
        }
    };
}

unary_calls! {
    not => Not, neg => Negate, abs => Abs, sign => Sign, floor => Floor, ceil => Ceil,
    round_nearest_afz => RoundNearestAfz, round_nearest_even => RoundNearestEven,
    sqrt => Sqrt, rsqrt => Rsqrt, cbrt => Cbrt, exp => Exp, expm1 => Expm1, log => Log,
    log1p => Log1p, logistic => Logistic, tanh => Tanh, sin => Sin, cos => Cos, tan => Tan,
    is_finite => IsFinite, popcnt => Popcnt, clz => Clz, erf => Erf, real => Real, imag => Imag,
}

macro_rules! binary_calls {
    ($($fn:ident => $op:ident),* $(,)?) => {
        impl ComputationBuilder<'_> {
            $(
                #[doc = concat!("Elementwise `", stringify!($op), "` (scalars and degenerate dims broadcast implicitly).")]
                pub fn $fn(&mut self, lhs: Value, rhs: Value) -> Result<Value> {
                    self.binary(BinaryOp::$op, lhs, rhs, &[])
                }
            )*
        }
    };
}

binary_calls! {
    add => Add, sub => Subtract, mul => Multiply, div => Divide, rem => Remainder,
    max => Maximum, min => Minimum, pow => Power, atan2 => Atan2, and => And, or => Or,
    xor => Xor, shift_left => ShiftLeft, shift_right_arithmetic => ShiftRightArithmetic,
    shift_right_logical => ShiftRightLogical,
}

macro_rules! compare_calls {
    ($($fn:ident => $dir:ident),* $(,)?) => {
        impl ComputationBuilder<'_> {
            $(
                #[doc = concat!("Comparison `", stringify!($dir), "` (result pred).")]
                pub fn $fn(&mut self, lhs: Value, rhs: Value) -> Result<Value> {
                    self.compare(ComparisonDirection::$dir, lhs, rhs, &[])
                }
            )*
        }
    };
}

compare_calls! { eq => Eq, ne => Ne, ge => Ge, gt => Gt, le => Le, lt => Lt }

impl ComputationBuilder<'_> {
    /// Any unary elementwise op.
    pub fn unary(&mut self, op: UnaryOp, x: Value) -> Result<Value> {
        self.push(op.name(), Op::Unary(op), &[x], None)
    }

    /// Any binary elementwise op; `broadcast_dimensions` maps the
    /// lower-rank operand's dims to the higher-rank one's (spec).
    pub fn binary(
        &mut self,
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
        broadcast_dimensions: &[i64],
    ) -> Result<Value> {
        let (l, r) = self.broadcast_pair(op.name(), lhs, rhs, broadcast_dimensions)?;
        self.push(op.name(), Op::Binary(op), &[l, r], None)
    }

    /// A comparison with the default comparison type.
    pub fn compare(
        &mut self,
        dir: ComparisonDirection,
        lhs: Value,
        rhs: Value,
        broadcast_dimensions: &[i64],
    ) -> Result<Value> {
        self.compare_typed(dir, None, lhs, rhs, broadcast_dimensions)
    }

    /// A comparison with an explicit comparison type (`TOTALORDER`, ...).
    pub fn compare_typed(
        &mut self,
        dir: ComparisonDirection,
        kind: Option<ComparisonType>,
        lhs: Value,
        rhs: Value,
        broadcast_dimensions: &[i64],
    ) -> Result<Value> {
        let (l, r) = self.broadcast_pair("compare", lhs, rhs, broadcast_dimensions)?;
        self.push(
            "compare",
            Op::Compare {
                direction: dir,
                kind,
            },
            &[l, r],
            None,
        )
    }

    /// Makes two operands' dims equal: a scalar is broadcast to the other
    /// shape; with `broadcast_dimensions` the lower-rank operand's dim i
    /// maps to dim `bd[i]` of the higher-rank one; size-1 dims broadcast
    /// against larger ones.
    pub(crate) fn broadcast_pair(
        &mut self,
        call: &str,
        lhs: Value,
        rhs: Value,
        bd: &[i64],
    ) -> Result<(Value, Value)> {
        let ls = self.array_shape(lhs, call)?;
        let rs = self.array_shape(rhs, call)?;
        if ls.dims == rs.dims && bd.is_empty() {
            return Ok((lhs, rhs));
        }
        let (hi_is_lhs, hi, lo) = if ls.rank() >= rs.rank() {
            (true, &ls, &rs)
        } else {
            (false, &rs, &ls)
        };
        // The map from the lower-rank operand's dims to the result's.
        let map: Vec<usize> = if !bd.is_empty() {
            if bd.len() != lo.rank() {
                return Err(IrError::build(format!(
                    "{call}: broadcast_dimensions {bd:?} must have one entry per dimension of the lower-rank operand {}",
                    lo
                )));
            }
            crate::shape_inference::check_dim_list(bd, hi.rank(), "broadcast_dimensions", true)
                .map_err(|e| IrError::build(format!("{call}: {e}")))?;
            bd.iter().map(|&d| d as usize).collect()
        } else if lo.rank() == 0 || lo.rank() == hi.rank() {
            (0..lo.rank()).collect()
        } else {
            return Err(IrError::build(format!(
                "{call}: operands have incompatible shapes {} and {}; pass broadcast_dimensions to broadcast the lower-rank one",
                Shape::Array(ls.clone()).to_string_no_layout(),
                Shape::Array(rs.clone()).to_string_no_layout()
            )));
        };
        let mut lo_in_hi = vec![1i64; hi.rank()];
        for (i, &m) in map.iter().enumerate() {
            lo_in_hi[m] = lo.dims[i];
        }
        let mut out = Vec::with_capacity(hi.rank());
        for (j, (&h, &l)) in hi.dims.iter().zip(&lo_in_hi).enumerate() {
            if h == l || l == 1 {
                out.push(h);
            } else if h == 1 {
                out.push(l);
            } else {
                return Err(IrError::build(format!(
                    "{call}: operands {} and {} are not broadcast-compatible in dimension {j} ({h} vs {l})",
                    Shape::Array(ls.clone()).to_string_no_layout(),
                    Shape::Array(rs.clone()).to_string_no_layout()
                )));
            }
        }
        let (hi_v, lo_v) = if hi_is_lhs { (lhs, rhs) } else { (rhs, lhs) };
        let identity: Vec<usize> = (0..hi.rank()).collect();
        let hi_b = self.expand_to(call, hi_v, &hi.dims, &identity, &out)?;
        let lo_b = self.expand_to(call, lo_v, &lo.dims, &map, &out)?;
        Ok(if hi_is_lhs {
            (hi_b, lo_b)
        } else {
            (lo_b, hi_b)
        })
    }

    /// Broadcasts `v` (dims `dims`, dim i ↦ result dim `map[i]`) to `out`,
    /// dropping size-1 dims that must grow with a reshape first.
    fn expand_to(
        &mut self,
        call: &str,
        v: Value,
        dims: &[i64],
        map: &[usize],
        out: &[i64],
    ) -> Result<Value> {
        if dims == out {
            return Ok(v);
        }
        let keep: Vec<usize> = (0..dims.len())
            .filter(|&i| dims[i] == out[map[i]])
            .collect();
        let ty = self.array_shape(v, call)?.element_type;
        let mut src = v;
        if keep.len() != dims.len() {
            let kept: Vec<i64> = keep.iter().map(|&i| dims[i]).collect();
            src = self.reshape(src, &kept).map_err(|e| e.context(call))?;
        }
        let bdims: Vec<i64> = keep.iter().map(|&i| map[i] as i64).collect();
        self.push(
            call,
            Op::Broadcast { dimensions: bdims },
            &[src],
            Some(Shape::array(ty, out.to_vec())?),
        )
    }

    /// `clamp(min, x, max)`; min and max may be scalars.
    pub fn clamp(&mut self, min: Value, x: Value, max: Value) -> Result<Value> {
        self.push("clamp", Op::Clamp, &[min, x, max], None)
    }

    /// `select(pred, on_true, on_false)`; a scalar pred selects whole
    /// operands.
    pub fn select(&mut self, pred: Value, on_true: Value, on_false: Value) -> Result<Value> {
        self.push("select", Op::Select, &[pred, on_true, on_false], None)
    }

    /// `convert(x)` to `ty` (ConvertElementType).
    pub fn convert_element_type(&mut self, x: Value, ty: ElementType) -> Result<Value> {
        if let Shape::Tuple(_) = self.shape(x)? {
            return Err(IrError::build(
                "convert_element_type: tuples cannot be converted",
            ));
        }
        self.push("convert", Op::Convert, &[x], Some(Shape::scalar(ty)))
    }

    /// `bitcast-convert(x)` to `ty` (BitcastConvertType); a narrower type
    /// adds a minor dim, a wider one removes it.
    pub fn bitcast_convert_type(&mut self, x: Value, ty: ElementType) -> Result<Value> {
        self.push(
            "bitcast-convert",
            Op::BitcastConvert,
            &[x],
            Some(Shape::scalar(ty)),
        )
    }

    /// Spec `Map(operands..., computation, static_operands)`: `f` takes one
    /// scalar per operand followed by the static scalars; the static
    /// operands are broadcast to the operands' dims and passed along.
    pub fn map_with_static(
        &mut self,
        operands: &[Value],
        f: CompId,
        static_operands: &[Value],
    ) -> Result<Value> {
        let dims = match operands.first() {
            Some(&v) => self.array_shape(v, "map")?.dims,
            None => return Err(IrError::build("map: expects at least one operand")),
        };
        let mut all = operands.to_vec();
        for &s in static_operands {
            let sh = self.array_shape(s, "map")?;
            if !sh.is_scalar() {
                return Err(IrError::build(format!(
                    "map: static operands must be scalars, got {}",
                    Shape::Array(sh).to_string_no_layout()
                )));
            }
            all.push(self.broadcast(s, &dims)?);
        }
        self.map(&all, f)
    }

    /// `map(operands...)` applying the scalar computation `f` at every
    /// index.
    pub fn map(&mut self, operands: &[Value], f: CompId) -> Result<Value> {
        let rank = match operands.first() {
            Some(&v) => self.array_shape(v, "map")?.rank(),
            None => return Err(IrError::build("map: expects at least one operand")),
        };
        self.push(
            "map",
            Op::Map {
                dimensions: (0..rank as i64).collect(),
                to_apply: f,
            },
            operands,
            None,
        )
    }
}
