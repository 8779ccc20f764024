#!/usr/bin/env python3
"""Extra StableHLO samples beyond tests/corpus_jax: printed with locations
(`as_text(debug_info=True)`), complex numbers and FFTs, LAPACK custom calls,
composites, optimization barriers, the rbg PRNG. Writes NAME.mlir and NAME.json
(inputs and JAX's outputs, genlib's encoding) into this directory, or prints
SKIP with the reason.
usage: python3 gen.py   (needs jax==0.10.2; /work/venv/bin/python)"""
import os, sys, json
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../../../tests/corpus_jax"))
sys.argv = [sys.argv[0], here]
from genlib import *  # noqa: F401,F403  (rng seeded 7, enc, arr)


def sample(name, f, args, tol=(0.0, 0.0), debug_info=False):
    try:
        text = jax.jit(f).lower(*args).as_text(debug_info=debug_info)
        out = jax.jit(f)(*args)
    except Exception as e:
        print("SKIP", name, type(e).__name__, str(e)[:200]); return
    outs = jax.tree_util.tree_leaves(list(out) if isinstance(out, (tuple, list)) else [out])
    open(f"{here}/{name}.mlir", "w").write(text)
    js = {"case": name, "jax_version": jax.__version__, "inputs": [enc(a) for a in args],
          "outputs": [enc(np.asarray(o)) for o in outs], "tolerance": {"rtol": tol[0], "atol": tol[1]}}
    json.dump(js, open(f"{here}/{name}.json", "w"))
    print("ok", name)


T = (1e-5, 1e-5)
sample("locations", lambda x: jax.nn.softmax(x, axis=-1) + jnp.cumsum(x, axis=0), [arr((3, 4))], T, debug_info=True)
sample("locations_while", lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, x), [arr((2,))], debug_info=True)
sample("complex_arith", lambda x, y: (jnp.real(lax.complex(x, y) * (1 + 2j)), jnp.imag(lax.complex(x, y) * (1 + 2j)), jnp.abs(lax.complex(x, y))), [arr((4,)), arr((4,))], T)
sample("fft_rfft", lambda x: (jnp.real(jnp.fft.fft(x)), jnp.imag(jnp.fft.fft(x)), jnp.fft.irfft(jnp.fft.rfft(x), n=8)), [arr((8,))], T)
sample("cholesky", lambda a: jnp.linalg.cholesky(a @ a.T + 4 * jnp.eye(3)), [arr((3, 3))], T)
sample("solve", lambda a, b: jnp.linalg.solve(a + 4 * jnp.eye(3), b), [arr((3, 3)), arr((3, 2))], T)
sample("triangular_solve", lambda a, b: lax.linalg.triangular_solve(jnp.tril(a) + 4 * jnp.eye(3, dtype=a.dtype), b, left_side=True, lower=True), [arr((3, 3)), arr((3, 2))], T)
sample("opt_barrier", lambda x, y: lax.optimization_barrier((x * 2.0, y + 1)), [arr((3,)), arr((2,), np.int32)])
sample("rbg_bits", lambda k: jax.random.bits(jax.random.wrap_key_data(k, impl="rbg"), (4,)), [np.array([1, 2, 3, 4], np.uint32)])
try:
    def _comp(x):
        return lax.composite(lambda x: jnp.sin(x) * 2.0, name="my.sin2")(x)
    sample("composite", _comp, [arr((5,))], T)
except Exception as e:
    print("SKIP composite", e)
sample("cond_pred_capture", lambda p, x, y: lax.cond(p, lambda v: v * y, lambda v: v - y, x), [np.array(False), arr((3,)), arr((3,))])
sample("clz_bf16_mix", lambda x: (x.astype(jnp.bfloat16) * 3).astype(np.float32), [arr((5,))])
sample("bitcast_widths", lambda x, y: (lax.bitcast_convert_type(x, jnp.uint8), lax.bitcast_convert_type(y, jnp.float32)), [arr((3,)), np.arange(12, dtype=np.uint8).reshape(3, 4)])
sample("lax_map_scan", lambda x: (lax.map(lambda r: r.sum() * 2, x), lax.scan(lambda c, v: (c + v, (c * v, v - c)), jnp.zeros(3), x)), [arr((4, 3))], T)
sample("checkpoint_grad", lambda x: jax.grad(jax.checkpoint(lambda y: jnp.sin(y).sum()))(x), [arr((4,))], T)
sample("cond_multi_result", lambda p, x, y: lax.cond(p, lambda a, b: (a + b, a * 2), lambda a, b: (a - b, b), x, y), [np.array(True), arr((3,)), arr((3,))])
sample("complex_cumprod_conj", lambda x: (jnp.cumprod(x.astype(jnp.complex64)).real, jnp.conj(x.astype(jnp.complex64) * 1j).imag), [arr((4,))], T)
sample("dot_product_attention", lambda q, k, v: jax.nn.dot_product_attention(q, k, v), [arr((1, 4, 2, 8)), arr((1, 4, 2, 8)), arr((1, 4, 2, 8))], T)
sample("expm", lambda x: jax.scipy.linalg.expm(x), [arr((2, 2)) * 0.1], T)
sample("special_igamma_i0e", lambda x: (jax.scipy.special.gammainc(2.0, jnp.abs(x) + 0.1), jax.scipy.special.i0e(x)), [arr((4,))], T)
sample("lu", lambda a: lax.linalg.lu(a)[0], [arr((3, 3))], T)
sample("top_k_int_clz_u8", lambda x, y: (lax.top_k(x, 2), lax.clz(y)), [arr((5,), np.int32), arr((4,), np.uint8)])
# f64 results as their bits: serde_json's f64 parsing is not correctly rounded.
sample("nextafter", lambda a, b, c, d: (jnp.nextafter(a, b), lax.bitcast_convert_type(jnp.nextafter(c, d), jnp.int64)),
       [np.array([0.0, -0.0, 1.0, -1.0, np.nan, 1.0, 0.0, 3.0, 1e-45], np.float32), np.array([1.0, -1.0, 2.0, -2.0, 0.0, 1.0, -0.0, -3.0, 0.0], np.float32),
        np.array([0.0, 1.0, -5.0], np.float64), np.array([-1.0, 0.5, -6.0], np.float64)])
