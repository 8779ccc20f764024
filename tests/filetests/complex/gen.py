"""Generates the complex and fft filetests in this folder from numpy.

Run with a Python that has numpy: `python gen.py` rewrites the `.hlo`
files next to it. Expected values are numpy's (complex64 inputs, the
transforms computed in complex128 and rounded to the result type).
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def f32s(x):
    return np.format_float_positional(np.float32(x), unique=True, trim="-")


def f64s(x):
    return np.format_float_positional(np.float64(x), unique=True, trim="-")


def elem(v, dt):
    fmt = f32s if dt in (np.complex64, np.float32) else f64s
    if np.iscomplexobj(v):
        return "(%s, %s)" % (fmt(v.real), fmt(v.imag))
    if v.dtype == np.bool_:
        return "true" if v else "false"
    return fmt(v)


def lit(a):
    a = np.asarray(a)
    dt = a.dtype.type
    if a.ndim == 0:
        return elem(a[()], dt)

    def rec(x, d):
        if x.ndim == 1:
            return "{" + ", ".join(elem(e, dt) for e in x) + "}"
        return "{ " + ", ".join(rec(e, d + 1) for e in x) + " }"

    return rec(a, 0)


def tup(*xs):
    return "(" + ", ".join(lit(x) for x in xs) + ")"


def write(name, text):
    with open(os.path.join(HERE, name), "w") as fh:
        fh.write(text)


rng = np.random.default_rng(22)


def c64(*shape):
    return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(np.complex64)


def f32(*shape):
    return rng.uniform(-2, 2, shape).astype(np.float32)


# ---------------------------------------------------------------- arithmetic
re, im, b = f32(4), f32(4), c64(4)
a = (re.astype(np.complex64) + 1j * im.astype(np.complex64)).astype(np.complex64)
outs = (a + b, a - b, a * b, a / b, -a, (a * b).real, (a * b).imag, np.abs(a))
write("arith.hlo", f"""// c64 arithmetic: complex, add, subtract, multiply, divide, negate,
// real, imag, abs (numpy complex64 values from gen.py), on the evaluator,
// the JIT (complex instructions run as interpreter steps) and after O2.
// test: interp, roundtrip, jit-fallback, opt --pipeline=O2
// run: ({lit(re)}, {lit(im)}, {lit(b)}) ~= {tup(*outs)}
// run: ({{2, 0, 3, -1}}, {{4, 0, 4, -0}}, {{(1, 1), (2, -3), (0, 1), (1, 0)}}) == ({{(3, 5), (2, -3), (3, 5), (0, 0)}}, {{(1, 3), (-2, 3), (3, 3), (-2, -0)}}, {{(-2, 6), (0, 0), (-4, 3), (-1, -0)}}, {{(3, 1), (-0, 0), (4, -3), (-1, 0)}}, {{(-2, -4), (-0, -0), (-3, -4), (1, 0)}}, {{-2, 0, -4, -1}}, {{6, 0, 3, -0}}, {{4.472136, 0, 5, 1}})
HloModule complex_arith

ENTRY main {{
  re = f32[4]{{0}} parameter(0)
  im = f32[4]{{0}} parameter(1)
  b = c64[4]{{0}} parameter(2)
  a = c64[4]{{0}} complex(re, im)
  s = c64[4]{{0}} add(a, b)
  d = c64[4]{{0}} subtract(a, b)
  m = c64[4]{{0}} multiply(a, b)
  q = c64[4]{{0}} divide(a, b)
  n = c64[4]{{0}} negate(a)
  mr = f32[4]{{0}} real(m)
  mi = f32[4]{{0}} imag(m)
  ab = f32[4]{{0}} abs(a)
  ROOT t = (c64[4]{{0}}, c64[4]{{0}}, c64[4]{{0}}, c64[4]{{0}}, c64[4]{{0}}, f32[4]{{0}}, f32[4]{{0}}, f32[4]{{0}}) tuple(s, d, m, q, n, mr, mi, ab)
}}
""")

# ------------------------------------------------------------ transcendentals
x = c64(5)
y = c64(5)
x128 = x.astype(np.complex128)
with np.errstate(all="ignore"):
    outs = [np.exp(x128), np.log(x128), np.sqrt(x128), 1 / np.sqrt(x128), np.tanh(x128),
            np.sin(x128), np.cos(x128), x128 / np.abs(x128), np.power(x128, y.astype(np.complex128)),
            np.expm1(x128), np.log1p(x128)]
outs = [o.astype(np.complex64) for o in outs]
names = ["exponential", "log", "sqrt", "rsqrt", "tanh", "sine", "cosine", "sign"]
body = "\n".join(f"  u{i} = c64[5]{{0}} {n}(x)" for i, n in enumerate(names))
write("transcendental.hlo", f"""// c64 transcendentals against numpy (complex128, rounded): exp, log,
// sqrt, rsqrt, tanh, sin, cos, sign, power, expm1, log1p; rtol 1e-5.
// test: interp, roundtrip, jit-fallback
// run: ({lit(x)}, {lit(y)}) ~= {tup(*outs)}
HloModule complex_transcendental

