//! The HLO module reader: the `HloModule` header (attributes, debug
//! tables), computations (bare or typed headers, `ENTRY`), and
//! instructions. Each computation is read in two phases: first every
//! instruction's syntax (so a reference to a later name can be told apart
//! from an undefined one), then operands are resolved, the typed [`Op`] is
//! built from the attributes, and the declared shape is checked against
//! shape inference. Attributes an op does not model are kept verbatim.

use super::attrs::{self, RawAttr, attr_list, parse_value};
use super::lexer::{Cursor, clip, quote};
use super::literal as lit;
use super::shapes;
use crate::collective::CollectiveAttrs;
use crate::element_type::ElementType;
use crate::error::Result;
use crate::literal::Literal;
use crate::module::{Computation, Instruction, Module};
use crate::ops::{
    BinaryOp, CompId, ComparisonDirection, ComparisonType, DotDims, FftType, FusionKind,
    GatherDims, InstrId, Op, PadDim, RngAlgorithm, RngDistribution, ScatterDims, UnaryOp,
};
use crate::shape::{ProgramShape, Shape};
use std::collections::HashMap;

const TABLE_KEYWORDS: [&str; 4] = ["FileNames", "FunctionNames", "FileLocations", "StackFrames"];

/// Reads a whole module; elided constants `{...}` are filled from `fill`
/// when given (an error otherwise). Also returns how many were filled.
pub fn module(src: &str, file: &str, fill_seed: Option<u64>) -> Result<(Module, usize)> {
    let mut p = Parser {
        c: Cursor::new(src, file),
        module: Module::new(""),
        entry: None,
        comp_index: HashMap::new(),
        fill: fill_seed.map(lit::ElidedFill::new),
    };
    let m = p.module()?;
    Ok((m, p.fill.map_or(0, |f| f.count)))
}

struct Parser<'a> {
    c: Cursor<'a>,
    module: Module,
    /// The ENTRY computation and where it was declared.
    entry: Option<(CompId, usize)>,
    /// Computation names defined so far.
    comp_index: HashMap<String, CompId>,
    /// Fills elided constants (`ParseOptions::fill_elided_constants`).
    fill: Option<lit::ElidedFill>,
}

/// One instruction as written, before operands are resolved.
struct RawInstr<'a> {
    name: &'a str,
    name_pos: usize,
    is_root: bool,
    root_pos: usize,
    shape: Shape,
    opcode: &'a str,
    opcode_pos: usize,
    operands: Vec<(&'a str, usize)>,
    literal: Option<Literal>,
    parameter: Option<i64>,
    attrs: Vec<RawAttr<'a>>,
}

impl<'a> Parser<'a> {
    fn module(&mut self) -> Result<Module> {
        let c = &mut self.c;
        // A UTF-8 byte-order mark is not part of the text.
        if c.starts_with("\u{feff}") {
            c.pos += "\u{feff}".len();
        }
        c.skip_ws()?;
        if c.at_end() {
            return Err(c.err("empty input: expected 'HloModule <name>'"));
        }
        let at = c.pos;
        if c.ident()? != Some("HloModule") {
            c.pos = at;
            return Err(c.err(format!(
                "expected 'HloModule <name>' at the start of the module, got {}",
                c.describe_next()
            )));
        }
        let (name, _) = c.name("a module name")?;
        self.module.name = name.to_string();
        let header = attr_list(c)?;
        let mut layout_at = None;
        for a in &header {
            if a.key == "entry_computation_layout" {
                let ps = parse_value(c, a, |v| {
                    v.expect(b'{', "'{' starting entry_computation_layout")?;
                    let ps = shapes::program_shape(v)?;
                    v.expect(b'}', "'}' closing entry_computation_layout")?;
                    Ok(ps)
                })?;
                self.module.entry_layout = Some(ps);
                layout_at = Some(a.value_start);
            } else {
                self.module
                    .attrs
                    .push((a.key.to_string(), a.value.to_string()));
            }
        }
        self.module.debug_tables = self.debug_tables()?;
        loop {
            self.c.skip_ws()?;
            if self.c.at_end() {
                break;
            }
            self.computation()?;
        }
        if self.module.computations.is_empty() {
            return Err(self.c.err("the module has no computations"));
        }
        self.module.entry = match self.entry {
            Some((id, _)) => id,
            // XLA: with no ENTRY marker the last computation is the entry.
            None => CompId(self.module.computations.len() as u32 - 1),
        };
        if let (Some(layout), Some(at)) = (&self.module.entry_layout, layout_at) {
            let actual = self.module.entry_computation().program_shape();
            if !layout.compatible_dynamic(&actual) {
                return Err(self.c.error_at(
                    at,
                    format!(
                        "entry_computation_layout {} does not match the ENTRY computation's signature {}",
                        no_layout_program(layout),
                        no_layout_program(&actual)
                    ),
                ));
            }
        }
        Ok(std::mem::replace(&mut self.module, Module::new("")))
    }

