#!/usr/bin/env python3
"""Generates the real-model benchmark set: everyday JAX workloads lowered by
JAX 0.10.2 to HLO text (before XLA's passes), one NAME.hlo per workload.

usage: python3 gen.py [OUTDIR]   (default: this folder)

Every workload takes float inputs only (xla_time.py feeds uniform(-1, 1)).
`cargo xtask bench-models` (xtask/src/models.rs) times each module on rxla
and on XLA:CPU side by side and writes docs/PERFORMANCE.md's table."""
import os, sys
import numpy as np
import jax, jax.numpy as jnp
from jax import lax

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
f32, bf16 = jnp.float32, jnp.bfloat16


def spec(shape, dt=f32):
    return jax.ShapeDtypeStruct(shape, dt)


def case(name, f, *args):
    text = jax.jit(f).lower(*args).compiler_ir("hlo").as_hlo_text()
    with open(os.path.join(OUT, f"{name}.hlo"), "w") as fh:
        fh.write(text)


def layernorm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b


def attention(x, wq, wk, wv, wo, heads):
    s, d = x.shape
    hd = d // heads
    q = (x @ wq).reshape(s, heads, hd).transpose(1, 0, 2)
    k = (x @ wk).reshape(s, heads, hd).transpose(1, 0, 2)
    v = (x @ wv).reshape(s, heads, hd).transpose(1, 0, 2)
    a = jax.nn.softmax(jnp.einsum("hqd,hkd->hqk", q, k) / np.sqrt(hd), axis=-1)
    o = jnp.einsum("hqk,hkd->hqd", a, v).transpose(1, 0, 2).reshape(s, d)
    return o @ wo


def transformer(x, g1, b1, wq, wk, wv, wo, g2, b2, w1, w2):
    h = x + attention(layernorm(x, g1, b1), wq, wk, wv, wo, 12)
    return h + jax.nn.gelu(layernorm(h, g2, b2) @ w1) @ w2


def conv(x, w, stride=1, pad="SAME", dn=("NHWC", "HWIO", "NHWC"), groups=1):
    return lax.conv_general_dilated(x, w, (stride, stride), pad, dimension_numbers=dn,
                                    feature_group_count=groups)


def bottleneck(x, w1, w2, w3):
    y = jax.nn.relu(conv(x, w1))
    y = jax.nn.relu(conv(y, w2))
    return jax.nn.relu(conv(y, w3) + x)


def maxpool_nchw(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 3, 3), (1, 1, 2, 2), "SAME")


def avgpool_nhwc(x):
    return lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0


def mlp(x, w1, b1, w2, b2, w3, b3):
    h = jax.nn.relu(x @ w1 + b1)
    h = jax.nn.relu(h @ w2 + b2)
    return jax.nn.log_softmax(h @ w3 + b3)


def heat_step(u):
    # 5-point stencil, 10 explicit steps (scientific kernel: slices + pads)
    for _ in range(10):
        p = jnp.pad(u, 1)
        u = u + 0.1 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u)
    return u


def nbody(p, m):
    d = p[:, None, :] - p[None, :, :]
    r2 = (d * d).sum(-1) + 1e-3
    f = (m[None, :, None] * d) * lax.rsqrt(r2)[:, :, None] ** 3
    return f.sum(1)


