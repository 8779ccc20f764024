//! The worked examples of the specification (operation semantics and
//! shapes-and-layout pages) are filetests in `tests/filetests/interp/spec/`,
//! value for value. What stays here needs Rust: the layout of a result (run
//! lines compare values only) and a custom call registered as a C function.

use crate::eval_support;
use eval_support::*;
use rxla_ir::Literal;

fn r1(v: &[f32]) -> Literal {
    Literal::vec1(v.to_vec())
}

fn m(rows: &[&[f32]]) -> Literal {
    Literal::mat(rows).unwrap()
}

#[test]
fn result_comes_back_in_the_entry_layout() {
    let r = run(
        "HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{0,1}}\nENTRY e {\n p = f32[2,3]{1,0} parameter(0)\n ROOT n = f32[2,3]{1,0} negate(p)\n}\n",
        vec![m(&[&[1., 2., 3.], &[4., 5., 6.]])],
    );
    let a = r.as_array().unwrap();
    assert_eq!(a.shape.layout, rxla_ir::Layout::column_major(2));
    assert_eq!(f32s(&r), [-1., -2., -3., -4., -5., -6.]);
}

extern "C" fn myfunc(out: *mut u8, ins: *const *const u8) {
    // SAFETY: the evaluator passes f32[2] and f32[2,3] inputs and an f32[3,3] output buffer.
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const f32, 2);
        let y = std::slice::from_raw_parts(*ins.add(1) as *const f32, 6);
        let z = std::slice::from_raw_parts_mut(out as *mut f32, 9);
        for i in 0..3 {
            for j in 0..3 {
                z[i * 3 + j] = x[i % 2] + y[(i % 2) * 3 + j];
            }
        }
        z[0] = x[1] + y[3];
    }
}

#[test]
fn custom_call_myfunc() {
    let text = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n y = f32[2,3] parameter(1)\n ROOT z = f32[3,3] custom-call(x, y), custom_call_target=\"myfunc\"\n}\n";
    let mut opts = rxla_eval::RunOptions::default();
    opts.custom_calls.register("myfunc", myfunc);
    let r = try_run_with(
        text,
        vec![r1(&[1., 2.]), m(&[&[10., 20., 30.], &[40., 50., 60.]])],
        &opts,
    )
    .unwrap();
    assert_eq!(f32s(&r), [42., 21., 31., 42., 52., 62., 11., 21., 31.]);
}
