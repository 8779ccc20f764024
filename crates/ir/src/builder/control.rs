//! Builder calls for structure, control flow and effects: call, fusion,
//! while, conditional, custom-call, infeed/outfeed, after-all, rng (spec
//! RngUniform / RngNormal / RngBernoulli), rng-bit-generator and the
//! optimization barrier. Never inspects or rewrites called computations.

use super::{ComputationBuilder, Value};
use crate::element_type::ElementType;
use crate::error::{IrError, Result};
use crate::ops::{CompId, FftType, FusionKind, Op, RngAlgorithm, RngDistribution};
use crate::shape::Shape;

impl ComputationBuilder<'_> {
    /// `call(args...), to_apply=f`.
    pub fn call(&mut self, f: CompId, args: &[Value]) -> Result<Value> {
        self.push("call", Op::Call { to_apply: f }, args, None)
    }

    /// `async-start(args...), calls=f`: `((args...), f's result)`; take
    /// the result with [`ComputationBuilder::async_done`].
    pub fn async_start(&mut self, f: CompId, args: &[Value]) -> Result<Value> {
        self.push("async-start", Op::AsyncStart { calls: f }, args, None)
    }

    /// `async-update(start), calls=f`: the start's tuple.
    pub fn async_update(&mut self, f: CompId, start: Value) -> Result<Value> {
        self.push("async-update", Op::AsyncUpdate { calls: f }, &[start], None)
    }

    /// `async-done(start), calls=f`: `f`'s result.
    pub fn async_done(&mut self, f: CompId, start: Value) -> Result<Value> {
        self.push("async-done", Op::AsyncDone { calls: f }, &[start], None)
    }

    /// `fusion(args...), kind=kind, calls=f`.
    pub fn fusion(&mut self, kind: &str, f: CompId, args: &[Value]) -> Result<Value> {
        self.push(
            "fusion",
            Op::Fusion {
                kind: FusionKind(kind.to_string()),
                calls: f,
            },
            args,
            None,
        )
    }

    /// `while(init), condition=cond, body=body`.
    pub fn while_loop(&mut self, cond: CompId, body: CompId, init: Value) -> Result<Value> {
        self.push(
            "while",
            Op::While {
                condition: cond,
                body,
            },
            &[init],
            None,
        )
    }

    /// `conditional(pred, true_arg, false_arg)` with a pred selector.
    pub fn conditional(
        &mut self,
        pred: Value,
        true_arg: Value,
        true_comp: CompId,
        false_arg: Value,
        false_comp: CompId,
    ) -> Result<Value> {
        self.push(
            "conditional",
            Op::Conditional {
                branches: vec![true_comp, false_comp],
            },
            &[pred, true_arg, false_arg],
            None,
        )
    }

    /// `conditional(index, args...)` with an s32 branch index.
    pub fn conditional_indexed(
        &mut self,
        index: Value,
        branches: &[CompId],
        args: &[Value],
    ) -> Result<Value> {
        let mut ops = vec![index];
        ops.extend(args);
        self.push(
            "conditional",
            Op::Conditional {
                branches: branches.to_vec(),
            },
            &ops,
            None,
        )
    }

    /// `custom-call(args...), custom_call_target=target` returning `shape`.
    pub fn custom_call(&mut self, target: &str, args: &[Value], shape: Shape) -> Result<Value> {
        self.push(
            "custom-call",
            Op::CustomCall {
                target: target.to_string(),
                has_side_effect: false,
                called: Vec::new(),
            },
            args,
            Some(shape),
        )
    }

    /// `after-all(tokens...)`: a fresh token (no operands) or a join.
    pub fn after_all(&mut self, tokens: &[Value]) -> Result<Value> {
        self.push("after-all", Op::AfterAll, tokens, None)
    }

    /// `infeed(token)` reading `shape`: the `(data, token)` tuple.
    pub fn infeed_with_token(&mut self, token: Value, shape: Shape, config: &str) -> Result<Value> {
        self.push(
            "infeed",
            Op::Infeed {
                config: config.to_string(),
            },
            &[token],
            Some(Shape::Tuple(vec![shape, Shape::token()])),
        )
    }

    /// Spec `Infeed(shape)`: the data read (with a fresh token).
    pub fn infeed(&mut self, shape: Shape) -> Result<Value> {
        let token = self.after_all(&[])?;
        let t = self.infeed_with_token(token, shape, "")?;
        self.get_tuple_element(t, 0)
    }

    /// `outfeed(x, token)`: the token after the write.
    pub fn outfeed_with_token(&mut self, x: Value, token: Value, config: &str) -> Result<Value> {
        self.push(
            "outfeed",
            Op::Outfeed {
                config: config.to_string(),
            },
            &[x, token],
            None,
        )
    }

    /// `outfeed(x)` with a fresh token; returns the resulting token.
    pub fn outfeed(&mut self, x: Value) -> Result<Value> {
        let token = self.after_all(&[])?;
        self.outfeed_with_token(x, token, "")
    }

    /// `rng(a, b), distribution=...` producing `shape`.
    fn rng(
        &mut self,
        call: &str,
        dist: RngDistribution,
        a: Value,
        b: Value,
        shape: Shape,
    ) -> Result<Value> {
        self.push(call, Op::Rng { distribution: dist }, &[a, b], Some(shape))
    }

    /// Spec `RngUniform`: uniform over `[a, b)`.
    pub fn rng_uniform(&mut self, a: Value, b: Value, shape: Shape) -> Result<Value> {
        self.rng("rng_uniform", RngDistribution::Uniform, a, b, shape)
    }

    /// Spec `RngNormal`: normal with mean `mu` and deviation `sigma`.
    pub fn rng_normal(&mut self, mu: Value, sigma: Value, shape: Shape) -> Result<Value> {
        self.rng("rng_normal", RngDistribution::Normal, mu, sigma, shape)
    }

    /// Spec `RngBernoulli`: 1 with probability `mean` (an f32 scalar),
    /// else 0, of `shape` (u32 in the spec): `convert(uniform[0,1) < mean)`.
    pub fn rng_bernoulli(&mut self, mean: Value, shape: Shape) -> Result<Value> {
        let m = self.array_shape(mean, "rng_bernoulli")?;
        if !m.is_scalar() || !m.element_type.is_float() {
            return Err(IrError::build(format!(
                "rng_bernoulli: the mean must be a float scalar, got {}",
                Shape::Array(m).to_string_no_layout()
            )));
        }
        let out = match &shape {
            Shape::Array(a) if a.element_type != ElementType::Token => a.clone(),
            _ => {
                return Err(IrError::build(format!(
                    "rng_bernoulli: the shape must be an array, got {}",
                    shape.to_string_no_layout()
                )));
            }
        };
        let ty = m.element_type;
        let zero = self.constant_f64(ty, 0.0)?;
        let one = self.constant_f64(ty, 1.0)?;
        let u = self.rng_uniform(zero, one, Shape::array(ty, out.dims.clone())?)?;
        let mb = self.broadcast(mean, &out.dims)?;
        let p = self.lt(u, mb)?;
        self.convert_element_type(p, out.element_type)
    }

    /// `rng-bit-generator(state)`: the `(new_state, bits)` tuple with bits
    /// of `shape`.
    pub fn rng_bit_generator(
        &mut self,
        algorithm: RngAlgorithm,
        state: Value,
        shape: Shape,
    ) -> Result<Value> {
        let st = self.shape(state)?.clone();
        self.push(
            "rng-bit-generator",
            Op::RngBitGenerator { algorithm },
            &[state],
            Some(Shape::Tuple(vec![st, shape])),
        )
    }

    /// `opt-barrier(x)`.
    pub fn optimization_barrier(&mut self, x: Value) -> Result<Value> {
        self.push("opt-barrier", Op::OptimizationBarrier, &[x], None)
    }

    /// `reduce-precision(x)`: round floats to a narrower format.
    pub fn reduce_precision(
        &mut self,
        x: Value,
        exponent_bits: i64,
        mantissa_bits: i64,
    ) -> Result<Value> {
        self.push(
            "reduce-precision",
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            },
            &[x],
            None,
        )
    }

    /// `topk(x)`: the k largest (or smallest) along the last dimension and
    /// their s32 indices, as a tuple.
    pub fn top_k(&mut self, x: Value, k: i64, largest: bool) -> Result<Value> {
        self.push("topk", Op::TopK { k, largest }, &[x], None)
    }

    /// `complex(re, im)`: c64 (c128) from two f32 (f64) arrays of equal
    /// dims (no implicit broadcasting).
    pub fn complex(&mut self, re: Value, im: Value) -> Result<Value> {
        self.push("complex", Op::Complex, &[re, im], None)
    }

    /// `fft(x), fft_type=..., fft_length=...` over the trailing dims.
    pub fn fft(&mut self, x: Value, fft_type: FftType, fft_length: &[i64]) -> Result<Value> {
        self.push(
            "fft",
            Op::Fft {
                fft_type,
                fft_length: fft_length.to_vec(),
            },
            &[x],
            None,
        )
    }
}
