//! Workloads shared by rxla's criterion benches: HLO text generators for
//! elementwise chains and dots. Benchmarks measure; they never assert.

/// An elementwise chain of `ops` operations on f32[`n`]: alternating
/// multiply/add/maximum/subtract with a parameter, so nothing folds.
pub fn elementwise_chain(n: usize, ops: usize) -> String {
    let mut s = format!(
        "HloModule chain\n\nENTRY main {{\n  p0 = f32[{n}]{{0}} parameter(0)\n  p1 = f32[{n}]{{0}} parameter(1)\n"
    );
    let kinds = ["multiply", "add", "maximum", "subtract"];
    let mut prev = "p0".to_string();
    for i in 0..ops {
        let root = if i + 1 == ops { "ROOT " } else { "" };
        let name = format!("v{i}");
        s.push_str(&format!(
            "  {root}{name} = f32[{n}]{{0}} {}({prev}, p1)\n",
            kinds[i % kinds.len()]
        ));
        prev = name;
    }
    s.push_str("}\n");
    s
}

/// A square f32 matmul of size `n`.
pub fn matmul(n: usize) -> String {
    format!(
        "HloModule matmul\n\nENTRY main {{\n  a = f32[{n},{n}]{{1,0}} parameter(0)\n  b = f32[{n},{n}]{{1,0}} parameter(1)\n  ROOT d = f32[{n},{n}]{{1,0}} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}\n"
    )
}
