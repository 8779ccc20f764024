//! `chlo.*` ops JAX still emits, decomposed into rxla elementwise
//! instructions the way XLA's CHLO legalisation does: `square`, `sinh`,
//! `cosh`, `asinh`, `acosh`, `asin`, `acos`, `atan`, `atanh`, `erfc`,
//! `erf_inv` (Giles' f32 and f64 polynomials), `lgamma` and `digamma` (Lanczos,
//! with Euler's reflection), `is_inf`, `is_pos_inf`, `is_neg_inf`,
//! `conj`, `next_after` (`erf`, `tan` and `top_k` map to rxla ops directly elsewhere).
//! Any other chlo op is an error naming it. A formula must not be less
//! accurate than XLA's (the corpus compares with XLA's results).

use super::{B, Result};
use crate::ast::Operation;
use rxla_ir::{
    ArrayData, ArrayLiteral, ArrayShape, BinaryOp, ComparisonDirection as Dir, ElementType,
    InstrId, Literal, Op, Shape, UnaryOp,
};

/// A scalar constant of `x`'s element type broadcast to `x`'s dims.
fn k(b: &mut B, x: InstrId, v: f64) -> Result<InstrId> {
    let s = b.shape(x).clone();
    let et = s
        .element_type()
        .ok_or_else(|| b.err("expected an array operand"))?;
    let data = ArrayData::scalar_from_f64(et, v);
    let lit = ArrayLiteral::new(ArrayShape::new(et, vec![]).map_err(|e| b.err(e))?, data)
        .map_err(|e| b.err(e))?;
    let c = b.constant(Literal::Array(lit))?;
    if s.dims().is_empty() {
        return Ok(c);
    }
    b.push(Op::Broadcast { dimensions: vec![] }, &[c], Some(s))
}

fn un(b: &mut B, u: UnaryOp, x: InstrId) -> Result<InstrId> {
    b.push(Op::Unary(u), &[x], None)
}
fn bin(b: &mut B, o: BinaryOp, x: InstrId, y: InstrId) -> Result<InstrId> {
    b.push(Op::Binary(o), &[x, y], None)
}
fn add(b: &mut B, x: InstrId, y: InstrId) -> Result<InstrId> {
    bin(b, BinaryOp::Add, x, y)
}
fn sub(b: &mut B, x: InstrId, y: InstrId) -> Result<InstrId> {
    bin(b, BinaryOp::Subtract, x, y)
}
fn mul(b: &mut B, x: InstrId, y: InstrId) -> Result<InstrId> {
    bin(b, BinaryOp::Multiply, x, y)
}
fn div(b: &mut B, x: InstrId, y: InstrId) -> Result<InstrId> {
    bin(b, BinaryOp::Divide, x, y)
}
fn cmp(b: &mut B, d: Dir, x: InstrId, y: InstrId) -> Result<InstrId> {
    b.push(
        Op::Compare {
            direction: d,
            kind: None,
        },
        &[x, y],
        None,
    )
}
fn sel(b: &mut B, p: InstrId, x: InstrId, y: InstrId) -> Result<InstrId> {
    b.push(Op::Select, &[p, x, y], None)
}
/// `x op c` for a constant `c`.
fn binc(b: &mut B, o: BinaryOp, x: InstrId, c: f64) -> Result<InstrId> {
    let c = k(b, x, c)?;
    bin(b, o, x, c)
}
fn cmpc(b: &mut B, d: Dir, x: InstrId, c: f64) -> Result<InstrId> {
    let c = k(b, x, c)?;
    cmp(b, d, x, c)
}

