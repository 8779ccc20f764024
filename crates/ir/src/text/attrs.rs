//! Instruction attributes in HLO text: scanning `, key=value` lists into
//! raw (key, verbatim value) pairs with balanced-brace/quote scanning, and
//! the typed syntaxes the IR models (`{1,2}` lists, `slice=`, `padding=`,
//! `window=`, `dim_labels=`, `replica_groups=`, strings, booleans) in both
//! directions. Which attribute an op takes is decided by the parser and
//! printer, not here.

use super::lexer::{Cursor, escape, quote};
use crate::collective::{IotaGroups, ReplicaGroups};
use crate::error::Result;
use crate::ops::{ConvDims, PadDim, Window, WindowDim};

/// One `key=value` attribute as written.
#[derive(Clone, Debug)]
pub struct RawAttr<'a> {
    pub key: &'a str,
    /// Byte offset of the key in the source.
    pub key_start: usize,
    /// Verbatim value text.
    pub value: &'a str,
    pub value_start: usize,
    pub value_end: usize,
}

/// Every instruction attribute name XLA's HLO parser knows (hlo_parser.cc's
/// `attrs["..."]` across all opcodes, plus the common ones parsed for every
/// instruction), sorted. An instruction attribute outside this list is an
/// error, as in XLA; the ones rxla does not model are kept verbatim.
pub const XLA_INSTRUCTION_ATTRIBUTES: &[&str] = &[
    "algorithm",
    "api_version",
    "async_execution_thread",
    "async_group_id",
    "async_wrapped_instruction",
    "backend_config",
    "batch_group_count",
    "body",
    "branch_computations",
    "called_computations",
    "calls",
    "channel_id",
    "collapsed_slice_dims",
    "composite_attributes",
    "condition",
    "constrain_layout",
    "control-predecessors",
    "cross_program_prefetch_index",
    "custom_call_has_side_effect",
    "custom_call_schedule",
    "custom_call_target",
    "delta",
    "dim_labels",
    "dimensions",
    "direction",
    "distribution",
    "domain",
    "dynamic_slice_sizes",
    "epsilon",
    "exponent_bits",
    "false_computation",
    "feature_group_count",
    "feature_index",
    "fft_length",
    "fft_type",
    "frontend_attributes",
    "index",
    "index_vector_dim",
    "indices_are_sorted",
    "infeed_config",
    "input_batching_dims",
    "inserted_window_dims",
    "iota_dimension",
    "is_composite",
    "is_cross_program_prefetch",
    "is_host_transfer",
    "is_stable",
    "k",
    "kind",
    "largest",
    "left_side",
    "lhs_batch_dims",
    "lhs_contracting_dims",
    "lhs_ragged_dims",
    "literal",
    "lower",
    "mantissa_bits",
    "metadata",
    "mode",
    "offset_dims",
    "operand_batching_dims",
    "operand_layout_constraints",
    "operand_precision",
    "origin",
    "original_value",
    "outfeed_config",
    "outfeed_shape",
    "output_to_operand_aliasing",
    "padding",
    "padding_type",
    "parameter_replication",
    "precision_config",
    "replica_groups",
    "result_accuracy",
    "rhs_batch_dims",
    "rhs_contracting_dims",
    "rhs_group_dims",
    "rng_algorithm",
    "scatter",
    "scatter_dimension",
    "scatter_dims_to_operand_dims",
    "scatter_indices_batching_dims",
    "schedule",
    "select",
    "sharding",
    "slice",
    "slice_sizes",
    "source_target_pairs",
    "sparsity",
    "split_count",
    "split_dimension",
    "start_index_map",
    "start_indices_batching_dims",
    "statistics_viz",
    "to_apply",
    "transpose_a",
    "true_computation",
    "type",
    "unique_indices",
    "unit_diagonal",
    "update_window_dims",
    "use_global_device_ids",
    "window",
];

/// Whether `key` is an instruction attribute XLA's HLO parser accepts.
pub fn is_xla_instruction_attribute(key: &str) -> bool {
    XLA_INSTRUCTION_ATTRIBUTES.binary_search(&key).is_ok()
}

