//! rxla-ir: the foundation of rxla. Shapes and layouts, literals, the SSA
//! instruction graph (modules → computations → instructions), HLO text
//! (reader and printer), shape inference, the verifier and the builder API.
//!
//! Nothing in this crate evaluates or compiles programs; it must never
//! panic on bad input: every fallible path returns [`IrError`].

pub mod builder;
pub mod collective;
pub mod dynamic;
pub mod element_type;
pub mod error;
pub mod geometry;
pub mod graph;
pub mod index;
pub mod layout;
pub mod layout_verifier;
pub mod linalg;
pub mod literal;
pub mod module;
pub mod narrow;
pub mod ops;
pub mod shape;
pub mod shape_inference;
pub mod text;
pub mod verifier;

pub use collective::{CollectiveAttrs, DeviceGrid, GroupMode, IotaGroups, ReplicaGroups};
pub use element_type::ElementType;
pub use error::{IrError, ParseError, Result};
pub use layout::Layout;
pub use linalg::{LapackKind, TransposeA, TriangularSolveOptions, is_lapack_target, lapack_target};
pub use literal::{ArrayData, ArrayLiteral, Literal, NativeType};
pub use module::{Computation, Instruction, Module};
/// The complex element types of c64 and c128 data (re-exported so every
/// crate uses the same `num-complex`).
pub use num_complex::{self, Complex32, Complex64};
pub use ops::{
    BinaryOp, CompId, ComparisonDirection, ComparisonType, ConvDims, DotDims, FftType, FusionKind,
    GatherDims, InstrId, Op, PadDim, RngAlgorithm, RngDistribution, ScatterDims, UnaryOp, Window,
    WindowDim,
};
pub use shape::{ArrayShape, DynamicDims, ProgramShape, Shape};
pub use text::{ParseOptions, Parsed, parse_module, parse_module_with, print_module};
pub use verifier::verify_module;
