//! The small MLIR-ish syntax tree the parser produces and the converter
//! reads: functions, single-block regions, and operations normalised to
//! one shape whatever their printed form (custom assembly or generic):
//! operands, named attributes, regions, types. Data only: no parsing, no
//! conversion.

use crate::attrs::Attr;
use crate::types::Type;

/// A use of an SSA value: `%name` or `%name#index` (key `name#index`).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueUse {
    pub key: String,
    pub pos: usize,
}

/// A block or function argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// Key as used (`arg0#0`).
    pub key: String,
    pub ty: Type,
    pub pos: usize,
}

/// A single-block region.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Region {
    pub args: Vec<Arg>,
    pub ops: Vec<Operation>,
    pub pos: usize,
}

/// An operation in either printed form.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    /// Full name: `stablehlo.add`, `chlo.erf`, `func.call`, `func.return`.
    pub name: String,
    pub pos: usize,
    /// Result keys (`0#0`, `0#1`, ...), in order.
    pub results: Vec<String>,
    pub operands: Vec<ValueUse>,
    /// Attributes by name: the generic form's names, or the custom
    /// syntax's keywords (`dims`, `contracting_dims`, ...); positional
    /// enums are `_enum0`, `_enum1`; `[a:b:c, ...]` is `_slice`; a
    /// `@symbol` is `_symbol`, a leading string `_string`.
    pub attrs: Vec<(String, Attr)>,
    pub regions: Vec<Region>,
    /// Operand types if the op printed them.
    pub operand_types: Option<Vec<Type>>,
    pub result_types: Vec<Type>,
}

impl Operation {
    /// The first attribute present among `names`.
    pub fn attr(&self, names: &[&str]) -> Option<&Attr> {
        names
            .iter()
            .find_map(|n| self.attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v))
    }
}

/// A `func.func`.
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    pub name: String,
    pub public: bool,
    pub args: Vec<Arg>,
    pub results: Vec<Type>,
    pub body: Region,
    pub pos: usize,
}

/// A parsed module.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ModuleAst {
    pub name: Option<String>,
    pub funcs: Vec<Func>,
}