def lstm(xs, wx, wh, b):
    def step(c_h, x):
        c, h = c_h
        z = x @ wx + h @ wh + b
        i, f, g, o = jnp.split(z, 4, -1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (c, h), h
    _, hs = lax.scan(step, (jnp.zeros((32, 256)), jnp.zeros((32, 256))), xs)
    return hs


def batchnorm_nhwc(x):
    m = x.mean((0, 1, 2))
    v = ((x - m) ** 2).mean((0, 1, 2))
    return (x - m) * lax.rsqrt(v + 1e-5)


def fori_vecmat(x, w):
    def body(i, c):
        return jnp.tanh(c @ w) + lax.dynamic_slice_in_dim(x, i, 1, 0)
    return lax.fori_loop(0, 100, body, jnp.zeros((1, 256)))


def groupnorm_nhwc(x):
    n, h, w, c = x.shape
    g = x.reshape(n, h, w, 32, c // 32)
    m = g.mean((1, 2, 4), keepdims=True)
    v = ((g - m) ** 2).mean((1, 2, 4), keepdims=True)
    return ((g - m) * lax.rsqrt(v + 1e-5)).reshape(n, h, w, c)


def batchnorm_nchw(x):
    m = x.mean((0, 2, 3), keepdims=True)
    v = ((x - m) ** 2).mean((0, 2, 3), keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5)


def main():
    case("cumsum_1Mi", lambda x: jnp.cumsum(x), spec((1 << 20,)))
    case("cumsum_rows_1024x1024", lambda x: jnp.cumsum(x, axis=1), spec((1024, 1024)))
    case("cummax_cols_1024x1024", lambda x: lax.cummax(x, axis=0), spec((1024, 1024)))
    case("logsumexp_2048x8192", lambda x: jax.nn.logsumexp(x, -1), spec((2048, 8192)))
    case("log_softmax_4096x1024", lambda x: jax.nn.log_softmax(x, -1), spec((4096, 1024)))
    case("layernorm_4096x1024", layernorm, spec((4096, 1024)), spec((1024,)), spec((1024,)))
    case("matmul_bf16_512", lambda a, b: a @ b, spec((512, 512), bf16), spec((512, 512), bf16))
    case("maxpool_nchw_8x64x112", maxpool_nchw, spec((8, 64, 112, 112)))
    case("avgpool_nhwc_8x112x64", avgpool_nhwc, spec((8, 112, 112, 64)))
    case("transpose_add_2048", lambda a, b: a.T + b, spec((2048, 2048)), spec((2048, 2048)))
    case("bottleneck_nhwc_56x256", bottleneck, spec((4, 56, 56, 256)), spec((1, 1, 256, 64)),
         spec((3, 3, 64, 64)), spec((1, 1, 64, 256)))
    case("conv1x1_nhwc_28x512", lambda x, w: conv(x, w), spec((8, 28, 28, 512)), spec((1, 1, 512, 128)))
    case("depthwise_nhwc_56x128", lambda x, w: conv(x, w, groups=128), spec((4, 56, 56, 128)),
         spec((3, 3, 1, 128)))
    d = 768
    case("transformer_256x768", transformer, spec((256, d)), spec((d,)), spec((d,)), spec((d, d)),
         spec((d, d)), spec((d, d)), spec((d, d)), spec((d,)), spec((d,)), spec((d, 4 * d)),
         spec((4 * d, d)))
    case("attention_scores_12x256x64", lambda q, k: jax.nn.softmax(jnp.einsum("hqd,hkd->hqk", q, k), -1),
         spec((12, 256, 64)), spec((12, 256, 64)))
    case("mlp_logsoftmax_b512", mlp, spec((512, 1024)), spec((1024, 1024)), spec((1024,)),
         spec((1024, 1024)), spec((1024,)), spec((1024, 10)), spec((10,)))
    case("heat_stencil_1024", heat_step, spec((1024, 1024)))
    case("nbody_512", nbody, spec((512, 3)), spec((512,)))
    case("gelu_tanh_4Mi", lambda x: jax.nn.gelu(x, approximate=True), spec((1 << 22,)))
    # Added after a cliff scan (session 11): a scan stacking its outputs,
    # top-k, a transposed convolution, a softmax over the outer axis, and a
    # small fori_loop.
    case("lstm_scan_64x32x256", lstm, spec((64, 32, 128)), spec((128, 1024)), spec((256, 1024)),
         spec((1024,)))
    case("topk_1024x4096_k8", lambda x: lax.top_k(x, 8)[0], spec((1024, 4096)))
    case("conv_transpose_nhwc_8x28x128",
         lambda x, w: lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
         spec((8, 28, 28, 128)), spec((3, 3, 128, 64)))
    case("softmax_axis0_4096x1024", lambda x: jax.nn.softmax(x, axis=0), spec((4096, 1024)))
    case("fori_vecmat_100x256", fori_vecmat, spec((100, 256)), spec((256, 256)))
    # Added after a cliff scan (session 12): reductions over outer axes with
    # the reduced value computed first (batch statistics, variance, norms).
    case("batchnorm_nhwc_32x56x64", batchnorm_nhwc, spec((32, 56, 56, 64)))
    case("var_axis0_4096x1024", lambda x: x.var(0), spec((4096, 1024)))
    case("l2norm_axis0_4096x1024", lambda x: x / jnp.sqrt((x * x).sum(0)), spec((4096, 1024)))
    # Added after a cliff scan (session 13): exact GELU (erf as JAX's
    # rational polynomials), reflect padding and roll (slices, reverses and
    # concatenates), an FFT, arg-reductions and normalizations over
    # non-contiguous axes.
    case("gelu_erf_4Mi", lambda x: jax.nn.gelu(x, approximate=False), spec((1 << 22,)))
    case("reflect_pad_nhwc_8x224x3",
         lambda x: jnp.pad(x, ((0, 0), (3, 3), (3, 3), (0, 0)), mode="reflect"), spec((8, 224, 224, 3)))
    case("roll_4096x1024", lambda x: jnp.roll(x, 17, axis=1), spec((4096, 1024)))
    case("rfft_abs_256x4096", lambda x: jnp.abs(jnp.fft.rfft(x)), spec((256, 4096)))
    case("argmax_axis0_4096x1024", lambda x: jnp.argmax(x, 0), spec((4096, 1024)))
    case("groupnorm_nhwc_8x56x128", groupnorm_nhwc, spec((8, 56, 56, 128)))
    case("batchnorm_nchw_32x64x56", batchnorm_nchw, spec((32, 64, 56, 56)))
    case("max_axis02_256x512x64", lambda x: jnp.max(x, axis=(0, 2)), spec((256, 512, 64)))
    # Added after a cliff scan (session 14): jax's PRNG (threefry: u32
    # rounds in a while loop), integer bit manipulation, clip/where, a
    # scatter with a min combiner, softmax over a middle axis, one-hot
    # cross entropy and an optimizer step.
    key = jax.random.PRNGKey(0)
    case("dropout_1024x4096",
         lambda x: jnp.where(jax.random.bernoulli(key, 0.9, x.shape), x / 0.9, 0), spec((1024, 4096)))
    case("int_bitops_4Mi",
         lambda x: ((x.view(jnp.int32) ^ (x.view(jnp.int32) >> 3)) * jnp.int32(-1640531535)) & 0xFFFF,
         spec((1 << 22,)))
    case("clip_where_4Mi", lambda x: jnp.where(x > 0.5, jnp.clip(x * 3, -1, 1), x * x - 0.25),
         spec((1 << 22,)))
    case("scatter_min_1Mi_4096",
         lambda x, p: jnp.full(4096, jnp.inf, jnp.float32).at[(jnp.abs(p) * 4096).astype(jnp.int32)].min(x),
         spec((1 << 20,)), spec((1 << 20,)))
    case("softmax_mid_64x512x64", lambda x: jax.nn.softmax(x, axis=1), spec((64, 512, 64)))
    case("xent_onehot_4096x1000",
         lambda x, y: -jnp.mean(jnp.sum(jax.nn.log_softmax(x)
                                        * jax.nn.one_hot((jnp.abs(y) * 1000).astype(jnp.int32), 1000), -1)),
         spec((4096, 1000)), spec((4096,)))

    def adam(p, g, m, v):
        m2 = 0.9 * m + 0.1 * g
        v2 = 0.999 * v + 0.001 * g * g
        return p - 1e-3 * (m2 / (1 - 0.9 ** 10)) / (jnp.sqrt(v2 / (1 - 0.999 ** 10)) + 1e-8), m2, v2
    case("adam_step_1Mi", adam, spec((1 << 20,)), spec((1 << 20,)), spec((1 << 20,)), spec((1 << 20,)))
    # Added after a cliff scan (session 15): loops with small bodies, where
    # the per-iteration cost of the runtime shows (a fori_loop on 64
    # values, a small RNN scan, a Newton iteration in a while_loop).
    case("fori_tiny_body_10k",
         lambda x: lax.fori_loop(0, 10000, lambda i, c: c * 0.5 + jnp.sin(c), x), spec((64,)))

    def rnn(xs, w, u):
        def step(h, x):
            h = jnp.tanh(h @ w + x @ u)
            return h, h
        return lax.scan(step, jnp.zeros((8, 64)), xs)[1]
    case("scan_rnn_256x8x64", rnn, spec((256, 8, 32)), spec((64, 64)), spec((32, 64)))

    def newton(x):
        def body(c):
            i, y = c
            return i + 1, y - (y * y - x) / (2 * y)
        return lax.while_loop(lambda c: c[0] < 30, body, (0, jnp.ones_like(x)))[1]
    case("newton_sqrt_30x4096", newton, spec((4096,)))
    # Gathers and index arithmetic (session 15 cliff scan): an embedding
    # lookup, take_along_axis (a gather with batching dims), searchsorted
    # (a while loop over u32/pred kernels) and a batch of tiny matmuls.
    case("embed_gather_32k_512",
         lambda e, i: e[(jnp.abs(i) * 32000).astype(jnp.int32)], spec((32000, 512)), spec((8192,)))
    case("take_along_axis_1024x1024",
         lambda x, i: jnp.take_along_axis(x, (jnp.abs(i) * 1024).astype(jnp.int32), axis=1),
         spec((1024, 1024)), spec((1024, 1024)))
    case("searchsorted_1M_4096", lambda a, v: jnp.searchsorted(jnp.sort(a), v), spec((4096,)), spec((1 << 20,)))
    case("bmm_small_4096x8x8", lambda a, b: jnp.einsum('bij,bjk->bik', a, b),
         spec((4096, 8, 8)), spec((4096, 8, 8)))
    # Scientific / data-processing cliff scan (session 17, helper B): sorts
    # and order statistics, resampling, powers, histograms, segment sums,
    # an FFT convolution, pairwise distances, a 1-D convolution, small
    # contractions, top-k and interpolation.
    case("sort_1Mi", lambda x: jnp.sort(x), spec((1 << 20,)))
    case("argsort_rows_256x4096", lambda x: jnp.argsort(x, axis=1), spec((256, 4096)))
    case("median_rows_256x4096", lambda x: jnp.median(x, axis=1), spec((256, 4096)))
    case("percentile_rows_256x4096", lambda x: jnp.percentile(x, jnp.array([10.0, 50.0, 90.0]), axis=1),
         spec((256, 4096)))
    case("resize_bilinear_8x64x64x32", lambda x: jax.image.resize(x, (8, 128, 128, 32), "bilinear"),
         spec((8, 64, 64, 32)))
    case("pow_abs_1p5_4Mi", lambda x: jnp.abs(x) ** 1.5, spec((1 << 22,)))
    case("pow_2p2_4Mi", lambda x: x ** 2.2, spec((1 << 22,)))
    case("histogram_1Mi_256", lambda x: jnp.histogram(x, bins=256)[0], spec((1 << 20,)))
    case("segment_sum_1Mi_4096",
         lambda x: jax.ops.segment_sum(x, jnp.arange(x.shape[0]) // 256, num_segments=4096),
         spec((1 << 20,)))
    case("fft_conv2d_16x256x256",
         lambda x, w: jnp.fft.irfft2(jnp.fft.rfft2(x) * jnp.fft.rfft2(w), s=(256, 256)),
         spec((16, 256, 256)), spec((256, 256)))
    case("cdist_bcast_2048x64",
         lambda a, b: jnp.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)),
         spec((2048, 64)), spec((2048, 64)))
    case("conv1d_nwc_16x4096x64_k5",
         lambda x, w: lax.conv_general_dilated(x, w, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")),
         spec((16, 4096, 64)), spec((5, 64, 64)))
    case("einsum_small_inner_1024x64x4x64", lambda a, b: jnp.einsum("bij,bjk->bik", a, b),
         spec((1024, 64, 4)), spec((1024, 4, 64)))
    case("topk_4096x1024_k16", lambda x: lax.top_k(x, 16)[0], spec((4096, 1024)))
    case("interp_1Mi_1024", lambda x, fp: jnp.interp(x, jnp.linspace(-1, 1, 1024), fp),
         spec((1 << 20,)), spec((1024,)))


def training():
    """Training steps (session 17 cliff scan): gradients of everyday losses
    and optimizer updates, as a new user writes them."""
    def xent(logits, onehot):
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * onehot, -1))

    def mlp_loss(params, x, y):
        w1, b1, w2, b2 = params
        h = jax.nn.relu(x @ w1 + b1)
        return xent(h @ w2 + b2, y)
    case("grad_mlp_xent_b256", jax.grad(mlp_loss),
         (spec((784, 512)), spec((512,)), spec((512, 10)), spec((10,))), spec((256, 784)), spec((256, 10)))
    case("value_and_grad_mlp_xent_b256", jax.value_and_grad(mlp_loss),
         (spec((784, 512)), spec((512,)), spec((512, 10)), spec((10,))), spec((256, 784)), spec((256, 10)))

    def attn_loss(w, x, heads):
        return jnp.sum(attention(x, *w, heads) ** 2)
    d = 768
    case("grad_attention_1head_256x768", jax.grad(lambda w, x: attn_loss(w, x, 1)),
         tuple(spec((d, d)) for _ in range(4)), spec((256, d)))
    case("grad_attention_8head_128x512", jax.grad(lambda w, x: attn_loss(w, x, 8)),
         tuple(spec((512, 512)) for _ in range(4)), spec((128, 512)))
    case("grad_layernorm_4096x1024", jax.grad(lambda x, g, b: jnp.sum(layernorm(x, g, b) ** 2), (0, 1, 2)),
         spec((4096, 1024)), spec((1024,)), spec((1024,)))

    def conv_loss(w, x):
        return jnp.sum(jax.nn.relu(conv(x, w)).mean((1, 2)) ** 2)
    case("grad_conv_relu_pool_nhwc_8x32x64", jax.grad(conv_loss, (0, 1)),
         spec((3, 3, 64, 64)), spec((8, 32, 32, 64)))

    def gelu_block_loss(w, x):
        w1, w2 = w
        return jnp.sum((x + jax.nn.gelu(x @ w1) @ w2) ** 2)
    case("grad_gelu_mlp_256x768", jax.grad(gelu_block_loss), (spec((768, 3072)), spec((3072, 768))),
         spec((256, 768)))

    shapes = ((784, 512), (512,), (512, 512), (512,), (512, 10), (10,))

    def sgd_momentum(p, g, m):
        m2 = tuple(0.9 * mi + gi for mi, gi in zip(m, g))
        return tuple(pi - 0.01 * mi for pi, mi in zip(p, m2)), m2
    ps = tuple(spec(s) for s in shapes)
    case("sgd_momentum_tuple_mlp", sgd_momentum, ps, ps, ps)

    def adamw(p, g, m, v):
        m2 = tuple(0.9 * mi + 0.1 * gi for mi, gi in zip(m, g))
        v2 = tuple(0.999 * vi + 0.001 * gi * gi for vi, gi in zip(v, g))
        p2 = tuple(pi - 1e-3 * ((mi / 0.65) / (jnp.sqrt(vi / 0.01) + 1e-8) + 0.01 * pi)
                   for pi, mi, vi in zip(p, m2, v2))
        return p2, m2, v2
    case("adamw_tuple_mlp", adamw, ps, ps, ps, ps)

    def bf16_loss(w, x):
        return jnp.sum((x.astype(bf16) @ w.astype(bf16)).astype(f32) ** 2)
    case("grad_matmul_bf16_512", jax.grad(bf16_loss, (0, 1)), spec((512, 512)), spec((512, 512)))
    case("grad_xent_onehot_4096x1000", jax.grad(xent), spec((4096, 1000)), spec((4096, 1000)))


