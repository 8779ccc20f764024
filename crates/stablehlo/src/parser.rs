//! StableHLO text → [`ModuleAst`]: the module/func structure, single-block
//! regions, and every op in the generic form (`"stablehlo.x"(...) <{...}>
//! ({...}) {...} : (...) -> ...`) or a custom assembly form (keyword items
//! such as `dims = [0]`, `contracting_dims = [1] x [0]`, `GT, %a, %b,
//! FLOAT`, `[0:4, 1:3]`, the `reduce ... applies`/`reducer` and `while
//! ... cond {} do {}` forms, `call @f(...)`). `loc(...)` and `#loc`
//! aliases are skipped. It checks syntax only: what an op means and
//! whether its operands exist is the converter's job.

use crate::ast::{Arg, Func, ModuleAst, Operation, Region, ValueUse};
use crate::attrs::{
    Aliases, Attr, parse_attr, parse_attr_bare, parse_conv_dims, parse_dict, skip_balanced,
};
use crate::lexer::{Lexer, MAX_DEPTH, Tok};
use crate::types::{Type, expect_punct, parse_type};
use rxla_ir::IrError;

type Result<T> = std::result::Result<T, IrError>;

struct Parser<'a> {
    lx: Lexer<'a>,
    aliases: Aliases,
}

/// Parses a whole module.
pub fn parse(text: &str, file: &str) -> Result<ModuleAst> {
    let mut p = Parser {
        lx: Lexer::new(text, file),
        aliases: Aliases::new(),
    };
    p.module()
}

fn key(name: &str, index: Option<usize>) -> String {
    format!("{name}#{}", index.unwrap_or(0))
}

impl<'a> Parser<'a> {
    fn next(&mut self) -> Result<(Tok, usize)> {
        self.lx.next()
    }
    fn peek(&mut self) -> Result<Tok> {
        Ok(self.lx.peek()?.0)
    }
    /// After a list element: `true` on `,` (another element follows),
    /// `false` on `close`; anything else is an error saying where (`ctx`).
    fn comma_or(&mut self, close: char, ctx: &str) -> Result<bool> {
        let (t, p) = self.next()?;
        match t {
            Tok::Punct(',') => Ok(true),
            Tok::Punct(c) if c == close => Ok(false),
            t => Err(self.err(
                p,
                format!("expected ',' or '{close}' {ctx}, found {}", t.describe()),
            )),
        }
    }