/// Reads `(, key=value)*` after an instruction's operand list (or a module
/// header). Duplicate keys are an error.
pub fn attr_list<'a>(c: &mut Cursor<'a>) -> Result<Vec<RawAttr<'a>>> {
    let mut out: Vec<RawAttr<'a>> = Vec::new();
    loop {
        let save = c.pos;
        if !c.eat(b',')? {
            c.pos = save;
            return Ok(out);
        }
        c.skip_ws()?;
        let key_pos = c.pos;
        let key = c.ident()?.ok_or_else(|| {
            c.err(format!(
                "expected an attribute name, got {}",
                c.describe_next()
            ))
        })?;
        c.expect(b'=', &format!("'=' after attribute {}", quote(key)))?;
        c.skip_ws()?;
        let value_start = c.pos;
        scan_value(c, key)?;
        let value_end = c.pos;
        if out.iter().any(|a| a.key == key) {
            return Err(c.error_at(key_pos, format!("duplicate attribute {}", quote(key))));
        }
        out.push(RawAttr {
            key,
            key_start: key_pos,
            value: &c.src[value_start..value_end],
            value_start,
            value_end,
        });
    }
}

/// Advances over one attribute value: a quoted string, a balanced
/// `{...}`/`(...)`/`[...]` group, or a bare token; stops at a `,`,
/// whitespace or unmatched closing bracket at depth 0. Iterative, so any
/// nesting depth is safe.
pub fn scan_value(c: &mut Cursor<'_>, key: &str) -> Result<()> {
    let start = c.pos;
    let mut stack: Vec<u8> = Vec::new();
    while let Some(b) = c.peek() {
        match b {
            b'"' => {
                c.skip_string()?;
                continue;
            }
            b'{' => stack.push(b'}'),
            b'(' => stack.push(b')'),
            b'[' => stack.push(b']'),
            b'}' | b')' | b']' => match stack.last() {
                None => break,
                Some(&want) if want == b => {
                    stack.pop();
                }
                Some(&want) => {
                    return Err(c.err(format!(
                        "mismatched '{}' in the value of attribute {} (expected '{}')",
                        b as char,
                        quote(key),
                        want as char
                    )));
                }
            },
            b',' if stack.is_empty() => break,
            _ if b.is_ascii_whitespace() && stack.is_empty() => break,
            _ => {}
        }
        c.pos += 1;
    }
    if !stack.is_empty() {
        return Err(c.error_at(
            start,
            format!("unterminated value of attribute {}", quote(key)),
        ));
    }
    // An empty value (`padding=` of a rank-0 pad, as XLA prints it) is
    // allowed; typed parsers decide whether it means anything.
    Ok(())
}

/// A cursor over one attribute's value text.
pub fn value_cursor<'a>(c: &Cursor<'a>, a: &RawAttr<'a>) -> Cursor<'a> {
    c.sub(a.value_start, a.value_end)
}

/// Runs `f` on the attribute's value and checks it consumed all of it.
pub fn parse_value<'a, T>(
    c: &Cursor<'a>,
    a: &RawAttr<'a>,
    f: impl FnOnce(&mut Cursor<'a>) -> Result<T>,
) -> Result<T> {
    let mut v = value_cursor(c, a);
    let out = f(&mut v)?;
    v.skip_ws()?;
    if !v.at_end() {
        return Err(v.err(format!(
            "unexpected {} in the value of attribute {}",
            v.describe_next(),
            quote(a.key)
        )));
    }
    Ok(out)
}

/// `{1,2,3}` or `{}`.
pub fn int_list(c: &mut Cursor<'_>) -> Result<Vec<i64>> {
    c.expect(b'{', "'{' starting a list")?;
    let mut v = Vec::new();
    if c.eat(b'}')? {
        return Ok(v);
    }
    loop {
        v.push(c.int("an integer")?);
        if c.eat(b'}')? {
            return Ok(v);
        }
        c.expect(b',', "',' or '}' in a list")?;
    }
}

pub fn boolean(c: &mut Cursor<'_>) -> Result<bool> {
    c.skip_ws()?;
    let at = c.pos;
    match c.ident()? {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => {
            c.pos = at;
            Err(c.err(format!("expected true or false, got {}", c.describe_next())))
        }
    }
}

