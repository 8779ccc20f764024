//! Complex (c64/c128) modules on the JIT: complex elementwise
//! instructions whose operands share the result's layout run as the
//! complex host step (named in `CompileStats::runtime_calls`), others as
//! interpreter-fallback steps (named in `CompileStats::fallbacks`), `fft`
//! as a rustfft runtime step (named in `CompileStats::runtime_calls`);
//! real instructions around them stay native. Results are compared with
//! the evaluator: exact ops bit for bit, fft within 1e-9 relative to the
//! largest output (f64 sums in another order), in row- and column-major
//! layouts and with fusion on and off.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, Complex64, Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

fn c128(dims: &[i64], seed: u64) -> Literal {
    let n: i64 = dims.iter().product();
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % 2001) as f64 / 500.0 - 2.0
    };
    let v: Vec<Complex64> = (0..n).map(|_| Complex64::new(next(), next())).collect();
    Literal::Array(
        ArrayLiteral::new(
            ArrayShape::new(rxla_ir::ElementType::C128, dims.to_vec()).unwrap(),
            ArrayData::C128(v),
        )
        .unwrap(),
    )
}

fn max_abs(l: &Literal) -> f64 {
    l.leaves()
        .iter()
        .map(|a| match &a.data {
            ArrayData::C128(v) => v.iter().map(|z| z.norm()).fold(0.0, f64::max),
            ArrayData::F64(v) => v.iter().map(|x| x.abs()).fold(0.0, f64::max),
            _ => 0.0,
        })
        .fold(0.0, f64::max)
}

/// The JIT's result for `text` (fusion on and off) against the
/// evaluator's, within `atol`; returns the stats of the fused compile.
fn check(text: &str, args: &[Literal], atol: f64) -> rxla_jit::CompileStats {
    let m = parse_module(text, "cplx").unwrap_or_else(|e| panic!("parses: {e}"));
    let want = evaluate(&m, args, &RunOptions::default()).expect("evaluates");
    let mut stats = None;
    for fusion in [true, false] {
        let opts = CompileOptions {
            fusion,
            ..CompileOptions::default()
        };
        let exe = compile(&m, &opts).expect("compiles");
        let got = exe.run(args).expect("runs");
        for (g, w) in got.leaves().iter().zip(want.leaves()) {
            rxla_eval::compare_with_tolerance(g, w, 0.0, atol)
                .unwrap_or_else(|e| panic!("fusion={fusion}: {e}"));
        }
        stats.get_or_insert_with(|| exe.stats().clone());
    }
    stats.unwrap()
}

#[test]
fn complex_elementwise_runs_as_named_host_or_fallback_steps() {
    let text = r#"
HloModule c
ENTRY main {
  a = c128[3,4]{1,0} parameter(0)
  b = c128[3,4]{0,1} parameter(1)
  m = c128[3,4]{1,0} multiply(a, b)
  e = c128[3,4]{1,0} exponential(m)
  r = f64[3,4]{1,0} real(e)
  i = f64[3,4]{1,0} imag(e)
  s = f64[3,4]{1,0} add(r, i)
  ROOT t = (f64[3,4]{1,0}, c128[3,4]{1,0}) tuple(s, m)
}
"#;
    let args = [c128(&[3, 4], 7), c128(&[3, 4], 11)];
    let stats = check(text, &args, 0.0);
    let fb = stats.fallbacks.join("\n");
    // Operands in different layouts: the evaluator.
    assert!(fb.contains("main/m (multiply)"), "{fb}");
    let rc = stats.runtime_calls.join("\n");
    for name in ["main/e (exponential)", "main/r (real)", "main/i (imag)"] {
        assert!(rc.contains(name), "{name} not in runtime calls:\n{rc}");
        assert!(!fb.contains(name), "{name} in fallbacks:\n{fb}");
    }
    // The real add stays native.
    assert!(!fb.contains("main/s (add)"), "{fb}");
    assert!(stats.kernels >= 1);
}

#[test]
fn fft_is_a_rustfft_runtime_step() {
    // Lengths with and without small factors (1000 = 2³·5³, 997 prime),
    // 2-D with a column-major operand, RFFT and IRFFT.
    let text = r#"
HloModule f
ENTRY main {
  x = c128[2,1000]{1,0} parameter(0)
  y = c128[6,997]{0,1} parameter(1)
  f = c128[2,1000]{1,0} fft(x), fft_type=FFT, fft_length={1000}
  g = c128[6,997]{1,0} fft(y), fft_type=IFFT, fft_length={6,997}
  r = f64[2,1000]{1,0} real(x)
  rf = c128[2,501]{1,0} fft(r), fft_type=RFFT, fft_length={1000}
  ir = f64[2,1000]{0,1} fft(rf), fft_type=IRFFT, fft_length={1000}
  ROOT t = (c128[2,1000]{1,0}, c128[6,997]{1,0}, c128[2,501]{1,0}, f64[2,1000]{0,1}) tuple(f, g, rf, ir)
}
"#;
    let args = [c128(&[2, 1000], 3), c128(&[6, 997], 5)];
    let m = parse_module(text, "f").unwrap();
    let want = evaluate(&m, &args, &RunOptions::default()).unwrap();
    let stats = check(text, &args, 1e-9 * max_abs(&want));
    let calls = stats.runtime_calls.join("\n");
    for name in [
        "main/f (fft): FFT of length [1000] (rustfft)",
        "main/g (fft): IFFT of length [6, 997] (rustfft)",
        "main/rf (fft): RFFT",
        "main/ir (fft): IRFFT",
    ] {
        assert!(
            calls.contains(name),
            "{name} not in runtime calls:\n{calls}"
        );
    }
    assert!(
        !stats.fallbacks.iter().any(|f| f.contains("(fft)")),
        "{:?}",
        stats.fallbacks
    );
    // IRFFT(RFFT(x)) = x.
    let (Literal::Tuple(w), Literal::Array(x)) = (&want, &args[0]) else {
        panic!()
    };
    let (ArrayData::F64(back), ArrayData::C128(orig)) = (&w[3].as_array().unwrap().data, &x.data)
    else {
        panic!()
    };
    for (b, o) in back.iter().zip(orig) {
        assert!((b - o.re).abs() < 1e-12, "{b} vs {}", o.re);
    }
}
