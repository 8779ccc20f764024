//! The builder API (XLA's XlaBuilder / the spec's ComputationBuilder):
//! build computations op by op with shape inference on every call. Every
//! call returns `Result<Value>`; a bad argument is an [`IrError::Build`]
//! naming the builder call. The builder only appends instructions; it never
//! rewrites what was built.
//!
//! ```
//! use rxla_ir::builder::ModuleBuilder;
//! use rxla_ir::{ElementType, Shape};
//! let mut mb = ModuleBuilder::new("m");
//! let mut b = mb.computation("main");
//! let x = b.parameter(0, Shape::array(ElementType::F32, vec![2]).unwrap(), "x").unwrap();
//! let y = b.add(x, x).unwrap();
//! let main = b.build(y).unwrap();
//! let module = mb.build_entry(main).unwrap();
//! assert_eq!(module.entry_computation().len(), 2);
//! ```
//!
//! One file per op family (`elementwise`, `shape_ops`, `contraction`,
//! `reduction`, `control`); this file holds the core.

mod collective;
mod contraction;
mod control;
mod elementwise;
mod linalg;
mod reduction;
mod shape_ops;

pub use contraction::ConvGeneral;

use crate::element_type::ElementType;
use crate::error::{IrError, Result};
use crate::literal::{Literal, NativeType};
use crate::module::{Computation, Instruction, Module};
use crate::ops::{BinaryOp, CompId, ComparisonDirection, InstrId, Op};
use crate::shape::Shape;
use crate::shape_inference::infer_shape;
use crate::verifier::{verify_computation, verify_module};

/// A handle to an instruction of the computation being built (XLA's
/// `XlaOp`). Only meaningful for the builder that returned it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value(pub InstrId);

/// SAME or VALID padding for convolutions and windowed reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// Pad so that the output has `ceil(input / stride)` elements.
    Same,
    /// No padding: only windows that fit entirely.
    Valid,
}

/// Low/high padding per dimension for `padding` over `input` dims with
/// `window` sizes and `strides` (XLA's MakePadding).
pub fn make_padding(
    input: &[i64],
    window: &[i64],
    strides: &[i64],
    padding: Padding,
) -> Vec<(i64, i64)> {
    match padding {
        Padding::Valid => vec![(0, 0); input.len()],
        Padding::Same => input
            .iter()
            .zip(window)
            .zip(strides)
            .map(|((&i, &w), &s)| {
                // i128 so absurd sizes cannot overflow; results are clamped
                // back into i64 (shape inference rejects them later).
                let (i, w, s) = (i as i128, w as i128, s.max(1) as i128);
                let out = (i + s - 1) / s;
                let needed = ((out - 1) * s + w - i).max(0);
                let clamp = |x: i128| x.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
                (clamp(needed / 2), clamp(needed - needed / 2))
            })
            .collect(),
    }
}

/// Builds a module: hands out [`ComputationBuilder`]s; computations are
/// added when built (so callees come before callers).
#[derive(Debug)]
pub struct ModuleBuilder {
    module: Module,
}

impl ModuleBuilder {
    pub fn new(name: impl Into<String>) -> ModuleBuilder {
        ModuleBuilder {
            module: Module::new(name),
        }
    }

    /// Starts a computation named `name` (made unique when built).
    pub fn computation(&mut self, name: &str) -> ComputationBuilder<'_> {
        ComputationBuilder::new(&mut self.module, name)
    }

    /// The module built so far.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// Sets `entry` as the ENTRY computation and returns the verified
    /// module.
    pub fn build_entry(mut self, entry: CompId) -> Result<Module> {
        if entry.index() >= self.module.computations.len() {
            return Err(IrError::build(format!(
                "build_entry: computation {entry} does not exist"
            )));
        }
        self.module.entry = entry;
        verify_module(&self.module)?;
        Ok(self.module)
    }
}

/// Builds one computation. Holds the module mutably so called computations
/// (reducers, comparators, bodies) can be built with
/// [`ComputationBuilder::sub_computation`] while this one is open.
#[derive(Debug)]
pub struct ComputationBuilder<'m> {
    module: &'m mut Module,
    comp: Computation,
}

impl<'m> ComputationBuilder<'m> {
    fn new(module: &'m mut Module, name: &str) -> ComputationBuilder<'m> {
        ComputationBuilder {
            module,
            comp: Computation::new(name),
        }
    }

    /// Starts another computation in the same module (for a reducer, a
    /// comparator, a loop body, ...). Build it before using this builder
    /// again.
    pub fn sub_computation(&mut self, name: &str) -> ComputationBuilder<'_> {
        ComputationBuilder::new(self.module, name)
    }

    /// The module (computations built so far).
    pub fn module(&self) -> &Module {
        self.module
    }

    /// The computation being built.
    pub fn computation(&self) -> &Computation {
        &self.comp
    }

    /// The shape of a value of this builder.
    pub fn shape(&self, v: Value) -> Result<&Shape> {
        self.comp
            .instructions
            .get(v.0.index())
            .map(|i| &i.shape)
            .ok_or_else(|| {
                IrError::build(format!(
                    "value {} does not belong to computation {}",
                    v.0, self.comp.name
                ))
            })
    }

    /// The array shape of a value (errors name `what`).
    pub(crate) fn array_shape(&self, v: Value, what: &str) -> Result<crate::ArrayShape> {
        match self.shape(v).map_err(|e| e.context(what))? {
            Shape::Array(a) => Ok(a.clone()),
            s => Err(IrError::build(format!(
                "{what}: expected an array operand, got {}",
                s.to_string_no_layout()
            ))),
        }
    }

