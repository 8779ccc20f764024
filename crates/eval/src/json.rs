//! The corpus JSON encoding of literals (`{"dtype","shape","data"}`,
//! row-major data, pred as booleans, non-finite floats as the strings
//! "inf"/"-inf"/"nan", integers as exact JSON numbers), reading inputs
//! and cases, and the tolerance comparison used by tests and the CLI.
//! Complex values (c64/c128, numpy `complex64`/`complex128`) are `[re, im]`
//! pairs in the data list.
//! No evaluation happens here.

use crate::error::{EvalError, Result};
use half::{bf16, f16};
use rxla_ir::narrow;
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, Complex32, Complex64, ElementType, Literal};
use serde_json::{Map, Number, Value};

fn err(msg: impl Into<String>) -> EvalError {
    EvalError::new(msg.into())
}

fn flatten<'v>(v: &'v Value, out: &mut Vec<&'v Value>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| flatten(x, out)),
        x => out.push(x),
    }
}

fn float_of(v: &Value, i: usize) -> Result<f64> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| err(format!("data[{i}]: {n} is not a float"))),
        Value::String(s) => match s.as_str() {
            "inf" | "+inf" | "Infinity" => Ok(f64::INFINITY),
            "-inf" | "-Infinity" => Ok(f64::NEG_INFINITY),
            "nan" | "NaN" | "+nan" => Ok(f64::NAN),
            "-nan" | "-NaN" => Ok(-f64::NAN),
            _ => Err(err(format!("data[{i}]: unknown float string {s:?}"))),
        },
        other => Err(err(format!("data[{i}]: expected a number, got {other}"))),
    }
}

fn int_of(v: &Value, i: usize) -> Result<i128> {
    match v {
        Value::Number(n) => {
            if let Some(x) = n.as_i64() {
                Ok(x as i128)
            } else if let Some(x) = n.as_u64() {
                Ok(x as i128)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f.fract() == 0.0 && f.abs() < 1e30 {
                    Ok(f as i128)
                } else {
                    Err(err(format!("data[{i}]: {n} is not an integer")))
                }
            }
        }
        Value::Bool(b) => Ok(*b as i128),
        other => Err(err(format!("data[{i}]: expected an integer, got {other}"))),
    }
}

fn ints<T: TryFrom<i128>>(vals: &[&Value], ty: ElementType) -> Result<Vec<T>> {
    vals.iter()
        .enumerate()
        .map(|(i, v)| {
            let x = int_of(v, i)?;
            T::try_from(x).map_err(|_| err(format!("data[{i}]: {x} does not fit {ty}")))
        })
        .collect()
}

fn floats(vals: &[&Value]) -> Result<Vec<f64>> {
    vals.iter()
        .enumerate()
        .map(|(i, v)| float_of(v, i))
        .collect()
}

