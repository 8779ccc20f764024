//! One runner per subtest kind. Each takes the parsed module (or the
//! source, for `errors`) and the directives and returns an error message
//! naming the line; none of them edits a file.

pub mod errors;
pub mod opt;
pub mod roundtrip;
pub mod runs;