    /// Appends `op` with shape inference. `call` names the builder call in
    /// errors when it differs from the opcode.
    pub(crate) fn push(
        &mut self,
        call: &str,
        op: Op,
        operands: &[Value],
        declared: Option<Shape>,
    ) -> Result<Value> {
        let shapes: Vec<&Shape> = operands
            .iter()
            .map(|&v| self.shape(v))
            .collect::<Result<_>>()
            .map_err(|e| e.context(call))?;
        let shape = infer_shape(self.module, &op, &shapes, declared.as_ref()).map_err(|e| {
            let msg = e.to_string();
            if call == op.opcode() {
                IrError::build(msg)
            } else {
                IrError::build(format!("{call}: {msg}"))
            }
        })?;
        let base = op.opcode();
        let name = self
            .comp
            .fresh_name(&format!("{base}.{}", self.comp.instructions.len()));
        let id = self.comp.push(Instruction::new(
            name,
            op,
            operands.iter().map(|v| v.0).collect(),
            shape,
        ));
        Ok(Value(id))
    }

    /// Finishes the computation with `root`, adds it to the module
    /// (verified) and returns its id.
    pub fn build(mut self, root: Value) -> Result<CompId> {
        self.shape(root).map_err(|e| e.context("build"))?;
        self.comp.root = root.0;
        self.comp.name = self.module.fresh_computation_name(&self.comp.name);
        let name = self.comp.name.clone();
        let id = self.module.add_computation(self.comp);
        if let Err(e) = verify_computation(self.module, id) {
            self.module.computations.pop();
            return Err(IrError::build(format!("build {name}: {e}")));
        }
        Ok(id)
    }

    // -- leaves --------------------------------------------------------

    /// `parameter(number)` of `shape`, named `name` (made unique).
    pub fn parameter(&mut self, number: i64, shape: Shape, name: &str) -> Result<Value> {
        if number < 0 {
            return Err(IrError::build(format!(
                "parameter: number {number} must be >= 0"
            )));
        }
        if let Some(p) = self
            .comp
            .instructions
            .iter()
            .find(|i| matches!(i.op, Op::Parameter { number: n } if n == number))
        {
            return Err(IrError::build(format!(
                "parameter: number {number} is already used by {}",
                p.name
            )));
        }
        let v = self.push("parameter", Op::Parameter { number }, &[], Some(shape))?;
        if !name.is_empty() {
            let fresh = self.comp.fresh_name(name);
            self.comp.get_mut(v.0).name = fresh;
        }
        Ok(v)
    }

    /// A constant holding `literal`.
    pub fn constant_literal(&mut self, literal: Literal) -> Result<Value> {
        self.push("constant", Op::Constant { literal }, &[], None)
    }

    /// A scalar constant.
    pub fn constant_r0<T: NativeType>(&mut self, v: T) -> Result<Value> {
        self.constant_literal(Literal::scalar(v))
    }

    /// A rank-1 constant.
    pub fn constant_r1<T: NativeType>(&mut self, values: Vec<T>) -> Result<Value> {
        let n = values.len() as i64;
        let lit = Literal::from_vec(&[n], values).map_err(|e| e.context("constant_r1"))?;
        self.constant_literal(lit)
    }

    /// A scalar constant of type `ty` holding `v` (converted).
    pub fn constant_f64(&mut self, ty: ElementType, v: f64) -> Result<Value> {
        if ty == ElementType::Token {
            return Err(IrError::build("constant: a token has no value"));
        }
        let data = crate::ArrayData::scalar_from_f64(ty, v);
        let lit = crate::ArrayLiteral::new(crate::ArrayShape::new(ty, vec![])?, data)?;
        self.constant_literal(Literal::Array(lit))
    }

    /// `tuple(elements...)`.
    pub fn tuple(&mut self, elements: &[Value]) -> Result<Value> {
        self.push("tuple", Op::Tuple, elements, None)
    }

    /// `get-tuple-element(t), index`.
    pub fn get_tuple_element(&mut self, t: Value, index: i64) -> Result<Value> {
        self.push(
            "get-tuple-element",
            Op::GetTupleElement { index },
            &[t],
            None,
        )
    }

    // -- scalar computations used by several calls -----------------------

    /// Builds `(ty[], ty[]) -> ty[]` applying `op` (e.g. the add of a sum).
    pub fn scalar_binary_computation(&mut self, op: BinaryOp, ty: ElementType) -> Result<CompId> {
        let mut b = self.sub_computation(&format!("{}_{}", op.name(), ty));
        let x = b.parameter(0, Shape::scalar(ty), "x")?;
        let y = b.parameter(1, Shape::scalar(ty), "y")?;
        let r = b.binary(op, x, y, &[])?;
        b.build(r)
    }

    /// Builds `(ty[], ty[]) -> pred[]` comparing with `dir`.
    pub fn scalar_compare_computation(
        &mut self,
        dir: ComparisonDirection,
        ty: ElementType,
    ) -> Result<CompId> {
        let mut b = self.sub_computation(&format!("compare_{}_{}", dir.name(), ty));
        let x = b.parameter(0, Shape::scalar(ty), "x")?;
        let y = b.parameter(1, Shape::scalar(ty), "y")?;
        let r = b.compare(dir, x, y, &[])?;
        b.build(r)
    }
}
