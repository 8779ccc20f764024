//! `buffer-assignment`: an analysis that gives every value of every
//! computation a place in memory, for a JIT to use. Over a memory-reducing
//! schedule ([`schedule`]) it computes liveness ([`values`]) and assigns
//! buffers in one linear scan: a value takes, in order of preference,
//! (1) its operand's buffer, when the op is elementwise (or the updated
//! operand of a dynamic-update-slice), the operand dies here, has the
//! same layout and size, and its buffer may be written (in place);
//! (2) the smallest free buffer that fits; (3) a new buffer. Buffers free
//! when their value's last reader has run. Parameters are never
//! overwritten or reused unless [`BufferOptions::donate_parameters`] is
//! set (ENTRY only), constants never, and the result's buffers stay live
//! to the end. Temporary buffers are laid out in one arena (aligned
//! offsets). The pass only reports statistics; it never edits the module.

pub mod schedule;
pub mod values;

use crate::error::{PassError, Result};
use crate::pass::{Pass, PassContext, PassOption};
use rxla_ir::layout_verifier::{layouts_equal, operand_must_match_result};
use rxla_ir::{CompId, Computation, InstrId, Module, Op};
use values::{Values, analyze};

/// Options of the assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferOptions {
    /// The caller gives up the ENTRY parameters: their buffers may be
    /// overwritten in place or reused after their last use.
    pub donate_parameters: bool,
    /// Allow in-place elementwise ops and dynamic-update-slices.
    pub in_place: bool,
    /// Alignment of temporary buffers in the arena, in bytes.
    pub alignment: usize,
}

impl Default for BufferOptions {
    fn default() -> Self {
        BufferOptions {
            donate_parameters: false,
            in_place: true,
            alignment: 64,
        }
    }
}

/// Who owns a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKind {
    /// The caller's argument for parameter N (not in the arena).
    Parameter(usize),
    /// A constant's data (read-only, not in the arena).
    Constant,
    /// A temporary in the arena, at `Buffer::offset`.
    Temp,
}

/// One buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub kind: BufferKind,
    pub size: usize,
    /// Offset in the temporary arena (temporaries only; 0 otherwise).
    pub offset: usize,
}

/// Where one array leaf of an instruction's result lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub buffer: usize,
    pub size: usize,
}

/// The assignment of one computation.
#[derive(Clone, Debug, PartialEq)]
pub struct ComputationBuffers {
    /// The order the instructions run in.
    pub schedule: Vec<InstrId>,
    pub buffers: Vec<Buffer>,
    /// `slots[instr][leaf]`: the buffer of every array leaf of every
    /// instruction result (views share their operand's slot).
    pub slots: Vec<Vec<Slot>>,
    /// Bytes of every buffer: parameters, constants and the arena.
    pub total_bytes: usize,
    /// Size of the temporary arena (aligned).
    pub temp_bytes: usize,
    /// Largest number of bytes in use at one point of the schedule
    /// (parameters and constants included).
    pub peak_bytes: usize,
    /// Values written over an operand's buffer.
    pub in_place: usize,
}

/// The assignment of every computation (indexed by `CompId`).
#[derive(Clone, Debug, PartialEq)]
pub struct BufferAssignment {
    pub computations: Vec<ComputationBuffers>,
    pub entry: CompId,
}

impl BufferAssignment {
    /// The ENTRY computation's assignment.
    pub fn entry(&self) -> &ComputationBuffers {
        &self.computations[self.entry.index()]
    }
}

/// Assigns buffers to every computation of `module`.
pub fn assign_buffers(module: &Module, opts: &BufferOptions) -> Result<BufferAssignment> {
    if module.entry.index() >= module.computations.len() {
        return Err(PassError::failed(
            "buffer-assignment",
            "the module has no ENTRY computation",
        ));
    }
    let computations = module
        .comp_ids()
        .map(|cid| {
            let donate = opts.donate_parameters && cid == module.entry;
            assign_computation(module.comp(cid), opts, donate)
        })
        .collect::<Result<_>>()?;
    Ok(BufferAssignment {
        computations,
        entry: module.entry,
    })
}

/// Whether `buffer` may be written by someone other than its creator.
fn writable(b: &Buffer, donate: bool) -> bool {
    match b.kind {
        BufferKind::Temp => true,
        BufferKind::Parameter(_) => donate,
        BufferKind::Constant => false,
    }
}

