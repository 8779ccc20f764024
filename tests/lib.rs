//! Cross-crate tests of rxla (corpus, filetests, round trips, fuzz seeds,
//! fusion work). The filetest runner itself is the `rxla-filetests` crate.
