#!/usr/bin/env python3
"""Multi-device JAX cases for rxla's collectives: shard_map programs on 4 fake CPU devices
(XLA_FLAGS=--xla_force_host_platform_device_count=4), saved as XLA:CPU's per-device program
after SPMD partitioning (NAME.hlo, `num_partitions=4`, collectives with channel ids) and
NAME.json: `devices` (4), `inputs` per device (each device's shard of every argument) and
`outputs` per device (each device's shard of every result, from XLA:CPU).
usage: XLA_FLAGS=--xla_force_host_platform_device_count=4 python3 gen_collectives.py OUTDIR
(needs `pip install jax==0.10.2`). Separate from gen.py/gen2.py, whose cases run on one device."""
import os, sys, json
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)

def enc(x):
    x = np.asarray(x)
    d = {"float32": "f32", "int32": "s32", "uint32": "u32"}[x.dtype.name]
    data = [float(v) for v in x.ravel()] if d == "f32" else [int(v) for v in x.ravel()]
    return {"dtype": d, "shape": list(x.shape), "data": data}

mesh = Mesh(np.array(jax.devices()[:4]), ("i",))

def shards(a):
    """Per-device shards of a global array, in device order (device d = partition d)."""
    by_dev = {s.device.id: np.asarray(s.data) for s in a.addressable_shards}
    return [by_dev[d.id] for d in mesh.devices.ravel()]

def case(name, f, args, in_specs, out_specs, desc):
    g = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs))
    comp = g.lower(*args).compile()
    text = comp.as_text()
    outs = g(*args)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    placed = [jax.device_put(a, jax.sharding.NamedSharding(mesh, s)) for a, s in zip(args, in_specs)]
    ins = [shards(a) for a in placed]
    res = [shards(o) for o in outs]
    js = {"case": name, "description": desc, "jax_version": jax.__version__, "devices": 4,
          "inputs": [[enc(ins[k][d]) for k in range(len(args))] for d in range(4)],
          "outputs": [[enc(res[k][d]) for k in range(len(outs))] for d in range(4)]}
    open(f"{OUT}/{name}.hlo", "w").write(text)
    with open(f"{OUT}/{name}.json", "w") as fh:
        json.dump(js, fh)
    print("ok", name)

x = (np.arange(32, dtype=np.float32).reshape(8, 4) - 8) / 4

def collectives(x):
    s = lax.psum(x, "i")                                   # all-reduce
    g = lax.all_gather(x, "i", tiled=True)                 # all-gather
    rs = lax.psum_scatter(x * 2, "i", scatter_dimension=1, tiled=True)  # reduce-scatter
    p = lax.ppermute(x, "i", perm=[(0, 1), (1, 2), (2, 3), (3, 0)])    # collective-permute
    a = lax.all_to_all(x, "i", split_axis=1, concat_axis=1, tiled=True)  # all-to-all
    m = lax.pmax(x, "i")
    idx = lax.axis_index("i").astype(jnp.float32)          # partition-id
    return s, g, rs, p, a, m + idx

case("shard_map_collectives", collectives, [x], (P("i"),),
     (P("i"), P("i"), P("i"), P("i"), P("i"), P("i")),
     "psum, all_gather, psum_scatter, ppermute, all_to_all, pmax and axis_index over a 4-device mesh")

def ring(x):
    # A ring all-reduce by hand: 3 ppermute steps in a fori_loop (a collective in a while body).
    def body(k, c):
        acc, cur = c
        cur = lax.ppermute(cur, "i", perm=[(j, (j + 1) % 4) for j in range(4)])
        return acc + cur, cur
    acc, _ = lax.fori_loop(0, 3, body, (x, x))
    return acc

case("shard_map_ring_loop", ring, [x], (P("i"),), P("i"),
     "a ring all-reduce of 3 collective-permutes inside a while loop")
