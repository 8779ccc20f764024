//! Complex types and fft in the IR: builder calls and their exact result
//! shapes, the shape-inference rules XLA gives complex operands (and the
//! errors for what it leaves undefined), fft shape rules of every type,
//! and the text form of complex literals and fft attributes.

use rxla_ir::ElementType::{self, *};
use rxla_ir::builder::{ComputationBuilder, ModuleBuilder, Value};
use rxla_ir::{FftType, Shape, UnaryOp, parse_module, print_module, verify_module};

type R = rxla_ir::Result<Value>;
type Build = Box<dyn FnOnce(&mut ComputationBuilder<'_>) -> R>;

fn a(t: ElementType, d: &[i64]) -> Shape {
    Shape::array(t, d.to_vec()).unwrap()
}

fn root(f: impl FnOnce(&mut ComputationBuilder<'_>) -> R) -> String {
    let mut mb = ModuleBuilder::new("t");
    let mut b = mb.computation("main");
    let r = f(&mut b).unwrap_or_else(|e| panic!("builder call failed: {e}"));
    let id = b.build(r).unwrap();
    let m = mb.build_entry(id).unwrap();
    verify_module(&m).unwrap();
    m.entry_computation()
        .root_instruction()
        .shape
        .to_string_no_layout()
}

fn fails(f: impl FnOnce(&mut ComputationBuilder<'_>) -> R) -> String {
    let mut mb = ModuleBuilder::new("t");
    let mut b = mb.computation("main");
    match f(&mut b) {
        Ok(v) => panic!("unexpectedly built {}", b.shape(v).unwrap()),
        Err(e) => e.to_string(),
    }
}

fn c64(b: &mut ComputationBuilder<'_>, d: &[i64]) -> R {
    b.parameter(0, a(C64, d), "z")
}

#[test]
fn complex_arithmetic_shapes() {
    assert_eq!(
        root(|b| {
            let re = b.parameter(0, a(F64, &[2, 3]), "re")?;
            let im = b.parameter(1, a(F64, &[2, 3]), "im")?;
            b.complex(re, im)
        }),
        "c128[2,3]"
    );
    for (u, want) in [
        (UnaryOp::Real, "f32[4]"),
        (UnaryOp::Imag, "f32[4]"),
        (UnaryOp::Abs, "f32[4]"),
        (UnaryOp::Exp, "c64[4]"),
        (UnaryOp::Sqrt, "c64[4]"),
        (UnaryOp::Sign, "c64[4]"),
        (UnaryOp::Negate, "c64[4]"),
        (UnaryOp::Log1p, "c64[4]"),
    ] {
        assert_eq!(
            root(|b| {
                let z = c64(b, &[4])?;
                b.unary(u, z)
            }),
            want
        );
    }
    // real/imag of a float keep its type.
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(F32, &[4]), "x")?;
            b.imag(x)
        }),
        "f32[4]"
    );
    assert_eq!(
        root(|b| {
            let z = c64(b, &[4])?;
            let w = b.div(z, z)?;
            b.pow(w, z)
        }),
        "c64[4]"
    );
    assert_eq!(
        root(|b| {
            let z = c64(b, &[4])?;
            b.eq(z, z)
        }),
        "pred[4]"
    );
    assert_eq!(
        root(|b| {
            let x = b.parameter(0, a(S32, &[4]), "x")?;
            let z = b.convert_element_type(x, C64)?;
            b.convert_element_type(z, C128)
        }),
        "c128[4]"
    );
    assert_eq!(
        root(|b| {
            let l = b.parameter(0, a(C64, &[2, 3]), "l")?;
            let r = b.parameter(1, a(C64, &[3, 5]), "r")?;
            b.dot(l, r)
        }),
        "c64[2,5]"
    );
}

#[test]
fn complex_errors_name_what_is_undefined() {
    let cases: Vec<(Build, &str)> = vec![
        (
            Box::new(|b| {
                let z = c64(b, &[4])?;
                b.lt(z, z)
            }),
            "direction=LT is not defined on complex operands (only EQ and NE)",
        ),
        (
            Box::new(|b| {
                let z = c64(b, &[4])?;
                b.rem(z, z)
            }),
            "remainder is not defined on complex operands",
        ),
        (
            Box::new(|b| {
                let z = c64(b, &[4])?;
                b.max(z, z)
            }),
            "maximum is not defined on complex operands",
        ),
        (
            Box::new(|b| {
                let z = c64(b, &[4])?;
                b.floor(z)
            }),
            "floor is not defined on complex operands",
        ),
        (
            Box::new(|b| {
                let z = c64(b, &[4])?;
                b.clamp(z, z, z)
            }),
            "clamp is not defined on complex operands",
        ),
        (
            Box::new(|b| {
                let z = c64(b, &[4])?;
                b.convert_element_type(z, F32)
            }),
            "cannot convert complex c64[4] to the real type f32",
        ),
        (
            Box::new(|b| {
                let z = c64(b, &[4])?;
                b.bitcast_convert_type(z, S64)
            }),
            "cannot bitcast-convert between a complex and another type",
        ),
        (
            Box::new(|b| {
                let x = b.parameter(0, a(S32, &[4]), "x")?;
                b.real(x)
            }),
            "expects a complex or floating-point operand, got s32[4]",
        ),
        (
            Box::new(|b| {
                let x = b.parameter(0, a(F32, &[4]), "x")?;
                let y = b.parameter(1, a(F64, &[4]), "y")?;
                b.complex(x, y)
            }),
            "different element types",
        ),
        (
            Box::new(|b| {
                let z = c64(b, &[2, 3])?;
                let x = b.parameter(1, a(F32, &[3, 2]), "x")?;
                b.dot(z, x)
            }),
            "complex operands and result must have one type",
        ),
        (
            Box::new(|b| {
                let z = c64(b, &[4])?;
                b.top_k(z, 2, true)
            }),
            "complex is not ordered",
        ),
    ];
    for (f, want) in cases {
        let msg = fails(f);
        assert!(msg.contains(want), "{msg:?} lacks {want:?}");
    }
}

