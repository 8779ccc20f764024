//! The op set: one [`Op`] variant per HLO opcode with its typed attributes
//! (dimension numbers, windows, comparison directions, called
//! computations). Names and classification only; shape rules live in
//! `shape_inference`, semantics in the evaluator.

pub use crate::collective::{CollectiveAttrs, GroupMode, IotaGroups, ReplicaGroups};
use crate::literal::Literal;
use std::fmt;

/// Index of a computation within its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CompId(pub u32);

/// Index of an instruction within its computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstrId(pub u32);

impl CompId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl InstrId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Elementwise unary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnaryOp {
    Not,
    Negate,
    Abs,
    Sign,
    Floor,
    Ceil,
    RoundNearestAfz,
    RoundNearestEven,
    Sqrt,
    Rsqrt,
    Cbrt,
    Exp,
    Expm1,
    Log,
    Log1p,
    Logistic,
    Tanh,
    Sin,
    Cos,
    Tan,
    IsFinite,
    Popcnt,
    Clz,
    /// The error function (JAX's `erf`, `gelu(approximate=False)`).
    Erf,
    /// The real part of a complex value (the value itself for floats).
    Real,
    /// The imaginary part of a complex value (zero for floats).
    Imag,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 26] = [
        UnaryOp::Not,
        UnaryOp::Negate,
        UnaryOp::Abs,
        UnaryOp::Sign,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::RoundNearestAfz,
        UnaryOp::RoundNearestEven,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Cbrt,
        UnaryOp::Exp,
        UnaryOp::Expm1,
        UnaryOp::Log,
        UnaryOp::Log1p,
        UnaryOp::Logistic,
        UnaryOp::Tanh,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tan,
        UnaryOp::IsFinite,
        UnaryOp::Popcnt,
        UnaryOp::Clz,
        UnaryOp::Erf,
        UnaryOp::Real,
        UnaryOp::Imag,
    ];

    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Not => "not",
            UnaryOp::Negate => "negate",
            UnaryOp::Abs => "abs",
            UnaryOp::Sign => "sign",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::RoundNearestAfz => "round-nearest-afz",
            UnaryOp::RoundNearestEven => "round-nearest-even",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Cbrt => "cbrt",
            UnaryOp::Exp => "exponential",
            UnaryOp::Expm1 => "exponential-minus-one",
            UnaryOp::Log => "log",
            UnaryOp::Log1p => "log-plus-one",
            UnaryOp::Logistic => "logistic",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Sin => "sine",
            UnaryOp::Cos => "cosine",
            UnaryOp::Tan => "tan",
            UnaryOp::IsFinite => "is-finite",
            UnaryOp::Popcnt => "popcnt",
            UnaryOp::Clz => "count-leading-zeros",
            UnaryOp::Erf => "erf",
            UnaryOp::Real => "real",
            UnaryOp::Imag => "imag",
        }
    }

    /// Ops defined only on floats.
    pub fn float_only(self) -> bool {
        matches!(
            self,
            UnaryOp::Floor
                | UnaryOp::Ceil
                | UnaryOp::RoundNearestAfz
                | UnaryOp::RoundNearestEven
                | UnaryOp::Sqrt
                | UnaryOp::Rsqrt
                | UnaryOp::Cbrt
                | UnaryOp::Exp
                | UnaryOp::Expm1
                | UnaryOp::Log
                | UnaryOp::Log1p
                | UnaryOp::Logistic
                | UnaryOp::Tanh
                | UnaryOp::Sin
                | UnaryOp::Cos
                | UnaryOp::Tan
                | UnaryOp::IsFinite
                | UnaryOp::Erf
        )
    }

    /// Ops defined on complex operands too (real/imag/abs give the
    /// component type).
    pub fn complex_ok(self) -> bool {
        matches!(
            self,
            UnaryOp::Negate
                | UnaryOp::Abs
                | UnaryOp::Sign
                | UnaryOp::Sqrt
                | UnaryOp::Rsqrt
                | UnaryOp::Exp
                | UnaryOp::Expm1
                | UnaryOp::Log
                | UnaryOp::Log1p
                | UnaryOp::Tanh
                | UnaryOp::Sin
                | UnaryOp::Cos
                | UnaryOp::Tan
                | UnaryOp::Real
                | UnaryOp::Imag
        )
    }

    /// Ops defined only on integers (popcnt, clz); `not` takes pred and ints.
    pub fn int_only(self) -> bool {
        matches!(self, UnaryOp::Popcnt | UnaryOp::Clz)
    }
}

/// Elementwise binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinaryOp {
    Add,
    Subtract,
    Multiply,
    Divide,
    Remainder,
    Maximum,
    Minimum,
    Power,
    Atan2,
    And,
    Or,
    Xor,
    ShiftLeft,
    ShiftRightArithmetic,
    ShiftRightLogical,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 15] = [
        BinaryOp::Add,
        BinaryOp::Subtract,
        BinaryOp::Multiply,
        BinaryOp::Divide,
        BinaryOp::Remainder,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Power,
        BinaryOp::Atan2,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::ShiftLeft,
        BinaryOp::ShiftRightArithmetic,
        BinaryOp::ShiftRightLogical,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Subtract => "subtract",
            BinaryOp::Multiply => "multiply",
            BinaryOp::Divide => "divide",
            BinaryOp::Remainder => "remainder",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
            BinaryOp::Power => "power",
            BinaryOp::Atan2 => "atan2",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
            BinaryOp::ShiftLeft => "shift-left",
            BinaryOp::ShiftRightArithmetic => "shift-right-arithmetic",
            BinaryOp::ShiftRightLogical => "shift-right-logical",
        }
    }

    /// Commutative ops (operands may be swapped without changing results,
    /// bit for bit).
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            BinaryOp::Add
                | BinaryOp::Multiply
                | BinaryOp::Maximum
                | BinaryOp::Minimum
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Xor
        )
    }

    /// Logical/bitwise ops: pred or integers only.
    pub fn is_bitwise(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor)
    }

    /// Shifts: integers only.
    pub fn is_shift(self) -> bool {
        matches!(
            self,
            BinaryOp::ShiftLeft | BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical
        )
    }

    /// Ops defined on complex operands (add, subtract, multiply, divide,
    /// power).
    pub fn complex_ok(self) -> bool {
        matches!(
            self,
            BinaryOp::Add
                | BinaryOp::Subtract
                | BinaryOp::Multiply
                | BinaryOp::Divide
                | BinaryOp::Power
        )
    }

    /// Arithmetic ops that reject pred.
    pub fn is_arithmetic(self) -> bool {
        !self.is_bitwise()
    }
}