/// `{[0:2:1], [1:3]}` → (starts, limits, strides).
pub fn slice(c: &mut Cursor<'_>) -> Result<(Vec<i64>, Vec<i64>, Vec<i64>)> {
    let (mut s, mut l, mut st) = (Vec::new(), Vec::new(), Vec::new());
    c.expect(b'{', "'{' starting a slice")?;
    if c.eat(b'}')? {
        return Ok((s, l, st));
    }
    loop {
        c.expect(b'[', "'[' starting a slice dimension")?;
        s.push(c.int("a slice start")?);
        c.expect(b':', "':' in a slice dimension")?;
        l.push(c.int("a slice limit")?);
        st.push(if c.eat(b':')? {
            c.int("a slice stride")?
        } else {
            1
        });
        c.expect(b']', "']' closing a slice dimension")?;
        if c.eat(b'}')? {
            return Ok((s, l, st));
        }
        c.expect(b',', "',' or '}' in a slice")?;
    }
}

pub fn fmt_slice(starts: &[i64], limits: &[i64], strides: &[i64]) -> String {
    let parts: Vec<String> = starts
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let l = limits.get(i).copied().unwrap_or(0);
            match strides.get(i).copied().unwrap_or(1) {
                1 => format!("[{s}:{l}]"),
                st => format!("[{s}:{l}:{st}]"),
            }
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// A bare token of `[A-Za-z0-9_-]` characters (a padding, window item
/// value, or dim_labels part).
fn bare<'a>(c: &mut Cursor<'a>) -> &'a str {
    let start = c.pos;
    while matches!(c.peek(), Some(b) if b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        c.pos += 1;
    }
    &c.src[start..c.pos]
}

fn int_at(c: &Cursor<'_>, s: &str, at: usize, what: &str) -> Result<i64> {
    s.parse::<i64>().map_err(|_| {
        c.error_at(
            at,
            format!("expected {what} (an integer), got {}", quote(s)),
        )
    })
}

/// `0_1_0x1_1_2` (low_high[_interior] per dim, joined by `x`); empty for
/// rank 0.
pub fn padding(c: &mut Cursor<'_>) -> Result<Vec<PadDim>> {
    c.skip_ws()?;
    let at = c.pos;
    let text = bare(c);
    let mut out = Vec::new();
    if text.is_empty() {
        // No dimensions: the padding of a rank-0 pad.
        return Ok(out);
    }
    for dim in text.split('x') {
        let nums = split_signed(dim);
        if nums.len() != 2 && nums.len() != 3 {
            return Err(c.error_at(
                at,
                format!(
                    "padding dimension {} must be low_high or low_high_interior",
                    quote(dim)
                ),
            ));
        }
        let low = int_at(c, nums[0], at, "a padding amount")?;
        let high = int_at(c, nums[1], at, "a padding amount")?;
        let interior = match nums.get(2) {
            Some(s) => int_at(c, s, at, "an interior padding")?,
            None => 0,
        };
        out.push(PadDim {
            low,
            high,
            interior,
        });
    }
    Ok(out)
}

/// Splits `-1_2_0` at underscores.
fn split_signed(s: &str) -> Vec<&str> {
    s.split('_').collect()
}

pub fn fmt_padding(p: &[PadDim]) -> String {
    let interior = p.iter().any(|d| d.interior != 0);
    p.iter()
        .map(|d| {
            if interior {
                format!("{}_{}_{}", d.low, d.high, d.interior)
            } else {
                format!("{}_{}", d.low, d.high)
            }
        })
        .collect::<Vec<_>>()
        .join("x")
}

