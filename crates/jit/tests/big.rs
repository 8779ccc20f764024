//! Compile time stays linear in the expression DAG: a fused chain where
//! every value feeds the next two (x_i = x_{i-1} + x_{i-2}) has 2^n paths
//! from its root; the code generator (emission and the row-invariant
//! hoisting walk) visits each value once per index. Without that, this
//! test does not finish.

use rxla_eval::{RunOptions, evaluate};
use rxla_ir::{Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

#[test]
fn fibonacci_dag_compiles_in_linear_time() {
    let n = 120;
    let mut text = String::from(
        "HloModule fib\nENTRY e {\n  x0 = f32[64] parameter(0)\n  x1 = f32[64] negate(x0)\n",
    );
    for i in 2..n {
        text += &format!("  x{i} = f32[64] add(x{}, x{})\n", i - 1, i - 2);
    }
    text += &format!("  ROOT r = f32[64] multiply(x{}, x{})\n}}\n", n - 1, n - 2);
    let m = parse_module(&text, "fib").expect("parses");
    let x = Literal::from_vec(
        &[64],
        (0..64).map(|i| (i as f32) * 1e-30).collect::<Vec<f32>>(),
    )
    .unwrap();
    let want = evaluate(&m, std::slice::from_ref(&x), &RunOptions::default()).expect("evaluates");
    let exe = compile(&m, &CompileOptions::default()).expect("compiles");
    assert_eq!(exe.run(std::slice::from_ref(&x)).expect("runs"), want);
}
