//! `cargo xtask bench` report: reads criterion's results under
//! `target/criterion/*/…/new/` (benchmark.json, estimates.json, sample.json)
//! and rewrites the generated section of docs/PERFORMANCE.md (between the
//! `BEGIN`/`END` markers below) with the machine, the date, the commit, and
//! one row per benchmark: median time, range (fastest and slowest sample
//! mean), throughput, fraction of the measured FMA peak for FLOP counts,
//! and the issue's anchor where there is one. It reads files and writes
//! that one section only; it never runs benchmarks itself.

use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub const BEGIN: &str = "<!-- BEGIN cargo xtask bench (generated; edits here are overwritten) -->";
pub const END: &str = "<!-- END cargo xtask bench -->";

/// One criterion benchmark's figures.
#[derive(Debug)]
pub struct Row {
    pub id: String,
    /// Median time per iteration, seconds.
    pub median: f64,
    /// Fastest and slowest sample mean, seconds.
    pub range: (f64, f64),
    pub throughput: Option<Throughput>,
}

#[derive(Debug, Clone, Copy)]
pub enum Throughput {
    Bytes(f64),
    /// Elements are FLOPs in the gemm benches.
    Elements(f64),
}

/// The anchors quoted by the issues (XLA:CPU from jaxlib 0.10.2, OpenBLAS;
/// one core) and the targets, by benchmark id.
fn anchor(id: &str) -> Option<&'static str> {
    Some(match id {
        "jit/elementwise_4Mi" => "XLA 24.8 GB/s; target ≥ 30 GB/s",
        "jit/reduce_sum_axis1_4096" => "XLA 25.9 GB/s; target ≥ 28 GB/s",
        "jit/softmax_4096" => "XLA 21 ms; target ≤ 18 ms",
        "jit_compile/mlp_784_512_512_10_b256" => "XLA 33–48 ms; target ≤ 3 ms",
        "jit_compile/chain_200_f32_1024" => "XLA 52–97 ms; target ≤ 8 ms",
        "jit/scalar_add_call" => "XLA 8 µs; target ≤ 1 µs",
        "sgemm/1thr/128" => "XLA 52–56, OpenBLAS 83 GFLOP/s",
        "sgemm/1thr/1024" => "XLA 86–89, OpenBLAS 93–95; target ≥ 92 GFLOP/s",
        "sgemm/2thr/1024" => "target ≥ 180 GFLOP/s, ≥ 1.8× of 1 thread",
        "sgemm_kernel/cranelift/1024" => "Cranelift ceiling 51; target ≥ 46 GFLOP/s",
        "conv/1thr/conv_b8_64_56_k3" => "XLA 74; target ≥ 85 GFLOP/s",
        "conv/1thr/conv_stem_224_k7s2" => "XLA 77; target ≥ 77 GFLOP/s",
        "mlp/1thr/784_512_512_10_b256" => "XLA 3.8 ms",
        "fma_peak/1thr" => "issue: 102.6 GFLOP/s (3.2 GHz)",
        "fma_peak/2thr" => "issue: 205 GFLOP/s",
        _ => return None,
    })
}

fn read_json(p: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()
}

/// Every `new/` directory under `root`, depth-first, sorted.
fn new_dirs(root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(root) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        if d.file_name().is_some_and(|n| n == "new") {
            out.push(d);
        } else if d.file_name().is_some_and(|n| n != "report" && n != "base") {
            new_dirs(&d, out);
        }
    }
}

fn parse_row(dir: &Path) -> Option<Row> {
    let bench = read_json(&dir.join("benchmark.json"))?;
    let est = read_json(&dir.join("estimates.json"))?;
    let sample = read_json(&dir.join("sample.json"))?;
    let id = bench["full_id"].as_str()?.to_string();
    let median = est["median"]["point_estimate"].as_f64()? * 1e-9;
    let iters = sample["iters"].as_array()?;
    let times = sample["times"].as_array()?;
    let means: Vec<f64> = iters
        .iter()
        .zip(times)
        .filter_map(|(i, t)| Some(t.as_f64()? / i.as_f64()? * 1e-9))
        .collect();
    let lo = means.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = means.iter().cloned().fold(0.0, f64::max);
    let throughput = match &bench["throughput"] {
        Value::Object(m) => {
            if let Some(b) = m.get("Bytes").and_then(Value::as_f64) {
                Some(Throughput::Bytes(b))
            } else {
                m.get("Elements")
                    .and_then(Value::as_f64)
                    .map(Throughput::Elements)
            }
        }
        _ => None,
    };
    Some(Row {
        id,
        median,
        range: (lo, hi),
        throughput,
    })
}

/// All rows under `criterion_dir`, in directory order.
pub fn collect(criterion_dir: &Path) -> Vec<Row> {
    let mut dirs = Vec::new();
    new_dirs(criterion_dir, &mut dirs);
    dirs.iter().filter_map(|d| parse_row(d)).collect()
}

fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.2} µs", s * 1e6)
    } else {
        format!("{:.1} ns", s * 1e9)
    }
}

fn rate(t: Throughput, secs: f64) -> (f64, &'static str) {
    match t {
        Throughput::Bytes(b) => (b / secs / 1e9, "GB/s"),
        Throughput::Elements(e) => (e / secs / 1e9, "GFLOP/s"),
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpu
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(str::trim)
        .unwrap_or("unknown CPU")
        .to_string();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    format!("{model}, {cores} logical CPUs")
}

fn command_out(cmd: &str, args: &[&str]) -> String {
    std::process::Command::new(cmd)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// The generated markdown section (markers included).
pub fn render(rows: &[Row]) -> String {
    let peak1 = rows
        .iter()
        .find(|r| r.id == "fma_peak/1thr")
        .and_then(|r| r.throughput.map(|t| rate(t, r.median).0));
    let peak_for = |id: &str| -> Option<f64> {
        let thr = if id.contains("2thr") { 2.0 } else { 1.0 };
        peak1.map(|p| p * thr)
    };
    let mut s = String::new();
    let _ = writeln!(s, "{BEGIN}");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Written by `cargo xtask bench` on {} (commit {}), machine: {}. \
         Criterion medians; the range is the fastest and the slowest sample mean. \
         % of peak divides by the FMA-peak probe of the same run (`fma_peak/1thr`, \
         ×2 for two threads). Single-thread rows ran with one worker thread; \
         the machine may have been shared with other work, see the notes above.",
        command_out("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        command_out("git", &["rev-parse", "--short", "HEAD"]),
        machine()
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| benchmark | median | range | throughput | % of peak | anchor / target |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---|");
    for r in rows {
        let (tp, pct) = match r.throughput {
            Some(t) => {
                let (v, unit) = rate(t, r.median);
                let pct = match (t, peak_for(&r.id)) {
                    (Throughput::Elements(_), Some(p)) if !r.id.starts_with("fma_peak") => {
                        format!("{:.0}%", 100.0 * v / p)
                    }
                    _ => String::new(),
                };
                (format!("{v:.1} {unit}"), pct)
            }
            None => (String::new(), String::new()),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} – {} | {} | {} | {} |",
            r.id,
            fmt_time(r.median),
            fmt_time(r.range.0),
            fmt_time(r.range.1),
            tp,
            pct,
            anchor(&r.id).unwrap_or("")
        );
    }
    let _ = writeln!(s);
    let _ = write!(s, "{END}");
    s
}

/// `doc` with its generated section replaced by `section` (appended at the
/// end when the markers are missing).
pub fn splice(doc: &str, section: &str) -> String {
    match (doc.find(BEGIN), doc.find(END)) {
        (Some(b), Some(e)) if e > b => {
            format!("{}{}{}", &doc[..b], section, &doc[e + END.len()..])
        }
        _ => format!(
            "{}\n\n## Generated figures\n\n{}\n",
            doc.trim_end(),
            section
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_only_the_section() {
        let doc = format!("# t\n\nhand\n\n{BEGIN}\nold\n{END}\n\ntail\n");
        let out = splice(&doc, &format!("{BEGIN}\nnew\n{END}"));
        assert_eq!(out, format!("# t\n\nhand\n\n{BEGIN}\nnew\n{END}\n\ntail\n"));
        let appended = splice("# t\n", &format!("{BEGIN}\nx\n{END}"));
        assert!(appended.starts_with("# t\n\n## Generated figures\n\n"));
        assert!(appended.contains("\nx\n"));
    }

    #[test]
    fn reads_criterion_files() {
        let dir = std::env::temp_dir().join(format!("xtask-bench-{}", std::process::id()));
        let new = dir.join("sgemm/1thr/1024/new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(
            new.join("benchmark.json"),
            r#"{"full_id":"sgemm/1thr/1024","throughput":{"Elements":2147483648}}"#,
        )
        .unwrap();
        std::fs::write(
            new.join("estimates.json"),
            r#"{"median":{"point_estimate":20000000.0}}"#,
        )
        .unwrap();
        std::fs::write(
            new.join("sample.json"),
            r#"{"iters":[1.0,2.0],"times":[19000000.0,44000000.0]}"#,
        )
        .unwrap();
        let rows = collect(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].id, "sgemm/1thr/1024");
        assert!((rows[0].median - 0.02).abs() < 1e-12);
        assert!((rows[0].range.0 - 0.019).abs() < 1e-12);
        assert!((rows[0].range.1 - 0.022).abs() < 1e-12);
        let md = render(&rows);
        assert!(
            md.contains("| sgemm/1thr/1024 | 20.000 ms | 19.000 ms – 22.000 ms | 107.4 GFLOP/s |")
        );
        assert!(md.contains("target ≥ 92 GFLOP/s"));
    }
}
