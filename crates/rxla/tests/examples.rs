//! Runs every example's `main` (cargo test only builds examples): each
//! example asserts its own results, so a broken example fails here.

#[path = "../examples/build_module.rs"]
mod build_module;
#[path = "../examples/custom_pass.rs"]
mod custom_pass;
#[path = "../examples/fuzz_pass.rs"]
mod fuzz_pass;
#[path = "../examples/print_ir.rs"]
mod print_ir;
#[path = "../examples/run_into.rs"]
mod run_into;

#[test]
fn a_build_module() {
    build_module::main().unwrap();
}

#[test]
fn b_print_ir() {
    print_ir::main().unwrap();
}

#[test]
fn c_custom_pass() {
    custom_pass::main().unwrap();
}

#[test]
fn d_run_into() {
    run_into::main().unwrap();
}

#[test]
fn e_fuzz_pass() {
    fuzz_pass::main().unwrap();
}
