//! `--stats`: each pass's counters (summed over its runs, passes in order
//! of first run), and whether the pass honours fuel, printed at the end.

use super::{Instrumentation, PassEvent, Sink};
use crate::error::Result;
use rxla_ir::Module;

struct PassStats {
    pass: String,
    runs: usize,
    honours_fuel: bool,
    fuel_used: u64,
    counters: Vec<(String, u64)>,
}

/// The statistics instrumentation.
pub struct Stats {
    sink: Sink,
    passes: Vec<PassStats>,
}

impl Stats {
    pub fn new(sink: Sink) -> Stats {
        Stats {
            sink,
            passes: Vec::new(),
        }
    }

    /// The report as text.
    pub fn report(&self) -> String {
        let mut s = String::from("// ----- statistics -----\n");
        for p in &self.passes {
            let fuel = if p.honours_fuel {
                format!("; honours fuel: {} units used", p.fuel_used)
            } else {
                "; does not honour fuel".to_string()
            };
            let runs = if p.runs == 1 { "run" } else { "runs" };
            s.push_str(&format!("{}: {} {runs}{fuel}\n", p.pass, p.runs));
            if p.counters.is_empty() {
                s.push_str("  (no counters)\n");
            }
            for (k, v) in &p.counters {
                s.push_str(&format!("  {v:>8}  {k}\n"));
            }
        }
        s
    }
}

impl Instrumentation for Stats {
    fn after_pass(&mut self, event: &PassEvent<'_>, _module: &Module) -> Result<()> {
        let idx = match self.passes.iter().position(|p| p.pass == event.pass) {
            Some(i) => i,
            None => {
                self.passes.push(PassStats {
                    pass: event.pass.to_string(),
                    runs: 0,
                    honours_fuel: event.honours_fuel,
                    fuel_used: 0,
                    counters: Vec::new(),
                });
                self.passes.len() - 1
            }
        };
        let p = &mut self.passes[idx];
        p.runs += 1;
        p.fuel_used += event.fuel_used;
        for (k, v) in event.stats {
            match p.counters.iter_mut().find(|(n, _)| n == k) {
                Some((_, c)) => *c += v,
                None => p.counters.push((k.clone(), *v)),
            }
        }
        Ok(())
    }

    fn run_end(&mut self, _module: &Module) -> Result<()> {
        self.sink.write(&self.report())
    }
}
