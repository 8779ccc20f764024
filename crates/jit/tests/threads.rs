//! Kernels split across threads give the same bits as on one thread
//! (large fused elementwise, row reductions, softmax, a column-major
//! transpose), and the executable can be shared by concurrent callers.

use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

fn module(text: &str) -> rxla_ir::Module {
    parse_module(text, "threads").expect("parses")
}

fn arg(n: usize, salt: u32) -> Vec<f32> {
    (0..n)
        .map(|i| (((i as u32).wrapping_mul(2654435761) ^ salt) % 1000) as f32 / 125.0 - 4.0)
        .collect()
}

fn check(text: &str, args: &[Literal]) {
    let m = module(text);
    let one = compile(
        &m,
        &CompileOptions {
            threads: Some(1),
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    let four = compile(
        &m,
        &CompileOptions {
            threads: Some(4),
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    let a = one.run(args).expect("runs");
    let b = four.run(args).expect("runs");
    assert_eq!(a, b, "threads changed the result of\n{text}");
}

#[test]
fn threaded_kernels_match_one_thread() {
    let n = 512 * 512;
    let x = Literal::from_vec(&[512, 512], arg(n, 1)).unwrap();
    let y = Literal::from_vec(&[512, 512], arg(n, 7)).unwrap();
    check(
        "HloModule m\nENTRY e {\n  x = f32[512,512] parameter(0)\n  y = f32[512,512] parameter(1)\n  m = f32[512,512] multiply(x, y)\n  t = f32[512,512] tanh(m)\n  ROOT r = f32[512,512] add(t, x)\n}\n",
        &[x.clone(), y.clone()],
    );
    check(
        "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[512,512] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[512] reduce(x, z), dimensions={1}, to_apply=add\n}\n",
        std::slice::from_ref(&x),
    );
    check(
        "HloModule m\nENTRY e {\n  x = f32[512,512]{0,1} parameter(0)\n  ROOT t = f32[512,512] transpose(x), dimensions={1,0}\n}\n",
        std::slice::from_ref(&x),
    );
}

#[test]
fn one_executable_many_callers() {
    let m = module(
        "HloModule m\nENTRY e {\n  x = f32[300000] parameter(0)\n  ROOT r = f32[300000] exponential(x)\n}\n",
    );
    let exe = compile(
        &m,
        &CompileOptions {
            threads: Some(2),
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    let x = Literal::vec1(arg(300000, 3));
    let want = exe.run(std::slice::from_ref(&x)).expect("runs");
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..3 {
                    assert_eq!(exe.run(std::slice::from_ref(&x)).expect("runs"), want);
                }
            });
        }
    });
}