/// Assigns buffers to one computation.
pub fn assign_computation(
    c: &Computation,
    opts: &BufferOptions,
    donate: bool,
) -> Result<ComputationBuffers> {
    let schedule = schedule::memory_schedule(c);
    let Values { values, leaf_value } = analyze(c, &schedule)?;
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut value_buffer: Vec<usize> = vec![usize::MAX; values.len()];
    let mut free: Vec<usize> = Vec::new();
    // Live values holding each buffer (two only for an in-place pair at
    // the position where one dies and the other is born).
    let mut holders: Vec<usize> = Vec::new();
    let mut in_place = 0usize;
    let mut bytes_in_use = 0usize;
    let mut peak = 0usize;
    // Values by definition and by death position.
    let mut born: Vec<Vec<usize>> = vec![Vec::new(); schedule.len() + 1];
    let mut dies: Vec<Vec<usize>> = vec![Vec::new(); schedule.len() + 1];
    for (v, val) in values.iter().enumerate() {
        born[val.def].push(v);
        if !val.live_out {
            dies[val.last_use].push(v);
        }
    }
    for (p, &id) in schedule.iter().enumerate() {
        let instr = c.get(id);
        for &v in &born[p] {
            let val = &values[v];
            let kind = match &instr.op {
                Op::Parameter { number } => {
                    Some(BufferKind::Parameter(usize::try_from(*number).unwrap_or(0)))
                }
                Op::Constant { .. } => Some(BufferKind::Constant),
                _ => None,
            };
            let reuse = match kind {
                Some(_) => None,
                None if opts.in_place => in_place_source(
                    c,
                    instr,
                    val.leaf,
                    &values,
                    &leaf_value,
                    &value_buffer,
                    &buffers,
                    &holders,
                    donate,
                    p,
                ),
                None => None,
            };
            let b = if let Some(b) = reuse {
                in_place += 1;
                b
            } else {
                // Best fit among free buffers, else a new one.
                let best = free
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| kind.is_none() && buffers[**b].size >= val.size)
                    .min_by_key(|(_, b)| (buffers[**b].size, **b))
                    .map(|(k, _)| k);
                let b = match best {
                    Some(k) => free.swap_remove(k),
                    None => {
                        buffers.push(Buffer {
                            kind: kind.unwrap_or(BufferKind::Temp),
                            size: val.size,
                            offset: 0,
                        });
                        holders.push(0);
                        buffers.len() - 1
                    }
                };
                bytes_in_use += buffers[b].size;
                b
            };
            holders[b] += 1;
            value_buffer[v] = b;
        }
        peak = peak.max(bytes_in_use);
        for &v in &dies[p] {
            let b = value_buffer[v];
            if b == usize::MAX {
                continue;
            }
            holders[b] -= 1;
            if holders[b] == 0 && writable(&buffers[b], donate) {
                bytes_in_use -= buffers[b].size;
                free.push(b);
            }
        }
    }
    // Lay out the arena.
    let align = opts.alignment.max(1);
    let mut offset = 0usize;
    for b in buffers.iter_mut().filter(|b| b.kind == BufferKind::Temp) {
        b.offset = offset;
        offset = offset
            .checked_add(b.size.div_ceil(align).saturating_mul(align))
            .ok_or_else(|| PassError::failed("buffer-assignment", "arena size overflows"))?;
    }
    let temp_bytes = offset;
    let total_bytes = temp_bytes
        + buffers
            .iter()
            .filter(|b| b.kind != BufferKind::Temp)
            .map(|b| b.size)
            .sum::<usize>();
    let slots = leaf_value
        .iter()
        .map(|vs| {
            vs.iter()
                .map(|&v| Slot {
                    buffer: value_buffer[v],
                    size: values[v].size,
                })
                .collect()
        })
        .collect();
    Ok(ComputationBuffers {
        schedule,
        buffers,
        slots,
        total_bytes,
        temp_bytes,
        peak_bytes: peak,
        in_place,
    })
}