/// Comparison direction of `compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ComparisonDirection {
    Eq,
    Ne,
    Ge,
    Gt,
    Le,
    Lt,
}

impl ComparisonDirection {
    pub const ALL: [ComparisonDirection; 6] = [
        ComparisonDirection::Eq,
        ComparisonDirection::Ne,
        ComparisonDirection::Ge,
        ComparisonDirection::Gt,
        ComparisonDirection::Le,
        ComparisonDirection::Lt,
    ];
    pub fn name(self) -> &'static str {
        match self {
            ComparisonDirection::Eq => "EQ",
            ComparisonDirection::Ne => "NE",
            ComparisonDirection::Ge => "GE",
            ComparisonDirection::Gt => "GT",
            ComparisonDirection::Le => "LE",
            ComparisonDirection::Lt => "LT",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|d| d.name() == s)
    }
    /// The direction with operands swapped (a < b ⇔ b > a).
    pub fn swapped(self) -> Self {
        match self {
            ComparisonDirection::Ge => ComparisonDirection::Le,
            ComparisonDirection::Gt => ComparisonDirection::Lt,
            ComparisonDirection::Le => ComparisonDirection::Ge,
            ComparisonDirection::Lt => ComparisonDirection::Gt,
            d => d,
        }
    }
}

/// The transform of `fft` (`fft_type=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FftType {
    /// Complex → complex forward transform.
    Fft,
    /// Complex → complex inverse transform, scaled by 1/n.
    Ifft,
    /// Real → complex forward transform keeping the n/2+1 non-negative
    /// frequencies of the last dimension.
    Rfft,
    /// Complex (n/2+1 frequencies) → real inverse transform, scaled by 1/n.
    Irfft,
}

impl FftType {
    pub const ALL: [FftType; 4] = [FftType::Fft, FftType::Ifft, FftType::Rfft, FftType::Irfft];
    pub fn name(self) -> &'static str {
        match self {
            FftType::Fft => "FFT",
            FftType::Ifft => "IFFT",
            FftType::Rfft => "RFFT",
            FftType::Irfft => "IRFFT",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|d| d.name() == s)
    }
}

/// Comparison type of `compare` (`type=`). `None` in [`Op::Compare`] means
/// the default for the element type (FLOAT for floats, SIGNED/UNSIGNED).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ComparisonType {
    Float,
    TotalOrder,
    Signed,
    Unsigned,
}

impl ComparisonType {
    pub fn name(self) -> &'static str {
        match self {
            ComparisonType::Float => "FLOAT",
            ComparisonType::TotalOrder => "TOTALORDER",
            ComparisonType::Signed => "SIGNED",
            ComparisonType::Unsigned => "UNSIGNED",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        [
            ComparisonType::Float,
            ComparisonType::TotalOrder,
            ComparisonType::Signed,
            ComparisonType::Unsigned,
        ]
        .into_iter()
        .find(|d| d.name() == s)
    }
}

/// One dimension of a window (convolution, reduce-window,
/// select-and-scatter). Text: `window={size=2x3 stride=2x1 pad=0_1x1_1
/// lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WindowDim {
    pub size: i64,
    pub stride: i64,
    pub pad_low: i64,
    pub pad_high: i64,
    /// Dilation of the window (`rhs_dilate`).
    pub window_dilation: i64,
    /// Dilation of the base/input (`lhs_dilate`).
    pub base_dilation: i64,
    pub window_reversal: bool,
}

impl WindowDim {
    /// A window dim of `size` with stride 1, no padding or dilation.
    pub fn new(size: i64) -> WindowDim {
        WindowDim {
            size,
            stride: 1,
            pad_low: 0,
            pad_high: 0,
            window_dilation: 1,
            base_dilation: 1,
            window_reversal: false,
        }
    }
}

/// A window: one [`WindowDim`] per (spatial) dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Window {
    pub dims: Vec<WindowDim>,
}

impl Window {
    /// The one dimension along which this reduce-window is a prefix scan,
    /// if it is one: every other dimension has a plain window of 1 (no
    /// stride, padding or dilation), and along this one the window (size
    /// at least `min_size`, no dilation or reversal) starts at or before
    /// element 0 for every output position (`(out − 1)·stride ≤ pad_low`),
    /// so output `i` reduces the elements `[0, min(i·stride + size −
    /// pad_low, n))`. JAX's `cumsum`/`cumprod`/`cummax` are such windows
    /// (size n, low padding n − 1). `base` and `out` are the operand's and
    /// the result's dims.
    pub fn prefix_dim(&self, base: &[i64], out: &[i64], min_size: i64) -> Option<usize> {
        if self.dims.len() != base.len() || out.len() != base.len() {
            return None;
        }
        let mut found = None;
        for (d, w) in self.dims.iter().enumerate() {
            let plain = w.window_dilation == 1 && w.base_dilation == 1 && !w.window_reversal;
            if w.size == 1 && w.stride == 1 && w.pad_low == 0 && w.pad_high == 0 && plain {
                continue;
            }
            if found.is_some() || !plain || w.size < min_size.max(2) || w.stride < 1 {
                return None;
            }
            let last_start = (out[d] - 1).checked_mul(w.stride)?.checked_sub(w.pad_low)?;
            if out[d] > 0 && last_start > 0 {
                return None;
            }
            found = Some(d);
        }
        found
    }
}

