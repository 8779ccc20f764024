//! Passes that exist only to test the pass manager: `test-break-names`
//! deliberately breaks an invariant (it gives the ENTRY root the name of
//! another instruction, so names are no longer unique) and
//! `test-fail` returns an error. They are never in
//! [`crate::Registry::standard`]; tests (and `rxla opt
//! --enable-test-passes`) register them with [`register_test_passes`].

use crate::error::{PassError, Result};
use crate::pass::{Pass, PassContext};
use crate::registry::Registry;
use rxla_ir::Module;

/// Breaks name uniqueness in the ENTRY computation.
pub struct BreakNames;

impl Pass for BreakNames {
    fn name(&self) -> &'static str {
        "test-break-names"
    }

    fn description(&self) -> &'static str {
        "TEST ONLY: renames the ENTRY root to the name of the first instruction (breaks the verifier's unique-names invariant)"
    }

    fn run(&mut self, module: &mut Module, _ctx: &mut PassContext) -> Result<bool> {
        let entry = module.entry_computation_mut();
        let first = entry.instructions.first().map(|i| i.name.clone());
        let root = entry.root;
        match first {
            Some(name) if entry.len() > 1 && root.index() != 0 => {
                entry.get_mut(root).name = name;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

/// Always fails.
pub struct Fail;

impl Pass for Fail {
    fn name(&self) -> &'static str {
        "test-fail"
    }

    fn description(&self) -> &'static str {
        "TEST ONLY: always returns an error"
    }

    fn run(&mut self, _module: &mut Module, _ctx: &mut PassContext) -> Result<bool> {
        Err(PassError::failed(self.name(), "deliberate failure"))
    }
}

/// Adds the test-only passes to `registry`.
pub fn register_test_passes(registry: &mut Registry) {
    registry.register(|| Box::new(BreakNames));
    registry.register(|| Box::new(Fail));
}

/// Generators of hostile-size modules (issue 20), shared by the tests and
/// the `big_modules` bench. They build the IR directly (no parsing), so a
/// million instructions cost well under a second; every module they return
/// verifies.
pub mod big {
    use rxla_ir::{
        BinaryOp, CompId, Computation, ElementType, InstrId, Instruction, Module, Op, Shape,
        UnaryOp,
    };

    fn f32s(dims: &[i64]) -> Shape {
        Shape::array(ElementType::F32, dims.to_vec()).expect("small static shape")
    }

    fn param(c: &mut Computation, n: i64, shape: &Shape) -> InstrId {
        c.push(Instruction::new(
            format!("p{n}"),
            Op::Parameter { number: n },
            vec![],
            shape.clone(),
        ))
    }

    /// A straight-line elementwise chain of `n` instructions on f32[4]
    /// (after two parameters): multiply/add/maximum/subtract with a
    /// parameter and an occasional `exponential`, so no simplify rule,
    /// constant folding or CSE applies and every instruction is live.
    pub fn chain(n: usize) -> Module {
        let shape = f32s(&[4]);
        let mut c = Computation::new("main");
        let p0 = param(&mut c, 0, &shape);
        let p1 = param(&mut c, 1, &shape);
        let mut prev = p0;
        for i in 0..n {
            let op = match i % 5 {
                0 => Op::Binary(BinaryOp::Multiply),
                1 => Op::Binary(BinaryOp::Add),
                2 => Op::Unary(UnaryOp::Exp),
                3 => Op::Binary(BinaryOp::Maximum),
                _ => Op::Binary(BinaryOp::Subtract),
            };
            let operands = if matches!(op, Op::Unary(_)) {
                vec![prev]
            } else {
                vec![prev, if i % 2 == 0 { p1 } else { p0 }]
            };
            prev = c.push(Instruction::new(
                format!("v{i}"),
                op,
                operands,
                shape.clone(),
            ));
        }
        c.root = prev;
        let mut m = Module::new("chain");
        m.computations.push(c);
        m.entry = CompId(0);
        m
    }

    /// A call chain of depth `depth`: ENTRY calls `f0`, `f{k}` adds its
    /// parameter to itself and calls `f{k+1}`, the last one negates.
    /// Computations are stored callees first.
    pub fn call_chain(depth: usize) -> Module {
        let shape = f32s(&[4]);
        let mut m = Module::new("call_chain");
        // f{depth-1} .. f0 (callees first), then ENTRY.
        for k in (0..depth).rev() {
            let mut c = Computation::new(format!("f{k}"));
            let p = param(&mut c, 0, &shape);
            if k + 1 == depth {
                c.root = c.push(Instruction::new(
                    format!("n{k}"),
                    Op::Unary(UnaryOp::Negate),
                    vec![p],
                    shape.clone(),
                ));
            } else {
                let x = c.push(Instruction::new(
                    format!("x{k}"),
                    Op::Binary(BinaryOp::Add),
                    vec![p, p],
                    shape.clone(),
                ));
                // f{k+1} was pushed just before this one.
                let callee = CompId((m.computations.len() - 1) as u32);
                c.root = c.push(Instruction::new(
                    format!("c{k}"),
                    Op::Call { to_apply: callee },
                    vec![x],
                    shape.clone(),
                ));
            }
            m.computations.push(c);
        }
        let mut e = Computation::new("main");
        let a = param(&mut e, 0, &shape);
        e.root = if depth == 0 {
            a
        } else {
            e.push(Instruction::new(
                "r",
                Op::Call {
                    to_apply: CompId((m.computations.len() - 1) as u32),
                },
                vec![a],
                shape.clone(),
            ))
        };
        m.entry = CompId(m.computations.len() as u32);
        m.computations.push(e);
        m
    }

    /// A wide module of about `n` instructions: `n/2` independent leaves
    /// (products of two of 16 parameters, many of them duplicates for CSE)
    /// summed by a balanced tree of adds.
    pub fn wide(n: usize) -> Module {
        let shape = f32s(&[4]);
        let mut c = Computation::new("main");
        let params: Vec<InstrId> = (0..16).map(|k| param(&mut c, k, &shape)).collect();
        let leaves = (n / 2).max(1);
        let mut level: Vec<InstrId> = (0..leaves)
            .map(|i| {
                let a = params[i % 16];
                let b = params[(i / 16 + i) % 16];
                c.push(Instruction::new(
                    format!("l{i}"),
                    Op::Binary(BinaryOp::Multiply),
                    vec![a, b],
                    shape.clone(),
                ))
            })
            .collect();
        let mut k = 0usize;
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            for pair in level.chunks(2) {
                if let [a, b] = pair {
                    k += 1;
                    next.push(c.push(Instruction::new(
                        format!("s{k}"),
                        Op::Binary(BinaryOp::Add),
                        vec![*a, *b],
                        shape.clone(),
                    )));
                } else {
                    next.extend_from_slice(pair);
                }
            }
            level = next;
        }
        c.root = level[0];
        let mut m = Module::new("wide");
        m.computations.push(c);
        m.entry = CompId(0);
        m
    }
}
