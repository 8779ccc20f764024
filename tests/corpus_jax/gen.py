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
x23 = arr((2, 3)); y23 = arr((2, 3))
case("argmax", lambda x: jnp.argmax(x, axis=1), [arr((4, 7))])
case("argmin_f64", lambda x: jnp.argmin(x, axis=0), [arr((5, 3), np.float64)])
case("cumsum", lambda x: jnp.cumsum(x, axis=1), [arr((3, 6))])
case("cumprod_int", lambda x: jnp.cumprod(x, axis=0), [arr((4, 3), np.int32)])
case("cummax", lambda x: lax.cummax(x, axis=0), [arr((5, 2))])
case("take", lambda x, i: jnp.take(x, i, axis=0), [arr((5, 3)), np.array([4, 0, 2, 2], np.int32)])
case("take_along_axis", lambda x, i: jnp.take_along_axis(x, i, axis=1), [arr((3, 4)), np.array([[0, 3], [1, 1], [2, 0]], np.int32)])
case("index_dynamic", lambda x, i: x[i], [arr((5, 3)), np.array(3, np.int32)])
case("index_neg", lambda x: x[-1, ::-2], [arr((4, 5))])
case("scatter_add", lambda x, i, u: x.at[i].add(u), [arr((6,)), np.array([1, 3, 1], np.int32), arr((3,))])
case("scatter_set_2d", lambda x, i, u: x.at[i, :].set(u), [arr((4, 3)), np.array([2, 0], np.int32), arr((2, 3))])
case("scatter_max", lambda x, i, u: x.at[i].max(u), [arr((5,)), np.array([0, 4, 0], np.int32), arr((3,))])
case("gather_2d_points", lambda x, i, j: x[i, j], [arr((4, 5)), np.array([0, 3, 1], np.int32), np.array([4, 0, 2], np.int32)])
case("softmax", lambda x: jax.nn.softmax(x, axis=-1), [arr((3, 8))], T)
case("log_softmax", lambda x: jax.nn.log_softmax(x, axis=-1), [arr((3, 8))], T)
case("logsumexp", lambda x: jax.scipy.special.logsumexp(x, axis=0), [arr((6, 4))], T)
case("layernorm", lambda x: (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5), [arr((4, 8))], T)
case("gelu_tanh", lambda x: jax.nn.gelu(x, approximate=True), [arr((2, 8))], T)
case("gelu_erf", lambda x: jax.nn.gelu(x, approximate=False), [arr((2, 8))], T)
case("erf", lambda x: jax.scipy.special.erf(x), [arr((10,))], T)
case("sigmoid_silu", lambda x: jax.nn.silu(x) + jax.nn.sigmoid(x), [arr((12,))], T)
case("trig", lambda x: (jnp.sin(x), jnp.cos(x), jnp.tan(x), jnp.arctan2(x, x + 1.0)), [arr((9,))], T)
case("expm1_log1p", lambda x: jnp.expm1(x) + jnp.log1p(jnp.abs(x)), [arr((9,))], T)
case("pow_sqrt", lambda x: (jnp.power(jnp.abs(x), 1.5), jnp.sqrt(jnp.abs(x)), lax.rsqrt(jnp.abs(x) + 1.0), jnp.cbrt(x)), [arr((9,))], T)
case("rounding", lambda x: (jnp.floor(x), jnp.ceil(x), jnp.round(x), lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO), jnp.sign(x)), [arr((11,)) * 2.5])
case("int_ops", lambda a, b: (a // b, a % b, a * b, a - b, jnp.maximum(a, b), a << 2, a >> 1, lax.shift_right_logical(a, np.int32(1)), a & b, a | b, a ^ b, ~a), [arr((8,), np.int32), np.array([3, -2, 5, -7, 1, 2, -3, 4], np.int32)])
case("uint_ops", lambda a, b: (a // b, a % b, a * b, a - b, lax.population_count(a), lax.clz(a)), [arr((6,), np.uint32), np.array([3, 2, 5, 7, 1, 2], np.uint32)])
case("int8_wrap", lambda a: (a * 100, a + 127), [arr((6,), np.int8)])
case("convert_chain", lambda x: (x.astype(np.int32), x.astype(np.uint8), x.astype(jnp.bfloat16), x.astype(np.float16), (x > 0).astype(np.float32)), [arr((8,)) * 3])
case("bitcast_convert", lambda x: lax.bitcast_convert_type(x, np.int32), [arr((5,))])
case("f16_math", lambda x, y: x * y + x, [arr((6,), np.float16), arr((6,), np.float16)])
case("bf16_math", lambda x, y: x * y + x, [arr((6,)).astype(jnp.bfloat16), arr((6,)).astype(jnp.bfloat16)])
case("f64_reduce", lambda x: (x.sum(), x.prod(axis=0), x.max(axis=1), x.min()), [arr((3, 4), np.float64)])
case("int_reduce", lambda x: (x.sum(axis=0), x.max(), x.min(axis=1), jnp.any(x > 3), jnp.all(x > -8)), [arr((4, 5), np.int32)])
case("mean_var", lambda x: (x.mean(axis=0), x.var(axis=1)), [arr((4, 6))], T)
case("where_nan", lambda x: jnp.where(jnp.isnan(x), 0.0, x), [np.array([1.0, np.nan, -np.inf, 2.5], np.float32)])
case("isfinite_nan", lambda x: (jnp.isfinite(x), jnp.isinf(x), jnp.isnan(x), jnp.nan_to_num(x)), [np.array([1.0, np.nan, -np.inf, np.inf, -0.0], np.float32)])
case("clamp", lambda x: jnp.clip(x, -0.5, 0.75), [arr((9,))])
case("concat_stack", lambda a, b: (jnp.concatenate([a, b, a], axis=1), jnp.stack([a, b], axis=0)), [x23, y23])
case("pad_modes", lambda x: (jnp.pad(x, ((1, 2), (0, 1))), jnp.pad(x, ((1, 1), (2, 2)), mode="edge"), jnp.pad(x, ((0, 0), (1, 1)), mode="reflect")), [arr((3, 4))])
case("pad_interior", lambda x: lax.pad(x, np.float32(-1.0), [(1, -1, 2), (0, 1, 1)]), [arr((3, 3))])
case("reverse_flip", lambda x: (jnp.flip(x, 0), jnp.flip(x)), [arr((3, 4))])
case("transpose_3d", lambda x: jnp.transpose(x, (2, 0, 1)), [arr((2, 3, 4))])
case("reshape_broadcast", lambda x: (x.reshape(4, 3) + jnp.arange(3.0)) * x.reshape(4, 3)[:, :1], [arr((2, 6))])
case("iota_tri", lambda x: jnp.tril(x) + jnp.triu(x, 1) * 2 + jnp.eye(4, dtype=x.dtype), [arr((4, 4))])
case("batched_matmul", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), [arr((2, 3, 4)), arr((2, 4, 5))])
case("einsum_contract2", lambda a, b: jnp.einsum("ijk,jkl->il", a, b), [arr((2, 3, 4)), arr((3, 4, 2))])
case("matvec_vecmat", lambda m, v: (m @ v, v @ m.T, jnp.outer(v, v)), [arr((3, 3)), arr((3,))])
case("int_matmul", lambda a, b: a @ b, [arr((3, 4), np.int32), arr((4, 2), np.int32)])
case("conv_nhwc_stride", lambda x, w: lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), [arr((1, 7, 7, 3)), arr((3, 3, 3, 4))])
case("conv_dilated", lambda x, w: lax.conv_general_dilated(x, w, (1, 1), [(2, 1), (0, 2)], lhs_dilation=(2, 1), rhs_dilation=(1, 2)), [arr((1, 2, 5, 6)), arr((3, 2, 2, 3))])
case("conv_groups", lambda x, w: lax.conv_general_dilated(x, w, (1,), "VALID", feature_group_count=2), [arr((2, 4, 9)), arr((6, 2, 3))])
case("conv_depthwise", lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=3, dimension_numbers=("NHWC", "HWIO", "NHWC")), [arr((1, 5, 5, 3)), arr((3, 3, 1, 3))])
case("conv_transpose", lambda x, w: lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")), [arr((1, 2, 3, 3)), arr((3, 2, 3, 3))])
case("conv1d_negpad", lambda x, w: lax.conv_general_dilated(x, w, (1,), [(-1, 2)]), [arr((1, 2, 8)), arr((2, 2, 3))])
case("avgpool", lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 1, 3, 3), (1, 1, 2, 2), "SAME") / 9.0, [arr((1, 2, 6, 6))], T)
case("maxpool_pad", lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), [(0, 0), (1, 1), (1, 1), (0, 0)]), [arr((1, 5, 5, 2))])
case("maxpool_grad", lambda x: jax.grad(lambda y: lax.reduce_window(y, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID").sum())(x), [arr((4, 6))])
case("sort_desc_argsort", lambda x: (jnp.sort(x)[::-1], jnp.argsort(x)), [arr((8,))])
case("sort_2d_axis0", lambda x: jnp.sort(x, axis=0), [arr((5, 3))])
case("top_k", lambda x: lax.top_k(x, 3), [arr((2, 7))])
case("while_fori", lambda x: lax.fori_loop(0, 10, lambda i, c: c * 0.5 + jnp.float32(i), x), [arr((3,))])
case("while_dynamic", lambda x, n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1], [arr((2,)), np.array(5, np.int32)])
case("scan_cumsum", lambda x: lax.scan(lambda c, v: (c + v, c * v), 0.0, x), [arr((6,))])
case("cond_switch", lambda i, x: lax.switch(i, [lambda v: v + 1.0, lambda v: v * 2.0, lambda v: -v], x), [np.array(1, np.int32), arr((4,))])
case("cond_pred", lambda p, x: lax.cond(p, lambda v: jnp.sin(v), lambda v: jnp.cos(v), x), [np.array(True), arr((4,))], T)
case("select_n", lambda i, a, b, c: lax.select_n(i, a, b, c), [np.array([0, 1, 2, 1], np.int32), arr((4,)), arr((4,)), arr((4,))])
case("dynamic_update_slice", lambda x, u, i: lax.dynamic_update_slice(x, u, (i, np.int32(1))), [arr((5, 4)), arr((2, 2)), np.array(4, np.int32)])
case("dynamic_slice_2d", lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 3)), [arr((5, 5)), np.array(-2, np.int32), np.array(4, np.int32)])
case("one_hot", lambda i: jax.nn.one_hot(i, 5), [np.array([0, 3, 4, 1], np.int32)])
case("mlp_grad", lambda w, x: jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w) ** 2))(w), [arr((4, 3)), arr((2, 4))], T)
case("remainder_float", lambda a, b: (jnp.fmod(a, b), jnp.remainder(a, b)), [arr((8,)), np.array([0.75, -1.5, 2.0, 0.5, -0.25, 1.0, 3.0, -2.0], np.float32)])
case("minmax_nan", lambda a, b: (jnp.maximum(a, b), jnp.minimum(a, b), jnp.fmax(a, b)), [np.array([1.0, np.nan, -0.0, 0.0], np.float32), np.array([np.nan, 2.0, 0.0, -0.0], np.float32)])
case("compare_all", lambda a, b: (a == b, a != b, a < b, a <= b, a > b, a >= b), [arr((6,)), arr((6,))])
case("logical", lambda a, b: (a & b, a | b, a ^ b, ~a), [arr((6,), np.bool_), arr((6,), np.bool_)])
case("u64_s64", lambda a, b: (a * b + 7, (a.astype(np.uint64) * 3) >> 1), [arr((4,), np.int64), arr((4,), np.int64)])
case("rng_bits_shape", lambda k: jax.random.uniform(jax.random.PRNGKey(0), (3,)) * 0 + k, [arr((3,))])
case("reduce_precision", lambda x: lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10), [arr((6,)) * 1.37])
case("clamp_int_convert_round", lambda x: jnp.round(x * 3.3).astype(np.int32), [arr((8,))])
case("square_abs_neg", lambda x: (jnp.square(x), jnp.abs(x), -x, jnp.reciprocal(x + 3.0)), [arr((7,))], T)
case("integer_pow", lambda x: (x ** 3, x.astype(np.int32) ** 2), [arr((6,))])
case("tuple_nested_out", lambda x: ((x, x + 1.0), x * 2.0), [arr((2,))])
case("empty_dims", lambda x: (x.sum(axis=1), jnp.concatenate([x, x], axis=1)), [arr((3, 0))])
case("scalar_only", lambda a, b: a * b - a / b, [np.array(1.5, np.float32), np.array(-0.25, np.float32)])