    /// Keeps the FileNames/FunctionNames/FileLocations/StackFrames tables
    /// verbatim: each keyword line and its numbered entry lines.
    fn debug_tables(&mut self) -> Result<String> {
        self.c.skip_ws()?;
        let start = self.c.pos;
        let mut end = start;
        let mut pos = start;
        let src = self.c.src;
        let line_at = |p: usize| -> (&str, usize) {
            let rest = &src[p..self.c.end];
            match rest.find('\n') {
                Some(i) => (&rest[..i], p + i + 1),
                None => (rest, self.c.end),
            }
        };
        let mut in_table = false;
        while pos < self.c.end {
            let (line, next) = line_at(pos);
            let t = line.trim();
            if t.is_empty() {
                pos = next;
                continue;
            }
            if TABLE_KEYWORDS.contains(&t) {
                in_table = true;
            } else if !(in_table && t.as_bytes()[0].is_ascii_digit()) {
                break;
            }
            end = pos + line.trim_end().len();
            pos = next;
        }
        if end > start {
            self.c.pos = end;
            Ok(src[start..end].to_string())
        } else {
            Ok(String::new())
        }
    }

    fn computation(&mut self) -> Result<()> {
        let c = &mut self.c;
        c.skip_ws()?;
        let start = c.pos;
        let is_entry = c.ident()? == Some("ENTRY");
        if !is_entry {
            c.pos = start;
        }
        let (name, name_pos) = c.name("a computation name")?;
        if self.comp_index.contains_key(name) {
            return Err(c.error_at(
                name_pos,
                format!("duplicate computation name {}", quote(name)),
            ));
        }
        c.skip_ws()?;
        let signature = if c.peek() == Some(b'(') {
            let at = c.pos;
            Some((shapes::program_shape(c)?, at))
        } else {
            None
        };
        c.expect(b'{', &format!("'{{' starting computation {}", quote(name)))?;
        let mut raws: Vec<RawInstr<'a>> = Vec::new();
        let mut index: HashMap<&'a str, usize> = HashMap::new();
        loop {
            c.skip_ws()?;
            if c.at_end() {
                // A value that spans lines probably swallowed the '}'.
                if let Some(a) = raws
                    .iter()
                    .flat_map(|r| r.attrs.iter())
                    .find(|a| a.value.contains('\n'))
                {
                    return Err(c.error_at(
                        a.value_start,
                        format!(
                            "unbalanced value of attribute {}: its brackets close only on a later line, leaving computation {} without its '}}'",
                            quote(a.key),
                            quote(name)
                        ),
                    ));
                }
                return Err(c.error_at(
                    name_pos,
                    format!("computation {} is not closed by '}}'", quote(name)),
                ));
            }
            if c.eat(b'}')? {
                break;
            }
            let raw = raw_instruction(c, &mut self.fill)?;
            if let Some(&prev) = index.get(raw.name) {
                let line = c.line_of(raws[prev].name_pos);
                return Err(c.error_at(
                    raw.name_pos,
                    format!(
                        "duplicate instruction name {} in computation {} (first defined on line {line})",
                        quote(raw.name),
                        quote(name)
                    ),
                ));
            }
            index.insert(raw.name, raws.len());
            raws.push(raw);
        }
        // XLA's `}, execution_thread="name"` (computations an async
        // wrapper runs on another thread): accepted, not kept (rxla runs
        // every computation on the caller's thread).
        let before = c.pos;
        c.skip_ws()?;
        if c.peek() == Some(b',') {
            c.expect(b',', "','")?;
            c.skip_ws()?;
            if !c.starts_with("execution_thread") {
                return Err(c.err(format!(
                    "expected execution_thread=\"...\" after computation {}, got {}",
                    quote(name),
                    c.describe_next()
                )));
            }
            c.pos += "execution_thread".len();
            c.skip_ws()?;
            c.expect(b'=', "'=' after execution_thread")?;
            c.skip_ws()?;
            c.string()?;
        } else {
            c.pos = before;
        }
        if raws.is_empty() {
            return Err(c.error_at(
                name_pos,
                format!("computation {} has no instructions", quote(name)),
            ));
        }
        let comp = self.build_computation(name, raws, &index)?;
        if let Some((sig, at)) = signature {
            let actual = comp.program_shape();
            if !sig.compatible_dynamic(&actual) {
                return Err(self.c.error_at(
                    at,
                    format!(
                        "computation {}: signature {} differs from its instructions' {}",
                        quote(name),
                        no_layout_program(&sig),
                        no_layout_program(&actual)
                    ),
                ));
            }
        }
        let id = self.module.add_computation(comp);
        self.comp_index.insert(name.to_string(), id);
        if is_entry {
            if let Some((_, prev)) = self.entry {
                let line = self.c.line_of(prev);
                return Err(self.c.error_at(
                    start,
                    format!("a second ENTRY computation (the first is on line {line})"),
                ));
            }
            self.entry = Some((id, start));
        }
        Ok(())
    }

