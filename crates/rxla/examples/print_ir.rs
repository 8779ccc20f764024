//! Example (b): run a pass pipeline with IR printing into a buffer (the
//! library side of `rxla opt --print-ir-after-change --print-ir-diff`),
//! then read what each pass did. Run: `cargo run -p rxla --example print_ir`.

use rxla::passes::instrument::{PrintIr, PrintIrOptions, Sink, Timing};
use rxla::prelude::*;

const TEXT: &str = r#"
HloModule cse_me

ENTRY main {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x)
  b = f32[4] exponential(x)
  dead = f32[4] negate(x)
  ROOT s = f32[4] add(a, b)
}
"#;

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut module = rxla::parse_text(TEXT, &Options::default())?;

    let mut pm = rxla::pass_manager("cse,dce", &Registry::default())?;
    let (sink, buffer) = Sink::buffer();
    pm.add_instrumentation(Box::new(PrintIr::new(
        PrintIrOptions {
            // After every pass that changed the module, as a diff.
            after_change: true,
            diff: true,
            ..PrintIrOptions::default()
        },
        sink,
    )));
    let (timing_sink, timing) = Sink::buffer();
    pm.add_instrumentation(Box::new(Timing::new(timing_sink)));
    let summary = pm.run(&mut module)?;
    assert!(summary.changed);

    let log = buffer.borrow().clone();
    println!("{log}");
    // cse merged b into a; dce removed b and the unused negate.
    assert!(log.contains("IR after cse (changed)"), "{log}");
    assert!(log.contains("IR after dce (changed)"), "{log}");
    assert!(log.contains("-  dead = f32[4]{0} negate("), "{log}");
    println!("{}", timing.borrow());

    let text = print_module(&module);
    assert_eq!(text.matches("exponential(").count(), 1, "{text}");
    assert!(!text.contains("negate"), "{text}");
    Ok(())
}