/// The buffer of an operand that `instr` may overwrite for result leaf
/// `leaf`: a layout-preserving op (elementwise, map, the updated operand
/// of dynamic-update-slice) whose operand has the same layout and size,
/// dies here, is not part of the result, is the only value holding its
/// buffer, and may be written.
#[allow(clippy::too_many_arguments)]
fn in_place_source(
    c: &Computation,
    instr: &rxla_ir::Instruction,
    leaf: usize,
    values: &[values::Value],
    leaf_value: &[Vec<usize>],
    value_buffer: &[usize],
    buffers: &[Buffer],
    holders: &[usize],
    donate: bool,
    p: usize,
) -> Option<usize> {
    if leaf != 0 || instr.shape.is_tuple() {
        return None;
    }
    for (k, o) in instr.operands.iter().enumerate() {
        if !operand_must_match_result(&instr.op, k) {
            continue;
        }
        let os = &c.get(*o).shape;
        if !layouts_equal(os, &instr.shape) || os.byte_size().ok() != instr.shape.byte_size().ok() {
            continue;
        }
        let [v] = leaf_value.get(o.index())?.as_slice() else {
            continue;
        };
        let val = &values[*v];
        let b = *value_buffer.get(*v)?;
        if b == usize::MAX || val.live_out || val.last_use != p || holders.get(b) != Some(&1) {
            continue;
        }
        if writable(&buffers[b], donate) {
            return Some(b);
        }
    }
    None
}

/// The pass: runs [`assign_buffers`] and reports the ENTRY's figures.
#[derive(Default)]
pub struct BufferAssignmentPass {
    pub options: BufferOptions,
}

const OPTIONS: &[PassOption] = &[
    PassOption {
        key: "donate",
        description: "the caller donates the ENTRY parameters (they may be overwritten)",
        default: "false",
    },
    PassOption {
        key: "in-place",
        description: "allow in-place elementwise ops and dynamic-update-slices",
        default: "true",
    },
];

fn parse_bool(pass: &str, key: &str, v: &str) -> Result<bool> {
    match v {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(PassError::option(
            pass,
            key,
            format!("expected true or false, got `{v}`"),
        )),
    }
}

impl Pass for BufferAssignmentPass {
    fn name(&self) -> &'static str {
        "buffer-assignment"
    }

    fn description(&self) -> &'static str {
        "analysis: schedule to reduce peak memory, liveness, buffer reuse and in-place updates; reports total and peak bytes; never changes the module"
    }

    fn options(&self) -> &'static [PassOption] {
        OPTIONS
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "donate" => self.options.donate_parameters = parse_bool(self.name(), key, value)?,
            "in-place" => self.options.in_place = parse_bool(self.name(), key, value)?,
            _ => return Err(PassError::option(self.name(), key, "unknown option")),
        }
        Ok(())
    }

    fn option_values(&self) -> Vec<(String, String)> {
        vec![
            ("donate".into(), self.options.donate_parameters.to_string()),
            ("in-place".into(), self.options.in_place.to_string()),
        ]
    }

    fn run(&mut self, module: &mut Module, ctx: &mut PassContext) -> Result<bool> {
        let a = assign_buffers(module, &self.options)?;
        let e = a.entry();
        ctx.stat("entry total bytes", e.total_bytes as u64);
        ctx.stat("entry peak bytes", e.peak_bytes as u64);
        ctx.stat("entry temp bytes", e.temp_bytes as u64);
        ctx.stat("entry buffers", e.buffers.len() as u64);
        ctx.stat(
            "in-place updates",
            a.computations.iter().map(|c| c.in_place as u64).sum(),
        );
        Ok(false)
    }
}

/// A one-paragraph human summary of the ENTRY assignment (for
/// `rxla opt --buffer-stats`).
pub fn summary(a: &BufferAssignment) -> String {
    let e = a.entry();
    let count = |k: fn(&BufferKind) -> bool| e.buffers.iter().filter(|b| k(&b.kind)).count();
    format!(
        "buffers: {} ({} parameter, {} constant, {} temporary); total {} bytes, temporary arena {} bytes, peak {} bytes; {} in-place updates",
        e.buffers.len(),
        count(|k| matches!(k, BufferKind::Parameter(_))),
        count(|k| matches!(k, BufferKind::Constant)),
        count(|k| matches!(k, BufferKind::Temp)),
        e.total_bytes,
        e.temp_bytes,
        e.peak_bytes,
        e.in_place
    )
}