    fn build_computation(
        &self,
        name: &str,
        raws: Vec<RawInstr<'a>>,
        index: &HashMap<&'a str, usize>,
    ) -> Result<Computation> {
        let c = &self.c;
        let mut comp = Computation::new(name);
        let mut root: Option<(InstrId, usize)> = None;
        let mut params: HashMap<i64, &str> = HashMap::new();
        // Where each parameter(N) is written, for the numbering check below.
        let mut param_pos: Vec<(i64, &str, usize)> = Vec::new();
        for (i, raw) in raws.into_iter().enumerate() {
            let mut operands = Vec::with_capacity(raw.operands.len());
            for &(op_name, at) in &raw.operands {
                match index.get(op_name) {
                    Some(&j) if j < i => operands.push(InstrId(j as u32)),
                    Some(&j) if j == i => {
                        return Err(c.error_at(
                            at,
                            format!("instruction {} uses itself as an operand", quote(op_name)),
                        ));
                    }
                    Some(_) => {
                        return Err(c.error_at(
                            at,
                            format!(
                                "operand {} of {} is defined after it: operands must come first (use before definition or a cycle)",
                                quote(op_name),
                                quote(raw.name)
                            ),
                        ));
                    }
                    None => {
                        return Err(c.error_at(
                            at,
                            format!(
                                "undefined operand {} in computation {}",
                                quote(op_name),
                                quote(name)
                            ),
                        ));
                    }
                }
            }
            if let Some(n) = raw.parameter {
                param_pos.push((n, raw.name, raw.opcode_pos));
            }
            if let Some(n) = raw.parameter
                && let Some(prev) = params.insert(n, raw.name)
            {
                return Err(c.error_at(
                    raw.opcode_pos,
                    format!(
                        "parameter number {n} is used twice (also by {})",
                        quote(prev)
                    ),
                ));
            }
            let id = InstrId(i as u32);
            if raw.is_root {
                if root.is_some() {
                    return Err(c.error_at(
                        raw.root_pos,
                        format!("computation {} has two ROOT instructions", quote(name)),
                    ));
                }
                root = Some((id, raw.root_pos));
            }
            let instr = self.build_instruction(&comp, raw, operands)?;
            comp.push(instr);
        }
        // Parameter numbers are 0..N-1 (duplicates were reported above):
        // the first one past the count is a gap, reported at its place.
        if let Some(&(n, pname, at)) = param_pos
            .iter()
            .filter(|p| p.0 >= param_pos.len() as i64)
            .min_by_key(|p| p.0)
        {
            return Err(c.error_at(
                at,
                format!(
                    "{pname}: parameter numbers of computation {} must be 0..{} without gaps, found parameter({n})",
                    quote(name),
                    param_pos.len()
                ),
            ));
        }
        // XLA: without a ROOT marker the last instruction is the root.
        comp.root = match root {
            Some((id, _)) => id,
            None => InstrId(comp.instructions.len() as u32 - 1),
        };
        Ok(comp)
    }

    fn build_instruction(
        &self,
        comp: &Computation,
        raw: RawInstr<'a>,
        operands: Vec<InstrId>,
    ) -> Result<Instruction> {
        let c = &self.c;
        let mut attrs = Attrs {
            c,
            list: raw.attrs.into_iter().map(Some).collect(),
            opcode: raw.opcode,
            at: raw.opcode_pos,
            comps: &self.comp_index,
        };
        // async-update / async-done may omit `calls=`: their start's.
        let inherited = operands.first().and_then(|o| match comp.get(*o).op {
            Op::AsyncStart { calls } | Op::AsyncUpdate { calls } => Some(calls),
            _ => None,
        });
        let op = build_op(
            &mut attrs,
            &raw.shape,
            raw.literal,
            raw.parameter,
            inherited,
        )?;
        let operand_shapes: Vec<&Shape> = operands.iter().map(|o| &comp.get(*o).shape).collect();
        let inferred = crate::shape_inference::infer_shape(
            &self.module,
            &op,
            &operand_shapes,
            Some(&raw.shape),
        )
        .map_err(|e| c.error_at(raw.name_pos, format!("{}: {}", raw.name, strip_parse(e))))?;
        if !inferred.compatible_dynamic(&raw.shape) {
            return Err(c.error_at(
                raw.name_pos,
                format!(
                    "{}: shape {} written in the text differs from inferred {}",
                    raw.name,
                    clip(raw.shape.to_string_no_layout()),
                    clip(inferred.to_string_no_layout())
                ),
            ));
        }
        Ok(Instruction {
            name: raw.name.to_string(),
            op,
            operands,
            shape: raw.shape,
            attrs: attrs.rest(raw.name)?,
        })
    }
}

