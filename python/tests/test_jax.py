"""rxla.jax.jit against jax.jit: an MLP and a small CNN (parameters as
pytrees), pytree outputs, static arguments, dtype handling, and the
compile cache. Tolerance: float32 results within rtol 2e-5, atol 2e-5
(rxla and XLA sum in different orders)."""

import subprocess
import sys

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import rxla  # noqa: E402
import rxla.jax  # noqa: E402

RTOL = 2e-5
ATOL = 2e-5


def close(got, want, rtol=RTOL, atol=ATOL):
    gl, gt = jax.tree_util.tree_flatten(got)
    wl, wt = jax.tree_util.tree_flatten(want)
    assert gt == wt, f"{gt} != {wt}"
    for g, w in zip(gl, wl):
        assert isinstance(g, np.ndarray)
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol)


# Parameters come from numpy's generator: eager jax.random calls each
# compile an XLA program, which made the setup cost seconds.
def normal(rng, shape, scale=1.0):
    return jnp.asarray((scale * rng.standard_normal(shape)).astype(np.float32))


def init_mlp(rng, sizes):
    params = []
    for m, n in zip(sizes[:-1], sizes[1:]):
        params.append({"w": normal(rng, (m, n), 1 / np.sqrt(m)), "b": normal(rng, (n,), 0.1)})
    return params


def mlp(params, x):
    for layer in params[:-1]:
        x = jax.nn.gelu(x @ layer["w"] + layer["b"])
    last = params[-1]
    return jax.nn.log_softmax(x @ last["w"] + last["b"])


def test_mlp_matches_jax_jit():
    rng = np.random.default_rng(0)
    params = init_mlp(rng, [32, 64, 64, 10])
    x = normal(rng, (16, 32))
    fast = rxla.jax.jit(mlp)
    close(fast(params, x), jax.jit(mlp)(params, x))
    assert fast.compile_count == 1
    assert fast.executable(params, x).stats["fallbacks"] == []


def init_cnn(rng):
    return {
        "conv1": {"w": normal(rng, (3, 3, 3, 8), 0.3), "b": normal(rng, (8,), 0.01)},
        "conv2": {"w": normal(rng, (3, 3, 8, 16), 0.2), "b": normal(rng, (16,), 0.01)},
        "dense": {"w": normal(rng, (4 * 4 * 16, 10), 0.1), "b": normal(rng, (10,), 0.01)},
    }


def conv(x, p, stride=1):
    y = jax.lax.conv_general_dilated(
        x, p["w"], window_strides=(stride, stride), padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.nn.relu(y + p["b"])


def maxpool(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def cnn(params, images):
    x = maxpool(conv(images, params["conv1"]))          # 16x16 -> 8x8
    x = maxpool(conv(x, params["conv2"]))               # 8x8 -> 4x4
    x = x.reshape(x.shape[0], -1)
    logits = x @ params["dense"]["w"] + params["dense"]["b"]
    return {"logits": logits, "probs": jax.nn.softmax(logits), "mean_act": jnp.mean(x)}


def test_cnn_matches_jax_jit():
    rng = np.random.default_rng(2)
    params = init_cnn(rng)
    images = normal(rng, (4, 16, 16, 3))
    fast = rxla.jax.jit(cnn)
    got = fast(params, images)
    assert set(got) == {"logits", "probs", "mean_act"}
    close(got, jax.jit(cnn)(params, images))
    # numpy inputs work as well as jax arrays
    np_params = jax.tree_util.tree_map(np.asarray, params)
    close(fast(np_params, np.asarray(images)), jax.jit(cnn)(params, images))
    assert fast.compile_count == 1


def test_cache_by_shape_dtype_and_structure():
    calls = []

    def f(x, y):
        calls.append(1)  # counts traces
        return x * 2 + y

    fast = rxla.jax.jit(f)
    a = np.ones((3, 4), np.float32)
    close(fast(a, a), jax.jit(f)(a, a))
    close(fast(a + 1, a), jax.jit(f)(a + 1, a))
    assert fast.compile_count == 1 and fast.cache_size() == 1
    n = len(calls)
    fast(a, a)  # cached: no new trace
    assert len(calls) == n
    b = np.ones((5, 4), np.float32)
    close(fast(b, b), jax.jit(f)(b, b))
    assert fast.compile_count == 2
    close(fast(a.astype(np.int32), a.astype(np.int32)), jax.jit(f)(a.astype(np.int32), a.astype(np.int32)))
    assert fast.compile_count == 3
    # a Python scalar (weakly typed) is a different signature from an array
    close(fast(a, 2.0), jax.jit(f)(a, 2.0))
    assert fast.compile_count == 4
    fast(a, 3.0)
    assert fast.compile_count == 4
    fast.clear_cache()
    fast(a, a)
    assert fast.compile_count == 5


def test_static_argnums_and_kwargs():
    def f(x, n, *, scale):
        for _ in range(n):
            x = jnp.sin(x) * scale
        return x, {"n": x.sum()}

    fast = rxla.jax.jit(f, static_argnums=1)
    x = jnp.linspace(0, 1, 12).reshape(3, 4)
    close(fast(x, 2, scale=1.5), jax.jit(f, static_argnums=1)(x, 2, scale=1.5))
    close(fast(x, 3, scale=0.5), jax.jit(f, static_argnums=1)(x, 3, scale=0.5))
    assert fast.compile_count == 2
    fast(x, 3, scale=2.0)
    assert fast.compile_count == 2


def test_decorator_forms_and_unused_args():
    @rxla.jax.jit
    def f(x, unused):
        return x + 1

    @rxla.jax.jit(pipeline="O1")
    def g(x):
        return x - 1

    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(f(x, np.zeros(7)), x + 1)
    np.testing.assert_array_equal(g(x), x - 1)
    assert f.__name__ == "f"
    assert "HloModule" in f.lower_hlo(x, np.zeros(7))


def test_dtypes_like_jax():
    def f(x, y, z):
        return x.astype(jnp.bfloat16) * 2, y + 1, (z > 0) & (z < 3)

    x = np.linspace(-2, 2, 8).astype(np.float64)  # jax (no x64) takes it as f32
    y = np.arange(8, dtype=np.int8)
    z = np.arange(8, dtype=np.uint32)
    close(rxla.jax.jit(f)(x, y, z), jax.jit(f)(x, y, z), rtol=1e-2, atol=1e-2)

    def h(x):
        return jnp.tanh(x.astype(jnp.float32)).astype(jnp.float16)

    xh = np.linspace(-3, 3, 16).astype(np.float16)
    close(rxla.jax.jit(h)(xh), jax.jit(h)(xh), rtol=1e-3, atol=1e-3)


def test_errors_are_exceptions():
    fast = rxla.jax.jit(lambda x: x @ x)
    with pytest.raises(TypeError):
        fast(np.ones((2, 3), np.float32))  # jax's own shape error while tracing


def test_import_rxla_does_not_import_jax():
    code = "import sys, rxla; assert 'jax' not in sys.modules; import rxla.jax; assert 'jax' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
