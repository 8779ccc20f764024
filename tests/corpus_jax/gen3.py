#!/usr/bin/env python3
"""Third batch of generated JAX cases: the narrow types (int2/int4/uint2/uint4
and the five float8 types) as XLA:CPU runs them in jax 0.10.2; see genlib.py.
usage: python3 gen3.py OUTDIR (needs jax==0.10.2 and ml_dtypes)."""
from genlib import *  # noqa: F401,F403
import ml_dtypes

F8 = [("e4m3fn", jnp.float8_e4m3fn), ("e5m2", jnp.float8_e5m2), ("e4m3b11fnuz", jnp.float8_e4m3b11fnuz),
      ("e4m3fnuz", jnp.float8_e4m3fnuz), ("e5m2fnuz", jnp.float8_e5m2fnuz)]
SPECIAL = np.array([0.0, -0.0, 1.0625, 1.1875, 464.0, 465.0, 240.0, 248.0, 30.0, 31.0, 57344.0, 61440.0, 1e5, -1e5,
                    np.inf, -np.inf, np.nan, 1e-9, -1e-9, 0.001953125, 2.0**-10, 2.0**-13, 2.0**-16, 2.0**-17, 3.3,
                    -7.7, 0.1, 4609.0, -0.3], np.float32)


def narrow(values, dtype):
    return np.array(values, dtype=np.float64).astype(dtype)


for name, t in F8:
    case(f"f8{name}_convert", lambda x, t=t: (x.astype(t), x.astype(t).astype(jnp.float32)), [SPECIAL],
         desc=f"f32 -> {name}: ties, overflow, NaN, +-0, subnormals")
    case(f"f8{name}_arith", lambda a, b: (a + b, a * b, a / b, a - b, jnp.maximum(a, b), a > b, -a),
         [(arr((9,)) * 3.1).astype(t), (arr((9,)) * 1.7).astype(t)], desc=f"{name} arithmetic (through f16)")
    case(f"f8{name}_from_s32", lambda i, t=t: i.astype(t),
         [np.array([4609, 4608, 4607, 100000, -4609, 17, 19, 23, 2**20 + 1, 0, -1, 255], np.int32)],
         desc=f"s32 -> {name} rounds once")
case("f8e4m3fn_transcendental", lambda a: (jnp.exp(a), jnp.sqrt(jnp.abs(a)), jnp.tanh(a), jnp.log(jnp.abs(a) + 1)),
     [(arr((12,)) * 2.3).astype(jnp.float8_e4m3fn)])
case("f8e5m2_transcendental", lambda a: (jnp.exp(a), jnp.sin(a), a ** 2),
     [(arr((12,)) * 2.3).astype(jnp.float8_e5m2)])
case("f8e4m3fn_upcast_mul", lambda x, y: x.astype(jnp.float8_e4m3fn).astype(jnp.float32) * y,
     [arr((3, 4)) * 7.3, arr((3, 4))])
case("f8_dot", lambda a, b: (a @ b, jnp.dot(a, b, preferred_element_type=jnp.float32)),
     [(arr((3, 4)) * 3.3).astype(jnp.float8_e4m3fn), (arr((4, 2)) * 1.3).astype(jnp.float8_e4m3fn)])
case("f8_mixed_dot", lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.float32),
     [(arr((3, 4)) * 3.3).astype(jnp.float8_e4m3fn), (arr((4, 2)) * 1.3).astype(jnp.float8_e5m2)])
case("f8_reduce", lambda a: (a.sum(axis=1), a.max(axis=0)), [(arr((3, 5)) * 5.1).astype(jnp.float8_e5m2)])
case("f8_between_types", lambda a: (a.astype(jnp.float8_e5m2), a.astype(jnp.float8_e4m3fnuz), a.astype(jnp.float16),
                                     a.astype(jnp.bfloat16), a.astype(jnp.int32)),
     [narrow([448, -448, 0.001953125, -0.0, 3.5, 1.125, 240, 0.0625], ml_dtypes.float8_e4m3fn)])

F = np.array([100, -100, np.nan, 7.6, -8.5, 7.5, -7.5, np.inf, 2.0, -3.0, 15.9, 0.5], np.float32)
I = np.array([9, -9, 16, 7, -8, 15, 17, -1, 3, 100, -128, 4], np.int32)
case("int_n_convert", lambda x, i: (x.astype(jnp.int4), i.astype(jnp.int4), x.astype(jnp.uint4), i.astype(jnp.uint4),
                                    x.astype(jnp.int2), i.astype(jnp.int2), x.astype(jnp.uint2), i.astype(jnp.uint2)),
     [F, I], desc="float -> int2/int4 saturates, int -> int2/int4 wraps")
A4 = np.array([-8, -1, 7, 3, 5, -3, 0, 6, -8, 2], dtype=ml_dtypes.int4)
B4 = np.array([-1, 2, 1, 7, -3, 2, 5, -2, 0, 0], dtype=ml_dtypes.int4)
case("int4_arith", lambda a, b: (a + b, a * b, a - b, lax.div(a, b), lax.rem(a, b), jnp.maximum(a, b), a < b, -a,
                                 a.astype(jnp.int32)), [A4, B4], desc="s4 arithmetic wraps; x/0, x%0")
S4 = np.array([0, 1, 2, 3, 4, 5, 7, -1, -8, 3], dtype=ml_dtypes.int4)
case("int4_shifts", lambda a, b: (lax.shift_left(a, b), lax.shift_right_logical(a, b), lax.shift_right_arithmetic(a, b)),
     [A4, S4], desc="s4 shifts (amounts read as unsigned)")
case("int4_bits", lambda a: (lax.population_count(a), lax.clz(a), ~a, a & 5, a | 2, a ^ -1), [A4])
U4 = np.array([0, 1, 15, 8, 9, 14, 3, 7, 12, 5], dtype=ml_dtypes.uint4)
V4 = np.array([1, 3, 2, 0, 4, 15, 3, 1, 5, 9], dtype=ml_dtypes.uint4)
case("uint4_arith", lambda a, b: (a + b, a * b, a - b, lax.div(a, b), lax.rem(a, b), lax.shift_right_logical(a, b),
                                  lax.shift_right_arithmetic(a, b), lax.shift_left(a, b), a > b), [U4, V4])
A2 = np.array([-2, -1, 0, 1, 1, -2], dtype=ml_dtypes.int2)
B2 = np.array([1, 1, -1, 1, -2, -1], dtype=ml_dtypes.int2)
case("int2_arith", lambda a, b: (a + b, a * b, a - b, jnp.minimum(a, b), a.astype(jnp.float32)), [A2, B2])
case("uint2_arith", lambda a, b: (a + b, a * b, a.astype(jnp.int32)),
     [np.array([0, 1, 2, 3, 3], dtype=ml_dtypes.uint2), np.array([3, 3, 2, 1, 0], dtype=ml_dtypes.uint2)])
case("int4_to_f32_dot", lambda a, b: jnp.dot(a.astype(jnp.float32), b), [A4.reshape(2, 5), arr((5, 3))])
case("int4_reduce_select", lambda a, b: (lax.reduce_max(a, (0,)), jnp.where(a > b, a, b), jnp.concatenate([a, b]), a[::-1]),
     [A4, B4])
case("int8_bitcast_int4", lambda x: (lax.bitcast_convert_type(x, jnp.int4), lax.bitcast_convert_type(x, jnp.uint2)),
     [np.array([4, -29, 127, -128, 0, 1], np.int8)])
