#!/usr/bin/env python3
"""Generates extra HLO fixtures with JAX (pre-opt .hlo, .opt.hlo, .json with XLA:CPU outputs)."""
import json, sys, os
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
jax.config.update("jax_enable_x64", True)
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(7)

def arr(shape, dtype=np.float32):
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -8
        return rng.integers(lo, 9, size=shape).astype(dtype)
    return (rng.integers(-16, 17, size=shape) / 8.0).astype(dtype)

def enc(x):
    x = np.asarray(x)
    dt = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.int32): "s32", np.dtype(np.int64): "s64",
          np.dtype(np.uint32): "u32", np.dtype(np.uint8): "u8", np.dtype(np.int8): "s8", np.dtype(np.bool_): "pred",
          np.dtype(np.float16): "f16", np.dtype(np.uint64): "u64", np.dtype(np.int16): "s16", np.dtype(np.uint16): "u16"}
    if x.dtype.name == "bfloat16":
        d = "bf16"; data = [float(v) for v in x.astype(np.float32).ravel()]
    else:
        d = dt[x.dtype]
        if x.dtype == np.bool_: data = [bool(v) for v in x.ravel()]
        elif np.issubdtype(x.dtype, np.integer): data = [int(v) for v in x.ravel()]
        else:
            data = []
            for v in x.astype(np.float64).ravel():
                if np.isnan(v): data.append("nan")
                elif np.isinf(v): data.append("inf" if v > 0 else "-inf")
                else: data.append(float(v))
    return {"dtype": d, "shape": list(x.shape), "data": data}

def case(name, f, args, tol=(0.0, 0.0), desc=""):
    try:
        lowered = jax.jit(f).lower(*args)
        pre = lowered.compiler_ir("hlo").as_hlo_text()
        comp = lowered.compile()
        opt = comp.as_text()
        out = jax.jit(f)(*args)
    except Exception as e:
        print("SKIP", name, type(e).__name__, str(e)[:200]); return
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    flat = jax.tree_util.tree_leaves(outs)
    open(f"{OUT}/{name}.hlo", "w").write(pre)
    open(f"{OUT}/{name}.opt.hlo", "w").write(opt)
    js = {"case": name, "description": desc, "jax_version": jax.__version__,
          "inputs": [enc(a) for a in args], "outputs": [enc(np.asarray(o)) for o in flat],
          "root_is_tuple": isinstance(out, (tuple, list)), "tolerance": {"rtol": tol[0], "atol": tol[1]}}
    with open(f"{OUT}/{name}.json", "w") as fh:
        json.dump(js, fh)
    print("ok", name)