ENTRY main {{
  x = c64[5]{{0}} parameter(0)
  y = c64[5]{{0}} parameter(1)
{body}
  p = c64[5]{{0}} power(x, y)
  e1 = c64[5]{{0}} exponential-minus-one(x)
  l1 = c64[5]{{0}} log-plus-one(x)
  ROOT t = ({", ".join(["c64[5]{0}"] * 11)}) tuple(u0, u1, u2, u3, u4, u5, u6, u7, p, e1, l1)
}}
""")

# ------------------------------------------------- c128 dot, reduce, convert
l = (rng.uniform(-2, 2, (2, 3)) + 1j * rng.uniform(-2, 2, (2, 3)))
r = (rng.uniform(-2, 2, (3, 2)) + 1j * rng.uniform(-2, 2, (3, 2)))
s = f32(2, 3)
dot = l @ r
red = l.sum(axis=1)
prod = l.prod(axis=0)
conv = s.astype(np.complex64).astype(np.complex128)
eq = np.array([True, False, False, True])
write("c128_dot_reduce.hlo", f"""// c128 dot and reduce (add, multiply), convert f32 -> c64 -> c128,
// compare EQ/NE and select on complex (numpy values from gen.py).
// test: interp, roundtrip, jit-fallback, opt --pipeline=O2
// run: ({lit(l)}, {lit(r)}, {lit(s)}, {{(1, 2), (3, 4), (nan, 0), (-0, 0)}}, {{(1, 2), (3, -4), (nan, 0), (0, 0)}}) ~= ({lit(dot)}, {lit(red)}, {lit(prod)}, {lit(conv)}, {lit(eq)}, {lit(~eq)}, {{(1, 2), (3, -4), (nan, 0), (-0, 0)}})
HloModule complex_dot_reduce

add {{
  a = c128[] parameter(0)
  b = c128[] parameter(1)
  ROOT s = c128[] add(a, b)
}}

mul {{
  a = c128[] parameter(0)
  b = c128[] parameter(1)
  ROOT m = c128[] multiply(a, b)
}}

ENTRY main {{
  l = c128[2,3]{{1,0}} parameter(0)
  r = c128[3,2]{{1,0}} parameter(1)
  s = f32[2,3]{{1,0}} parameter(2)
  p = c64[4]{{0}} parameter(3)
  q = c64[4]{{0}} parameter(4)
  d = c128[2,2]{{1,0}} dot(l, r), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  zero = c128[] constant((0, 0))
  one = c128[] constant((1, 0))
  sum = c128[2]{{0}} reduce(l, zero), dimensions={{1}}, to_apply=add
  prod = c128[3]{{0}} reduce(l, one), dimensions={{0}}, to_apply=mul
  c = c64[2,3]{{1,0}} convert(s)
  cw = c128[2,3]{{1,0}} convert(c)
  eq = pred[4]{{0}} compare(p, q), direction=EQ
  ne = pred[4]{{0}} compare(p, q), direction=NE
  sel = c64[4]{{0}} select(eq, p, q)
  ROOT t = (c128[2,2]{{1,0}}, c128[2]{{0}}, c128[3]{{0}}, c128[2,3]{{1,0}}, pred[4]{{0}}, pred[4]{{0}}, c64[4]{{0}}) tuple(d, sum, prod, cw, eq, ne, sel)
}}
""")

# ------------------------------------------------------------ data movement
m = np.array([[1 + 2j, 3 + 4j, 5 + 6j], [7 + 8j, 9 + 10j, 11 + 12j]], np.complex64)
pad = np.full((4, 5), -1 - 1j, np.complex64)
pad[1:3, 1:4] = m
write("movement.hlo", f"""// Data movement on c64 is element-size generic: transpose, reshape,
// broadcast, slice, concatenate, pad (complex padding value), reverse,
// dynamic-slice, copy to column-major, bitcast between equal c64 shapes
// (bit-exact).
// test: interp, roundtrip, jit-fallback, opt --pipeline=O2
// run: ({lit(m)}) == ({lit(m.T)}, {lit(m.reshape(3, 2))}, {lit(np.broadcast_to(m, (2, 2, 3)))}, {lit(m[:, 1:3])}, {lit(np.concatenate([m, m], 0))}, {lit(pad)}, {lit(m[::-1, ::-1])}, {lit(m[1:2, 1:3])}, {lit(m)}, {lit(m.reshape(6))})
HloModule complex_movement