/// Dot dimension numbers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDims {
    pub lhs_batch: Vec<i64>,
    pub lhs_contracting: Vec<i64>,
    pub rhs_batch: Vec<i64>,
    pub rhs_contracting: Vec<i64>,
}

/// Convolution dimension numbers (text `dim_labels=b01f_01io->b01f`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConvDims {
    pub input_batch: i64,
    pub input_feature: i64,
    pub input_spatial: Vec<i64>,
    pub kernel_input_feature: i64,
    pub kernel_output_feature: i64,
    pub kernel_spatial: Vec<i64>,
    pub output_batch: i64,
    pub output_feature: i64,
    pub output_spatial: Vec<i64>,
}

impl ConvDims {
    /// The spec's layout: lhs `[batch, z, spatial...]`, rhs `[out-z, in-z,
    /// spatial...]`, out `[batch, out-z, spatial...]` (`bf01_oi01->bf01`).
    pub fn nchw(spatial: usize) -> ConvDims {
        let sp: Vec<i64> = (2..2 + spatial as i64).collect();
        ConvDims {
            input_batch: 0,
            input_feature: 1,
            input_spatial: sp.clone(),
            kernel_output_feature: 0,
            kernel_input_feature: 1,
            kernel_spatial: sp.clone(),
            output_batch: 0,
            output_feature: 1,
            output_spatial: sp,
        }
    }

    /// The channels-last layout: lhs `[batch, spatial..., z]`, rhs
    /// `[spatial..., in-z, out-z]`, out `[batch, spatial..., out-z]`
    /// (`b01f_01io->b01f` for two spatial dimensions).
    pub fn nhwc(spatial: usize) -> ConvDims {
        let n = spatial as i64;
        ConvDims {
            input_batch: 0,
            input_feature: n + 1,
            input_spatial: (1..=n).collect(),
            kernel_input_feature: n,
            kernel_output_feature: n + 1,
            kernel_spatial: (0..n).collect(),
            output_batch: 0,
            output_feature: n + 1,
            output_spatial: (1..=n).collect(),
        }
    }
}

/// Gather dimension numbers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GatherDims {
    pub offset_dims: Vec<i64>,
    pub collapsed_slice_dims: Vec<i64>,
    pub start_index_map: Vec<i64>,
    pub index_vector_dim: i64,
    pub operand_batching_dims: Vec<i64>,
    pub start_indices_batching_dims: Vec<i64>,
}

/// Scatter dimension numbers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScatterDims {
    pub update_window_dims: Vec<i64>,
    pub inserted_window_dims: Vec<i64>,
    pub scatter_dims_to_operand_dims: Vec<i64>,
    pub index_vector_dim: i64,
    pub input_batching_dims: Vec<i64>,
    pub scatter_indices_batching_dims: Vec<i64>,
}

/// Padding of one dimension for `pad` (text `low_high_interior`, joined
/// by `x`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PadDim {
    pub low: i64,
    pub high: i64,
    pub interior: i64,
}

/// Distribution of `rng`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RngDistribution {
    Uniform,
    Normal,
}

impl RngDistribution {
    pub fn name(self) -> &'static str {
        match self {
            RngDistribution::Uniform => "rng_uniform",
            RngDistribution::Normal => "rng_normal",
        }
    }
}

/// Algorithm of `rng-bit-generator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RngAlgorithm {
    Default,
    ThreeFry,
    Philox,
}

impl RngAlgorithm {
    pub fn name(self) -> &'static str {
        match self {
            RngAlgorithm::Default => "rng_default",
            RngAlgorithm::ThreeFry => "rng_three_fry",
            RngAlgorithm::Philox => "rng_philox",
        }
    }
}

/// Kind of a `fusion` instruction (`kind=kLoop`, ...). Kept as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FusionKind(pub String);