const LANCZOS_G: f64 = 7.0;
const LANCZOS_BASE: f64 = 0.999_999_999_999_809_9;
const LANCZOS: [f64; 8] = [
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

pub(crate) fn convert(b: &mut B, op: &Operation) -> Result<Option<Vec<InstrId>>> {
    let name = op.name.as_str();
    let known = [
        "chlo.square",
        "chlo.sinh",
        "chlo.cosh",
        "chlo.asinh",
        "chlo.acosh",
        "chlo.asin",
        "chlo.acos",
        "chlo.atan",
        "chlo.atanh",
        "chlo.erfc",
        "chlo.erf_inv",
        "chlo.lgamma",
        "chlo.digamma",
        "chlo.is_inf",
        "chlo.is_pos_inf",
        "chlo.is_neg_inf",
        "chlo.conj",
        "chlo.next_after",
    ];
    if !known.contains(&name) {
        return Ok(None);
    }
    if name == "chlo.next_after" {
        let x = b.expect_operands(op, 2)?;
        let declared = b.result_shape(op, 0)?;
        let r = next_after(b, x[0], x[1])?;
        if !b.shape(r).compatible(&declared) {
            return Err(b.err(format!(
                "the declared result type {} differs from the computed {}",
                declared.to_string_no_layout(),
                b.shape(r).to_string_no_layout()
            )));
        }
        return Ok(Some(vec![r]));
    }
    let x = b.expect_operands(op, 1)?[0];
    let declared = b.result_shape(op, 0)?;
    let et = b
        .shape(x)
        .element_type()
        .ok_or_else(|| b.err("expected an array operand"))?;
    let float = et.is_float();
    let complex = et.is_complex();
    let needs_float = !matches!(name, "chlo.square" | "chlo.conj");
    if needs_float && !float {
        return Err(b.err(format!(
            "{name} on {et} is not supported (rxla decomposes it for real floats only)"
        )));
    }
    use BinaryOp::*;
    use UnaryOp::*;
    let r = match name {
        "chlo.square" => mul(b, x, x)?,
        "chlo.conj" => {
            if !complex {
                x
            } else {
                let re = un(b, Real, x)?;
                let im = un(b, Imag, x)?;
                let nim = un(b, Negate, im)?;
                b.push(Op::Complex, &[re, nim], None)?
            }
        }
        "chlo.sinh" => {
            // (expm1(x) - expm1(-x)) / 2: exact near 0, no cancellation.
            let a = un(b, Expm1, x)?;
            let nx = un(b, Negate, x)?;
            let c = un(b, Expm1, nx)?;
            let d = sub(b, a, c)?;
            binc(b, Multiply, d, 0.5)?
        }
        "chlo.cosh" => {
            let a = un(b, Exp, x)?;
            let nx = un(b, Negate, x)?;
            let c = un(b, Exp, nx)?;
            let d = add(b, a, c)?;
            binc(b, Multiply, d, 0.5)?
        }
        "chlo.asinh" => {
            // sign(x) * log1p(|x| + x^2 / (1 + sqrt(1 + x^2))).
            let ax = un(b, Abs, x)?;
            let x2 = mul(b, ax, ax)?;
            let x2p1 = binc(b, Add, x2, 1.0)?;
            let s = un(b, Sqrt, x2p1)?;
            let sp1 = binc(b, Add, s, 1.0)?;
            let q = div(b, x2, sp1)?;
            let t = add(b, ax, q)?;
            let l = un(b, Log1p, t)?;
            // For huge |x|, x^2 overflows: use log(2|x|) there.
            let big = cmpc(b, Dir::Gt, ax, 1e18)?;
            let two = binc(b, Multiply, ax, 2.0)?;
            let lbig = un(b, Log, two)?;
            let l = sel(b, big, lbig, l)?;
            let sg = un(b, Sign, x)?;
            mul(b, sg, l)?
        }
        "chlo.acosh" => {
            // log(x + sqrt(x + 1) * sqrt(x - 1)).
            let p = binc(b, Add, x, 1.0)?;
            let m = binc(b, Subtract, x, 1.0)?;
            let sp = un(b, Sqrt, p)?;
            let sm = un(b, Sqrt, m)?;
            let pr = mul(b, sp, sm)?;
            let s = add(b, x, pr)?;
            un(b, Log, s)?
        }
        "chlo.asin" => {
            // 2 * atan2(x, 1 + sqrt(1 - x^2)).
            let x2 = mul(b, x, x)?;
            let one = k(b, x, 1.0)?;
            let om = sub(b, one, x2)?;
            let s = un(b, Sqrt, om)?;
            let d = binc(b, Add, s, 1.0)?;
            let a = bin(b, Atan2, x, d)?;
            binc(b, Multiply, a, 2.0)?
        }
        "chlo.acos" => {
            // x != -1: 2 * atan2(sqrt(1 - x^2), 1 + x); else pi.
            let x2 = mul(b, x, x)?;
            let one = k(b, x, 1.0)?;
            let om = sub(b, one, x2)?;
            let s = un(b, Sqrt, om)?;
            let d = binc(b, Add, x, 1.0)?;
            let a = bin(b, Atan2, s, d)?;
            let a2 = binc(b, Multiply, a, 2.0)?;
            let ne = cmpc(b, Dir::Ne, x, -1.0)?;
            let pi = k(b, x, std::f64::consts::PI)?;
            sel(b, ne, a2, pi)?
        }
        "chlo.atan" => {
            let one = k(b, x, 1.0)?;
            bin(b, Atan2, x, one)?
        }
        "chlo.atanh" => {
            // 0.5 * (log1p(x) - log1p(-x)); NaN outside [-1, 1].
            let a = un(b, Log1p, x)?;
            let nx = un(b, Negate, x)?;
            let c = un(b, Log1p, nx)?;
            let d = sub(b, a, c)?;
            let h = binc(b, Multiply, d, 0.5)?;
            let ax = un(b, Abs, x)?;
            let out = cmpc(b, Dir::Gt, ax, 1.0)?;
            let nan = k(b, x, f64::NAN)?;
            sel(b, out, nan, h)?
        }
        "chlo.erfc" => {
            let e = un(b, Erf, x)?;
            let one = k(b, x, 1.0)?;
            sub(b, one, e)?
        }
        "chlo.is_inf" => {
            let ax = un(b, Abs, x)?;
            cmpc(b, Dir::Eq, ax, f64::INFINITY)?
        }
        "chlo.is_pos_inf" => cmpc(b, Dir::Eq, x, f64::INFINITY)?,
        "chlo.is_neg_inf" => cmpc(b, Dir::Eq, x, f64::NEG_INFINITY)?,
        "chlo.erf_inv" => erf_inv(b, x, et)?,
        "chlo.lgamma" => lgamma(b, x)?,
        "chlo.digamma" => digamma(b, x)?,
        _ => return Ok(None),
    };
    if !b.shape(r).compatible(&declared) {
        return Err(b.err(format!(
            "the declared result type {} differs from the computed {}",
            declared.to_string_no_layout(),
            b.shape(r).to_string_no_layout()
        )));
    }
    Ok(Some(vec![r]))
}

/// Giles' single-precision erfinv (f16/bf16 computed in f32).
fn erf_inv(b: &mut B, x0: InstrId, et: ElementType) -> Result<InstrId> {
    use BinaryOp::*;
    use UnaryOp::*;
    if et == ElementType::F64 {
        return erf_inv_f64(b, x0);
    }
    let x = if et == ElementType::F32 {
        x0
    } else {
        let s =
            Shape::array(ElementType::F32, b.shape(x0).dims().to_vec()).map_err(|e| b.err(e))?;
        b.push(Op::Convert, &[x0], Some(s))?
    };
    const LT5: [f64; 9] = [
        2.810_226_36e-08,
        3.432_739_39e-07,
        -3.523_387_7e-06,
        -4.391_506_54e-06,
        0.000_218_580_87,
        -0.001_253_725_03,
        -0.004_177_681_64,
        0.246_640_727,
        1.501_409_41,
    ];
    const GT5: [f64; 9] = [
        -0.000_200_214_257,
        0.000_100_950_558,
        0.001_349_343_22,
        -0.003_673_428_44,
        0.005_739_507_73,
        -0.007_622_461_3,
        0.009_438_870_47,
        1.001_674_06,
        2.832_976_82,
    ];
    let xx = mul(b, x, x)?;
    let nxx = un(b, Negate, xx)?;
    let l = un(b, Log1p, nxx)?;
    let w = un(b, Negate, l)?;
    let lt = cmpc(b, Dir::Lt, w, 5.0)?;
    let w1 = binc(b, Subtract, w, 2.5)?;
    let sw = un(b, Sqrt, w)?;
    let w2 = binc(b, Subtract, sw, 3.0)?;
    let w = sel(b, lt, w1, w2)?;
    let coef = |b: &mut B, i: usize| -> Result<InstrId> {
        let a = k(b, x, LT5[i])?;
        let c = k(b, x, GT5[i])?;
        sel(b, lt, a, c)
    };
    let mut p = coef(b, 0)?;
    for i in 1..9 {
        let c = coef(b, i)?;
        let pw = mul(b, p, w)?;
        p = add(b, c, pw)?;
    }
    let r = mul(b, p, x)?;
    let ax = un(b, Abs, x)?;
    let one = cmpc(b, Dir::Eq, ax, 1.0)?;
    let inf = binc(b, Multiply, x, f64::INFINITY)?;
    let r = sel(b, one, inf, r)?;
    if et == ElementType::F32 {
        Ok(r)
    } else {
        let s = b.shape(x0).clone();
        b.push(Op::Convert, &[r], Some(s))
    }
}

/// `z = x < 0.5 ? -x : x - 1` and the Lanczos pieces shared by lgamma and
/// digamma: (need_to_reflect, z, t, log_t).
fn lanczos_base(b: &mut B, x: InstrId) -> Result<(InstrId, InstrId, InstrId, InstrId)> {
    use BinaryOp::*;
    use UnaryOp::*;
    let reflect = cmpc(b, Dir::Lt, x, 0.5)?;
    let nx = un(b, Negate, x)?;
    let xm1 = binc(b, Subtract, x, 1.0)?;
    let z = sel(b, reflect, nx, xm1)?;
    let lph = LANCZOS_G + 0.5;
    let t = binc(b, Add, z, lph)?;
    let zd = binc(b, Divide, z, lph)?;
    let l1 = un(b, Log1p, zd)?;
    let log_t = binc(b, Add, l1, lph.ln())?;
    Ok((reflect, z, t, log_t))
}

fn lgamma(b: &mut B, x: InstrId) -> Result<InstrId> {
    use BinaryOp::*;
    use UnaryOp::*;
    let (reflect, z, t, log_t) = lanczos_base(b, x)?;
    let mut acc = k(b, x, LANCZOS_BASE)?;
    for (i, c) in LANCZOS.iter().enumerate() {
        let zi = binc(b, Add, z, (i + 1) as f64)?;
        let cc = k(b, x, *c)?;
        let q = div(b, cc, zi)?;
        acc = add(b, acc, q)?;
    }
    // log_y = log(sqrt(2 pi)) + (z + 0.5 - t / log_t) * log_t + log(acc)
    let tl = div(b, t, log_t)?;
    let zh = binc(b, Add, z, 0.5)?;
    let m = sub(b, zh, tl)?;
    let m = mul(b, m, log_t)?;
    let la = un(b, Log, acc)?;
    let s = add(b, m, la)?;
    let log_y = binc(b, Add, s, (2.0 * std::f64::consts::PI).sqrt().ln())?;
    // Reflection: log(pi) - log(sin(pi * reduced_frac(|x|))) - log_y.
    let ax = un(b, Abs, x)?;
    let fl = un(b, Floor, ax)?;
    let frac = sub(b, ax, fl)?;
    let gt = cmpc(b, Dir::Gt, frac, 0.5)?;
    let one = k(b, x, 1.0)?;
    let omf = sub(b, one, frac)?;
    let red = sel(b, gt, omf, frac)?;
    let pr = binc(b, Multiply, red, std::f64::consts::PI)?;
    let sn = un(b, Sin, pr)?;
    let denom = un(b, Log, sn)?;
    let fin = un(b, IsFinite, denom)?;
    let lp = k(b, x, std::f64::consts::PI.ln())?;
    let a = sub(b, lp, denom)?;
    let a = sub(b, a, log_y)?;
    let nd = un(b, Negate, denom)?;
    let refl = sel(b, fin, a, nd)?;
    let r = sel(b, reflect, refl, log_y)?;
    let isinf = cmpc(b, Dir::Eq, ax, f64::INFINITY)?;
    let inf = k(b, x, f64::INFINITY)?;
    sel(b, isinf, inf, r)
}

fn digamma(b: &mut B, x: InstrId) -> Result<InstrId> {
    use BinaryOp::*;
    use UnaryOp::*;
    let (reflect, z, t, log_t) = lanczos_base(b, x)?;
    let mut num = k(b, x, 0.0)?;
    let mut den = k(b, x, LANCZOS_BASE)?;
    for (i, c) in LANCZOS.iter().enumerate() {
        let zi = binc(b, Add, z, (i + 1) as f64)?;
        let cc = k(b, x, *c)?;
        let zz = mul(b, zi, zi)?;
        let q = div(b, cc, zz)?;
        num = sub(b, num, q)?;
        let q2 = div(b, cc, zi)?;
        den = add(b, den, q2)?;
    }
    // y = log_t + num / den - g / t
    let nd = div(b, num, den)?;
    let y = add(b, log_t, nd)?;
    let gk = k(b, x, LANCZOS_G)?;
    let gt = div(b, gk, t)?;
    let y = sub(b, y, gt)?;
    // reflection = y - pi * cos(pi * r) / sin(pi * r), r = x + |floor(x + 0.5)|
    let xh = binc(b, Add, x, 0.5)?;
    let fl = un(b, Floor, xh)?;
    let afl = un(b, Abs, fl)?;
    let r = add(b, x, afl)?;
    let pr = binc(b, Multiply, r, std::f64::consts::PI)?;
    let c = un(b, Cos, pr)?;
    let s = un(b, Sin, pr)?;
    let cot = div(b, c, s)?;
    let pc = binc(b, Multiply, cot, std::f64::consts::PI)?;
    let refl = sub(b, y, pc)?;
    let res = sel(b, reflect, refl, y)?;
    // Poles at zero and the negative integers: NaN.
    let le0 = cmpc(b, Dir::Le, x, 0.0)?;
    let fx = un(b, Floor, x)?;
    let int = cmp(b, Dir::Eq, x, fx)?;
    let pole = bin(b, And, le0, int)?;
    let nan = k(b, x, f64::NAN)?;
    sel(b, pole, nan, res)
}

/// Giles' double-precision erfinv (three ranges of w = -log1p(-x^2)).
/// The coefficients are written as published (and as XLA has them).
#[allow(clippy::excessive_precision)]
fn erf_inv_f64(b: &mut B, x: InstrId) -> Result<InstrId> {
    use BinaryOp::*;
    use UnaryOp::*;
    const LT6_25: [f64; 23] = [
        -3.644_412_064_017_819_7e-21,
        -1.685_059_138_182_016_6e-19,
        1.285_848_071_525_640_0e-18,
        1.115_787_767_802_518_1e-17,
        -1.333_171_662_854_620_9e-16,
        2.097_276_787_596_856_2e-17,
        6.637_638_134_358_323_8e-15,
        -4.054_566_272_975_206_9e-14,
        -8.151_934_197_605_472_2e-14,
        2.633_509_315_308_232_3e-12,
        -1.297_513_325_345_353_2e-11,
        -5.415_412_054_294_627_9e-11,
        1.051_212_273_321_532_3e-09,
        -4.112_633_980_346_983_7e-09,
        -2.907_036_995_788_200_5e-08,
        4.234_787_782_793_240_4e-07,
        -1.365_469_200_083_467_9e-06,
        -1.388_252_336_278_646_9e-05,
        1.867_342_080_340_571_4e-04,
        -7.407_025_341_662_669_8e-04,
        -6.033_670_871_430_149_1e-03,
        2.401_581_824_255_896_2e-01,
        1.653_654_562_683_102_7,
    ];
    const LT16: [f64; 19] = [
        2.213_737_692_177_578_7e-09,
        9.075_656_193_888_539_1e-08,
        -2.751_740_629_706_454_5e-07,
        1.823_962_921_438_922_8e-08,
        1.502_740_396_890_982_8e-06,
        -4.013_867_526_981_546e-06,
        2.923_444_908_995_544_6e-06,
        1.247_530_448_167_177_9e-05,
        -4.731_822_900_905_573_4e-05,
        6.828_485_145_957_317_5e-05,
        2.403_111_038_709_789_4e-05,
        -3.550_375_203_628_474_8e-04,
        9.532_893_797_373_805e-04,
        -1.688_275_556_023_504_7e-03,
        2.491_442_096_107_850_8e-03,
        -3.751_208_507_569_241_2e-03,
        5.370_914_553_590_063_6e-03,
        1.005_258_967_694_159_2,
        3.083_885_610_492_220_8,
    ];
    const GT16: [f64; 17] = [
        -2.710_992_061_643_857_3e-11,
        -2.555_641_816_996_525_2e-10,
        1.507_657_269_350_054_8e-09,
        -3.789_465_440_126_737e-09,
        7.615_701_208_078_34e-09,
        -1.496_002_662_714_924e-08,
        2.914_795_345_090_108_1e-08,
        -6.771_199_775_845_233_9e-08,
        2.290_048_222_802_665_5e-07,
        -9.929_827_294_231_7e-07,
        4.526_062_597_223_153_7e-06,
        -1.968_177_810_553_167_1e-05,
        7.599_527_703_001_776_1e-05,
        -2.150_301_193_004_447_7e-04,
        -1.387_193_183_362_312_2e-04,
        1.010_300_464_864_534_4,
        4.849_906_401_408_584_4,
    ];
    let xx = mul(b, x, x)?;
    let nxx = un(b, Negate, xx)?;
    let l = un(b, Log1p, nxx)?;
    let w = un(b, Negate, l)?;
    let lt625 = cmpc(b, Dir::Lt, w, 6.25)?;
    let lt16 = cmpc(b, Dir::Lt, w, 16.0)?;
    let coef = |b: &mut B, i: usize| -> Result<InstrId> {
        let mut c = k(b, x, LT6_25[i])?;
        if i < 19 {
            let d = k(b, x, LT16[i])?;
            c = sel(b, lt625, c, d)?;
        }
        if i < 17 {
            let d = k(b, x, GT16[i])?;
            c = sel(b, lt16, c, d)?;
        }
        Ok(c)
    };
    let sw = un(b, Sqrt, w)?;
    let a = binc(b, Subtract, w, 3.125)?;
    let m = binc(b, Subtract, sw, 3.25)?;
    let h = binc(b, Subtract, sw, 5.0)?;
    let mh = sel(b, lt16, m, h)?;
    let w = sel(b, lt625, a, mh)?;
    let mut p = coef(b, 0)?;
    for i in 1..23 {
        let c = coef(b, i)?;
        let pw = mul(b, p, w)?;
        let next = add(b, c, pw)?;
        p = match i {
            1..=16 => next,
            17 | 18 => sel(b, lt16, next, p)?,
            _ => sel(b, lt625, next, p)?,
        };
    }
    let r = mul(b, p, x)?;
    let ax = un(b, Abs, x)?;
    let one = cmpc(b, Dir::Eq, ax, 1.0)?;
    let inf = binc(b, Multiply, x, f64::INFINITY)?;
    sel(b, one, inf, r)
}

/// XLA's NextAfter on the bit patterns (as signed integers of the float's
/// width): step the magnitude of `from` towards `to`; equal inputs give
/// `to`, zero `from` gives the smallest subnormal signed like `to` (or
/// `to` when it is zero too), NaN in gives NaN.
fn next_after(b: &mut B, from: InstrId, to: InstrId) -> Result<InstrId> {
    use BinaryOp::*;
    let fs = b.shape(from).clone();
    let et = fs
        .element_type()
        .ok_or_else(|| b.err("expected array operands"))?;
    let it = match et {
        ElementType::F16 | ElementType::BF16 => ElementType::S16,
        ElementType::F32 => ElementType::S32,
        ElementType::F64 => ElementType::S64,
        _ => {
            return Err(b.err(format!(
                "chlo.next_after on {et} is not supported (floats only)"
            )));
        }
    };
    let is = Shape::array(it, fs.dims().to_vec()).map_err(|e| b.err(e))?;
    let xi = b.push(Op::BitcastConvert, &[from], Some(is.clone()))?;
    let yi = b.push(Op::BitcastConvert, &[to], Some(is.clone()))?;
    let bits = et.bit_width();
    // The sign bit as a constant of the integer type.
    let sb = {
        let data = ArrayData::from_le_bytes(
            it,
            &(1i128 << (bits - 1)).to_le_bytes()[..(bits / 8) as usize],
        )
        .map_err(|e| b.err(e))?;
        let lit = ArrayLiteral::new(ArrayShape::new(it, vec![]).map_err(|e| b.err(e))?, data)
            .map_err(|e| b.err(e))?;
        let c = b.constant(Literal::Array(lit))?;
        if fs.dims().is_empty() {
            c
        } else {
            b.push(Op::Broadcast { dimensions: vec![] }, &[c], Some(is.clone()))?
        }
    };
    let nsb = b.push(Op::Unary(UnaryOp::Not), &[sb], None)?;
    let xabs = bin(b, And, xi, nsb)?;
    let yabs = bin(b, And, yi, nsb)?;
    let xsign = bin(b, And, xi, sb)?;
    let ysign = bin(b, And, yi, sb)?;
    let zero = k(b, xi, 0.0)?;
    let one = k(b, xi, 1.0)?;
    let minus_one = k(b, xi, -1.0)?;
    let from_zero = cmp(b, Dir::Eq, xabs, zero)?;
    let to_zero = cmp(b, Dir::Eq, yabs, zero)?;
    let tiny = bin(b, Or, ysign, one)?;
    let disagree = cmp(b, Dir::Ne, xsign, ysign)?;
    let larger = cmp(b, Dir::Gt, xabs, yabs)?;
    let smaller = bin(b, Or, larger, disagree)?;
    let adj = sel(b, smaller, minus_one, one)?;
    let stepped = add(b, xi, adj)?;
    let at_zero = sel(b, to_zero, yi, tiny)?;
    let r = sel(b, from_zero, at_zero, stepped)?;
    let eq = cmp(b, Dir::Eq, from, to)?;
    let r = sel(b, eq, yi, r)?;
    let r = b.push(Op::BitcastConvert, &[r], Some(fs.clone()))?;
    let fnan = cmp(b, Dir::Ne, from, from)?;
    let tnan = cmp(b, Dir::Ne, to, to)?;
    let nan_in = bin(b, Or, fnan, tnan)?;
    let nan = k(b, from, f64::NAN)?;
    sel(b, nan_in, nan, r)
}