ENTRY main {{
  m = c64[2,3]{{1,0}} parameter(0)
  t = c64[3,2]{{1,0}} transpose(m), dimensions={{1,0}}
  r = c64[3,2]{{1,0}} reshape(m)
  b = c64[2,2,3]{{2,1,0}} broadcast(m), dimensions={{1,2}}
  s = c64[2,2]{{1,0}} slice(m), slice={{[0:2], [1:3]}}
  c = c64[4,3]{{1,0}} concatenate(m, m), dimensions={{0}}
  pv = c64[] constant((-1, -1))
  p = c64[4,5]{{1,0}} pad(m, pv), padding=1_1x1_1
  v = c64[2,3]{{1,0}} reverse(m), dimensions={{0,1}}
  i1 = s32[] constant(1)
  i9 = s32[] constant(9)
  ds = c64[1,2]{{1,0}} dynamic-slice(m, i1, i9), dynamic_slice_sizes={{1,2}}
  cm = c64[2,3]{{0,1}} copy(m)
  bc = c64[6]{{0}} bitcast(m)
  ROOT tt = (c64[3,2]{{1,0}}, c64[3,2]{{1,0}}, c64[2,2,3]{{2,1,0}}, c64[2,2]{{1,0}}, c64[4,3]{{1,0}}, c64[4,5]{{1,0}}, c64[2,3]{{1,0}}, c64[1,2]{{1,0}}, c64[2,3]{{0,1}}, c64[6]{{0}}) tuple(t, r, b, s, c, p, v, ds, cm, bc)
}}
""")

# ------------------------------------------------------------------- fft
x1 = c64(2, 8)
xr = f32(2, 8)
spec = np.fft.rfft(xr.astype(np.float64)).astype(np.complex64)
write("fft_1d.hlo", f"""// 1-D fft of each type against numpy.fft (f64, rounded): FFT, IFFT
// (scaled by 1/n), RFFT (n/2+1 outputs), IRFFT (odd and even lengths).
// test: interp, roundtrip, jit-fallback
// run: ({lit(x1)}, {lit(xr)}, {lit(spec)}) ~= ({lit(np.fft.fft(x1.astype(np.complex128)).astype(np.complex64))}, {lit(np.fft.ifft(x1.astype(np.complex128)).astype(np.complex64))}, {lit(spec)}, {lit(np.fft.irfft(spec.astype(np.complex128), 8).astype(np.float32))}, {lit(np.fft.irfft(spec.astype(np.complex128), 9).astype(np.float32))})
HloModule fft_1d

ENTRY main {{
  x = c64[2,8]{{1,0}} parameter(0)
  xr = f32[2,8]{{1,0}} parameter(1)
  sp = c64[2,5]{{1,0}} parameter(2)
  f = c64[2,8]{{1,0}} fft(x), fft_type=FFT, fft_length={{8}}
  i = c64[2,8]{{1,0}} fft(x), fft_type=IFFT, fft_length={{8}}
  r = c64[2,5]{{1,0}} fft(xr), fft_type=RFFT, fft_length={{8}}
  ir = f32[2,8]{{1,0}} fft(sp), fft_type=IRFFT, fft_length={{8}}
  ir9 = f32[2,9]{{1,0}} fft(sp), fft_type=IRFFT, fft_length={{9}}
  ROOT t = (c64[2,8]{{1,0}}, c64[2,8]{{1,0}}, c64[2,5]{{1,0}}, f32[2,8]{{1,0}}, f32[2,9]{{1,0}}) tuple(f, i, r, ir, ir9)
}}
""")

x3 = c64(2, 3, 4)
xr3 = rng.uniform(-2, 2, (2, 3, 4))
spec3 = np.fft.rfftn(xr3, axes=(1, 2))
write("fft_nd.hlo", f"""// 2-D and 3-D fft against numpy.fft: FFT over 2 dims, IFFT over 3
// dims, RFFT over 3 dims (c128 from f64), IRFFT over 2 dims.
// test: interp, roundtrip, jit-fallback
// run: ({lit(x3)}, {lit(xr3)}, {lit(spec3)}) ~= ({lit(np.fft.fftn(x3.astype(np.complex128), axes=(1, 2)).astype(np.complex64))}, {lit(np.fft.ifftn(x3.astype(np.complex128)).astype(np.complex64))}, {lit(np.fft.rfftn(xr3))}, {lit(np.fft.irfftn(spec3, s=(3, 4), axes=(1, 2)))})
HloModule fft_nd