/// `{size=2x3 stride=2x1 pad=0_1x1_1 lhs_dilate=1x2 rhs_dilate=2x1
/// rhs_reversal=0x1}`; `{}` is an empty window.
pub fn window(c: &mut Cursor<'_>) -> Result<Window> {
    c.expect(b'{', "'{' starting a window")?;
    let mut dims: Option<Vec<WindowDim>> = None;
    let mut pending: Vec<(&str, usize, &str)> = Vec::new();
    loop {
        c.skip_ws()?;
        if c.eat(b'}')? {
            break;
        }
        let at = c.pos;
        let key = c.ident()?.ok_or_else(|| {
            c.err(format!(
                "expected a window field, got {}",
                c.describe_next()
            ))
        })?;
        c.expect(b'=', "'=' in a window field")?;
        c.skip_ws()?;
        let vat = c.pos;
        let val = bare(c);
        if key == "size" {
            let mut v = Vec::new();
            for s in val.split('x') {
                v.push(WindowDim::new(int_at(c, s, vat, "a window size")?));
            }
            if dims.is_some() {
                return Err(c.error_at(at, "window has two size= fields"));
            }
            dims = Some(v);
        } else {
            pending.push((key, vat, val));
        }
        let _ = at;
    }
    let mut dims = match dims {
        Some(d) => d,
        None if pending.is_empty() => Vec::new(),
        None => return Err(c.error_at(pending[0].1, "window without size=")),
    };
    for (key, at, val) in pending {
        let parts: Vec<&str> = val.split('x').collect();
        if parts.len() != dims.len() {
            return Err(c.error_at(
                at,
                format!(
                    "window field {key} has {} entries but the window has {} dimensions",
                    parts.len(),
                    dims.len()
                ),
            ));
        }
        for (d, p) in dims.iter_mut().zip(parts) {
            match key {
                "stride" => d.stride = int_at(c, p, at, "a stride")?,
                "lhs_dilate" => d.base_dilation = int_at(c, p, at, "a dilation")?,
                "rhs_dilate" => d.window_dilation = int_at(c, p, at, "a dilation")?,
                "rhs_reversal" => d.window_reversal = int_at(c, p, at, "a reversal flag")? != 0,
                "pad" => {
                    let lh = split_signed(p);
                    if lh.len() != 2 {
                        return Err(
                            c.error_at(at, format!("window pad {} must be low_high", quote(p)))
                        );
                    }
                    d.pad_low = int_at(c, lh[0], at, "a padding")?;
                    d.pad_high = int_at(c, lh[1], at, "a padding")?;
                }
                _ => return Err(c.error_at(at, format!("unknown window field {}", quote(key)))),
            }
        }
    }
    Ok(Window { dims })
}

pub fn fmt_window(w: &Window) -> String {
    let join =
        |f: &dyn Fn(&WindowDim) -> String| w.dims.iter().map(f).collect::<Vec<_>>().join("x");
    let mut parts = Vec::new();
    if !w.dims.is_empty() {
        parts.push(format!("size={}", join(&|d| d.size.to_string())));
    }
    if w.dims.iter().any(|d| d.stride != 1) {
        parts.push(format!("stride={}", join(&|d| d.stride.to_string())));
    }
    if w.dims.iter().any(|d| d.pad_low != 0 || d.pad_high != 0) {
        parts.push(format!(
            "pad={}",
            join(&|d| format!("{}_{}", d.pad_low, d.pad_high))
        ));
    }
    if w.dims.iter().any(|d| d.base_dilation != 1) {
        parts.push(format!(
            "lhs_dilate={}",
            join(&|d| d.base_dilation.to_string())
        ));
    }
    if w.dims.iter().any(|d| d.window_dilation != 1) {
        parts.push(format!(
            "rhs_dilate={}",
            join(&|d| d.window_dilation.to_string())
        ));
    }
    if w.dims.iter().any(|d| d.window_reversal) {
        parts.push(format!(
            "rhs_reversal={}",
            join(&|d| (d.window_reversal as i64).to_string())
        ));
    }
    format!("{{{}}}", parts.join(" "))
}

/// Positions of one dim_labels part: (first letter's pos, second
/// letter's pos, spatial positions in order).
fn labels(c: &Cursor<'_>, at: usize, part: &str, a: char, b: char) -> Result<(i64, i64, Vec<i64>)> {
    let n = part.chars().count();
    let (mut pa, mut pb) = (None, None);
    let mut spatial: Vec<Option<i64>> = vec![None; n.saturating_sub(2)];
    for (i, ch) in part.chars().enumerate() {
        let i = i as i64;
        let slot = if ch == a {
            &mut pa
        } else if ch == b {
            &mut pb
        } else if let Some(k) = ch.to_digit(10) {
            match spatial.get_mut(k as usize) {
                Some(s) => s,
                None => {
                    return Err(c.error_at(
                        at,
                        format!(
                            "dim_labels part {} has spatial dimension {k} out of range",
                            quote(part)
                        ),
                    ));
                }
            }
        } else {
            return Err(c.error_at(
                at,
                format!(
                    "unexpected letter '{ch}' in dim_labels part {} (expected {a}, {b} or digits)",
                    quote(part)
                ),
            ));
        };
        if slot.is_some() {
            return Err(c.error_at(
                at,
                format!("dim_labels part {} repeats '{ch}'", quote(part)),
            ));
        }
        *slot = Some(i);
    }
    match (
        pa,
        pb,
        spatial.iter().copied().collect::<Option<Vec<i64>>>(),
    ) {
        (Some(x), Some(y), Some(sp)) => Ok((x, y, sp)),
        _ => Err(c.error_at(
            at,
            format!(
                "dim_labels part {} must contain {a}, {b} and spatial digits 0..{}",
                quote(part),
                n.saturating_sub(2)
            ),
        )),
    }
}