/// Reads one array literal (`{"dtype","shape","data"}`); a JSON list of
/// such objects reads as a tuple.
pub fn literal_from_json(v: &Value) -> Result<Literal> {
    let obj = match v {
        Value::Array(items) => {
            return Ok(Literal::Tuple(
                items.iter().map(literal_from_json).collect::<Result<_>>()?,
            ));
        }
        Value::Object(o) => o,
        other => return Err(err(format!("expected a literal object, got {other}"))),
    };
    let dtype = obj
        .get("dtype")
        .and_then(Value::as_str)
        .ok_or_else(|| err("literal without a \"dtype\" string"))?;
    let ty = ElementType::from_name(dtype)
        .or_else(|| numpy_name(dtype))
        .ok_or_else(|| err(format!("unknown dtype {dtype:?}")))?;
    let dims: Vec<i64> = obj
        .get("shape")
        .and_then(Value::as_array)
        .ok_or_else(|| err("literal without a \"shape\" list"))?
        .iter()
        .map(|d| d.as_i64().ok_or_else(|| err(format!("bad dimension {d}"))))
        .collect::<Result<_>>()?;
    let shape = ArrayShape::new(ty, dims)?;
    if ty == ElementType::Token {
        return Ok(Literal::token());
    }
    let mut vals = Vec::new();
    flatten(
        obj.get("data")
            .ok_or_else(|| err("literal without \"data\""))?,
        &mut vals,
    );
    let n = shape.element_count()?;
    if ty.is_complex() {
        // `[re, im]` pairs: 2n numbers once flattened.
        if vals.len() != 2 * n {
            return Err(err(format!(
                "literal of shape {shape} needs {n} [re, im] pairs ({} numbers), got {} numbers",
                2 * n,
                vals.len()
            )));
        }
        let f = floats(&vals)?;
        let data = if ty == ElementType::C64 {
            ArrayData::C64(
                f.chunks_exact(2)
                    .map(|p| Complex32::new(p[0] as f32, p[1] as f32))
                    .collect(),
            )
        } else {
            ArrayData::C128(
                f.chunks_exact(2)
                    .map(|p| Complex64::new(p[0], p[1]))
                    .collect(),
            )
        };
        return Ok(Literal::Array(ArrayLiteral::new(shape, data)?));
    }
    if vals.len() != n {
        return Err(err(format!(
            "literal of shape {shape} needs {n} values, got {}",
            vals.len()
        )));
    }
    let data = match ty {
        ElementType::Pred => ArrayData::Pred(
            vals.iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Bool(b) => Ok(*b),
                    other => Ok(int_of(other, i)? != 0),
                })
                .collect::<Result<_>>()?,
        ),
        ElementType::S8 => ArrayData::S8(ints(&vals, ty)?),
        ElementType::S16 => ArrayData::S16(ints(&vals, ty)?),
        ElementType::S32 => ArrayData::S32(ints(&vals, ty)?),
        ElementType::S64 => ArrayData::S64(ints(&vals, ty)?),
        ElementType::U8 => ArrayData::U8(ints(&vals, ty)?),
        ElementType::U16 => ArrayData::U16(ints(&vals, ty)?),
        ElementType::U32 => ArrayData::U32(ints(&vals, ty)?),
        ElementType::U64 => ArrayData::U64(ints(&vals, ty)?),
        ElementType::F16 => ArrayData::F16(floats(&vals)?.into_iter().map(f16::from_f64).collect()),
        ElementType::BF16 => {
            ArrayData::BF16(floats(&vals)?.into_iter().map(bf16::from_f64).collect())
        }
        ElementType::F32 => ArrayData::F32(floats(&vals)?.into_iter().map(|x| x as f32).collect()),
        ElementType::F64 => ArrayData::F64(floats(&vals)?),
        t @ (rxla_ir::narrow_types!()) => {
            if t.is_f8() {
                let v = floats(&vals)?;
                ArrayData::narrow(t, v.iter().map(|&x| narrow::from_f64(t, x)).collect())
            } else {
                let v: Vec<i64> = ints(&vals, ty)?;
                let (lo, hi) = narrow::int_n_range(t);
                if let Some(x) = v.iter().find(|&&x| x < lo || x > hi) {
                    return Err(err(format!("{x} is out of range for {t}")));
                }
                ArrayData::narrow(t, v.iter().map(|&x| narrow::int_n_wrap(t, x)).collect())
            }
        }
        ElementType::Token | ElementType::C64 | ElementType::C128 => {
            unreachable!("handled above")
        }
    };
    Ok(Literal::Array(ArrayLiteral::new(shape, data)?))
}

fn numpy_name(s: &str) -> Option<ElementType> {
    Some(match s {
        "bool" => ElementType::Pred,
        "int8" => ElementType::S8,
        "int16" => ElementType::S16,
        "int32" => ElementType::S32,
        "int64" => ElementType::S64,
        "uint8" => ElementType::U8,
        "uint16" => ElementType::U16,
        "uint32" => ElementType::U32,
        "uint64" => ElementType::U64,
        "float16" => ElementType::F16,
        "bfloat16" => ElementType::BF16,
        "float32" => ElementType::F32,
        "float64" => ElementType::F64,
        "complex64" => ElementType::C64,
        "complex128" => ElementType::C128,
        "int2" => ElementType::S2,
        "int4" => ElementType::S4,
        "uint2" => ElementType::U2,
        "uint4" => ElementType::U4,
        "float8_e4m3fn" => ElementType::F8E4M3FN,
        "float8_e5m2" => ElementType::F8E5M2,
        "float8_e4m3b11fnuz" => ElementType::F8E4M3B11FNUZ,
        "float8_e4m3fnuz" => ElementType::F8E4M3FNUZ,
        "float8_e5m2fnuz" => ElementType::F8E5M2FNUZ,
        _ => return None,
    })
}