/// An operation with its typed attributes. Operands are kept on the
/// [`crate::Instruction`]; the comment on each variant lists them.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `parameter(N)`; no operands.
    Parameter { number: i64 },
    /// `constant(...)`; no operands.
    Constant { literal: Literal },
    /// `iota(), iota_dimension=D`; no operands.
    Iota { dimension: i64 },
    /// `broadcast(x), dimensions={...}`: operand dim i maps to output dim
    /// `dimensions[i]`.
    Broadcast { dimensions: Vec<i64> },
    /// `reshape(x)`: the target shape is the instruction's shape.
    Reshape,
    /// `transpose(x), dimensions={perm}`.
    Transpose { permutation: Vec<i64> },
    /// `bitcast(x)`: reinterprets the physical buffer as the
    /// instruction's shape (same byte size).
    Bitcast,
    /// `copy(x)`: same values; may change layout.
    Copy,
    /// `convert(x)`: element type conversion.
    Convert,
    /// `bitcast-convert(x)`: reinterpret bits as another type.
    BitcastConvert,
    /// `slice(x), slice={[start:limit:stride], ...}`.
    Slice {
        starts: Vec<i64>,
        limits: Vec<i64>,
        strides: Vec<i64>,
    },
    /// `dynamic-slice(x, i0, i1, ...), dynamic_slice_sizes={...}`.
    DynamicSlice { sizes: Vec<i64> },
    /// `dynamic-update-slice(x, update, i0, i1, ...)`.
    DynamicUpdateSlice,
    /// `concatenate(a, b, ...), dimensions={d}`.
    Concatenate { dimension: i64 },
    /// `pad(x, value), padding=0_1_0x1_1_2`.
    Pad { config: Vec<PadDim> },
    /// `reverse(x), dimensions={...}`.
    Reverse { dimensions: Vec<i64> },
    /// `dot(lhs, rhs), lhs_batch_dims=..., lhs_contracting_dims=...`.
    Dot { dims: DotDims },
    /// `convolution(lhs, rhs), window=..., dim_labels=...`.
    Convolution {
        window: Window,
        dims: ConvDims,
        feature_group_count: i64,
        batch_group_count: i64,
    },
    /// `reduce(x..., init...), dimensions={...}, to_apply=f`.
    Reduce {
        dimensions: Vec<i64>,
        to_apply: CompId,
    },
    /// `reduce-window(x..., init...), window=..., to_apply=f`.
    ReduceWindow { window: Window, to_apply: CompId },
    /// `select-and-scatter(operand, source, init), window=..., select=s,
    /// scatter=t`.
    SelectAndScatter {
        window: Window,
        select: CompId,
        scatter: CompId,
    },
    /// `select(pred, on_true, on_false)`.
    Select,
    /// `clamp(min, x, max)`.
    Clamp,
    /// `compare(a, b), direction=LT[, type=TOTALORDER]`.
    Compare {
        direction: ComparisonDirection,
        kind: Option<ComparisonType>,
    },
    /// `map(x...), dimensions={...}, to_apply=f`.
    Map {
        dimensions: Vec<i64>,
        to_apply: CompId,
    },
    /// `sort(x...), dimensions={d}, is_stable=true, to_apply=cmp`.
    Sort {
        dimension: i64,
        is_stable: bool,
        comparator: CompId,
    },
    /// `gather(operand, indices), offset_dims=..., slice_sizes=...`.
    Gather {
        dims: GatherDims,
        slice_sizes: Vec<i64>,
        indices_are_sorted: bool,
    },
    /// `scatter(operand..., indices, updates...), update_window_dims=...,
    /// to_apply=f`.
    Scatter {
        dims: ScatterDims,
        to_apply: CompId,
        indices_are_sorted: bool,
        unique_indices: bool,
    },
    /// `call(args...), to_apply=f`.
    Call { to_apply: CompId },
    /// `fusion(args...), kind=kLoop, calls=f`.
    Fusion { kind: FusionKind, calls: CompId },
    /// `while(init), condition=c, body=b`.
    While { condition: CompId, body: CompId },
    /// `conditional(pred_or_index, args...), true_computation=...,
    /// false_computation=...` or `branch_computations={...}`. With a pred
    /// selector `branches = [true, false]`.
    Conditional { branches: Vec<CompId> },
    /// `tuple(x...)`.
    Tuple,
    /// `get-tuple-element(t), index=i`.
    GetTupleElement { index: i64 },
    /// `custom-call(args...), custom_call_target="name"`.
    CustomCall {
        target: String,
        has_side_effect: bool,
        called: Vec<CompId>,
    },
    /// `infeed(token), infeed_config="..."`: result `(data, token)`.
    Infeed { config: String },
    /// `outfeed(data, token), outfeed_config="..."`: result token.
    Outfeed { config: String },
    /// `all-reduce(x...), replica_groups={...}, to_apply=f` (also
    /// `channel_id=`, `use_global_device_ids=`).
    AllReduce {
        to_apply: CompId,
        attrs: CollectiveAttrs,
    },
    /// `all-reduce-start(x...)`: an all-reduce run synchronously; the
    /// result (same shape as all-reduce's) is taken by `all-reduce-done`.
    AllReduceStart {
        to_apply: CompId,
        attrs: CollectiveAttrs,
    },
    /// `all-reduce-done(start)`: the start's value.
    AllReduceDone,
    /// `all-gather(x...), dimensions={d}`: the group's operands
    /// concatenated along `d` in group order (dim d × group size).
    AllGather {
        dimension: i64,
        attrs: CollectiveAttrs,
    },
    /// `all-gather-start(x...)`: `(operand, result)` (tuples of each for
    /// several operands), as XLA prints it.
    AllGatherStart {
        dimension: i64,
        attrs: CollectiveAttrs,
    },
    /// `all-gather-done(start)`: element 1 of the start's tuple.
    AllGatherDone,
    /// `reduce-scatter(x...), dimensions={d}, to_apply=f`: the all-reduce
    /// of the group, of which member k keeps the k-th block along `d`.
    ReduceScatter {
        dimension: i64,
        to_apply: CompId,
        attrs: CollectiveAttrs,
    },
    /// `all-to-all(x), dimensions={d}` (array form: x split in group-size
    /// blocks along d, block k to member k, received blocks concatenated
    /// along d) or `all-to-all(x0, ..., xn-1)` (tuple form: operand k to
    /// member k).
    AllToAll {
        dimension: Option<i64>,
        attrs: CollectiveAttrs,
    },
    /// `collective-permute(x), source_target_pairs={{s,t},...}`: the
    /// value sent by the source whose target is this device, zeros when
    /// none is.
    CollectivePermute {
        pairs: Vec<(i64, i64)>,
        channel_id: Option<i64>,
    },
    /// `collective-permute(input, output, input_start_indices,
    /// output_start_indices), source_target_pairs=..., slice_sizes={{...}}`:
    /// XLA's in-place form. For pair k (s, t), device t's result is its
    /// `output` with the `slice_sizes[k]` block of device s's `input` at
    /// s's `input_start_indices[k]` written at t's
    /// `output_start_indices[k]` (indices clamped as dynamic-slice does);
    /// a device no pair targets returns `output` unchanged. The index
    /// operands are a tuple of scalars (one set, one `slice_sizes` entry,
    /// for every pair) or a tuple of such tuples (one per pair).
    CollectivePermuteInPlace {
        pairs: Vec<(i64, i64)>,
        channel_id: Option<i64>,
        slice_sizes: Vec<Vec<i64>>,
    },
    /// `collective-permute-start(x)`: `(operand, result, u32[]...)`.
    CollectivePermuteStart {
        pairs: Vec<(i64, i64)>,
        channel_id: Option<i64>,
    },
    /// `collective-permute-done(start)`: element 1 of the start's tuple.
    CollectivePermuteDone,
    /// `async-start(x...), calls=f`: XLA's generic async wrapper of the
    /// instruction `f` holds, run synchronously: `((x...), f(x...),
    /// context...)` (the declared tuple may carry any context shapes after
    /// the result; rxla fills them with zeros). `async_execution_thread=`
    /// and `async_group_id=` are kept verbatim.
    AsyncStart { calls: CompId },
    /// `async-update(start), calls=f`: the start's tuple, unchanged.
    AsyncUpdate { calls: CompId },
    /// `async-done(start), calls=f`: element 1 of the start's tuple (`f`'s
    /// result). The operand must be an `async-start` or `async-update` of
    /// the same `f` (the verifier checks).
    AsyncDone { calls: CompId },
    /// `collective-broadcast(x...), replica_groups=...`: the first group
    /// member's value, on every member.
    CollectiveBroadcast { attrs: CollectiveAttrs },
    /// `replica-id()`: this device's replica id, `u32[]`.
    ReplicaId,
    /// `partition-id()`: this device's partition id, `u32[]`.
    PartitionId,
    /// `rng(a, b), distribution=rng_uniform`.
    Rng { distribution: RngDistribution },
    /// `rng-bit-generator(state), algorithm=rng_default`: result
    /// `(new_state, bits)`.
    RngBitGenerator { algorithm: RngAlgorithm },
    /// `after-all(tokens...)`.
    AfterAll,
    /// `opt-barrier(x)`.
    OptimizationBarrier,
    /// `cholesky(a), lower=true`: the Cholesky factor of each matrix in
    /// the trailing two dims (batched over the leading ones).
    Cholesky { lower: bool },
    /// `triangular-solve(a, b), left_side=.., lower=.., unit_diagonal=..,
    /// transpose_a=..`: batched triangular solve; the result has b's shape.
    TriangularSolve(crate::linalg::TriangularSolveOptions),
    /// `reduce-precision(x), exponent_bits=E, mantissa_bits=M`: rounds a
    /// float to the nearest value of a narrower float format (same type).
    ReducePrecision {
        exponent_bits: i64,
        mantissa_bits: i64,
    },
    /// `topk(x), k=K, largest=true`: the K largest (or smallest) elements
    /// along the last dimension and their s32 indices, as a tuple.
    TopK { k: i64, largest: bool },
    /// `complex(re, im)`: a c64 (c128) from two f32 (f64) arrays of
    /// equal dims.
    Complex,
    /// `fft(x), fft_type=FFT, fft_length={...}`: a discrete Fourier
    /// transform over the `fft_length.len()` (1 to 3) trailing dims.
    Fft {
        fft_type: FftType,
        fft_length: Vec<i64>,
    },
    /// `get-dimension-size(x), dimensions={d}`: the runtime size of
    /// dimension d as an `s32[]` (the static size for a static dim).
    GetDimensionSize { dimension: i64 },
    /// `set-dimension-size(x, s32[] n), dimensions={d}`: x with dimension
    /// d dynamic and its runtime size set to n (data unchanged).
    SetDimensionSize { dimension: i64 },
    /// Elementwise unary op.
    Unary(UnaryOp),
    /// Elementwise binary op.
    Binary(BinaryOp),
}