/// `bf01_oi01->bf01`, `b01f_01io->b01f`.
pub fn dim_labels(c: &mut Cursor<'_>) -> Result<ConvDims> {
    c.skip_ws()?;
    let at = c.pos;
    let text = c
        .rest()
        .split(|ch: char| ch.is_whitespace() || ch == ',')
        .next()
        .unwrap_or("");
    c.pos += text.len();
    let (lhs_rhs, out) = text.split_once("->").ok_or_else(|| {
        c.error_at(
            at,
            format!("dim_labels {} must look like bf01_oi01->bf01", quote(text)),
        )
    })?;
    let (lhs, rhs) = lhs_rhs.split_once('_').ok_or_else(|| {
        c.error_at(
            at,
            format!("dim_labels {} must look like bf01_oi01->bf01", quote(text)),
        )
    })?;
    let (ib, ifeat, isp) = labels(c, at, lhs, 'b', 'f')?;
    let (ki, ko, ksp) = labels(c, at, rhs, 'i', 'o')?;
    let (ob, of, osp) = labels(c, at, out, 'b', 'f')?;
    if isp.len() != ksp.len() || isp.len() != osp.len() {
        return Err(c.error_at(
            at,
            format!(
                "dim_labels {} parts have different spatial ranks",
                quote(text)
            ),
        ));
    }
    Ok(ConvDims {
        input_batch: ib,
        input_feature: ifeat,
        input_spatial: isp,
        kernel_input_feature: ki,
        kernel_output_feature: ko,
        kernel_spatial: ksp,
        output_batch: ob,
        output_feature: of,
        output_spatial: osp,
    })
}

fn fmt_labels(a: (char, i64), b: (char, i64), spatial: &[i64]) -> String {
    let n = spatial.len() + 2;
    let mut v = vec!['?'; n];
    let mut put = |i: i64, ch: char| {
        if let Some(slot) = usize::try_from(i).ok().and_then(|i| v.get_mut(i)) {
            *slot = ch;
        }
    };
    put(a.1, a.0);
    put(b.1, b.0);
    for (k, &p) in spatial.iter().enumerate() {
        put(p, char::from_digit(k as u32 % 10, 10).unwrap_or('?'));
    }
    v.into_iter().collect()
}

pub fn fmt_dim_labels(d: &ConvDims) -> String {
    format!(
        "{}_{}->{}",
        fmt_labels(
            ('b', d.input_batch),
            ('f', d.input_feature),
            &d.input_spatial
        ),
        fmt_labels(
            ('i', d.kernel_input_feature),
            ('o', d.kernel_output_feature),
            &d.kernel_spatial
        ),
        fmt_labels(
            ('b', d.output_batch),
            ('f', d.output_feature),
            &d.output_spatial
        )
    )
}

/// `{{0,1},{2,3}}` or `{}`: a list of integer lists.
pub fn int_lists(c: &mut Cursor<'_>, what: &str) -> Result<Vec<Vec<i64>>> {
    c.expect(b'{', &format!("'{{' starting {what}"))?;
    let mut out = Vec::new();
    if c.eat(b'}')? {
        return Ok(out);
    }
    loop {
        c.skip_ws()?;
        out.push(int_list(c)?);
        if c.eat(b'}')? {
            return Ok(out);
        }
        c.expect(b',', &format!("',' or '}}' in {what}"))?;
    }
}

/// `[a,b,...]`.
fn bracket_ints(c: &mut Cursor<'_>, what: &str) -> Result<Vec<i64>> {
    c.expect(b'[', &format!("'[' starting {what}"))?;
    let mut v = Vec::new();
    if c.eat(b']')? {
        return Ok(v);
    }
    loop {
        v.push(c.int("an integer")?);
        if c.eat(b']')? {
            return Ok(v);
        }
        c.expect(b',', &format!("',' or ']' in {what}"))?;
    }
}