#[test]
fn fft_shapes_of_every_type() {
    let fft = |t: ElementType, d: &'static [i64], ty: FftType, len: &'static [i64]| {
        root(move |b| {
            let x = b.parameter(0, a(t, d), "x")?;
            b.fft(x, ty, len)
        })
    };
    assert_eq!(fft(C64, &[2, 8], FftType::Fft, &[8]), "c64[2,8]");
    assert_eq!(
        fft(C128, &[2, 3, 4], FftType::Ifft, &[2, 3, 4]),
        "c128[2,3,4]"
    );
    assert_eq!(fft(F32, &[3, 8], FftType::Rfft, &[8]), "c64[3,5]");
    assert_eq!(fft(F64, &[3, 7], FftType::Rfft, &[3, 7]), "c128[3,4]");
    assert_eq!(fft(C64, &[3, 5], FftType::Irfft, &[8]), "f32[3,8]");
    assert_eq!(fft(C64, &[3, 5], FftType::Irfft, &[9]), "f32[3,9]");
    assert_eq!(fft(C128, &[4, 3, 5], FftType::Irfft, &[3, 8]), "f64[4,3,8]");
    assert_eq!(fft(F32, &[2, 0], FftType::Rfft, &[0]), "c64[2,0]");
    let err = |t: ElementType, d: &'static [i64], ty: FftType, len: &'static [i64]| {
        fails(move |b| {
            let x = b.parameter(0, a(t, d), "x")?;
            b.fft(x, ty, len)
        })
    };
    for (msg, want) in [
        (
            err(F32, &[8], FftType::Fft, &[8]),
            "FFT expects a c64 or c128 operand",
        ),
        (
            err(C64, &[8], FftType::Rfft, &[8]),
            "RFFT expects an f32 or f64 operand",
        ),
        (
            err(F32, &[8], FftType::Irfft, &[8]),
            "IRFFT expects a c64 or c128 operand",
        ),
        (
            err(C64, &[2, 2, 2, 2], FftType::Fft, &[2, 2, 2, 2]),
            "1 to 3 values",
        ),
        (err(C64, &[8], FftType::Fft, &[2, 8]), "has rank 1"),
        (err(C64, &[8], FftType::Fft, &[-8]), "negative size"),
        (
            err(C64, &[3, 8], FftType::Ifft, &[4, 8]),
            "needs trailing dims [4, 8] for fft_length [4, 8], got [3, 8]",
        ),
        (
            err(C64, &[3, 8], FftType::Irfft, &[8]),
            "needs trailing dims [5] for fft_length [8] (last dim fft_length/2+1), got [8]",
        ),
    ] {
        assert!(msg.contains(want), "{msg:?} lacks {want:?}");
    }
}

#[test]
fn complex_text_round_trips() {
    let text = r#"HloModule t

ENTRY main {
  x = c64[2,3]{1,0} parameter(0)
  k = c128[2]{0} constant({(1, -2.5), (inf, -nan)})
  f = f32[2,4]{1,0} fft(x), fft_type=IRFFT, fft_length={4}
  r = c64[2,3]{1,0} fft(f), fft_type=RFFT, fft_length={4}
  ROOT t = (c128[2]{0}, c64[2,3]{1,0}) tuple(k, r)
}
"#;
    let m = parse_module(text, "t").unwrap();
    verify_module(&m).unwrap();
    let once = print_module(&m);
    assert!(
        once.contains("fft(x), fft_type=IRFFT, fft_length={4}"),
        "{once}"
    );
    assert!(
        once.contains("constant({(1, -2.5), (inf, -nan)})"),
        "{once}"
    );
    let twice = print_module(&parse_module(&once, "t").unwrap());
    assert_eq!(once, twice);
    let bad = text.replace("fft_type=IRFFT", "fft_type=DCT");
    let e = parse_module(&bad, "t").unwrap_err().to_string();
    assert!(
        e.contains("t:6:38: error: unknown fft_type 'DCT' (FFT, IFFT, RFFT, IRFFT)"),
        "{e}"
    );
}