fn float_json(x: f64) -> Value {
    if x.is_nan() {
        Value::String("nan".into())
    } else if x.is_infinite() {
        Value::String(if x > 0.0 { "inf" } else { "-inf" }.into())
    } else {
        // The exact value as an f64 (0.1f32 → 0.10000000149011612), as the
        // corpus files write it: a reader comparing in f64 with a zero
        // tolerance sees exactly the number we computed.
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// Writes an array literal as `{"dtype","shape","data"}`.
pub fn literal_to_json(lit: &ArrayLiteral) -> Value {
    let data: Vec<Value> = match &lit.data {
        ArrayData::Pred(v) => v.iter().map(|&b| Value::Bool(b)).collect(),
        ArrayData::S8(v) => v.iter().map(|&x| Value::from(x)).collect(),
        ArrayData::S16(v) => v.iter().map(|&x| Value::from(x)).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| Value::from(x)).collect(),
        ArrayData::S64(v) => v.iter().map(|&x| Value::from(x)).collect(),
        ArrayData::U8(v) => v.iter().map(|&x| Value::from(x)).collect(),
        ArrayData::U16(v) => v.iter().map(|&x| Value::from(x)).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| Value::from(x)).collect(),
        ArrayData::U64(v) => v.iter().map(|&x| Value::from(x)).collect(),
        ArrayData::F16(v) => v.iter().map(|x| float_json(x.to_f64())).collect(),
        ArrayData::BF16(v) => v.iter().map(|x| float_json(x.to_f64())).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| float_json(x as f64)).collect(),
        ArrayData::F64(v) => v.iter().map(|&x| float_json(x)).collect(),
        ArrayData::C64(v) => v
            .iter()
            .map(|z| Value::Array(vec![float_json(z.re as f64), float_json(z.im as f64)]))
            .collect(),
        ArrayData::C128(v) => v
            .iter()
            .map(|z| Value::Array(vec![float_json(z.re), float_json(z.im)]))
            .collect(),
        ArrayData::Narrow(t, v) if t.is_f8() => v
            .iter()
            .map(|&b| float_json(narrow::to_f64(*t, b)))
            .collect(),
        ArrayData::Narrow(t, v) => v
            .iter()
            .map(|&b| Value::from(narrow::int_n_value(*t, b)))
            .collect(),
        ArrayData::Token(_) => Vec::new(),
    };
    let mut m = Map::new();
    m.insert(
        "dtype".into(),
        Value::String(lit.shape.element_type.name().into()),
    );
    m.insert(
        "shape".into(),
        Value::Array(lit.shape.dims.iter().map(|&d| Value::from(d)).collect()),
    );
    m.insert("data".into(), Value::Array(data));
    Value::Object(m)
}

/// The `outputs` list of a result: one entry per array leaf, nested tuples
/// flattened depth-first.
pub fn outputs_to_json(lit: &Literal) -> Value {
    Value::Array(lit.leaves().into_iter().map(literal_to_json).collect())
}

/// Parses JSON text, or reads it from a file when `path_or_text` does not
/// start with `{` or `[`.
pub fn read_json(path_or_text: &str) -> Result<Value> {
    let t = path_or_text.trim_start();
    let text = if t.starts_with('{') || t.starts_with('[') {
        path_or_text.to_string()
    } else {
        std::fs::read_to_string(path_or_text)
            .map_err(|e| err(format!("cannot read {path_or_text}: {e}")))?
    };
    serde_json::from_str(&text).map_err(|e| err(format!("invalid JSON in {}: {e}", short(t))))
}

fn short(s: &str) -> String {
    s.chars().take(60).collect()
}

/// Reads argument literals: a case object's `inputs`, or a bare list.
pub fn read_inputs(path_or_text: &str) -> Result<Vec<Literal>> {
    let v = read_json(path_or_text)?;
    let list = match &v {
        Value::Object(o) => o
            .get("inputs")
            .ok_or_else(|| err("JSON object without \"inputs\""))?,
        other => other,
    };
    list.as_array()
        .ok_or_else(|| err("\"inputs\" must be a list"))?
        .iter()
        .enumerate()
        .map(|(i, x)| literal_from_json(x).map_err(|e| e.context(format!("input {i}"))))
        .collect()
}