ENTRY main {{
  x = c64[2,3,4]{{2,1,0}} parameter(0)
  xr = f64[2,3,4]{{2,1,0}} parameter(1)
  sp = c128[2,3,3]{{2,1,0}} parameter(2)
  f = c64[2,3,4]{{2,1,0}} fft(x), fft_type=FFT, fft_length={{3,4}}
  i = c64[2,3,4]{{2,1,0}} fft(x), fft_type=IFFT, fft_length={{2,3,4}}
  r = c128[2,3,3]{{2,1,0}} fft(xr), fft_type=RFFT, fft_length={{2,3,4}}
  ir = f64[2,3,4]{{2,1,0}} fft(sp), fft_type=IRFFT, fft_length={{3,4}}
  ROOT t = (c64[2,3,4]{{2,1,0}}, c64[2,3,4]{{2,1,0}}, c128[2,3,3]{{2,1,0}}, f64[2,3,4]{{2,1,0}}) tuple(f, i, r, ir)
}}
""")

# ------------------------------------------- native fft and complex steps
# (the JIT's fft step in the element type and its complex host step: `jit`
# without the interpreter fallback; odd lengths, length 1, batch dims,
# leading transformed dims gathered as strided lines, c128).
def shp(ty, a):
    return "%s[%s]{%s}" % (ty, ",".join(map(str, a.shape)), ",".join(map(str, range(a.ndim - 1, -1, -1))))


cases = []
for n in (1, 2, 5, 12):
    x = c64(2, 3, n)
    cases.append(("FFT", (n,), x, np.fft.fft(x.astype(np.complex128)).astype(np.complex64)))
    cases.append(("IFFT", (n,), x, np.fft.ifft(x.astype(np.complex128)).astype(np.complex64)))
    xr = f32(3, n)
    cases.append(("RFFT", (n,), xr, np.fft.rfft(xr.astype(np.float64)).astype(np.complex64)))
    sp = c64(3, n // 2 + 1)
    cases.append(("IRFFT", (n,), sp, np.fft.irfft(sp.astype(np.complex128), n).astype(np.float32)))
x = c64(2, 5, 6)
cases.append(("FFT", (5, 6), x, np.fft.fftn(x.astype(np.complex128), axes=(1, 2)).astype(np.complex64)))
cases.append(("IFFT", (2, 5, 6), x, np.fft.ifftn(x.astype(np.complex128)).astype(np.complex64)))
xr = f32(2, 3, 4, 7)
cases.append(("RFFT", (3, 4, 7), xr, np.fft.rfftn(xr.astype(np.float64), axes=(1, 2, 3)).astype(np.complex64)))
xr = f32(2, 17, 8)
cases.append(("RFFT", (17, 8), xr, np.fft.rfftn(xr.astype(np.float64), axes=(1, 2)).astype(np.complex64)))
sp = c64(2, 5, 4)
cases.append(("IRFFT", (5, 6), sp, np.fft.irfftn(sp.astype(np.complex128), s=(5, 6), axes=(1, 2)).astype(np.float32)))
sp = c64(2, 3, 5, 4)
cases.append(("IRFFT", (3, 5, 7), sp, np.fft.irfftn(sp.astype(np.complex128), s=(3, 5, 7), axes=(1, 2, 3)).astype(np.float32)))


def fft_module(name, cases, comment, tol=""):
    params = "\n".join(f"  p{i} = {shp(ty(a), a)} parameter({i})" for i, (_, _, a, _) in enumerate(cases))
    body = "\n".join(
        f"  f{i} = {shp(ty(o), o)} fft(p{i}), fft_type={t}, fft_length={{{','.join(map(str, ln))}}}"
        for i, (t, ln, _, o) in enumerate(cases)
    )
    outs = ", ".join(shp(ty(o), o) for (_, _, _, o) in cases)
    names = ", ".join(f"f{i}" for i in range(len(cases)))
    args = ", ".join(lit(a) for (_, _, a, _) in cases)
    want = ", ".join(lit(o) for (_, _, _, o) in cases)
    write(name, f"""{comment}
// test: interp, jit, roundtrip
{tol}// run: ({args}) ~= ({want})
HloModule {name[:-4]}

