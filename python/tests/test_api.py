"""The rxla Python API: compile/run (arguments, dtypes, layouts, tuples,
zero-copy), time, stats, optimize (with the IR log), check and HloError,
and that errors are exceptions."""

import threading

import numpy as np
import pytest

import rxla
from conftest import REPO

CORPUS = REPO / "tests" / "corpus"


def read(name):
    return (CORPUS / name).read_text()


def test_add_and_signature(add_hlo):
    exe = rxla.compile(add_hlo)
    assert exe.params == [("float32", (2, 3)), ("float32", (2, 3))]
    assert exe.results == [("float32", (2, 3))]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.full((2, 3), 0.5, np.float32)
    out = exe(x, y)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, x + y)
    assert "rxla.Executable" in repr(exe)


def test_tuple_result_is_a_tuple():
    exe = rxla.compile(read("dot_vector.hlo"))
    u = np.arange(5, dtype=np.float32)
    v = np.ones(5, np.float32)
    m = np.arange(20, dtype=np.float32).reshape(4, 5)
    out = exe(u, v, m)
    assert isinstance(out, tuple) and len(out) == 3
    np.testing.assert_allclose(out[0], u @ v)
    np.testing.assert_allclose(out[1], m @ v)
    np.testing.assert_allclose(out[2], u[:4] @ m)
    assert out[0].shape == ()


def test_nested_tuple_result():
    hlo = """HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  n = s32[] parameter(1)
  neg = f32[2] negate(a)
  inner = (s32[], f32[2]) tuple(n, neg)
  ROOT t = (f32[2], (s32[], f32[2])) tuple(a, inner)
}
"""
    exe = rxla.compile(hlo)
    a = np.array([1.0, -2.0], np.float32)
    x, (n, neg) = exe(a, np.int32(7))
    np.testing.assert_array_equal(x, a)
    assert n == 7 and n.dtype == np.int32
    np.testing.assert_array_equal(neg, -a)


def test_pipelines(add_hlo):
    x = np.ones((2, 3), np.float32)
    for p in ["O0", "O1", "O2", None, "inline,cse,dce", ["cse", "dce"]]:
        np.testing.assert_array_equal(rxla.compile(add_hlo, p)(x, x), 2 * x)
    with pytest.raises(ValueError):
        rxla.compile(add_hlo, "no-such-pass")
    assert dict(rxla.PIPELINES)["O1"].startswith("inline")
    assert "cse" in rxla.PASSES


def test_argument_count_dtype_shape_errors(add_hlo):
    exe = rxla.compile(add_hlo)
    x = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match="2 argument"):
        exe(x)
    with pytest.raises(TypeError, match="2 argument"):
        exe(x, x, x)
    with pytest.raises(TypeError, match="dtype float64, expected float32"):
        exe(x, x.astype(np.float64))
    with pytest.raises(ValueError, match=r"shape \[3, 2\], expected \[2, 3\]"):
        exe(x, np.ones((3, 2), np.float32))
    with pytest.raises(TypeError, match="dtype complex64, expected float32"):
        exe(x, x.astype(np.complex64))
    with pytest.raises(TypeError, match="no HLO element type"):
        exe(x, np.zeros((2, 3), dtype="U1"))
    with pytest.raises(TypeError):
        exe(x, "not an array")