fn strip_parse(e: crate::IrError) -> String {
    match e {
        crate::IrError::Parse(p) => p.message,
        e => e.to_string(),
    }
}

fn no_layout_program(p: &ProgramShape) -> String {
    let ps: Vec<String> = p
        .parameters
        .iter()
        .map(|s| s.to_string_no_layout())
        .collect();
    clip(format!(
        "({})->{}",
        ps.join(", "),
        p.result.to_string_no_layout()
    ))
}

/// Reads `[ROOT] name = shape opcode(operands)[, attr=value]*`.
fn raw_instruction<'a>(
    c: &mut Cursor<'a>,
    fill: &mut Option<lit::ElidedFill>,
) -> Result<RawInstr<'a>> {
    c.skip_ws()?;
    let root_pos = c.pos;
    let is_root = c.ident()? == Some("ROOT");
    if !is_root {
        c.pos = root_pos;
    }
    let (name, name_pos) = c.name("an instruction name")?;
    c.expect(b'=', &format!("'=' after instruction name {}", quote(name)))?;
    let shape = shapes::shape(c)?;
    c.skip_ws()?;
    let opcode_pos = c.pos;
    let opcode = c
        .ident()?
        .ok_or_else(|| c.err(format!("expected an opcode, got {}", c.describe_next())))?;
    if !Op::all_opcode_names().contains(&opcode) {
        return Err(c.error_at(opcode_pos, format!("unknown opcode {}", quote(opcode))));
    }
    c.expect(b'(', &format!("'(' after opcode {opcode}"))?;
    let mut operands = Vec::new();
    let mut literal = None;
    let mut parameter = None;
    match opcode {
        "constant" => {
            c.skip_ws()?;
            literal = Some(match (&shape, fill.as_mut()) {
                (Shape::Array(a), Some(f)) if a.rank() > 0 && c.starts_with("{...}") => {
                    Literal::Array(f.fill(c, a)?)
                }
                _ => lit::literal(c, &shape)?,
            });
            c.expect(b')', "')' closing the constant")?;
        }
        "parameter" => {
            let at = c.pos;
            let n = c.int("a parameter number")?;
            if n < 0 {
                return Err(c.error_at(at, format!("negative parameter number {n}")));
            }
            parameter = Some(n);
            c.expect(b')', "')' closing parameter(N)")?;
        }
        _ => {
            if !c.eat(b')')? {
                loop {
                    skip_operand_shape(c)?;
                    operands.push(c.name("an operand name")?);
                    if c.eat(b')')? {
                        break;
                    }
                    c.expect(b',', "',' or ')' in the operand list")?;
                }
            }
        }
    }
    let attrs = attr_list(c)?;
    Ok(RawInstr {
        name,
        name_pos,
        is_root,
        root_pos,
        shape,
        opcode,
        opcode_pos,
        operands,
        literal,
        parameter,
        attrs,
    })
}

/// Old-style operands carry their shape: `f32[2]{0} %x` or
/// `(f32[], s32[]) %t`. Skip it.
fn skip_operand_shape(c: &mut Cursor<'_>) -> Result<()> {
    c.skip_ws()?;
    if c.peek() == Some(b'(') {
        shapes::shape(c)?;
        return Ok(());
    }
    let save = c.pos;
    if let Some(id) = c.ident()?
        && ElementType::from_name(id).is_some()
        && c.peek() == Some(b'[')
    {
        c.pos = save;
        shapes::array_shape(c)?;
        return Ok(());
    }
    c.pos = save;
    Ok(())
}

/// The attributes of one instruction; typed ones are taken by
/// [`build_op`], the rest stay verbatim.
struct Attrs<'a, 'c> {
    c: &'c Cursor<'a>,
    list: Vec<Option<RawAttr<'a>>>,
    opcode: &'a str,
    at: usize,
    comps: &'c HashMap<String, CompId>,
}

