//! Where text instrumentations write: stderr, or a shared in-memory buffer
//! (tests, tools that collect output). Writing only.

use crate::error::{PassError, Result};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

/// A text destination.
#[derive(Clone)]
pub enum Sink {
    Stderr,
    Buffer(Rc<RefCell<String>>),
}

impl Sink {
    /// A new in-memory sink and a handle to read it.
    pub fn buffer() -> (Sink, Rc<RefCell<String>>) {
        let b = Rc::new(RefCell::new(String::new()));
        (Sink::Buffer(b.clone()), b)
    }

    /// Writes `text` as is.
    pub fn write(&self, text: &str) -> Result<()> {
        match self {
            Sink::Stderr => {
                let mut e = std::io::stderr().lock();
                e.write_all(text.as_bytes())
                    .map_err(|e| PassError::Io(format!("cannot write to stderr: {e}")))
            }
            Sink::Buffer(b) => {
                b.borrow_mut().push_str(text);
                Ok(())
            }
        }
    }
}