/// `{{0,1},{2,3}}`, `{}`, or the iota form `[G,S]<=[dims]` with an
/// optional `T(perm)`.
pub fn replica_groups(c: &mut Cursor<'_>) -> Result<ReplicaGroups> {
    c.skip_ws()?;
    if c.peek() != Some(b'[') {
        return Ok(ReplicaGroups::List(int_lists(c, "replica_groups")?));
    }
    let at = c.pos;
    let gs = bracket_ints(c, "the iota replica groups' [groups,size]")?;
    let [num_groups, group_size] = gs[..] else {
        return Err(c.error_at(
            at,
            format!(
                "iota replica groups need [groups,size] (two numbers), got [{}]",
                join_ints(&gs)
            ),
        ));
    };
    c.skip_ws()?;
    c.expect_str("<=")?;
    let reshape_dims = bracket_ints(c, "the iota replica groups' reshape dims")?;
    let transpose = if c.eat(b'T')? {
        c.expect(b'(', "'(' after T")?;
        let mut v = Vec::new();
        if !c.eat(b')')? {
            loop {
                v.push(c.int("an integer")?);
                if c.eat(b')')? {
                    break;
                }
                c.expect(b',', "',' or ')' in T(...)")?;
            }
        }
        v
    } else {
        Vec::new()
    };
    let g = IotaGroups {
        num_groups,
        group_size,
        reshape_dims,
        transpose,
    };
    g.validate().map_err(|e| c.error_at(at, e.to_string()))?;
    Ok(ReplicaGroups::Iota(g))
}

pub fn fmt_replica_groups(g: &ReplicaGroups) -> String {
    match g {
        ReplicaGroups::List(v) => fmt_int_lists(v),
        ReplicaGroups::Iota(i) => {
            let mut s = format!(
                "[{},{}]<=[{}]",
                i.num_groups,
                i.group_size,
                join_ints(&i.reshape_dims)
            );
            if !i.is_identity_transpose() {
                s.push_str(&format!("T({})", join_ints(&i.transpose)));
            }
            s
        }
    }
}

pub fn fmt_int_lists(g: &[Vec<i64>]) -> String {
    let parts: Vec<String> = g.iter().map(|x| format!("{{{}}}", join_ints(x))).collect();
    format!("{{{}}}", parts.join(","))
}

/// `source_target_pairs={{0,1},{1,2}}`.
pub fn pairs(c: &mut Cursor<'_>) -> Result<Vec<(i64, i64)>> {
    let at = c.pos;
    let lists = int_lists(c, "source_target_pairs")?;
    lists
        .iter()
        .map(|l| match l[..] {
            [s, t] => Ok((s, t)),
            _ => Err(c.error_at(
                at,
                format!(
                    "source_target_pairs holds pairs {{source,target}}, got {{{}}}",
                    join_ints(l)
                ),
            )),
        })
        .collect()
}

pub fn fmt_pairs(p: &[(i64, i64)]) -> String {
    let parts: Vec<String> = p.iter().map(|(s, t)| format!("{{{s},{t}}}")).collect();
    format!("{{{}}}", parts.join(","))
}