/// A corpus case: inputs, expected outputs and tolerance.
#[derive(Clone, Debug)]
pub struct Case {
    pub inputs: Vec<Literal>,
    pub outputs: Vec<ArrayLiteral>,
    pub rtol: f64,
    pub atol: f64,
}

impl Case {
    /// Compares a run's output leaves with the expected `outputs`: the same
    /// number of them, each within `rtol`/`atol` (the case's own tolerance,
    /// or a looser one a backend documents). The error names the first
    /// output that differs (`output I: ...`).
    pub fn check_outputs(
        &self,
        got: &[&ArrayLiteral],
        rtol: f64,
        atol: f64,
    ) -> std::result::Result<(), String> {
        if got.len() != self.outputs.len() {
            return Err(format!(
                "{} outputs, expected {}",
                got.len(),
                self.outputs.len()
            ));
        }
        for (i, (g, w)) in got.iter().zip(&self.outputs).enumerate() {
            compare_with_tolerance(g, w, rtol, atol).map_err(|e| format!("output {i}: {e}"))?;
        }
        Ok(())
    }
}

/// Reads a corpus case file (`inputs`, `outputs`, `tolerance`).
pub fn read_case(path_or_text: &str) -> Result<Case> {
    let v = read_json(path_or_text)?;
    let inputs = read_inputs(&v.to_string())?;
    let outputs = v
        .get("outputs")
        .and_then(Value::as_array)
        .ok_or_else(|| err("case without an \"outputs\" list"))?
        .iter()
        .enumerate()
        .map(|(i, x)| {
            literal_from_json(x)
                .and_then(|l| Ok(l.into_array()?))
                .map_err(|e| e.context(format!("output {i}")))
        })
        .collect::<Result<_>>()?;
    let tol = v.get("tolerance");
    let get = |k: &str| {
        tol.and_then(|t| t.get(k))
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
    };
    Ok(Case {
        inputs,
        outputs,
        rtol: get("rtol"),
        atol: get("atol"),
    })
}

fn as_pairs(d: &ArrayData) -> Option<Vec<(f64, f64)>> {
    Some(match d {
        ArrayData::C64(v) => v.iter().map(|z| (z.re as f64, z.im as f64)).collect(),
        ArrayData::C128(v) => v.iter().map(|z| (z.re, z.im)).collect(),
        _ => return None,
    })
}

fn close(x: f64, y: f64, bound: f64) -> bool {
    if x.is_nan() || y.is_nan() {
        x.is_nan() && y.is_nan()
    } else if x.is_infinite() || y.is_infinite() {
        x == y
    } else {
        (x - y).abs() <= bound
    }
}

fn as_f64s(d: &ArrayData) -> Option<Vec<f64>> {
    Some(match d {
        ArrayData::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::F64(v) => v.clone(),
        ArrayData::Narrow(t, v) if t.is_f8() => v.iter().map(|&b| narrow::to_f64(*t, b)).collect(),
        _ => return None,
    })
}

/// Compares `got` with `want`: same type and dims; floats within
/// `|got − want| ≤ atol + rtol·|want|` (NaN matches NaN, ±inf must match
/// exactly); integers and pred exactly. The error names the first
/// mismatching index and the number of mismatches.
pub fn compare_with_tolerance(
    got: &ArrayLiteral,
    want: &ArrayLiteral,
    rtol: f64,
    atol: f64,
) -> std::result::Result<(), String> {
    if !got.shape.compatible(&want.shape) {
        return Err(format!(
            "shape mismatch: got {}, want {}",
            no_layout(&got.shape),
            no_layout(&want.shape)
        ));
    }
    let mut bad = Vec::new();
    if let (Some(g), Some(w)) = (as_pairs(&got.data), as_pairs(&want.data)) {
        // Complex: each part within atol + rtol·|want| (the modulus).
        for (i, (&(gr, gi), &(wr, wi))) in g.iter().zip(&w).enumerate() {
            let m = wr.hypot(wi);
            let bound = atol + rtol * if m.is_finite() { m } else { 0.0 };
            if !(close(gr, wr, bound) && close(gi, wi, bound)) {
                bad.push((i, format!("({gr}, {gi})"), format!("({wr}, {wi})")));
            }
        }
    } else if let (Some(g), Some(w)) = (as_f64s(&got.data), as_f64s(&want.data)) {
        for (i, (&x, &y)) in g.iter().zip(&w).enumerate() {
            let ok = if x.is_nan() || y.is_nan() {
                x.is_nan() && y.is_nan()
            } else if x.is_infinite() || y.is_infinite() {
                x == y
            } else {
                (x - y).abs() <= atol + rtol * y.abs()
            };
            if !ok {
                bad.push((i, x.to_string(), y.to_string()));
            }
        }
    } else {
        for i in 0..got.data.len() {
            let (mut a, mut b) = (String::new(), String::new());
            got.data.format_element(i, &mut a);
            want.data.format_element(i, &mut b);
            if a != b {
                bad.push((i, a, b));
            }
        }
    }
    match bad.first() {
        None => Ok(()),
        Some((i, g, w)) => Err(format!(
            "{} of {} elements differ; first at index {i}: got {g}, want {w} (rtol {rtol}, atol {atol})",
            bad.len(),
            got.data.len()
        )),
    }
}

