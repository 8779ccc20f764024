#!/usr/bin/env python3
"""Writes the arguments ../shared/bench/xla_time.py gives XLA for one HLO
file (numpy default_rng(1), uniform(-1, 1) per parameter in order) as an
.npz with positional names arr_0, arr_1, ..., so rxla runs on the same
values (`rxla run FILE --args-npz OUT`). Data-dependent programs (scatter
indices, sort, top-k) then time the same work on both sides.

usage: xla_args.py FILE.hlo OUT.npz   (run with the python that has jax)"""
import importlib.util, os, sys
import numpy as np
import jax

HERE = os.path.dirname(os.path.abspath(__file__))
XLA_TIME = os.path.join(HERE, "..", "..", "..", "shared", "bench", "xla_time.py")


def shapes(text):
    spec = importlib.util.spec_from_file_location("xla_time", XLA_TIME)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.shapes(text)


def main():
    hlo, out = sys.argv[1:3]
    rng = np.random.default_rng(1)
    types = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": jax.numpy.bfloat16}
    arrays = {}
    for k, (t, s) in enumerate(shapes(open(hlo).read())):
        if t not in ("f32", "f64", "f16"):  # .npz has no bf16: use --random-args
            sys.exit(f"xla_args.py: no .npz form for {t} parameters")
        arrays[f"arr_{k}"] = rng.uniform(-1, 1, size=s).astype(types[t])
    np.savez(out, **arrays)


if __name__ == "__main__":
    main()