def inference_mix():
    """Session 17's lead scan: layouts and types of everyday inference that
    the sets above miss (interleaved pairs, nearest upsampling, depthwise
    convolutions, quantized and bf16 products, matrix-vector products,
    normalization over a middle axis)."""
    def rope(x, cos, sin):
        x1, x2 = x[..., ::2], x[..., 1::2]
        return jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).reshape(x.shape)
    case("rope_8x1024x128", rope, spec((8, 1024, 128)), spec((1024, 64)), spec((1024, 64)))
    case("upsample_nearest_8x64x64x32", lambda x: jax.image.resize(x, (8, 128, 128, 32), "nearest"),
         spec((8, 64, 64, 32)))

    def dwsep(x, dw, pw):
        y = jax.nn.relu(conv(x, dw, groups=x.shape[-1]))
        return conv(y, pw)
    case("dwsep_nhwc_8x56x128", dwsep, spec((8, 56, 56, 128)), spec((3, 3, 1, 128)),
         spec((1, 1, 128, 128)))

    def int8_matmul(a, b):
        q = lambda t: jnp.round(t * 100).astype(jnp.int8)
        return lax.dot(q(a), q(b), preferred_element_type=jnp.int32).astype(f32)
    case("int8_matmul_512", int8_matmul, spec((512, 512)), spec((512, 512)))
    case("bf16_gelu_mlp_256x1024",
         lambda x, w1, w2: (jax.nn.gelu(x.astype(bf16) @ w1.astype(bf16)) @ w2.astype(bf16)).astype(f32),
         spec((256, 1024)), spec((1024, 4096)), spec((4096, 1024)))
    case("matvec_4096", lambda a, x: a @ x, spec((4096, 4096)), spec((4096,)))
    case("vecmat_4096", lambda x, a: x @ a, spec((4096,)), spec((4096, 4096)))

    def ln_channels_nchw(x):
        m = x.mean(1, keepdims=True)
        v = ((x - m) ** 2).mean(1, keepdims=True)
        return (x - m) * lax.rsqrt(v + 1e-6)
    case("ln_channels_nchw_16x96x56", ln_channels_nchw, spec((16, 96, 56, 56)))
    case("l2norm_axis1_64x512x64", lambda x: x / jnp.linalg.norm(x, axis=1, keepdims=True),
         spec((64, 512, 64)))

    def causal_attn(q, k, v):
        s = jnp.einsum("hqd,hkd->hqk", q, k) / 8.0
        n = s.shape[-1]
        s = jnp.where(jnp.tril(jnp.ones((n, n), bool)), s, -1e9)
        return jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(s, -1), v)
    case("causal_attn_8x512x64", causal_attn, spec((8, 512, 64)), spec((8, 512, 64)),
         spec((8, 512, 64)))


if __name__ == "__main__":
    main()
    training()
    inference_mix()
