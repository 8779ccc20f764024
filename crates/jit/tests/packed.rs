//! `run_into` on XLA's packed narrow-integer buffers (layout `E(4)`/`E(2)`):
//! the byte values are those XLA:CPU (jax 0.10.2) holds for the same
//! arrays (docs/SEMANTICS.md "Packed narrow integers"). Odd element counts,
//! a transposed layout, junk in the last byte's padding bits and wrong
//! buffer lengths.

use rxla_ir::{ElementType, Literal, parse_module};
use rxla_jit::{CompileOptions, compile};

fn exe(text: &str) -> rxla_jit::Executable {
    let m = parse_module(text, "packed").expect("parses");
    compile(&m, &CompileOptions::default()).expect("compiles")
}

#[test]
fn s4_negate_on_packed_buffers() {
    let e = exe(
        "HloModule m, entry_computation_layout={(s4[5]{0:E(4)})->s4[5]{0:E(4)}}\n\
                 ENTRY main {\n  x = s4[5]{0:E(4)} parameter(0)\n  ROOT n = s4[5]{0:E(4)} negate(x)\n}\n",
    );
    // {1, -2, 3, -4, 5} -> {-1, 2, -3, 4, -5}. The input's padding nibble
    // is junk (XLA leaves it so): it is ignored.
    let mut out = [0u8; 3];
    e.run_into(&[&[0xe1, 0xc3, 0xa5]], &mut [&mut out]).unwrap();
    assert_eq!(out, [0x2f, 0x4d, 0x0b]);
    // Literal runs agree.
    let x = Literal::narrow(ElementType::S4, &[5], &[1., -2., 3., -4., 5.]).unwrap();
    assert_eq!(e.run(&[x]).unwrap().to_text(), "{-1, 2, -3, 4, -5}");
    // Wrong lengths: clear errors, no access.
    let mut big = [0u8; 5];
    let err = e.run_into(&[&[0; 5]], &mut [&mut out]).unwrap_err();
    assert!(err.to_string().contains("needs 3"), "{err}");
    let err = e.run_into(&[&[0; 3]], &mut [&mut big]).unwrap_err();
    assert!(err.to_string().contains("[3]"), "{err}");
}

#[test]
fn u2_add_and_mixed_tuple() {
    // u2 {1, 2, 3, 0, 3, 2, 1} is 0x39 0x1b; doubled (wrapping) is
    // {2, 0, 2, 0, 2, 0, 2} = 0x22 0x22; the s4 half is unpacked (no E).
    let e = exe("HloModule m\n\
                 ENTRY main {\n  y = u2[7]{0:E(2)} parameter(0)\n  s = s4[3]{0} parameter(1)\n  \
                 a = u2[7]{0:E(2)} add(y, y)\n  n = s4[3]{0:E(4)} negate(s)\n  \
                 ROOT t = (u2[7]{0:E(2)}, s4[3]{0:E(4)}) tuple(a, n)\n}\n");
    let mut a = [0u8; 2];
    let mut n = [0u8; 2];
    e.run_into(&[&[0x39, 0x1b], &[0x01, 0x0e, 0x07]], &mut [&mut a, &mut n])
        .unwrap();
    assert_eq!(a, [0x22, 0x22]);
    // {1, -2, 7} negated is {-1, 2, -7} = 0x2f 0x09.
    assert_eq!(n, [0x2f, 0x09]);
}

#[test]
fn transposed_and_unpacking_convert() {
    // s4[3,3] {{-4..-2},{-1..1},{2..4}} row-major packed is
    // dc fe 10 32 04; transposed to a column-major packed result it is
    // fc d2 30 1e 04 (XLA's bytes for the transpose).
    let e = exe("HloModule m\n\
                 ENTRY main {\n  x = s4[3,3]{1,0:E(4)} parameter(0)\n  \
                 ROOT c = s4[3,3]{0,1:E(4)} copy(x)\n}\n");
    let mut out = [0u8; 5];
    e.run_into(&[&[0xdc, 0xfe, 0x10, 0x32, 0x04]], &mut [&mut out])
        .unwrap();
    assert_eq!(out, [0xfc, 0xd2, 0x30, 0x1e, 0x04]);
    // Packed in, unpacked s8 out (one byte per element).
    let e = exe("HloModule m\n\
                 ENTRY main {\n  x = s4[5]{0:E(4)} parameter(0)\n  \
                 ROOT c = s8[5]{0} convert(x)\n}\n");
    let mut out = [0u8; 5];
    e.run_into(&[&[0xe1, 0xc3, 0x05]], &mut [&mut out]).unwrap();
    assert_eq!(out, [1, 0xfe, 3, 0xfc, 5]);
}