impl Op {
    /// The HLO opcode name.
    pub fn opcode(&self) -> &'static str {
        match self {
            Op::Parameter { .. } => "parameter",
            Op::Constant { .. } => "constant",
            Op::Iota { .. } => "iota",
            Op::Broadcast { .. } => "broadcast",
            Op::Reshape => "reshape",
            Op::Transpose { .. } => "transpose",
            Op::Bitcast => "bitcast",
            Op::Copy => "copy",
            Op::Convert => "convert",
            Op::BitcastConvert => "bitcast-convert",
            Op::Slice { .. } => "slice",
            Op::DynamicSlice { .. } => "dynamic-slice",
            Op::DynamicUpdateSlice => "dynamic-update-slice",
            Op::Concatenate { .. } => "concatenate",
            Op::Pad { .. } => "pad",
            Op::Reverse { .. } => "reverse",
            Op::Dot { .. } => "dot",
            Op::Convolution { .. } => "convolution",
            Op::Reduce { .. } => "reduce",
            Op::ReduceWindow { .. } => "reduce-window",
            Op::SelectAndScatter { .. } => "select-and-scatter",
            Op::Select => "select",
            Op::Clamp => "clamp",
            Op::Compare { .. } => "compare",
            Op::Map { .. } => "map",
            Op::Sort { .. } => "sort",
            Op::Gather { .. } => "gather",
            Op::Scatter { .. } => "scatter",
            Op::Call { .. } => "call",
            Op::Fusion { .. } => "fusion",
            Op::While { .. } => "while",
            Op::Conditional { .. } => "conditional",
            Op::Tuple => "tuple",
            Op::GetTupleElement { .. } => "get-tuple-element",
            Op::CustomCall { .. } => "custom-call",
            Op::Infeed { .. } => "infeed",
            Op::Outfeed { .. } => "outfeed",
            Op::AllReduce { .. } => "all-reduce",
            Op::AllReduceStart { .. } => "all-reduce-start",
            Op::AllReduceDone => "all-reduce-done",
            Op::AllGather { .. } => "all-gather",
            Op::AllGatherStart { .. } => "all-gather-start",
            Op::AllGatherDone => "all-gather-done",
            Op::ReduceScatter { .. } => "reduce-scatter",
            Op::AllToAll { .. } => "all-to-all",
            Op::CollectivePermute { .. } | Op::CollectivePermuteInPlace { .. } => {
                "collective-permute"
            }
            Op::CollectivePermuteStart { .. } => "collective-permute-start",
            Op::CollectivePermuteDone => "collective-permute-done",
            Op::AsyncStart { .. } => "async-start",
            Op::AsyncUpdate { .. } => "async-update",
            Op::AsyncDone { .. } => "async-done",
            Op::CollectiveBroadcast { .. } => "collective-broadcast",
            Op::ReplicaId => "replica-id",
            Op::PartitionId => "partition-id",
            Op::Rng { .. } => "rng",
            Op::RngBitGenerator { .. } => "rng-bit-generator",
            Op::AfterAll => "after-all",
            Op::OptimizationBarrier => "opt-barrier",
            Op::Cholesky { .. } => "cholesky",
            Op::TriangularSolve(_) => "triangular-solve",
            Op::ReducePrecision { .. } => "reduce-precision",
            Op::TopK { .. } => "topk",
            Op::Complex => "complex",
            Op::Fft { .. } => "fft",
            Op::GetDimensionSize { .. } => "get-dimension-size",
            Op::SetDimensionSize { .. } => "set-dimension-size",
            Op::Unary(u) => u.name(),
            Op::Binary(b) => b.name(),
        }
    }

    /// Every opcode name the IR knows (for the fuzzer's coverage and the
    /// parser's "unknown opcode" message).
    pub fn all_opcode_names() -> Vec<&'static str> {
        let mut v = vec![
            "parameter",
            "constant",
            "iota",
            "broadcast",
            "reshape",
            "transpose",
            "bitcast",
            "copy",
            "convert",
            "bitcast-convert",
            "slice",
            "dynamic-slice",
            "dynamic-update-slice",
            "concatenate",
            "pad",
            "reverse",
            "dot",
            "convolution",
            "reduce",
            "reduce-window",
            "select-and-scatter",
            "select",
            "clamp",
            "compare",
            "map",
            "sort",
            "gather",
            "scatter",
            "call",
            "fusion",
            "while",
            "conditional",
            "tuple",
            "get-tuple-element",
            "custom-call",
            "infeed",
            "outfeed",
            "all-reduce",
            "all-reduce-start",
            "all-reduce-done",
            "all-gather",
            "all-gather-start",
            "all-gather-done",
            "reduce-scatter",
            "all-to-all",
            "collective-permute",
            "collective-permute-start",
            "collective-permute-done",
            "async-start",
            "async-update",
            "async-done",
            "collective-broadcast",
            "replica-id",
            "partition-id",
            "rng",
            "rng-bit-generator",
            "after-all",
            "opt-barrier",
            "cholesky",
            "triangular-solve",
            "reduce-precision",
            "topk",
            "complex",
            "fft",
            "get-dimension-size",
            "set-dimension-size",
        ];
        v.extend(UnaryOp::ALL.iter().map(|u| u.name()));
        v.extend(BinaryOp::ALL.iter().map(|b| b.name()));
        v
    }

    /// Computations this op calls, in a fixed order.
    pub fn called_computations(&self) -> Vec<CompId> {
        match self {
            Op::Reduce { to_apply, .. }
            | Op::ReduceWindow { to_apply, .. }
            | Op::Map { to_apply, .. }
            | Op::Scatter { to_apply, .. }
            | Op::Call { to_apply }
            | Op::AllReduce { to_apply, .. }
            | Op::AllReduceStart { to_apply, .. }
            | Op::ReduceScatter { to_apply, .. } => vec![*to_apply],
            Op::SelectAndScatter {
                select, scatter, ..
            } => vec![*select, *scatter],
            Op::Sort { comparator, .. } => vec![*comparator],
            Op::Fusion { calls, .. }
            | Op::AsyncStart { calls }
            | Op::AsyncUpdate { calls }
            | Op::AsyncDone { calls } => vec![*calls],
            Op::While { condition, body } => vec![*condition, *body],
            Op::Conditional { branches } => branches.clone(),
            Op::CustomCall { called, .. } => called.clone(),
            _ => Vec::new(),
        }
    }

    /// Mutable access to called computation ids (for remapping when
    /// computations are removed or reordered).
    pub fn called_computations_mut(&mut self) -> Vec<&mut CompId> {
        match self {
            Op::Reduce { to_apply, .. }
            | Op::ReduceWindow { to_apply, .. }
            | Op::Map { to_apply, .. }
            | Op::Scatter { to_apply, .. }
            | Op::Call { to_apply }
            | Op::AllReduce { to_apply, .. }
            | Op::AllReduceStart { to_apply, .. }
            | Op::ReduceScatter { to_apply, .. } => vec![to_apply],
            Op::SelectAndScatter {
                select, scatter, ..
            } => vec![select, scatter],
            Op::Sort { comparator, .. } => vec![comparator],
            Op::Fusion { calls, .. }
            | Op::AsyncStart { calls }
            | Op::AsyncUpdate { calls }
            | Op::AsyncDone { calls } => vec![calls],
            Op::While { condition, body } => vec![condition, body],
            Op::Conditional { branches } => branches.iter_mut().collect(),
            Op::CustomCall { called, .. } => called.iter_mut().collect(),
            _ => Vec::new(),
        }
    }

    /// Ops with effects or nondeterminism: never removed when unused (except
    /// rng), merged by CSE, folded, or duplicated. Every collective that
    /// exchanges data across devices counts (a rendezvous is an effect).
    pub fn has_side_effect(&self) -> bool {
        match self {
            Op::Infeed { .. } | Op::Outfeed { .. } => true,
            op if op.is_collective() => !matches!(op, Op::ReplicaId | Op::PartitionId),
            Op::CustomCall {
                has_side_effect, ..
            } => *has_side_effect,
            _ => false,
        }
    }

    /// Nondeterministic ops (two instances give different values), and
    /// ops whose value depends on the device (`replica-id`,
    /// `partition-id`, every collective): never folded or merged.
    pub fn is_nondeterministic(&self) -> bool {
        matches!(self, Op::Rng { .. } | Op::RngBitGenerator { .. })
            || self.has_side_effect()
            || self.is_collective()
    }

    /// Transcendental element-wise functions (and those computed from
    /// one): their results are correctly rounded nowhere, so backends may
    /// differ in the last bits (the fuzz oracles' tolerance policy).
    pub fn is_transcendental(&self) -> bool {
        use UnaryOp as U;
        matches!(
            self,
            Op::Unary(
                U::Exp
                    | U::Expm1
                    | U::Log
                    | U::Log1p
                    | U::Logistic
                    | U::Tanh
                    | U::Sin
                    | U::Cos
                    | U::Tan
                    | U::Cbrt
                    | U::Erf
                    | U::Rsqrt
            ) | Op::Binary(BinaryOp::Atan2 | BinaryOp::Power)
        )
    }

    /// Ops that accumulate floating-point values in an order a backend may
    /// change (or with fused multiply-adds).
    pub fn accumulates(&self) -> bool {
        matches!(
            self,
            Op::Reduce { .. }
                | Op::ReduceWindow { .. }
                | Op::SelectAndScatter { .. }
                | Op::Dot { .. }
                | Op::Convolution { .. }
                | Op::Fft { .. }
        )
    }

    /// Exact ops that are discontinuous (or periodic) in an operand: a
    /// last-bit change of an operand can change the result by a whole unit
    /// or arbitrarily (`floor`, `remainder`, `sign`), or reorder it (sort,
    /// top-k near ties), or flip a pivot between a value and NaN
    /// (cholesky, triangular-solve).
    pub fn is_discontinuous(&self) -> bool {
        use UnaryOp as U;
        matches!(
            self,
            Op::Sort { .. }
                | Op::TopK { .. }
                | Op::Cholesky { .. }
                | Op::TriangularSolve(_)
                | Op::Binary(BinaryOp::Remainder)
                | Op::Unary(
                    U::Floor | U::Ceil | U::RoundNearestAfz | U::RoundNearestEven | U::Sign
                )
        )
    }

    /// Functions that amplify an operand's error without bound for large
    /// arguments (sine, cosine, tan, power).
    pub fn is_ill_conditioned(&self) -> bool {
        matches!(
            self,
            Op::Unary(UnaryOp::Sin | UnaryOp::Cos | UnaryOp::Tan) | Op::Binary(BinaryOp::Power)
        )
    }

    /// Ops after which an error bound relative to the largest value of an
    /// operand (a normwise bound, like an fft's) still holds: data
    /// movement, `fft` itself and well-conditioned arithmetic (add,
    /// subtract, multiply, negate, abs, maximum, minimum, select, clamp,
    /// convert, real, imag, complex). Any other op (rsqrt, divide, log,
    /// compare, ...) of a value that cancels to about 0 is as
    /// ill-conditioned as it gets (the fuzz oracles' tolerance policy;
    /// a multiply keeps the bound only by one scale, which is the
    /// policy's to check).
    pub fn keeps_normwise_error(&self) -> bool {
        use BinaryOp as B;
        use UnaryOp as U;
        matches!(
            self,
            Op::Fft { .. }
                | Op::Unary(U::Real | U::Imag | U::Abs | U::Negate)
                | Op::Binary(B::Add | B::Subtract | B::Multiply | B::Maximum | B::Minimum)
                | Op::Select
                | Op::Clamp
                | Op::Convert
                | Op::Copy
                | Op::Bitcast
                | Op::Reshape
                | Op::Transpose { .. }
                | Op::Broadcast { .. }
                | Op::Slice { .. }
                | Op::DynamicSlice { .. }
                | Op::Concatenate { .. }
                | Op::Pad { .. }
                | Op::Reverse { .. }
                | Op::Tuple
                | Op::GetTupleElement { .. }
                | Op::Complex
        )
    }

    /// Ops that apply their computation to its own earlier result: a loop
    /// body, a reducer (the accumulator), a scatter or select-and-scatter
    /// combiner, an all-reduce's reducer.
    pub fn feeds_itself(&self) -> bool {
        matches!(
            self,
            Op::While { .. }
                | Op::Reduce { .. }
                | Op::ReduceWindow { .. }
                | Op::Scatter { .. }
                | Op::SelectAndScatter { .. }
                | Op::AllReduce { .. }
        )
    }

    /// Cross-device ops (collectives, their async halves, `replica-id`,
    /// `partition-id`).
    pub fn is_collective(&self) -> bool {
        matches!(
            self,
            Op::AllReduce { .. }
                | Op::AllReduceStart { .. }
                | Op::AllReduceDone
                | Op::AllGather { .. }
                | Op::AllGatherStart { .. }
                | Op::AllGatherDone
                | Op::ReduceScatter { .. }
                | Op::AllToAll { .. }
                | Op::CollectivePermute { .. }
                | Op::CollectivePermuteInPlace { .. }
                | Op::CollectivePermuteStart { .. }
                | Op::CollectivePermuteDone
                | Op::CollectiveBroadcast { .. }
                | Op::ReplicaId
                | Op::PartitionId
        )
    }

    /// The group attributes of a grouped collective.
    pub fn collective_attrs(&self) -> Option<&CollectiveAttrs> {
        match self {
            Op::AllReduce { attrs, .. }
            | Op::AllReduceStart { attrs, .. }
            | Op::AllGather { attrs, .. }
            | Op::AllGatherStart { attrs, .. }
            | Op::ReduceScatter { attrs, .. }
            | Op::AllToAll { attrs, .. }
            | Op::CollectiveBroadcast { attrs } => Some(attrs),
            _ => None,
        }
    }

    /// Whether the op has XLA's `use_global_device_ids` attribute (which
    /// changes its group mode, see [`GroupMode::of`]).
    pub fn has_global_device_ids_attr(&self) -> bool {
        matches!(
            self,
            Op::AllReduce { .. }
                | Op::AllReduceStart { .. }
                | Op::AllGather { .. }
                | Op::AllGatherStart { .. }
                | Op::ReduceScatter { .. }
        )
    }

    /// Elementwise ops (unary, binary, compare, select, clamp, convert).
    pub fn is_elementwise(&self) -> bool {
        matches!(
            self,
            Op::Unary(_)
                | Op::Binary(_)
                | Op::Complex
                | Op::Compare { .. }
                | Op::Select
                | Op::Clamp
                | Op::Convert
                | Op::ReducePrecision { .. }
        )
    }
}