impl<'a> Attrs<'a, '_> {
    fn take(&mut self, key: &str) -> Option<RawAttr<'a>> {
        self.list
            .iter_mut()
            .find(|a| a.as_ref().is_some_and(|a| a.key == key))
            .and_then(Option::take)
    }

    fn req(&mut self, key: &str) -> Result<RawAttr<'a>> {
        self.take(key).ok_or_else(|| {
            self.c.error_at(
                self.at,
                format!("{} needs the attribute {key}=", self.opcode),
            )
        })
    }

    fn parse<T>(
        &mut self,
        key: &str,
        f: impl FnOnce(&mut Cursor<'a>) -> Result<T>,
    ) -> Result<Option<T>> {
        match self.take(key) {
            None => Ok(None),
            Some(a) => parse_value(self.c, &a, f).map(Some),
        }
    }

    fn parse_req<T>(
        &mut self,
        key: &str,
        f: impl FnOnce(&mut Cursor<'a>) -> Result<T>,
    ) -> Result<T> {
        let a = self.req(key)?;
        parse_value(self.c, &a, f)
    }

    fn list(&mut self, key: &str) -> Result<Vec<i64>> {
        Ok(self.parse(key, attrs::int_list)?.unwrap_or_default())
    }

    fn req_list(&mut self, key: &str) -> Result<Vec<i64>> {
        self.parse_req(key, attrs::int_list)
    }

    /// `dimensions={d}` with exactly one entry.
    fn one_dim(&mut self, key: &str) -> Result<i64> {
        let a = self.req(key)?;
        let v = parse_value(self.c, &a, attrs::int_list)?;
        match v.as_slice() {
            [d] => Ok(*d),
            _ => Err(self.c.error_at(
                a.value_start,
                format!(
                    "{} takes exactly one dimension in {key}=, got {}",
                    self.opcode,
                    v.len()
                ),
            )),
        }
    }

    fn req_int(&mut self, key: &str) -> Result<i64> {
        self.parse_req(key, |c| c.int(key))
    }

    fn int_or(&mut self, key: &str, default: i64) -> Result<i64> {
        Ok(self.parse(key, |c| c.int(key))?.unwrap_or(default))
    }

    /// `replica_groups=`, `channel_id=` and (when the op has it)
    /// `use_global_device_ids=`; `constrain_layout=` stays verbatim.
    fn collective(&mut self, global_ids: bool) -> Result<CollectiveAttrs> {
        Ok(CollectiveAttrs {
            replica_groups: self
                .parse("replica_groups", attrs::replica_groups)?
                .unwrap_or_default(),
            channel_id: self.parse("channel_id", |c| c.int("channel_id"))?,
            use_global_device_ids: global_ids && self.flag("use_global_device_ids")?,
        })
    }

    fn flag(&mut self, key: &str) -> Result<bool> {
        Ok(self.parse(key, attrs::boolean)?.unwrap_or(false))
    }

    fn word(&mut self, key: &str) -> Result<(String, usize)> {
        let a = self.req(key)?;
        let w = parse_value(self.c, &a, |c| {
            c.ident()?
                .ok_or_else(|| c.err(format!("expected a word, got {}", c.describe_next())))
        })?;
        Ok((w.to_string(), a.value_start))
    }

    fn string(&mut self, key: &str) -> Result<Option<String>> {
        self.parse(key, |c| c.string())
    }

    fn comp_ref(&self, c: &mut Cursor<'a>) -> Result<CompId> {
        let (name, at) = c.name("a computation name")?;
        self.comps.get(name).copied().ok_or_else(|| {
            c.error_at(
                at,
                format!(
                    "undefined computation {} (computations must be defined before they are called)",
                    quote(name)
                ),
            )
        })
    }

    fn comp(&mut self, key: &str) -> Result<CompId> {
        let a = self.req(key)?;
        let mut v = attrs::value_cursor(self.c, &a);
        let id = self.comp_ref(&mut v)?;
        self.finish(&mut v, key)?;
        Ok(id)
    }

    fn comp_list(&mut self, key: &str) -> Result<Option<Vec<CompId>>> {
        let Some(a) = self.take(key) else {
            return Ok(None);
        };
        let mut v = attrs::value_cursor(self.c, &a);
        v.expect(b'{', &format!("'{{' starting {key}"))?;
        let mut out = Vec::new();
        if !v.eat(b'}')? {
            loop {
                out.push(self.comp_ref(&mut v)?);
                if v.eat(b'}')? {
                    break;
                }
                v.expect(b',', &format!("',' or '}}' in {key}"))?;
            }
        }
        self.finish(&mut v, key)?;
        Ok(Some(out))
    }

    fn finish(&self, v: &mut Cursor<'a>, key: &str) -> Result<()> {
        v.skip_ws()?;
        if !v.at_end() {
            return Err(v.err(format!(
                "unexpected {} in the value of attribute {}",
                v.describe_next(),
                quote(key)
            )));
        }
        Ok(())
    }

    /// The attributes nobody took, verbatim, in source order; a name that
    /// is no XLA instruction attribute is an error (XLA rejects it too).
    fn rest(self, instr: &str) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        for a in self.list.into_iter().flatten() {
            if !attrs::is_xla_instruction_attribute(a.key) {
                return Err(self.c.error_at(
                    a.key_start,
                    format!(
                        "{instr}: unknown attribute {} on {} (not an XLA instruction attribute)",
                        quote(a.key),
                        self.opcode
                    ),
                ));
            }
            out.push((a.key.to_string(), a.value.to_string()));
        }
        Ok(out)
    }
}

