#!/usr/bin/env python3
"""Shared helpers of gen.py and gen2.py: deterministic inputs (multiples of 1/8), the
corpus JSON encoding, and `case(name, f, args, tol)`, which writes NAME.hlo (JAX's text),
NAME.opt.hlo (after XLA:CPU's pipeline) and NAME.json (inputs, XLA:CPU's outputs).
usage: python3 gen.py OUTDIR (needs `pip install jax==0.10.2`).
With RXLA_GEN_MLIR=1 (see gen_mlir.py) `case()` writes only NAME.mlir, the StableHLO text
of `jax.jit(f).lower(*args).as_text()`, and leaves the other files alone."""
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
    narrow = {"int2": "s2", "int4": "s4", "uint2": "u2", "uint4": "u4", "float8_e4m3fn": "f8e4m3fn",
              "float8_e5m2": "f8e5m2", "float8_e4m3b11fnuz": "f8e4m3b11fnuz", "float8_e4m3fnuz": "f8e4m3fnuz",
              "float8_e5m2fnuz": "f8e5m2fnuz"}
    if x.dtype.name == "bfloat16":
        d = "bf16"; data = [float(v) for v in x.astype(np.float32).ravel()]
    elif x.dtype.name in narrow and x.dtype.name.startswith("float8"):
        d = narrow[x.dtype.name]; data = []
        for v in x.astype(np.float64).ravel():
            if np.isnan(v): data.append("nan")
            elif np.isinf(v): data.append("inf" if v > 0 else "-inf")
            else: data.append(float(v))
    elif x.dtype.name in narrow:
        d = narrow[x.dtype.name]; data = [int(v) for v in x.astype(np.int64).ravel()]
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

MLIR_ONLY = os.environ.get("RXLA_GEN_MLIR") == "1"

def case_mlir(name, f, args):
    """Writes NAME.mlir only; warns when the inputs differ from NAME.json's (the
    rng sequence must match the run that wrote the corpus)."""
    try:
        text = jax.jit(f).lower(*args).as_text()
    except Exception as e:
        print("SKIP", name, type(e).__name__, str(e)[:200]); return
    js = f"{OUT}/{name}.json"
    if os.path.exists(js):
        want = json.load(open(js))["inputs"]
        if json.loads(json.dumps([enc(a) for a in args])) != want:
            print("WARN", name, "inputs differ from", js)
    open(f"{OUT}/{name}.mlir", "w").write(text)
    print("ok", name)

def case(name, f, args, tol=(0.0, 0.0), desc=""):
    if MLIR_ONLY:
        return case_mlir(name, f, args)
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

