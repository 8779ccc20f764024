#!/usr/bin/env python3
"""Writes NAME.mlir (the StableHLO text JAX prints: `jax.jit(f).lower(*args).as_text()`)
next to the corpus's NAME.hlo/.opt.hlo/.json, for every case of gen.py, gen2.py and gen3.py,
without touching the other files. Each script runs in its own process, as when the
corpus was written, so the inputs come from the same rng sequence (genlib warns if a
case's inputs differ from its NAME.json).
usage: python3 gen_mlir.py [OUTDIR]   (default: this directory; needs jax==0.10.2)."""
import os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1] if len(sys.argv) > 1 else here
env = dict(os.environ, RXLA_GEN_MLIR="1")
for script in ["gen.py", "gen2.py", "gen3.py"]:
    subprocess.run([sys.executable, os.path.join(here, script), out], check=True, env=env, cwd=here)