fn build_op(
    a: &mut Attrs<'_, '_>,
    shape: &Shape,
    literal: Option<Literal>,
    parameter: Option<i64>,
    inherited_calls: Option<CompId>,
) -> Result<Op> {
    let opcode = a.opcode;
    if let Some(u) = UnaryOp::ALL.iter().find(|u| u.name() == opcode) {
        return Ok(Op::Unary(*u));
    }
    if let Some(b) = BinaryOp::ALL.iter().find(|b| b.name() == opcode) {
        return Ok(Op::Binary(*b));
    }
    Ok(match opcode {
        "parameter" => Op::Parameter {
            number: parameter.unwrap_or(0),
        },
        "constant" => Op::Constant {
            literal: literal.unwrap_or_else(Literal::token),
        },
        "iota" => Op::Iota {
            dimension: a.req_int("iota_dimension")?,
        },
        "broadcast" => Op::Broadcast {
            dimensions: a.req_list("dimensions")?,
        },
        "reshape" => Op::Reshape,
        "transpose" => Op::Transpose {
            permutation: a.req_list("dimensions")?,
        },
        "bitcast" => Op::Bitcast,
        "copy" => Op::Copy,
        "convert" => Op::Convert,
        "bitcast-convert" => Op::BitcastConvert,
        "slice" => {
            let (starts, limits, strides) = a.parse_req("slice", attrs::slice)?;
            Op::Slice {
                starts,
                limits,
                strides,
            }
        }
        "dynamic-slice" => Op::DynamicSlice {
            sizes: a.req_list("dynamic_slice_sizes")?,
        },
        "dynamic-update-slice" => Op::DynamicUpdateSlice,
        "concatenate" => Op::Concatenate {
            dimension: a.one_dim("dimensions")?,
        },
        "get-dimension-size" => Op::GetDimensionSize {
            dimension: a.one_dim("dimensions")?,
        },
        "set-dimension-size" => Op::SetDimensionSize {
            dimension: a.one_dim("dimensions")?,
        },
        // No `padding=` means no padding (how a rank-0 pad is printed).
        "pad" => Op::Pad {
            config: match a.parse("padding", attrs::padding)? {
                Some(p) => p,
                None => vec![
                    PadDim {
                        low: 0,
                        high: 0,
                        interior: 0,
                    };
                    shape.dims().len()
                ],
            },
        },
        "reverse" => Op::Reverse {
            dimensions: a.req_list("dimensions")?,
        },
        "dot" => Op::Dot {
            dims: DotDims {
                lhs_batch: a.list("lhs_batch_dims")?,
                lhs_contracting: a.list("lhs_contracting_dims")?,
                rhs_batch: a.list("rhs_batch_dims")?,
                rhs_contracting: a.list("rhs_contracting_dims")?,
            },
        },
        "convolution" => Op::Convolution {
            window: a.parse("window", attrs::window)?.unwrap_or_default(),
            dims: a.parse_req("dim_labels", attrs::dim_labels)?,
            feature_group_count: a.int_or("feature_group_count", 1)?,
            batch_group_count: a.int_or("batch_group_count", 1)?,
        },
        "reduce" => Op::Reduce {
            dimensions: a.req_list("dimensions")?,
            to_apply: a.comp("to_apply")?,
        },
        "reduce-window" => Op::ReduceWindow {
            window: a.parse_req("window", attrs::window)?,
            to_apply: a.comp("to_apply")?,
        },
        "select-and-scatter" => Op::SelectAndScatter {
            window: a.parse_req("window", attrs::window)?,
            select: a.comp("select")?,
            scatter: a.comp("scatter")?,
        },
        "select" => Op::Select,
        "clamp" => Op::Clamp,
        "compare" => {
            let (d, at) = a.word("direction")?;
            let direction = ComparisonDirection::from_name(&d).ok_or_else(|| {
                a.c.error_at(
                    at,
                    format!(
                        "unknown comparison direction {} (EQ, NE, GE, GT, LE, LT)",
                        quote(&d)
                    ),
                )
            })?;
            let kind = match a.take("type") {
                None => None,
                Some(t) => {
                    let w = parse_value(a.c, &t, |c| {
                        c.ident()?
                            .ok_or_else(|| c.err("expected a comparison type"))
                    })?;
                    Some(ComparisonType::from_name(w).ok_or_else(|| {
                        a.c.error_at(
                            t.value_start,
                            format!(
                                "unknown comparison type {} (FLOAT, TOTALORDER, SIGNED, UNSIGNED)",
                                quote(w)
                            ),
                        )
                    })?)
                }
            };
            Op::Compare { direction, kind }
        }
        "map" => {
            let dimensions = match a.parse("dimensions", attrs::int_list)? {
                Some(d) => d,
                None => (0..shape.dims().len() as i64).collect(),
            };
            Op::Map {
                dimensions,
                to_apply: a.comp("to_apply")?,
            }
        }
        "sort" => Op::Sort {
            dimension: a.one_dim("dimensions")?,
            is_stable: a.flag("is_stable")?,
            comparator: a.comp("to_apply")?,
        },
        "gather" => Op::Gather {
            dims: GatherDims {
                offset_dims: a.req_list("offset_dims")?,
                collapsed_slice_dims: a.req_list("collapsed_slice_dims")?,
                start_index_map: a.req_list("start_index_map")?,
                index_vector_dim: a.req_int("index_vector_dim")?,
                operand_batching_dims: a.list("operand_batching_dims")?,
                start_indices_batching_dims: a.list("start_indices_batching_dims")?,
            },
            slice_sizes: a.req_list("slice_sizes")?,
            indices_are_sorted: a.flag("indices_are_sorted")?,
        },
        "scatter" => Op::Scatter {
            dims: ScatterDims {
                update_window_dims: a.req_list("update_window_dims")?,
                inserted_window_dims: a.req_list("inserted_window_dims")?,
                scatter_dims_to_operand_dims: a.req_list("scatter_dims_to_operand_dims")?,
                index_vector_dim: a.req_int("index_vector_dim")?,
                input_batching_dims: a.list("input_batching_dims")?,
                scatter_indices_batching_dims: a.list("scatter_indices_batching_dims")?,
            },
            indices_are_sorted: a.flag("indices_are_sorted")?,
            unique_indices: a.flag("unique_indices")?,
            to_apply: a.comp("to_apply")?,
        },
        "call" => Op::Call {
            to_apply: a.comp("to_apply")?,
        },
        "fusion" => {
            // An empty kind (only from hand-built modules) prints as no
            // `kind=`; read that back as the empty kind.
            let kind = match a.list.iter().flatten().any(|x| x.key == "kind") {
                true => a.word("kind")?.0,
                false => String::new(),
            };
            Op::Fusion {
                kind: FusionKind(kind),
                calls: a.comp("calls")?,
            }
        }
        "while" => Op::While {
            condition: a.comp("condition")?,
            body: a.comp("body")?,
        },
        "conditional" => {
            let branches = match a.comp_list("branch_computations")? {
                Some(_)
                    if a.list
                        .iter()
                        .flatten()
                        .any(|x| x.key.ends_with("_computation")) =>
                {
                    return Err(a.c.error_at(
                        a.at,
                        "conditional has both branch_computations= and true_/false_computation=",
                    ));
                }
                Some(b) => b,
                None => vec![a.comp("true_computation")?, a.comp("false_computation")?],
            };
            Op::Conditional { branches }
        }
        "tuple" => Op::Tuple,
        "get-tuple-element" => Op::GetTupleElement {
            index: a.req_int("index")?,
        },
        "custom-call" => {
            let target = match a.string("custom_call_target")? {
                Some(t) => t,
                None => {
                    return Err(a
                        .c
                        .error_at(a.at, "custom-call needs the attribute custom_call_target="));
                }
            };
            let has_side_effect = a.flag("custom_call_has_side_effect")?;
            let mut called = a.comp_list("called_computations")?.unwrap_or_default();
            if a.list.iter().flatten().any(|x| x.key == "to_apply") {
                called.push(a.comp("to_apply")?);
            }
            Op::CustomCall {
                target,
                has_side_effect,
                called,
            }
        }
        "infeed" => Op::Infeed {
            config: a.string("infeed_config")?.unwrap_or_default(),
        },
        "outfeed" => Op::Outfeed {
            config: a.string("outfeed_config")?.unwrap_or_default(),
        },
        "all-reduce" => Op::AllReduce {
            attrs: a.collective(true)?,
            to_apply: a.comp("to_apply")?,
        },
        "all-reduce-start" => Op::AllReduceStart {
            attrs: a.collective(true)?,
            to_apply: a.comp("to_apply")?,
        },
        "all-reduce-done" => Op::AllReduceDone,
        "all-gather" => Op::AllGather {
            attrs: a.collective(true)?,
            dimension: a.one_dim("dimensions")?,
        },
        "all-gather-start" => Op::AllGatherStart {
            attrs: a.collective(true)?,
            dimension: a.one_dim("dimensions")?,
        },
        "all-gather-done" => Op::AllGatherDone,
        "reduce-scatter" => Op::ReduceScatter {
            attrs: a.collective(true)?,
            dimension: a.one_dim("dimensions")?,
            to_apply: a.comp("to_apply")?,
        },
        "all-to-all" => Op::AllToAll {
            attrs: a.collective(false)?,
            dimension: match a.list.iter().flatten().any(|x| x.key == "dimensions") {
                true => Some(a.one_dim("dimensions")?),
                false => None,
            },
        },
        "collective-permute" if a.list.iter().flatten().any(|x| x.key == "slice_sizes") => {
            Op::CollectivePermuteInPlace {
                channel_id: a.parse("channel_id", |c| c.int("channel_id"))?,
                pairs: a
                    .parse("source_target_pairs", attrs::pairs)?
                    .unwrap_or_default(),
                slice_sizes: a.parse_req("slice_sizes", |c| attrs::int_lists(c, "slice_sizes"))?,
            }
        }
        "collective-permute" => Op::CollectivePermute {
            channel_id: a.parse("channel_id", |c| c.int("channel_id"))?,
            pairs: a
                .parse("source_target_pairs", attrs::pairs)?
                .unwrap_or_default(),
        },
        "collective-permute-start" if a.list.iter().flatten().any(|x| x.key == "slice_sizes") => {
            return Err(a.c.error_at(
                a.at,
                "collective-permute-start with slice_sizes= (XLA's in-place form: input, output, input_start_indices, output_start_indices) is not supported; the synchronous collective-permute in-place form is",
            ));
        }
        "collective-permute-start" => Op::CollectivePermuteStart {
            channel_id: a.parse("channel_id", |c| c.int("channel_id"))?,
            pairs: a
                .parse("source_target_pairs", attrs::pairs)?
                .unwrap_or_default(),
        },
        "collective-permute-done" => Op::CollectivePermuteDone,
        "async-start" => Op::AsyncStart {
            calls: a.comp("calls")?,
        },
        "async-update" | "async-done" => {
            let calls = match (
                a.list.iter().flatten().any(|x| x.key == "calls"),
                inherited_calls,
            ) {
                (false, Some(c)) => c,
                _ => a.comp("calls")?,
            };
            match opcode {
                "async-update" => Op::AsyncUpdate { calls },
                _ => Op::AsyncDone { calls },
            }
        }
        "collective-broadcast" => Op::CollectiveBroadcast {
            attrs: a.collective(false)?,
        },
        "replica-id" => Op::ReplicaId,
        "partition-id" => Op::PartitionId,
        "rng" => {
            let (d, at) = a.word("distribution")?;
            let distribution = match d.as_str() {
                "rng_uniform" => RngDistribution::Uniform,
                "rng_normal" => RngDistribution::Normal,
                _ => {
                    return Err(a.c.error_at(
                        at,
                        format!(
                            "unknown distribution {} (rng_uniform, rng_normal)",
                            quote(&d)
                        ),
                    ));
                }
            };
            Op::Rng { distribution }
        }
        "rng-bit-generator" => {
            let (d, at) = a.word("algorithm")?;
            let algorithm = match d.as_str() {
                "rng_default" => RngAlgorithm::Default,
                "rng_three_fry" => RngAlgorithm::ThreeFry,
                "rng_philox" => RngAlgorithm::Philox,
                _ => {
                    return Err(a.c.error_at(
                        at,
                        format!(
                            "unknown rng algorithm {} (rng_default, rng_three_fry, rng_philox)",
                            quote(&d)
                        ),
                    ));
                }
            };
            Op::RngBitGenerator { algorithm }
        }
        "after-all" => Op::AfterAll,
        "opt-barrier" => Op::OptimizationBarrier,
        "cholesky" => Op::Cholesky {
            lower: a.flag("lower")?,
        },
        "triangular-solve" => {
            let left_side = a.flag("left_side")?;
            let lower = a.flag("lower")?;
            let unit_diagonal = a.flag("unit_diagonal")?;
            let (t, at) = a.word("transpose_a")?;
            let transpose_a = crate::linalg::TransposeA::from_name(&t).ok_or_else(|| {
                a.c.error_at(
                    at,
                    format!(
                        "unknown transpose_a {} (NO_TRANSPOSE, TRANSPOSE, ADJOINT)",
                        quote(&t)
                    ),
                )
            })?;
            Op::TriangularSolve(crate::linalg::TriangularSolveOptions {
                left_side,
                lower,
                unit_diagonal,
                transpose_a,
            })
        }
        "reduce-precision" => Op::ReducePrecision {
            exponent_bits: a.req_int("exponent_bits")?,
            mantissa_bits: a.req_int("mantissa_bits")?,
        },
        "topk" => Op::TopK {
            k: a.req_int("k")?,
            largest: a.flag("largest")?,
        },
        "complex" => Op::Complex,
        "fft" => {
            let (t, at) = a.word("fft_type")?;
            let Some(fft_type) = FftType::from_name(&t) else {
                return Err(a.c.error_at(
                    at,
                    format!("unknown fft_type {} (FFT, IFFT, RFFT, IRFFT)", quote(&t)),
                ));
            };
            Op::Fft {
                fft_type,
                fft_length: a.req_list("fft_length")?,
            }
        }
        other => {
            return Err(a
                .c
                .error_at(a.at, format!("unknown opcode {}", quote(other))));
        }
    })
}
