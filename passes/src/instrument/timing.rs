//! `--timing`: one row per pass run (wall time, instruction count before →
//! after, changed) plus skipped passes and a total line, printed as a
//! table when the run ends.

use super::{Instrumentation, PassEvent, Sink, SkipReason};
use crate::error::Result;
use rxla_ir::Module;
use std::time::Duration;

struct Row {
    pass: String,
    time: Option<Duration>,
    before: usize,
    after: usize,
    status: String,
}

/// The timing instrumentation.
pub struct Timing {
    sink: Sink,
    rows: Vec<Row>,
    start_count: usize,
    /// Instruction count as last seen (for skipped rows).
    current: usize,
}

/// The table's column header line.
pub const TIMING_HEADER: &str =
    "  #  pass                      wall time   instructions (before -> after)  changed";

impl Timing {
    pub fn new(sink: Sink) -> Timing {
        Timing {
            sink,
            rows: Vec::new(),
            start_count: 0,
            current: 0,
        }
    }

    /// The table as text.
    pub fn table(&self) -> String {
        let mut s = String::from("// ----- timing -----\n");
        s.push_str(TIMING_HEADER);
        s.push('\n');
        let mut total = Duration::ZERO;
        for (i, r) in self.rows.iter().enumerate() {
            let time = match r.time {
                Some(t) => {
                    total += t;
                    format_ms(t)
                }
                None => "-".to_string(),
            };
            let counts = format!("{} -> {}", r.before, r.after);
            s.push_str(&format!(
                "{:>3}  {:<24}  {:>10}   {:<30}  {}\n",
                i + 1,
                r.pass,
                time,
                counts,
                r.status
            ));
        }
        let counts = format!("{} -> {}", self.start_count, self.current);
        let runs = self.rows.iter().filter(|r| r.time.is_some()).count();
        s.push_str(&format!(
            "     {:<24}  {:>10}   {:<30}  {} pass runs\n",
            "total",
            format_ms(total),
            counts,
            runs
        ));
        s
    }
}

fn format_ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

impl Instrumentation for Timing {
    fn run_start(&mut self, module: &Module) -> Result<()> {
        self.start_count = module.instruction_count();
        self.current = self.start_count;
        Ok(())
    }

    fn after_pass(&mut self, event: &PassEvent<'_>, module: &Module) -> Result<()> {
        self.current = module.instruction_count();
        self.rows.push(Row {
            pass: event.pass.to_string(),
            time: Some(event.duration),
            before: event.instructions_before,
            after: self.current,
            status: if event.changed { "yes" } else { "no" }.to_string(),
        });
        Ok(())
    }

    fn pass_skipped(&mut self, pass: &str, reason: SkipReason) -> Result<()> {
        self.rows.push(Row {
            pass: pass.to_string(),
            time: None,
            before: self.current,
            after: self.current,
            status: reason.describe().to_string(),
        });
        Ok(())
    }

    fn run_end(&mut self, _module: &Module) -> Result<()> {
        self.sink.write(&self.table())
    }
}
