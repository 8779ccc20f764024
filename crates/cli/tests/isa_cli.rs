//! `rxla run --time` says which ISA tiers ran (issue 19), and a forced
//! tier the host cannot run is a clean error, not a crash.

use std::process::Command;

fn module() -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("rxla-isa-{}.hlo", std::process::id()));
    std::fs::write(
        &p,
        "HloModule m\nENTRY e {\n  a = f32[8,8] parameter(0)\n  ROOT d = f32[8,8] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
    )
    .unwrap();
    p
}

/// `rxla run FILE --random-args=1 --time=2 --output=json` (with `RXLA_ISA`
/// set when `isa` is given), which must succeed; its JSON output.
fn timed_json(f: &std::path::Path, isa: Option<&str>) -> serde_json::Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rxla"));
    if let Some(isa) = isa {
        cmd.env("RXLA_ISA", isa);
    }
    let out = cmd
        .args([
            "run",
            f.to_str().unwrap(),
            "--random-args=1",
            "--time=2",
            "--output=json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn timing_reports_the_isa_tiers() {
    let f = module();
    let v = timed_json(&f, None);
    let isa = v["timing"]["isa"].as_str().unwrap_or_default().to_string();
    assert!(
        isa.starts_with("gemm ") && isa.contains("element math"),
        "{v}"
    );
    // The portable tier exists on every host.
    let v = timed_json(&f, Some("portable"));
    assert_eq!(
        v["timing"]["isa"], "gemm portable, element math 128-bit",
        "{v}"
    );
    // An unknown tier is an error with exit 1.
    let out = Command::new(env!("CARGO_BIN_EXE_rxla"))
        .env("RXLA_ISA", "sse9")
        .args([
            "run",
            f.to_str().unwrap(),
            "--random-args=1",
            "--backend",
            "jit",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("sse9"));
    let _ = std::fs::remove_file(f);
}