impl fmt::Display for CompId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "comp#{}", self.0)
    }
}

impl fmt::Display for InstrId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nhwc_conv_dims_put_features_last() {
        let d = ConvDims::nhwc(2);
        assert_eq!((d.input_batch, d.input_feature), (0, 3));
        assert_eq!(d.input_spatial, [1, 2]);
        assert_eq!((d.kernel_input_feature, d.kernel_output_feature), (2, 3));
        assert_eq!(d.kernel_spatial, [0, 1]);
        assert_eq!((d.output_batch, d.output_feature), (0, 3));
        assert_eq!(d.output_spatial, [1, 2]);
        let d1 = ConvDims::nhwc(1);
        assert_eq!((d1.input_feature, d1.kernel_input_feature), (2, 1));
        assert_eq!(d1.kernel_spatial, [0]);
    }

    #[test]
    fn numeric_properties() {
        let exp = Op::Unary(UnaryOp::Exp);
        let pow = Op::Binary(BinaryOp::Power);
        let add = Op::Binary(BinaryOp::Add);
        let floor = Op::Unary(UnaryOp::Floor);
        assert!(exp.is_transcendental() && !exp.is_ill_conditioned());
        assert!(pow.is_transcendental() && pow.is_ill_conditioned());
        assert!(!add.is_transcendental() && !add.accumulates() && !add.is_discontinuous());
        assert!(floor.is_discontinuous() && !floor.is_transcendental());
        assert!(Op::Binary(BinaryOp::Remainder).is_discontinuous());
        assert!(
            Op::Dot {
                dims: DotDims::default()
            }
            .accumulates()
        );
        assert!(Op::Cholesky { lower: true }.is_discontinuous());
        assert!(!Op::Unary(UnaryOp::Sqrt).is_transcendental());
    }

    #[test]
    fn cumulative_windows_are_prefixes() {
        let win = |dims: Vec<WindowDim>| Window { dims };
        let mut w = WindowDim::new(1000);
        w.pad_low = 999;
        let one = WindowDim::new(1);
        assert_eq!(
            win(vec![w.clone()]).prefix_dim(&[1000], &[1000], 8),
            Some(0)
        );
        assert_eq!(
            win(vec![one.clone(), w.clone()]).prefix_dim(&[3, 1000], &[3, 1000], 8),
            Some(1)
        );
        // A sliding window without the full low padding is not a prefix.
        let mut s = WindowDim::new(100);
        s.pad_low = 10;
        assert_eq!(win(vec![s]).prefix_dim(&[1000], &[911], 8), None);
        // Strided, every window still starting at or before 0: (6 - 1)·3 ≤ 15.
        let mut st = WindowDim::new(16);
        st.stride = 3;
        st.pad_low = 15;
        assert_eq!(win(vec![st.clone()]).prefix_dim(&[16], &[6], 8), Some(0));
        assert_eq!(win(vec![st]).prefix_dim(&[16], &[7], 8), None);
        // Two moving dims, dilation, windows below the minimum: not taken.
        assert_eq!(
            win(vec![w.clone(), w.clone()]).prefix_dim(&[1000, 1000], &[1000, 1000], 8),
            None
        );
        let mut dil = w.clone();
        dil.window_dilation = 2;
        assert_eq!(win(vec![dil]).prefix_dim(&[1000], &[1000], 8), None);
        let mut small = WindowDim::new(3);
        small.pad_low = 2;
        assert_eq!(win(vec![small.clone()]).prefix_dim(&[3], &[3], 8), None);
        assert_eq!(win(vec![small]).prefix_dim(&[3], &[3], 2), Some(0));
    }
}