ENTRY main {{
{params}
{body}
  ROOT t = ({outs}) tuple({names})
}}
""")


def ty(a):
    return {np.complex64: "c64", np.complex128: "c128", np.float32: "f32", np.float64: "f64"}[a.dtype.type]


fft_module("fft_native_c64.hlo", cases, """// The JIT's native fft step in f32 (c64/f32) against numpy.fft (f64,
// rounded): every type, lengths 1, 2, odd and even, batch dims, 2-D and
// 3-D transforms (leading dims transformed as gathered strided lines),
// even real lengths through the half-length packing.""")
cases128 = [(t, ln, a.astype(np.complex128 if np.iscomplexobj(a) else np.float64),
             o.astype(np.complex128 if np.iscomplexobj(o) else np.float64)) for (t, ln, a, o) in cases]
cases128 = [(t, ln, a, {"FFT": lambda a: np.fft.fftn(a, axes=tuple(range(-len(ln), 0))),
                        "IFFT": lambda a: np.fft.ifftn(a, axes=tuple(range(-len(ln), 0))),
                        "RFFT": lambda a: np.fft.rfftn(a, axes=tuple(range(-len(ln), 0))),
                        "IRFFT": lambda a: np.fft.irfftn(a, s=ln, axes=tuple(range(-len(ln), 0)))}[t](a))
            for (t, ln, a, o) in cases128]
fft_module("fft_native_c128.hlo", cases128, """// The JIT's native fft step in f64 (c128/f64) against numpy.fft: the
// cases of fft_native_c64.hlo in double precision.""", "// tolerance: rtol=1e-12 atol=1e-13\n")

inf, nan = np.inf, np.nan
zr = np.array([3, -0.0, inf, nan, 1e30, 1e-40, -5, 0, inf, -inf, 2, 1e-45], np.float32)
zi = np.array([4, -0.0, nan, 1, 1e30, 1e-40, 0, -0.0, -inf, 3, nan, 1e-45], np.float32)
with np.errstate(all="ignore"):
    z = zr.astype(np.complex64) + 1j * zi.astype(np.complex64)
    z = np.array([complex(a, b) for a, b in zip(zr, zi)], np.complex64)
    w = z[::-1].copy()
    absz = np.hypot(zr.astype(np.float64), zi.astype(np.float64)).astype(np.float32)
write("complex_steps_jit.hlo", f"""// Complex elementwise ops on the JIT's complex host step and c64 data
// movement as u64 kernels (no interpreter fallback), bit for bit: abs
// (inf beats NaN, subnormals, 1e30 parts without overflow), real, imag,
// negate (signed zeros), add, multiply, complex, convert f32 -> c64 ->
// c128 -> c64, broadcast, transpose, slice, concatenate, pad, reverse,
// select. The second run line checks the evaluator's own values (the
// first its special cases).
// test: interp, jit, roundtrip
// run: ({lit(zr)}, {lit(zi)}) == ({lit(absz)}, {lit(zr)}, {lit(zi)}, {lit(-z)}, {lit(z + w)}, {lit(np.array([1,2,3], np.float32).astype(np.complex64))}, {lit(np.broadcast_to(z[:3], (2, 3)).T)}, {lit(np.concatenate([z[4:6], z[:1]]))})
HloModule complex_steps_jit

ENTRY main {{
  zr = f32[12]{{0}} parameter(0)
  zi = f32[12]{{0}} parameter(1)
  z = c64[12]{{0}} complex(zr, zi)
  a = f32[12]{{0}} abs(z)
  re = f32[12]{{0}} real(z)
  im = f32[12]{{0}} imag(z)
  n = c64[12]{{0}} negate(z)
  w = c64[12]{{0}} reverse(z), dimensions={{0}}
  s = c64[12]{{0}} add(z, w)
  one = f32[3]{{0}} constant({{1, 2, 3}})
  oc = c64[3]{{0}} convert(one)
  ow = c128[3]{{0}} convert(oc)
  on = c64[3]{{0}} convert(ow)
  z3 = c64[3]{{0}} slice(z), slice={{[0:3]}}
  b = c64[2,3]{{1,0}} broadcast(z3), dimensions={{1}}
  t = c64[3,2]{{1,0}} transpose(b), dimensions={{1,0}}
  z2 = c64[2]{{0}} slice(z), slice={{[4:6]}}
  z1 = c64[1]{{0}} slice(z), slice={{[0:1]}}
  c = c64[3]{{0}} concatenate(z2, z1), dimensions={{0}}
  ROOT r = (f32[12]{{0}}, f32[12]{{0}}, f32[12]{{0}}, c64[12]{{0}}, c64[12]{{0}}, c64[3]{{0}}, c64[3,2]{{1,0}}, c64[3]{{0}}) tuple(a, re, im, n, s, on, t, c)
}}
""")
print("ok")