pub fn join_ints(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// `{1,2}`.
pub fn fmt_list(v: &[i64]) -> String {
    format!("{{{}}}", join_ints(v))
}

pub fn fmt_string(s: &str) -> String {
    format!("\"{}\"", escape(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cur(s: &str) -> Cursor<'_> {
        Cursor::new(s, "t")
    }

    #[test]
    fn attribute_names_sorted() {
        assert!(XLA_INSTRUCTION_ATTRIBUTES.windows(2).all(|w| w[0] < w[1]));
        assert!(is_xla_instruction_attribute("metadata"));
        assert!(is_xla_instruction_attribute("control-predecessors"));
        assert!(!is_xla_instruction_attribute("flavour"));
    }

    #[test]
    fn lists_and_slices() {
        assert_eq!(int_list(&mut cur("{1, 2,3}")).unwrap(), vec![1, 2, 3]);
        assert_eq!(int_list(&mut cur("{}")).unwrap(), Vec::<i64>::new());
        let (s, l, st) = slice(&mut cur("{[0:2:1], [1:3]}")).unwrap();
        assert_eq!(
            (s.clone(), l.clone(), st.clone()),
            (vec![0, 1], vec![2, 3], vec![1, 1])
        );
        assert_eq!(fmt_slice(&s, &l, &st), "{[0:2], [1:3]}");
        assert_eq!(fmt_slice(&[0], &[6], &[2]), "{[0:6:2]}");
    }

    #[test]
    fn padding_round_trip() {
        for p in ["0_1_0x1_1_2", "0_1x1_1", "-1_2", "0_0"] {
            assert_eq!(fmt_padding(&padding(&mut cur(p)).unwrap()), p);
        }
        assert_eq!(
            fmt_padding(&padding(&mut cur("0_1_0x1_1_0")).unwrap()),
            "0_1x1_1"
        );
        assert!(padding(&mut cur("0_1_2_3")).is_err());
        assert!(padding(&mut cur("a_b")).is_err());
    }

    #[test]
    fn window_round_trip() {
        for w in [
            "{size=2x3 stride=2x1 pad=0_1x1_1 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1}",
            "{size=3x3 pad=1_1x1_1}",
            "{size=1x2x2x1 stride=1x2x2x1}",
            "{size=2 pad=-1_2}",
            "{}",
        ] {
            assert_eq!(fmt_window(&window(&mut cur(w)).unwrap()), w);
        }
        assert!(
            window(&mut cur("{size=2 stride=1x1}"))
                .unwrap_err()
                .to_string()
                .contains("2 entries")
        );
        assert!(window(&mut cur("{stride=1}")).is_err());
        assert!(window(&mut cur("{size=2 bogus=1}")).is_err());
    }

    #[test]
    fn dim_labels_round_trip() {
        for d in [
            "bf01_oi01->bf01",
            "b01f_01io->b01f",
            "bf012_oi012->bf012",
            "fb0_io0->0bf",
            "bf_oi->bf",
        ] {
            assert_eq!(fmt_dim_labels(&dim_labels(&mut cur(d)).unwrap()), d);
        }
        let n = dim_labels(&mut cur("bf01_oi01->bf01")).unwrap();
        assert_eq!(n, ConvDims::nchw(2));
        assert!(dim_labels(&mut cur("bf01_oi01")).is_err());
        assert!(dim_labels(&mut cur("bf0_oi01->bf01")).is_err());
        assert!(dim_labels(&mut cur("bx01_oi01->bf01")).is_err());
        assert!(dim_labels(&mut cur("bb01_oi01->bf01")).is_err());
    }

    #[test]
    fn groups_and_attr_lists() {
        let g = replica_groups(&mut cur("{{0,1},{2,3}}")).unwrap();
        assert_eq!(g, ReplicaGroups::List(vec![vec![0, 1], vec![2, 3]]));
        assert_eq!(fmt_replica_groups(&g), "{{0,1},{2,3}}");
        assert_eq!(fmt_replica_groups(&ReplicaGroups::default()), "{}");
        for t in ["[2,2]<=[4]", "[2,2]<=[2,2]T(1,0)", "[1,4]<=[4]"] {
            let g = replica_groups(&mut cur(t)).unwrap();
            assert_eq!(fmt_replica_groups(&g), t);
        }
        let g = replica_groups(&mut cur("[2,2]<=[2,2]T(1,0)")).unwrap();
        assert_eq!(g.groups().unwrap(), vec![vec![0, 2], vec![1, 3]]);
        assert!(replica_groups(&mut cur("[2,2]<=[3]")).is_err());
        assert!(replica_groups(&mut cur("[2,2,1]<=[4]")).is_err());
        assert!(replica_groups(&mut cur("[2,2]<=[2,2]T(0,0)")).is_err());
        assert!(replica_groups(&mut cur("[2,2]<[4]")).is_err());
        assert_eq!(
            pairs(&mut cur("{{0,1},{1,0}}")).unwrap(),
            vec![(0, 1), (1, 0)]
        );
        assert!(pairs(&mut cur("{{0,1,2}}")).is_err());
        let src = ", a={x, \"}\"}, b=foo->bar, c=\"q,r\", d={{}}\nnext";
        let mut c = cur(src);
        let attrs = attr_list(&mut c).unwrap();
        let kv: Vec<(&str, &str)> = attrs.iter().map(|a| (a.key, a.value)).collect();
        assert_eq!(
            kv,
            vec![
                ("a", "{x, \"}\"}"),
                ("b", "foo->bar"),
                ("c", "\"q,r\""),
                ("d", "{{}}")
            ]
        );
        assert!(
            attr_list(&mut cur(", a=1, a=2"))
                .unwrap_err()
                .to_string()
                .contains("duplicate")
        );
        assert!(
            attr_list(&mut cur(", a={"))
                .unwrap_err()
                .to_string()
                .contains("unterminated")
        );
        let deep = format!(", a={}{}", "{".repeat(10_000), "}".repeat(10_000));
        assert_eq!(attr_list(&mut cur(&deep)).unwrap().len(), 1);
    }
}