def test_native_layer_checks_its_buffers(add_hlo):
    # The private native entry point checks every buffer itself.
    native = rxla.compile(add_hlo)._native
    x = np.ones((2, 3), np.float32)
    out = np.empty((2, 3), np.float32)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        native.run([x, [1, 2]], [out])
    with pytest.raises(ValueError, match="C-contiguous"):
        native.run([x, np.ones((3, 2), np.float32).T], [out])
    ro = np.empty((2, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        native.run([x, x], [ro])
    with pytest.raises(ValueError, match="overlaps"):
        native.run([x, out], [out])
    with pytest.raises(ValueError, match="byte order"):
        native.run([x, x.astype(">f4")], [out])


def test_zero_copy_in_and_out(add_hlo):
    exe = rxla.compile(add_hlo)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    # A contiguous input is passed as it is (the native layer reads its
    # memory in place) ...
    assert rxla._as_input(x) is x
    # ... a non-contiguous one is copied into row-major order.
    t = np.arange(6, dtype=np.float32).reshape(3, 2).T
    c = rxla._as_input(t)
    assert c is not t and c.flags.c_contiguous and not np.shares_memory(c, t)
    np.testing.assert_array_equal(exe(x, t), x + t)
    # The result is written straight into the array the caller gives.
    out = np.zeros((2, 3), np.float32)
    exe._native.run([x, x], [out])
    np.testing.assert_array_equal(out, 2 * x)
    # A view into a larger buffer (offset, contiguous) is read in place too.
    big = np.arange(12, dtype=np.float32)
    view = big[6:].reshape(2, 3)
    assert rxla._as_input(view) is view
    np.testing.assert_array_equal(exe(view, x), view + x)


def test_other_inputs_are_converted(add_hlo):
    exe = rxla.compile(add_hlo)
    lists = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    np.testing.assert_array_equal(
        exe(np.array(lists, np.float32), np.array(lists, ">f4")), 2 * np.array(lists)
    )


def test_non_default_layouts():
    # Parameter and result in column-major layout: the caller still sees
    # row-major numpy arrays with the logical values.
    hlo = """HloModule t, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{0,1}}
ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  ROOT t = f32[3,2]{0,1} transpose(p), dimensions={1,0}
}
"""
    exe = rxla.compile(hlo, None)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(exe(x), x.T)


DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "float16", "bfloat16", "float32", "float64"]
HLO_TYPES = dict(zip(DTYPES, ["pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32",
                              "u64", "f16", "bf16", "f32", "f64"]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_round_trip(dtype):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    t = HLO_TYPES[dtype]
    op = "or" if t == "pred" else "maximum"
    hlo = f"""HloModule m
ENTRY e {{
  a = {t}[2,3] parameter(0)
  b = {t}[2,3] parameter(1)
  ROOT r = {t}[2,3] {op}(a, b)
}}
"""
    exe = rxla.compile(hlo)
    dt = rxla._dtype(dtype)
    a = np.array([[0, 1, 5], [7, 2, 0]]).astype(dt)
    b = np.array([[1, 0, 3], [9, 2, 1]]).astype(dt)
    out = exe(a, b)
    assert out.dtype == dt
    want = (a | b) if dtype == "bool" else np.maximum(a.astype(np.float64), b.astype(np.float64)).astype(dt)
    np.testing.assert_array_equal(out, want)


def test_empty_and_scalar_arrays():
    hlo = """HloModule m
ENTRY e {
  a = f32[0,4] parameter(0)
  s = f32[] parameter(1)
  n = f32[0,4] negate(a)
  ROOT t = (f32[0,4], f32[]) tuple(n, s)
}
"""
    exe = rxla.compile(hlo)
    e, s = exe(np.zeros((0, 4), np.float32), np.float32(2.5))
    assert e.shape == (0, 4) and s.shape == () and s == 2.5


def test_time_and_stats():
    exe = rxla.compile(read("mlp.hlo"))
    args = [np.full(s, 0.25, d) for d, s in exe.params]
    t = exe.time(*args, runs=5)
    assert t["runs"] == 5 and 0 < t["min"] <= t["median"] <= t["max"]
    with pytest.raises(ValueError):
        exe.time(*args, runs=0)
    s = exe.stats
    for k in ["isa", "kernels", "vectorized_kernels", "fallbacks", "runtime_calls",
              "host_steps", "row_groups", "compile_seconds", "pipeline"]:
        assert k in s
    assert s["kernels"] >= 1 and s["fallbacks"] == [] and s["pipeline"] == "O2"
    assert "gemm" in s["isa"]
    assert "HloModule" in exe.optimized_hlo


def test_compile_without_fallback_reports_compile_error():
    # An op the JIT has no native code for: with fallback=False, an error.
    hlo = """HloModule m
ENTRY e {
  a = f32[8] parameter(0)
  ROOT r = f32[8] cbrt(a)
}
"""
    x = np.arange(8, dtype=np.float32)
    exe = rxla.compile(hlo)
    np.testing.assert_allclose(exe(x), np.cbrt(x), rtol=1e-6)
    if exe.stats["fallbacks"]:
        with pytest.raises(rxla.CompileError):
            rxla.compile(hlo, fallback=False)


def test_optimize_text_and_log():
    text = read("mlp.hlo")
    out = rxla.optimize(text, "inline,cse,dce")
    assert isinstance(out, str) and "HloModule" in out and " call(" not in out
    assert rxla.optimize(text, ["inline", "cse", "dce"]) == out
    out2, log = rxla.optimize(text, "inline,cse,dce", print_ir_after_all=True)
    assert out2 == out
    heads = [l for l in log.splitlines() if l.startswith("// ----- IR after")]
    assert [h.split()[4] for h in heads] == ["inline", "cse", "dce"]
    assert "(changed)" in heads[0]
    # The optimized text is valid HLO that computes the same thing.
    rxla.check(out)
    with pytest.raises(ValueError, match="unknown pass"):
        rxla.optimize(text, "cse,frobnicate")


def test_check_summary(add_hlo):
    s = rxla.check(add_hlo)
    assert s["computations"] == 1 and s["instructions"] == 3
    assert s["parameters"] == ["f32[2,3]{1,0}", "f32[2,3]{1,0}"]
    assert s["module"] == "jit__lambda"


def test_check_raises_hlo_error_with_position():
    bad = "HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] frobnicate(p)\n}\n"
    with pytest.raises(rxla.HloError) as ei:
        rxla.check(bad, name="bad.hlo")
    e = ei.value
    assert (e.line, e.col) == (5, 19)
    assert "frobnicate" in e.message
    assert str(e).startswith("bad.hlo:5:19: error:")
    assert e.file == "bad.hlo"
    assert isinstance(e, rxla.RxlaError)
    # Shape mismatch: a located error too.
    with pytest.raises(rxla.HloError) as ei:
        rxla.check("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[3] add(p, p)\n}")
    assert ei.value.line == 4
    # compile and optimize raise the same error.
    with pytest.raises(rxla.HloError):
        rxla.compile(bad)
    with pytest.raises(rxla.HloError):
        rxla.optimize(bad, "dce")
    # Garbage and the empty string are errors, not crashes.
    for junk in ["", "\x00\x01", "HloModule", "ENTRY {", "}" * 10000, "(" * 100000]:
        with pytest.raises(rxla.HloError):
            rxla.check(junk)


def test_invalid_module_is_located():
    # Well-formed text that breaks an invariant (a parameter number gap):
    # the reader reports it at the instruction.
    hlo = "HloModule m\nENTRY e {\n  p = f32[2] parameter(1)\n  ROOT r = f32[2] negate(p)\n}\n"
    with pytest.raises(rxla.HloError) as ei:
        rxla.check(hlo)
    assert (ei.value.line, ei.value.col) == (3, 14)
    assert "without gaps" in ei.value.message


def test_runs_from_threads_in_parallel(add_hlo):
    # Compiling and running release the GIL; concurrent calls are safe.
    exe = rxla.compile(read("mlp.hlo"))
    args = [np.full(s, 0.5, d) for d, s in exe.params]
    want = exe(*args)
    errors = []

    def work():
        try:
            for _ in range(50):
                np.testing.assert_array_equal(exe(*args), want)
            rxla.compile(add_hlo)
        except Exception as e:  # pragma: no cover
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


def test_truncated_and_mutated_modules_raise_cleanly():
    # Every prefix/mutation of a real module is either valid or an HloError:
    # never another exception, a panic or a crash.
    rng = np.random.default_rng(0)
    variants = []
    ok = 0
    for name in ["conv_same.hlo", "while_loop_static.hlo", "mlp.hlo"]:
        text = read(name)
        variants += [text[:c] for c in rng.integers(0, len(text), 30).tolist()]
        for _ in range(60):
            i = int(rng.integers(0, len(text)))
            variants.append(text[:i] + "0123456789{}(),=[]% -"[int(rng.integers(0, 21))] + text[i + 1:])
    for v in variants:
        try:
            rxla.check(v)
        except rxla.HloError:
            continue
        try:
            exe = rxla.compile(v)
        except (rxla.HloError, rxla.CompileError, rxla.PassError):
            continue
        args = [np.zeros(s, rxla._dtype(d)) for d, s in exe.params]
        try:
            exe(*args)
            ok += 1
        except rxla.RunError:
            pass
    assert ok > 0  # some mutations stay valid (e.g. in constants)


def test_gil_is_released_while_running():
    # A Python thread keeps running while a long run is in progress: the
    # largest pause it sees is far shorter than the run (with the GIL held
    # through the run, it would be paused for all of it).
    import time

    hlo = """HloModule m
ENTRY e {
  a = f32[512,512] parameter(0)
  ROOT d = f32[512,512] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""
    exe = rxla.compile(hlo, threads=1)
    a = np.full((512, 512), 0.5, np.float32)
    stop = threading.Event()
    gaps = []

    def watcher():
        last = time.perf_counter()
        while not stop.is_set():
            now = time.perf_counter()
            gaps.append((now - last, now))
            last = now

    t = threading.Thread(target=watcher)
    t.start()
    try:
        time.sleep(0.01)
        t0 = time.perf_counter()
        exe.time(a, runs=40)
        t1 = time.perf_counter()
    finally:
        stop.set()
        t.join()
    during = [g for g, at in gaps if t0 <= at <= t1 + 0.05]
    assert during, "the watcher never ran"
    assert max(during) < 0.5 * (t1 - t0), (max(during), t1 - t0)


def test_complex_arrays_in_and_out():
    text = """HloModule c
ENTRY e {
  a = c64[3] parameter(0)
  b = c64[3] parameter(1)
  m = c64[3] multiply(a, b)
  re = f32[3] real(m)
  ROOT r = (c64[3], f32[3]) tuple(m, re)
}
"""
    exe = rxla.compile(text)
    a = np.array([1 + 2j, -0.5j, 3], dtype=np.complex64)
    b = np.array([2 - 1j, 4 + 0j, 0.25 + 0.5j], dtype=np.complex64)
    m, re = exe(a, b)
    assert m.dtype == np.complex64 and re.dtype == np.float32
    np.testing.assert_array_equal(m, a * b)
    np.testing.assert_array_equal(re, (a * b).real)
