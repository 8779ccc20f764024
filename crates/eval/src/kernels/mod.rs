//! Kernels of the heavier ops (dot, convolution, gather, scatter, windows, sort, rng, custom calls), each a plain
//! function over literals. They only compute values: they never look at instructions or computations (sub-computations
//! arrive as an [`Apply`] callback) and never panic on bad input.

use crate::error::Result;
use rxla_ir::Literal;

pub mod conv;
pub mod custom_call;
pub mod dot;
pub mod fft;
pub mod gather;
pub mod linalg;
pub mod numeric;
pub mod reduce_window;
pub mod rng;
pub mod scatter;
pub mod select_and_scatter;
pub mod sort;
pub mod topk;
pub mod util;

/// Sub-computation callback: evaluates a called computation on argument literals (scalars for bodies).
pub type Apply<'a> = dyn FnMut(&[Literal]) -> Result<Literal> + 'a;