fn no_layout(s: &ArrayShape) -> String {
    let mut out = String::new();
    let _ = s.fmt_no_layout(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_outputs_counts_and_names_the_output() {
        let a = Literal::vec1(vec![1.0f32, 2.0]).into_array().unwrap();
        let b = Literal::vec1(vec![1.0f32, 2.1]).into_array().unwrap();
        let case = Case {
            inputs: vec![],
            outputs: vec![a.clone(), a.clone()],
            rtol: 0.0,
            atol: 0.05,
        };
        assert!(case.check_outputs(&[&a, &a], case.rtol, case.atol).is_ok());
        assert_eq!(
            case.check_outputs(&[&a], case.rtol, case.atol),
            Err("1 outputs, expected 2".to_string())
        );
        let e = case
            .check_outputs(&[&a, &b], case.rtol, case.atol)
            .unwrap_err();
        assert!(e.starts_with("output 1: "), "{e}");
        assert!(case.check_outputs(&[&a, &b], 0.0, 0.2).is_ok());
    }

    #[test]
    fn round_trip_and_tolerance() {
        let v: Value = serde_json::from_str(
            r#"{"dtype":"f32","shape":[2,2],"data":[0.1,"inf","-inf","nan"]}"#,
        )
        .unwrap();
        let l = literal_from_json(&v).unwrap().into_array().unwrap();
        let back = literal_to_json(&l);
        // f32 values are written as their exact f64 value, as the corpus does.
        assert_eq!(
            back["data"].to_string(),
            r#"[0.10000000149011612,"inf","-inf","nan"]"#
        );
        assert_eq!(back["dtype"], "f32");
        assert_eq!(back["shape"].to_string(), "[2,2]");
        assert!(compare_with_tolerance(&l, &l, 0.0, 0.0).is_ok());
        let u: Value =
            serde_json::from_str(r#"{"dtype":"u64","shape":[1],"data":[18446744073709551615]}"#)
                .unwrap();
        let ul = literal_from_json(&u).unwrap().into_array().unwrap();
        assert_eq!(ul.data, ArrayData::U64(vec![u64::MAX]));
        assert_eq!(literal_to_json(&ul)["data"][0], Value::from(u64::MAX));
        let a = Literal::vec1(vec![1.0f32, 2.0]).into_array().unwrap();
        let b = Literal::vec1(vec![1.0f32, 2.1]).into_array().unwrap();
        assert!(compare_with_tolerance(&a, &b, 0.0, 0.05).is_err());
        assert!(compare_with_tolerance(&a, &b, 0.0, 0.2).is_ok());
        let nested = Literal::Tuple(vec![
            Literal::scalar(true),
            Literal::Tuple(vec![Literal::scalar(2i32), Literal::vec1(vec![f32::NAN])]),
        ]);
        let outs = outputs_to_json(&nested);
        assert_eq!(outs.as_array().unwrap().len(), 3);
        assert_eq!(outs[0]["data"][0], Value::Bool(true));
        assert_eq!(outs[1]["dtype"], "s32");
        assert_eq!(outs[2]["data"][0], "nan");
        let c = Literal::vec1(vec![1.0f32, f32::INFINITY])
            .into_array()
            .unwrap();
        assert!(compare_with_tolerance(&c, &a, 1e9, 1e9).is_err());
    }
}
