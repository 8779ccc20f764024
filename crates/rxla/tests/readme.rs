//! The README's "Use it as a library" section is `crates/rxla/LIBRARY.md`,
//! whose code block runs as a doctest of this crate: this test keeps the
//! two identical, so the README's code is the tested code.

#[test]
fn readme_shows_the_tested_library_section() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let section = std::fs::read_to_string(format!("{root}/crates/rxla/LIBRARY.md")).unwrap();
    assert!(section.starts_with("## Use it as a library\n"));
    assert!(section.contains("```rust\n"));
    assert!(
        readme.contains(section.trim_end()),
        "README.md must contain crates/rxla/LIBRARY.md verbatim (copy it over)"
    );
}