T = (1e-6, 1e-6)
T5 = (1e-5, 1e-5)
case("roll_tile_repeat", lambda x: (jnp.roll(x, 2, axis=1), jnp.tile(x, (2, 1)), jnp.repeat(x, 2, axis=0)), [arr((2, 5))])
case("diff_convolve", lambda x, k: (jnp.diff(x), jnp.convolve(x, k, mode="same")), [arr((9,)), arr((3,))])
case("median_percentile", lambda x: (jnp.median(x, axis=1), jnp.percentile(x, 30.0, axis=1)), [arr((3, 7))], T)
case("searchsorted", lambda s, v: jnp.searchsorted(s, v), [np.sort(arr((8,))), arr((5,))])
case("logaddexp_softplus", lambda a, b: (jnp.logaddexp(a, b), jax.nn.softplus(a), jax.nn.elu(a), jax.nn.relu6(a * 4)), [arr((8,)), arr((8,))], T)
case("inverse_trig", lambda x: (jnp.arcsinh(x), jnp.arctan(x), jnp.arcsin(x / 2.5), jnp.arccos(x / 2.5), jnp.arctanh(x / 2.5), jnp.sinh(x), jnp.cosh(x)), [arr((9,))], T5)
case("hypot_sinc", lambda a, b: (jnp.hypot(a, b), jnp.sinc(a)), [arr((7,)), arr((7,))], T5)
case("lgamma_digamma", lambda x: (lax.lgamma(jnp.abs(x) + 0.5), lax.digamma(jnp.abs(x) + 0.5)), [arr((7,))], (1e-5, 1e-5))
case("erf_inv", lambda x: lax.erf_inv(x / 2.5), [arr((7,))], T5)
case("threefry_uniform", lambda k: jax.random.uniform(jax.random.wrap_key_data(k), (6,)), [np.array([0, 42], np.uint32)])
case("threefry_normal", lambda k: jax.random.normal(jax.random.wrap_key_data(k), (2, 3)), [np.array([7, 3], np.uint32)], T5)
case("random_bits_split", lambda k: jax.random.bits(jax.random.split(jax.random.wrap_key_data(k))[1], (4,)), [np.array([1, 2], np.uint32)])
case("int_div_zero", lambda a, b: (a // b, a % b, lax.div(a, b), lax.rem(a, b)), [np.array([7, -7, 0, -2147483648, 5], np.int32), np.array([0, 0, 0, -1, 2], np.int32)])
case("uint_div_zero", lambda a, b: (lax.div(a, b), lax.rem(a, b)), [np.array([7, 0, 4294967295], np.uint32), np.array([0, 0, 2], np.uint32)])
case("float_div_zero", lambda a, b: (a / b, jnp.fmod(a, b)), [np.array([1.0, -1.0, 0.0, 2.0], np.float32), np.array([0.0, 0.0, 0.0, -0.0], np.float32)])
case("convert_saturation", lambda x: (x.astype(np.uint8), x.astype(np.int8), x.astype(np.uint32), x.astype(np.int16)), [np.array([300.0, -5.5, 1e10, -1e10, np.nan, 127.5, 255.9], np.float32)])
case("convert_int_narrow", lambda x: (x.astype(np.int8), x.astype(np.uint16), x.astype(np.float16)), [np.array([300, -129, 70000, -1, 65504], np.int32)])
case("bf16_reduce", lambda x: (x.sum(axis=1), x.max(axis=0)), [arr((3, 5)).astype(jnp.bfloat16)])
case("f16_dot", lambda a, b: a @ b, [arr((3, 4), np.float16), arr((4, 2), np.float16)])
case("bf16_dot_f32acc", lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.float32), [arr((3, 4)).astype(jnp.bfloat16), arr((4, 2)).astype(jnp.bfloat16)])
case("int8_dot_int32", lambda a, b: lax.dot(a, b, preferred_element_type=jnp.int32), [arr((3, 4), np.int8), arr((4, 2), np.int8)])
case("einsum_batch_transpose", lambda a, b: jnp.einsum("bqd,bkd->bqk", a, b), [arr((2, 3, 4)), arr((2, 5, 4))])
case("attention", lambda q, k, v: jax.nn.softmax(q @ k.T / 2.0, axis=-1) @ v, [arr((4, 8)), arr((6, 8)), arr((6, 8))], T5)
case("layer_norm_affine", lambda x, g, b: ((x - x.mean(-1, keepdims=True)) * lax.rsqrt(x.var(-1, keepdims=True) + 1e-5)) * g + b, [arr((3, 8)), arr((8,)), arr((8,))], T5)
case("conv3d", lambda x, w: lax.conv_general_dilated(x, w, (1, 1, 1), "SAME"), [arr((1, 2, 4, 4, 4)), arr((3, 2, 2, 2, 2))])
case("conv_batch_group", lambda x, w: lax.conv_general_dilated(x, w, (1,), "VALID", batch_group_count=2), [arr((4, 3, 6)), arr((4, 3, 2))])
case("conv_grad_input", lambda x, w: jax.grad(lambda x: (lax.conv_general_dilated(x, w, (2, 2), "SAME") ** 2).sum())(x), [arr((1, 2, 6, 6)), arr((3, 2, 3, 3))], T5)
case("conv_grad_kernel", lambda x, w: jax.grad(lambda w: (lax.conv_general_dilated(x, w, (1, 1), "VALID") ** 2).sum())(w), [arr((2, 2, 5, 5)), arr((3, 2, 3, 3))], T5)
case("reduce_window_dilated", lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "VALID", window_dilation=(2, 1), base_dilation=(1, 2)), [arr((5, 4))])
case("cumlogsumexp", lambda x: lax.cumlogsumexp(x, axis=0), [arr((6,))], T5)
case("cumsum_reverse", lambda x: lax.cumsum(x, axis=1, reverse=True), [arr((3, 5))])
case("argsort_stable_ties", lambda x: jnp.argsort(x, stable=True, descending=True), [np.array([1, 3, 1, 2, 3, 0, 1], np.float32)])
case("sort_multi_key", lambda a, b: lax.sort((a, b), num_keys=2), [np.array([2, 1, 2, 1, 0], np.int32), np.array([0.5, 2.0, -1.0, 1.0, 3.0], np.float32)])
case("sort_nan", lambda x: jnp.sort(x), [np.array([3.0, np.nan, -1.0, -np.inf, 0.0, -0.0, np.inf], np.float32)])
case("scatter_mul_min", lambda x, i, u: (x.at[i].multiply(u), x.at[i].min(u)), [arr((5,)), np.array([1, 1, 4], np.int32), arr((3,))])
case("scatter_2d_window", lambda x, i, u: x.at[i, 1:3].add(u), [arr((4, 5)), np.array([3, 0], np.int32), arr((2, 2))])
case("gather_oob_clamp", lambda x, i: x[i], [arr((5,)), np.array([7, -9, 2], np.int32)])
case("dynamic_index_oob", lambda x, i: lax.dynamic_index_in_dim(x, i, axis=0), [arr((4, 3)), np.array(10, np.int32)])
case("segment_sum", lambda d, s: jax.ops.segment_sum(d, s, num_segments=3), [arr((6,)), np.array([0, 0, 1, 2, 2, 2], np.int32)])
case("nested_while_cond", lambda x: lax.fori_loop(0, 3, lambda i, c: lax.cond(i % 2 == 0, lambda v: v + 1.0, lambda v: v * 2.0, c), x), [arr((3,))])
case("while_tuple_carry", lambda x: lax.while_loop(lambda c: c[1] < 5, lambda c: (c[0] * 1.5, c[1] + 1, c[2] + c[0].sum()), (x, 0, 0.0)), [arr((2,))])
case("scan_rnn", lambda w, xs: lax.scan(lambda h, x: (jnp.tanh(w @ h + x), h.sum()), jnp.zeros(3), xs), [arr((3, 3)), arr((4, 3))], T5)
case("vmap_matvec", lambda m, v: jax.vmap(lambda a, b: a @ b)(m, v), [arr((3, 2, 4)), arr((3, 4))])
case("grad_softmax_ce", lambda w, x, y: jax.grad(lambda w: -jnp.sum(jax.nn.log_softmax(x @ w) * y))(w), [arr((4, 3)), arr((5, 4)), np.eye(3, dtype=np.float32)[[0, 1, 2, 1, 0]]], T5)
case("clip_by_norm", lambda x: x * jnp.minimum(1.0, 1.0 / jnp.linalg.norm(x)), [arr((6,))], T)
case("bool_reductions", lambda x: (jnp.any(x, axis=0), jnp.all(x, axis=1), x.sum(axis=1)), [arr((3, 4), np.bool_)])
case("count_nonzero_argwhere_size", lambda x: (jnp.count_nonzero(x), jnp.nonzero(x, size=3)[0]), [np.array([0, 2, 0, 3, 1], np.int32)])
case("where_broadcast_scalar", lambda c, x: jnp.where(c, x, -1.0), [np.array([True, False, True]), arr((2, 3))])
case("expand_squeeze", lambda x: (jnp.expand_dims(x, 1) * jnp.ones((3, 2, 4)), jnp.squeeze(x[:1], 0)), [arr((3, 4))])
case("iota_2d_int64", lambda x: x + jnp.arange(12, dtype=jnp.int64).reshape(3, 4), [arr((3, 4), np.int64)])
case("shift_edges", lambda a, s: (a << s, a >> s, lax.shift_right_logical(a, s)), [np.array([1, -8, 255, -1, 7], np.int32), np.array([0, 31, 32, 33, -1], np.int32)])
case("popcnt_clz_int64", lambda a: (lax.population_count(a), lax.clz(a)), [np.array([0, -1, 255, 1 << 40], np.int64)])
case("max_min_int_uint", lambda a, b: (jnp.maximum(a, b), jnp.minimum(a.astype(np.uint32), b.astype(np.uint32))), [arr((6,), np.int32), arr((6,), np.int32)])
case("round_half", lambda x: (jnp.round(x), jnp.floor(x), jnp.ceil(x), jnp.trunc(x)), [np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999], np.float32)])
case("sign_special", lambda x: (jnp.sign(x), jnp.abs(x)), [np.array([-0.0, 0.0, np.nan, -np.inf, 3.0], np.float32)])
case("pow_special", lambda a, b: jnp.power(a, b), [np.array([0.0, -2.0, 2.0, -8.0, np.inf, 1.0], np.float32), np.array([0.0, 3.0, -1.0, 1.0 / 3.0, -1.0, np.nan], np.float32)])
case("f64_transcendental", lambda x: (jnp.exp(x), jnp.log(jnp.abs(x) + 1), jnp.tanh(x), jnp.sin(x)), [arr((6,), np.float64)], (1e-12, 1e-12))
case("complex_free_fft_like", lambda x: jnp.cumsum(jnp.flip(x)) * 2 - x, [arr((8,))])
