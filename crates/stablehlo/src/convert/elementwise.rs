//! Elementwise ops: unary and binary arithmetic, `compare`, `select`,
//! `clamp`, `convert`, `bitcast_convert`, `reduce_precision`, `complex`,
//! `real`/`imag`. One StableHLO op → one rxla instruction (same operand
//! order); the result type comes from the text. It must not rewrite or
//! fold anything: simplification is the passes' job.

use super::{B, Result};
use crate::ast::Operation;
use crate::attrs::Attr;
use rxla_ir::{BinaryOp, ComparisonDirection, ComparisonType, InstrId, Op, UnaryOp};

pub(crate) fn unary_of(name: &str) -> Option<UnaryOp> {
    use UnaryOp::*;
    Some(match name {
        "stablehlo.not" => Not,
        "stablehlo.negate" => Negate,
        "stablehlo.abs" => Abs,
        "stablehlo.sign" => Sign,
        "stablehlo.floor" => Floor,
        "stablehlo.ceil" => Ceil,
        "stablehlo.round_nearest_afz" => RoundNearestAfz,
        "stablehlo.round_nearest_even" => RoundNearestEven,
        "stablehlo.sqrt" => Sqrt,
        "stablehlo.rsqrt" => Rsqrt,
        "stablehlo.cbrt" => Cbrt,
        "stablehlo.exponential" => Exp,
        "stablehlo.exponential_minus_one" => Expm1,
        "stablehlo.log" => Log,
        "stablehlo.log_plus_one" => Log1p,
        "stablehlo.logistic" => Logistic,
        "stablehlo.tanh" => Tanh,
        "stablehlo.sine" => Sin,
        "stablehlo.cosine" => Cos,
        "stablehlo.tan" | "chlo.tan" => Tan,
        "stablehlo.is_finite" => IsFinite,
        "stablehlo.popcnt" => Popcnt,
        "stablehlo.count_leading_zeros" => Clz,
        "stablehlo.real" => Real,
        "stablehlo.imag" => Imag,
        "chlo.erf" => Erf,
        _ => return None,
    })
}

pub(crate) fn binary_of(name: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match name {
        "stablehlo.add" => Add,
        "stablehlo.subtract" => Subtract,
        "stablehlo.multiply" => Multiply,
        "stablehlo.divide" => Divide,
        "stablehlo.remainder" => Remainder,
        "stablehlo.maximum" => Maximum,
        "stablehlo.minimum" => Minimum,
        "stablehlo.power" => Power,
        "stablehlo.atan2" => Atan2,
        "stablehlo.and" => And,
        "stablehlo.or" => Or,
        "stablehlo.xor" => Xor,
        "stablehlo.shift_left" => ShiftLeft,
        "stablehlo.shift_right_arithmetic" => ShiftRightArithmetic,
        "stablehlo.shift_right_logical" => ShiftRightLogical,
        _ => return None,
    })
}

pub(crate) fn convert(b: &mut B, op: &Operation) -> Result<Option<Vec<InstrId>>> {
    let name = op.name.as_str();
    let r = if let Some(u) = unary_of(name) {
        let x = b.expect_operands(op, 1)?;
        b.push(Op::Unary(u), &x, Some(b.result_shape(op, 0)?))?
    } else if let Some(bin) = binary_of(name) {
        let x = b.expect_operands(op, 2)?;
        b.push(Op::Binary(bin), &x, Some(b.result_shape(op, 0)?))?
    } else {
        match name {
            "stablehlo.compare" => {
                let x = b.expect_operands(op, 2)?;
                let dir = op
                    .attr(&["comparison_direction", "_enum0"])
                    .and_then(Attr::as_enum)
                    .ok_or_else(|| {
                        b.err("expected a comparison direction (EQ, NE, LT, LE, GT, GE)")
                    })?;
                let direction = ComparisonDirection::from_name(dir).ok_or_else(|| {
                    b.err(format!(
                        "unknown comparison direction '{dir}'; expected EQ, NE, LT, LE, GT or GE"
                    ))
                })?;
                let kind = match op.attr(&["compare_type", "_enum1"]).and_then(Attr::as_enum) {
                    None | Some("NOTYPE") => None,
                    Some(t) => Some(ComparisonType::from_name(t).ok_or_else(|| {
                        b.err(format!("unknown comparison type '{t}'; expected FLOAT, TOTALORDER, SIGNED or UNSIGNED"))
                    })?),
                };
                b.push(
                    Op::Compare { direction, kind },
                    &x,
                    Some(b.result_shape(op, 0)?),
                )?
            }
            "stablehlo.select" => {
                let x = b.expect_operands(op, 3)?;
                b.push(Op::Select, &x, Some(b.result_shape(op, 0)?))?
            }
            "stablehlo.clamp" => {
                let x = b.expect_operands(op, 3)?;
                b.push(Op::Clamp, &x, Some(b.result_shape(op, 0)?))?
            }
            "stablehlo.convert" => {
                let x = b.expect_operands(op, 1)?;
                b.push(Op::Convert, &x, Some(b.result_shape(op, 0)?))?
            }
            "stablehlo.bitcast_convert" => {
                let x = b.expect_operands(op, 1)?;
                b.push(Op::BitcastConvert, &x, Some(b.result_shape(op, 0)?))?
            }
            "stablehlo.complex" => {
                let x = b.expect_operands(op, 2)?;
                b.push(Op::Complex, &x, Some(b.result_shape(op, 0)?))?
            }
            "stablehlo.reduce_precision" => {
                let x = b.expect_operands(op, 1)?;
                let (e, m) = if let Some(Attr::Enum(_, f)) = op.attr(&["format"]) {
                    parse_format(f)
                        .ok_or_else(|| b.err(format!("bad format '{f}': expected eXmY")))?
                } else {
                    (
                        b.int(op, &["exponent_bits"])?,
                        b.int(op, &["mantissa_bits"])?,
                    )
                };
                b.push(
                    Op::ReducePrecision {
                        exponent_bits: e,
                        mantissa_bits: m,
                    },
                    &x,
                    Some(b.result_shape(op, 0)?),
                )?
            }
            _ => return Ok(None),
        }
    };
    Ok(Some(vec![r]))
}

/// `e5m10` → (5, 10).
fn parse_format(f: &str) -> Option<(i64, i64)> {
    let rest = f.strip_prefix('e')?;
    let (e, m) = rest.split_once('m')?;
    Some((e.parse().ok()?, m.parse().ok()?))
}