    fn err(&self, pos: usize, msg: impl Into<String>) -> IrError {
        self.lx.err_at(pos, msg)
    }
    fn expect(&mut self, c: char) -> Result<usize> {
        expect_punct(&mut self.lx, c)
    }
    fn eat(&mut self, c: char) -> Result<bool> {
        if self.peek()? == Tok::Punct(c) {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }
    fn eat_ident(&mut self, s: &str) -> Result<bool> {
        if matches!(self.peek()?, Tok::Ident(ref i) if i == s) {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }
    fn expect_ident(&mut self, s: &str) -> Result<()> {
        let (t, p) = self.next()?;
        match t {
            Tok::Ident(i) if i == s => Ok(()),
            t => Err(self.err(p, format!("expected '{s}', found {}", t.describe()))),
        }
    }
    fn ty(&mut self) -> Result<Type> {
        parse_type(&mut self.lx, 0)
    }
    fn attr(&mut self) -> Result<Attr> {
        parse_attr(&mut self.lx, &self.aliases, 0)
    }
    fn dict(&mut self) -> Result<Vec<(String, Attr)>> {
        parse_dict(&mut self.lx, &self.aliases, 0)
    }

    /// Skips `loc(...)` if it is next.
    fn skip_loc(&mut self) -> Result<()> {
        if matches!(self.peek()?, Tok::Ident(ref i) if i == "loc") {
            let save = self.lx.pos;
            self.next()?;
            if self.lx.peek_byte() == Some(b'(') {
                skip_balanced(&mut self.lx)?;
            } else {
                self.lx.pos = save;
            }
        }
        Ok(())
    }

    fn module(&mut self) -> Result<ModuleAst> {
        let mut m = ModuleAst::default();
        let mut saw_module = false;
        loop {
            let (t, pos) = self.next()?;
            match t {
                Tok::Eof => break,
                Tok::Hash(name) => {
                    // `#alias = attr` (locations included).
                    self.expect('=')?;
                    if matches!(self.peek()?, Tok::Ident(ref i) if i == "loc") {
                        self.skip_loc()?;
                    } else {
                        let a = self.attr()?;
                        self.aliases.insert(name, a);
                    }
                }
                Tok::Bang(name) => {
                    return Err(self.err(
                        pos,
                        format!("type aliases ('!{name} = ...') are not supported"),
                    ));
                }
                Tok::Ident(ref k) if k == "module" && !saw_module => {
                    saw_module = true;
                    if let Tok::Symbol(n) = self.peek()? {
                        self.next()?;
                        m.name = Some(n);
                    }
                    if self.eat_ident("attributes")? {
                        self.dict()?;
                    }
                    self.expect('{')?;
                    loop {
                        let (t, pos) = self.lx.peek()?;
                        match t {
                            Tok::Punct('}') => {
                                self.next()?;
                                break;
                            }
                            Tok::Ident(ref k) if k == "func.func" => {
                                self.next()?;
                                m.funcs.push(self.func(pos)?);
                            }
                            t => {
                                return Err(self.err(
                                    pos,
                                    format!(
                                        "expected 'func.func' or '}}' in the module, found {}",
                                        t.describe()
                                    ),
                                ));
                            }
                        }
                    }
                    self.skip_loc()?;
                }
                Tok::Ident(ref k) if k == "func.func" && !saw_module => {
                    m.funcs.push(self.func(pos)?);
                }
                t => {
                    let what = if saw_module {
                        "the end of the input after the module"
                    } else {
                        "'module' or 'func.func'"
                    };
                    return Err(self.err(pos, format!("expected {what}, found {}", t.describe())));
                }
            }
        }
        if m.funcs.is_empty() {
            return Err(self.err(
                self.lx.src.len(),
                "expected a module with at least one func.func",
            ));
        }
        Ok(m)
    }

    fn func(&mut self, pos: usize) -> Result<Func> {
        let mut public = true;
        if self.eat_ident("public")? {
        } else if self.eat_ident("private")? || self.eat_ident("nested")? {
            public = false;
        }
        let (t, p) = self.next()?;
        let Tok::Symbol(name) = t else {
            return Err(self.err(
                p,
                format!("expected the function's '@name', found {}", t.describe()),
            ));
        };
        self.expect('(')?;
        let mut args = Vec::new();
        if !self.eat(')')? {
            loop {
                let (t, p) = self.next()?;
                let Tok::Value(n, None) = t else {
                    return Err(self.err(
                        p,
                        format!("expected an argument '%name', found {}", t.describe()),
                    ));
                };
                self.expect(':')?;
                let ty = self.ty()?;
                if self.lx.peek_byte() == Some(b'{') {
                    self.dict()?;
                }
                self.skip_loc()?;
                args.push(Arg {
                    key: key(&n, None),
                    ty,
                    pos: p,
                });
                if !self.comma_or(')', "after an argument")? {
                    break;
                }
            }
        }
        let mut results = Vec::new();
        if self.peek()? == Tok::Arrow {
            self.next()?;
            if self.eat('(')? {
                if !self.eat(')')? {
                    loop {
                        results.push(self.ty()?);
                        if self.lx.peek_byte() == Some(b'{') {
                            self.dict()?;
                        }
                        if !self.comma_or(')', "after a result type")? {
                            break;
                        }
                    }
                }
            } else {
                results.push(self.ty()?);
            }
        }
        if self.eat_ident("attributes")? {
            self.dict()?;
        }
        let body = self.region(&args, 0)?;
        self.skip_loc()?;
        Ok(Func {
            name,
            public,
            args,
            results,
            body,
            pos,
        })
    }

    /// `{ [^bb(args):] ops }`; `args` are the block arguments when the
    /// syntax declares them elsewhere (function signature, while).
    fn region(&mut self, args: &[Arg], depth: usize) -> Result<Region> {
        let open = self.expect('{')?;
        if depth > MAX_DEPTH {
            return Err(self.err(open, format!("regions nested deeper than {MAX_DEPTH}")));
        }
        let mut region = Region {
            args: args.to_vec(),
            ops: Vec::new(),
            pos: open,
        };
        if let Tok::Block(_) = self.peek()? {
            self.next()?;
            if self.eat('(')? && !self.eat(')')? {
                loop {
                    let (t, p) = self.next()?;
                    let Tok::Value(n, None) = t else {
                        return Err(self.err(
                            p,
                            format!("expected a block argument '%name', found {}", t.describe()),
                        ));
                    };
                    self.expect(':')?;
                    let ty = self.ty()?;
                    self.skip_loc()?;
                    region.args.push(Arg {
                        key: key(&n, None),
                        ty,
                        pos: p,
                    });
                    if !self.comma_or(')', "in block arguments")? {
                        break;
                    }
                }
            }
            self.expect(':')?;
        }
        loop {
            let (t, p) = self.lx.peek()?;
            match t {
                Tok::Punct('}') => {
                    self.next()?;
                    return Ok(region);
                }
                Tok::Eof => {
                    return Err(
                        self.err(p, "unexpected end of input: expected an operation or '}'")
                    );
                }
                Tok::Block(_) => {
                    return Err(self.err(p, "regions with more than one block are not supported"));
                }
                _ => {
                    let op = self.op(depth)?;
                    region.ops.push(op);
                }
            }
        }
    }

    fn op(&mut self, depth: usize) -> Result<Operation> {
        // Results.
        let mut results = Vec::new();
        let start = self.lx.pos;
        if let Tok::Value(..) = self.peek()? {
            loop {
                let (t, p) = self.next()?;
                let Tok::Value(n, None) = t else {
                    return Err(
                        self.err(p, format!("expected a result name, found {}", t.describe()))
                    );
                };
                if self.eat(':')? {
                    let (t, p) = self.next()?;
                    let count = match t {
                        Tok::Int(s) => s.parse::<usize>().ok().filter(|&c| c <= 1 << 20),
                        _ => None,
                    };
                    let Some(count) = count else {
                        return Err(self.err(p, "expected a result count after ':'"));
                    };
                    results.extend((0..count).map(|i| key(&n, Some(i))));
                } else {
                    results.push(key(&n, None));
                }
                if !self.comma_or('=', "after result names")? {
                    break;
                }
            }
        }
        let _ = start;
        let (t, pos) = self.next()?;
        let mut op = Operation {
            name: String::new(),
            pos,
            results,
            operands: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
            operand_types: None,
            result_types: Vec::new(),
        };
        match t {
            Tok::Str(name) => {
                op.name = name;
                self.generic(&mut op, depth)?;
            }
            Tok::Ident(name) => {
                op.name = match name.as_str() {
                    "return" => "func.return".into(),
                    "call" => "func.call".into(),
                    _ => name,
                };
                self.custom(&mut op, depth)?;
            }
            t => {
                return Err(self.err(
                    pos,
                    format!("expected an operation name, found {}", t.describe()),
                ));
            }
        }
        self.skip_loc()?;
        Ok(op)
    }

    fn operand(&mut self) -> Result<ValueUse> {
        let (t, p) = self.next()?;
        match t {
            Tok::Value(n, i) => Ok(ValueUse {
                key: key(&n, i),
                pos: p,
            }),
            t => Err(self.err(
                p,
                format!("expected an operand '%name', found {}", t.describe()),
            )),
        }
    }

    /// `(%a, %b)` (at the open paren).
    fn operand_list(&mut self) -> Result<Vec<ValueUse>> {
        self.expect('(')?;
        let mut v = Vec::new();
        if self.eat(')')? {
            return Ok(v);
        }
        loop {
            v.push(self.operand()?);
            let (t, p) = self.next()?;
            match t {
                Tok::Punct(',') => continue,
                Tok::Punct(')') => return Ok(v),
                t => {
                    return Err(self.err(
                        p,
                        format!(
                            "expected ',' or ')' after an operand, found {}",
                            t.describe()
                        ),
                    ));
                }
            }
        }
    }

    fn generic(&mut self, op: &mut Operation, depth: usize) -> Result<()> {
        op.operands = self.operand_list()?;
        if self.lx.peek_byte() == Some(b'[') {
            let p = self.lx.pos;
            return Err(self.err(p, "successor blocks are not supported"));
        }
        if self.lx.peek_byte() == Some(b'<') {
            self.next()?;
            let d = self.dict()?;
            op.attrs.extend(d);
            self.expect('>')?;
        }
        if self.lx.peek_byte() == Some(b'(') {
            self.next()?;
            loop {
                let r = self.region(&[], depth + 1)?;
                op.regions.push(r);
                let (t, p) = self.next()?;
                match t {
                    Tok::Punct(',') => continue,
                    Tok::Punct(')') => break,
                    t => {
                        return Err(self.err(
                            p,
                            format!("expected ',' or ')' after a region, found {}", t.describe()),
                        ));
                    }
                }
            }
        }
        if self.lx.peek_byte() == Some(b'{') {
            let d = self.dict()?;
            op.attrs.extend(d);
        }
        self.expect(':')?;
        let (t, p) = self.lx.peek()?;
        if t != Tok::Punct('(') {
            return Err(self.err(
                p,
                format!(
                    "expected the op's function type '(...) -> ...', found {}",
                    t.describe()
                ),
            ));
        }
        self.type_tail(op)
    }

    /// After ':': `(types) -> result(s)`, `types -> result(s)` or `types`.
    fn type_tail(&mut self, op: &mut Operation) -> Result<()> {
        let pos = self.lx.pos;
        let mut list = Vec::new();
        if self.eat('(')? {
            if !self.eat(')')? {
                loop {
                    list.push(self.ty()?);
                    if !self.comma_or(')', "in a type list")? {
                        break;
                    }
                }
            }
            let (t, p) = self.next()?;
            if t != Tok::Arrow {
                return Err(self.err(
                    p,
                    format!(
                        "expected '->' after the operand types, found {}",
                        t.describe()
                    ),
                ));
            }
        } else {
            loop {
                list.push(self.ty()?);
                if !self.eat(',')? {
                    break;
                }
            }
            if self.peek()? != Tok::Arrow {
                let n = op.results.len();
                op.result_types = if n == list.len() {
                    list.clone()
                } else if n == 0 {
                    Vec::new()
                } else if n == 1 {
                    vec![list.last().cloned().unwrap_or(Type::Tuple(vec![]))]
                } else {
                    return Err(self.err(pos, format!("{n} results but {} types", list.len())));
                };
                op.operand_types = Some(list);
                return Ok(());
            }
            self.next()?;
        }
        op.operand_types = Some(list);
        if self.eat('(')? {
            if !self.eat(')')? {
                loop {
                    op.result_types.push(self.ty()?);
                    if !self.comma_or(')', "in result types")? {
                        break;
                    }
                }
            }
        } else {
            op.result_types.push(self.ty()?);
        }
        if op.result_types.len() != op.results.len() {
            return Err(self.err(
                pos,
                format!(
                    "{} declares {} results but {} result types",
                    op.name,
                    op.results.len(),
                    op.result_types.len()
                ),
            ));
        }
        Ok(())
    }

    fn custom(&mut self, op: &mut Operation, depth: usize) -> Result<()> {
        match op.name.as_str() {
            "func.return" | "stablehlo.return" => {
                if let Tok::Value(..) = self.peek()? {
                    loop {
                        op.operands.push(self.operand()?);
                        if !self.eat(',')? {
                            break;
                        }
                    }
                    self.expect(':')?;
                    loop {
                        self.ty()?;
                        if !self.eat(',')? {
                            break;
                        }
                    }
                }
                Ok(())
            }
            "func.call" => {
                let (t, p) = self.next()?;
                let Tok::Symbol(callee) = t else {
                    return Err(self.err(
                        p,
                        format!("expected the callee '@name', found {}", t.describe()),
                    ));
                };
                op.attrs.push(("callee".into(), Attr::Symbol(callee)));
                op.operands = self.operand_list()?;
                if self.lx.peek_byte() == Some(b'{') {
                    let d = self.dict()?;
                    op.attrs.extend(d);
                }
                self.expect(':')?;
                self.type_tail(op)
            }
            "stablehlo.constant" => {
                if self.lx.peek_byte() == Some(b'{') {
                    let d = self.dict()?;
                    op.attrs.extend(d);
                }
                let p = self.lx.pos;
                let a = self.attr()?;
                let Attr::Dense(_, Some(ty)) = &a else {
                    return Err(self.err(
                        p,
                        "expected 'dense<...> : tensor<...>' after stablehlo.constant",
                    ));
                };
                op.result_types = vec![ty.clone()];
                op.attrs.push(("value".into(), a));
                Ok(())
            }
            "stablehlo.while" => {
                self.expect('(')?;
                let mut iter_names = Vec::new();
                if !self.eat(')')? {
                    loop {
                        let (t, p) = self.next()?;
                        let Tok::Value(n, None) = t else {
                            return Err(self.err(
                                p,
                                format!("expected '%iterArg = %init', found {}", t.describe()),
                            ));
                        };
                        self.expect('=')?;
                        op.operands.push(self.operand()?);
                        iter_names.push((key(&n, None), p));
                        let (t, p) = self.next()?;
                        match t {
                            Tok::Punct(',') => continue,
                            Tok::Punct(')') => break,
                            t => {
                                return Err(self.err(
                                    p,
                                    format!("expected ',' or ')', found {}", t.describe()),
                                ));
                            }
                        }
                    }
                }
                if self.lx.peek_byte() == Some(b'{') {
                    let d = self.dict()?;
                    op.attrs.extend(d);
                }
                let mut types = Vec::new();
                if !iter_names.is_empty() {
                    self.expect(':')?;
                    loop {
                        types.push(self.ty()?);
                        if !self.eat(',')? {
                            break;
                        }
                    }
                }
                if types.len() != iter_names.len() {
                    return Err(self.err(
                        op.pos,
                        format!("{} loop values but {} types", iter_names.len(), types.len()),
                    ));
                }
                let args: Vec<Arg> = iter_names
                    .into_iter()
                    .zip(&types)
                    .map(|((key, pos), ty)| Arg {
                        key,
                        ty: ty.clone(),
                        pos,
                    })
                    .collect();
                op.result_types = types.clone();
                op.operand_types = Some(types);
                self.skip_loc()?;
                self.expect_ident("cond")?;
                let c = self.region(&args, depth + 1)?;
                self.expect_ident("do")?;
                let b = self.region(&args, depth + 1)?;
                op.regions = vec![c, b];
                Ok(())
            }
            "stablehlo.reduce" => self.reduce(op, depth),
            _ => self.custom_items(op, depth),
        }
    }

    /// `stablehlo.reduce(%x init: %c), ... applies OP across dimensions = [..] : T`
    /// or `... across dimensions = [..] : T reducer(%a: t, %b: t) ... { ... }`.
    fn reduce(&mut self, op: &mut Operation, depth: usize) -> Result<()> {
        if self.lx.peek_byte() != Some(b'(') {
            return Err(self.err(
                self.lx.pos,
                "expected '(%operand init: %init)' after stablehlo.reduce",
            ));
        }
        let mut inputs = Vec::new();
        let mut inits = Vec::new();
        loop {
            self.expect('(')?;
            inputs.push(self.operand()?);
            self.expect_ident("init")?;
            self.expect(':')?;
            inits.push(self.operand()?);
            self.expect(')')?;
            if !self.eat(',')? {
                break;
            }
        }
        op.operands = inputs.into_iter().chain(inits).collect();
        let mut applies = None;
        if self.eat_ident("applies")? {
            let (t, p) = self.next()?;
            let Tok::Ident(name) = t else {
                return Err(self.err(
                    p,
                    format!(
                        "expected an op name after 'applies', found {}",
                        t.describe()
                    ),
                ));
            };
            applies = Some((name, p));
        }
        self.expect_ident("across")?;
        self.expect_ident("dimensions")?;
        self.expect('=')?;
        let d = self.attr()?;
        op.attrs.push(("dimensions".into(), d));
        if self.lx.peek_byte() == Some(b'{') {
            let d = self.dict()?;
            op.attrs.extend(d);
        }
        self.expect(':')?;
        self.type_tail(op)?;
        let n = op.results.len();
        let elem_types: Vec<Type> = op
            .operand_types
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .skip(n)
            .cloned()
            .collect();
        if let Some((name, p)) = applies {
            // A one-op body on the init types.
            let mut args = Vec::new();
            for side in 0..2 {
                for (i, t) in elem_types.iter().enumerate() {
                    args.push(Arg {
                        key: format!("_r{side}_{i}#0"),
                        ty: t.clone(),
                        pos: p,
                    });
                }
            }
            let k = elem_types.len();
            let body_results: Vec<String> = (0..k).map(|i| format!("_rv#{i}")).collect();
            let body_op = Operation {
                name,
                pos: p,
                results: body_results.clone(),
                operands: (0..k)
                    .flat_map(|i| [format!("_r0_{i}#0"), format!("_r1_{i}#0")])
                    .map(|key| ValueUse { key, pos: p })
                    .collect(),
                attrs: Vec::new(),
                regions: Vec::new(),
                operand_types: None,
                result_types: elem_types.clone(),
            };
            let ret = Operation {
                name: "stablehlo.return".into(),
                pos: p,
                results: Vec::new(),
                operands: body_results
                    .into_iter()
                    .map(|key| ValueUse { key, pos: p })
                    .collect(),
                attrs: Vec::new(),
                regions: Vec::new(),
                operand_types: None,
                result_types: Vec::new(),
            };
            op.regions.push(Region {
                args,
                ops: vec![body_op, ret],
                pos: p,
            });
        } else {
            self.skip_loc()?;
            self.expect_ident("reducer")?;
            let mut firsts = Vec::new();
            let mut seconds = Vec::new();
            while self.lx.peek_byte() == Some(b'(') {
                self.next()?;
                let mut pair = Vec::new();
                loop {
                    let (t, p) = self.next()?;
                    let Tok::Value(n, None) = t else {
                        return Err(self.err(
                            p,
                            format!("expected a reducer argument, found {}", t.describe()),
                        ));
                    };
                    self.expect(':')?;
                    let ty = self.ty()?;
                    self.skip_loc()?;
                    pair.push(Arg {
                        key: key(&n, None),
                        ty,
                        pos: p,
                    });
                    if !self.eat(',')? {
                        break;
                    }
                }
                self.expect(')')?;
                if pair.len() != 2 {
                    return Err(self.err(
                        op.pos,
                        "each reducer argument group must have two arguments",
                    ));
                }
                seconds.push(pair.pop().unwrap_or_else(|| unreachable!()));
                firsts.push(pair.pop().unwrap_or_else(|| unreachable!()));
            }
            let args: Vec<Arg> = firsts.into_iter().chain(seconds).collect();
            let r = self.region(&args, depth + 1)?;
            op.regions.push(r);
        }
        Ok(())
    }

    /// The common custom form: comma-separated items (operands, `key =
    /// value`, bare enums, `[a:b]` slices, `(...)` groups, `@symbol`,
    /// `"string"`), an optional attribute dictionary, then `: types`.
    fn custom_items(&mut self, op: &mut Operation, depth: usize) -> Result<()> {
        let mut enums = 0;
        self.items(op, &mut enums, depth, false)?;
        if self.lx.peek_byte() == Some(b'{') {
            let d = self.dict()?;
            op.attrs.extend(d);
        }
        let (t, p) = self.lx.peek()?;
        if t != Tok::Punct(':') {
            return Err(self.err(
                p,
                format!(
                    "expected ':' and the types of {}, found {}",
                    op.name,
                    t.describe()
                ),
            ));
        }
        self.next()?;
        self.type_tail(op)
    }

    fn items(
        &mut self,
        op: &mut Operation,
        enums: &mut usize,
        depth: usize,
        in_parens: bool,
    ) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(self.err(self.lx.pos, "operation nested too deeply"));
        }
        loop {
            let (t, p) = self.lx.peek()?;
            match t {
                Tok::Value(..) => {
                    let v = self.operand()?;
                    op.operands.push(v);
                }
                Tok::Punct('(') => {
                    self.next()?;
                    self.items(op, enums, depth + 1, true)?;
                    self.expect(')')?;
                }
                Tok::Punct('[') => {
                    // `[0:4, 1:3:2]` slice ranges or `[0]` indices.
                    self.next()?;
                    let mut ranges = Vec::new();
                    if !self.eat(']')? {
                        loop {
                            let mut parts = Vec::new();
                            loop {
                                let (t, p) = self.next()?;
                                let Tok::Int(s) = t else {
                                    return Err(self.err(
                                        p,
                                        format!(
                                            "expected an integer in '[...]', found {}",
                                            t.describe()
                                        ),
                                    ));
                                };
                                let v: i64 = s
                                    .parse()
                                    .map_err(|_| self.err(p, format!("bad integer '{s}'")))?;
                                parts.push(Attr::Int(v));
                                if !self.eat(':')? {
                                    break;
                                }
                            }
                            ranges.push(Attr::Array(parts));
                            let (t, p) = self.next()?;
                            match t {
                                Tok::Punct(',') => continue,
                                Tok::Punct(']') => break,
                                t => {
                                    return Err(self.err(
                                        p,
                                        format!("expected ',' or ']', found {}", t.describe()),
                                    ));
                                }
                            }
                        }
                    }
                    op.attrs.push(("_slice".into(), Attr::Array(ranges)));
                }
                Tok::Symbol(s) => {
                    self.next()?;
                    op.attrs.push(("_symbol".into(), Attr::Symbol(s)));
                }
                Tok::Str(s) => {
                    self.next()?;
                    op.attrs.push(("_string".into(), Attr::Str(s)));
                }
                Tok::Ident(k) => {
                    self.next()?;
                    if self.peek()? == Tok::Punct('=') {
                        self.next()?;
                        let v = if k == "dim_numbers" {
                            parse_conv_dims(&mut self.lx)?
                        } else {
                            let a = parse_attr_bare(&mut self.lx, &self.aliases)?;
                            if self.eat_ident("x")? {
                                let b = parse_attr_bare(&mut self.lx, &self.aliases)?;
                                Attr::Struct(
                                    "pair".into(),
                                    vec![("lhs".into(), a), ("rhs".into(), b)],
                                )
                            } else {
                                a
                            }
                        };
                        op.attrs.push((k, v));
                    } else {
                        op.attrs
                            .push((format!("_enum{enums}"), Attr::Enum(String::new(), k)));
                        *enums += 1;
                    }
                }
                Tok::Hash(_) => {
                    let a = self.attr()?;
                    op.attrs.push((format!("_enum{enums}"), a));
                    *enums += 1;
                }
                _ => {
                    if in_parens && t == Tok::Punct(')') {
                        return Ok(());
                    }
                    if t == Tok::Punct(':') || t == Tok::Punct('{') {
                        return Ok(());
                    }
                    return Err(self.err(p, format!("unexpected {} in {}", t.describe(), op.name)));
                }
            }
            if !self.eat(',')? {
                // Items may follow a group without a comma (`(%a, %b) dim_numbers = ...`).
                match self.peek()? {
                    Tok::Ident(_)
                    | Tok::Value(..)
                    | Tok::Str(_)
                    | Tok::Symbol(_)
                    | Tok::Punct('(')
                    | Tok::Punct('[')
                        if !in_parens =>
                    {
                        continue;
                    }
                    _ => return Ok(()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_op(body: &str) -> Operation {
        let text = format!(
            "func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {{\n{body}\n}}"
        );
        let m = parse(&text, "t.mlir").unwrap_or_else(|e| panic!("{e}"));
        m.funcs[0].body.ops[0].clone()
    }

    #[test]
    fn custom_forms() {
        let op =
            one_op("%0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>\nreturn %0 : tensor<4xf32>");
        assert_eq!(op.name, "stablehlo.add");
        assert_eq!(op.operands.len(), 2);
        assert_eq!(op.result_types[0].to_string(), "tensor<4xf32>");

        let op = one_op(
            "%0 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
        );
        assert_eq!(op.attr(&["_enum0"]).unwrap().as_enum(), Some("GT"));
        assert_eq!(op.attr(&["_enum1"]).unwrap().as_enum(), Some("FLOAT"));

        let op = one_op(
            "%0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>",
        );
        let c = op.attr(&["contracting_dims"]).unwrap().fields().unwrap();
        assert_eq!(c[1].1.as_i64s().unwrap(), vec![1]);

        let op = one_op(
            "%0 = stablehlo.slice %arg0 [1:3, 0:4:2] : (tensor<4x4xf32>) -> tensor<2x2xf32>",
        );
        assert!(matches!(op.attr(&["_slice"]), Some(Attr::Array(v)) if v.len() == 2));

        let op = one_op(
            "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[-1, 2]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x8xf32>, tensor<2x2x3xf32>) -> tensor<1x2x7xf32>",
        );
        assert_eq!(op.operands.len(), 2);
        assert!(op.attr(&["window"]).is_some() && op.attr(&["feature_group_count"]).is_some());

        let op = one_op(
            "%values, %indices = chlo.top_k(%arg0, k = 3) : tensor<2x7xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)",
        );
        assert_eq!(op.results, vec!["values#0", "indices#0"]);
        assert_eq!(op.attr(&["k"]), Some(&Attr::Int(3)));

        let op = one_op("%cst = stablehlo.constant dense<0xFF800000> : tensor<f32> loc(#loc3)");
        assert_eq!(op.result_types[0].to_string(), "tensor<f32>");
    }

    #[test]
    fn regions_and_generic_form() {
        let op = one_op(
            "%0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1) : tensor<4xf32>, tensor<4xf32>\n cond {\n %c = stablehlo.constant dense<true> : tensor<i1>\n stablehlo.return %c : tensor<i1>\n } do {\n stablehlo.return %iterArg, %iterArg_0 : tensor<4xf32>, tensor<4xf32>\n }",
        );
        assert_eq!(op.results.len(), 2);
        assert_eq!(op.regions.len(), 2);
        assert_eq!(op.regions[1].args[1].key, "iterArg_0#0");

        let op = one_op(
            "%1 = \"stablehlo.case\"(%0) ({\n stablehlo.return %arg0 : tensor<4xf32>\n }, {\n stablehlo.return %arg1 : tensor<4xf32>\n }) : (tensor<i32>) -> tensor<4xf32>",
        );
        assert_eq!(op.regions.len(), 2);

        let op = one_op(
            "%1:2 = stablehlo.reduce(%arg0 init: %c), (%arg1 init: %d) across dimensions = [0] : (tensor<4xf32>, tensor<4xi64>, tensor<f32>, tensor<i64>) -> (tensor<f32>, tensor<i64>)\n reducer(%a: tensor<f32>, %b: tensor<f32>) (%c2: tensor<i64>, %d2: tensor<i64>) {\n stablehlo.return %a, %c2 : tensor<f32>, tensor<i64>\n }",
        );
        let keys: Vec<&str> = op.regions[0].args.iter().map(|a| a.key.as_str()).collect();
        assert_eq!(keys, ["a#0", "c2#0", "b#0", "d2#0"]);
        assert_eq!(op.operands.len(), 4);
    }

    #[test]
    fn syntax_errors_are_located() {
        let e = parse(
            "module {\n  func.func @main() {\n    %0 = stablehlo.add %a : \n",
            "f.mlir",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("f.mlir:4:1: error: expected a type"), "{e}");
        let e = parse("module {\n func.func @main(%a: tensor<2xf32>) {\n %0 = stablehlo.add %a, %a : tensor<2xf32>\n", "f.mlir").unwrap_err().to_string();
        assert!(
            e.contains("f.mlir:4:1: error: unexpected end of input"),
            "{e}"
        );
        let deep = format!(
            "func.func @main() {{ {} }}",
            "\"stablehlo.case\"(%0) ({".repeat(1000)
        );
        let e = parse(&deep, "f.mlir").unwrap_err().to_string();
        assert!(e.contains("nested deeper"), "{e}");
    }
}
