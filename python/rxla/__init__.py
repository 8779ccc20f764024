"""rxla from Python: compile XLA HLO text with rxla's JIT and run it on numpy
arrays, optimize HLO text with rxla's pass pipelines, check HLO text.

    import numpy as np, rxla
    exe = rxla.compile(open("tests/corpus/mlp.hlo").read())      # pipeline "O2"
    y = exe(x, w1, b1, w2, b2)          # numpy in, numpy out (tuple result -> tuple)
    exe.time(x, w1, b1, w2, b2, runs=50)  # {"median": s, "min": s, "max": s, "mean": s, "runs": 50}
    exe.stats                           # {"isa": ..., "kernels": ..., "fallbacks": [...], ...}
    rxla.optimize(text, "inline,cse,dce")                 # -> optimized HLO text
    rxla.optimize(text, ["cse", "dce"], print_ir_after_all=True)  # -> (text, log)
    rxla.check(text)                    # -> summary dict, or raises rxla.HloError

`rxla.jax.jit(f)` compiles JAX functions on rxla (imported lazily: `import
rxla` does not need jax).

Arrays: inputs are numpy arrays (or anything `numpy.asarray` accepts) of
dtypes bool, int8..int64, uint8..uint64, float16, bfloat16 and the narrow int2/int4/uint2/uint4/float8_* types (ml_dtypes),
float32, float64. A C-contiguous, aligned, native-byte-order input is read in
place (no copy); any other input is first copied into row-major order. Results
are written straight into freshly allocated numpy arrays.

Errors: `HloError` (malformed/invalid HLO; `.line`, `.col`, `.message`),
`PassError`, `CompileError`, `RunError`, all subclasses of `RxlaError`;
`TypeError` for a wrong argument count or dtype, `ValueError` for a wrong
shape or an unknown pipeline.
"""

from __future__ import annotations

import statistics as _statistics
from typing import Any, Dict, List, Sequence, Tuple, Union

import numpy as np

from . import _rxla
from ._rxla import (  # noqa: F401  (re-exported)
    PASSES,
    PIPELINES,
    CompileError,
    HloError,
    PassError,
    RunError,
    RxlaError,
)

__all__ = [
    "compile",
    "optimize",
    "check",
    "Executable",
    "RxlaError",
    "HloError",
    "PassError",
    "CompileError",
    "RunError",
    "PIPELINES",
    "PASSES",
]

_DTYPES: Dict[str, Any] = {}

# The narrow types, from ml_dtypes (one element per byte, as rxla stores them).
_ML_DTYPES = (
    "int2",
    "int4",
    "uint2",
    "uint4",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3b11fnuz",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
)


def _dtype(name: str) -> np.dtype:
    """The numpy dtype of an rxla dtype name (bfloat16 comes from ml_dtypes)."""
    d = _DTYPES.get(name)
    if d is None:
        if name == "bfloat16" or name in _ML_DTYPES:
            try:
                import ml_dtypes
            except ImportError as e:  # pragma: no cover - jax installs it
                raise RxlaError(f"{name} arrays need the ml_dtypes package") from e
            d = np.dtype(getattr(ml_dtypes, name))
        else:
            d = np.dtype(name)
        _DTYPES[name] = d
    return d


def _as_input(a: Any) -> np.ndarray:
    """`a` as a C-contiguous, aligned, native-byte-order ndarray: `a` itself
    when it already is one (no copy), else a row-major copy."""
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if not (a.flags.c_contiguous and a.flags.aligned):
        a = np.array(a, order="C", copy=True)
    return a


def _unflatten(structure: Any, leaves: List[np.ndarray]) -> Any:
    if isinstance(structure, int):
        return leaves[structure]
    return tuple(_unflatten(s, leaves) for s in structure)


class Executable:
    """A module compiled by rxla's JIT (made by `rxla.compile`).

    `exe(*arrays)` runs it: one numpy array per ENTRY parameter; returns a
    numpy array, or a tuple (nested as the HLO result tuple) of arrays.
    """

    def __init__(self, native: "_rxla.Executable"):
        self._native = native
        self._out_specs = [(_dtype(d), tuple(s)) for d, s in native.results]
        self._structure = native.result_structure

    @property
    def params(self) -> List[Tuple[str, Tuple[int, ...]]]:
        """`[(dtype name, shape), ...]` of the ENTRY parameters."""
        return [(d, tuple(s)) for d, s in self._native.params]

    @property
    def results(self) -> List[Tuple[str, Tuple[int, ...]]]:
        """`[(dtype name, shape), ...]` of the result's array leaves."""
        return [(d, tuple(s)) for d, s in self._native.results]

    @property
    def stats(self) -> Dict[str, Any]:
        """What the JIT did: `isa` (GEMM micro-kernel tier and element-math
        tier), `kernels`, `vectorized_kernels`, `fallbacks` (instructions run
        on the reference interpreter, with the reason), `runtime_calls`,
        `host_steps`, `row_groups`, `planned_bytes`, `compile_seconds`
        (parse + passes + JIT) and `pipeline`."""
        return self._native.stats

    @property
    def optimized_hlo(self) -> str:
        """The module as compiled (after the pass pipeline), as HLO text."""
        return self._native.optimized_hlo

    def _prepare(self, args: Sequence[Any]) -> Tuple[List[np.ndarray], List[np.ndarray]]:
        n = len(self._native.params)
        if len(args) != n:
            raise TypeError(f"the module takes {n} argument(s), got {len(args)}")
        inputs = [_as_input(a) for a in args]
        outputs = [np.empty(s, d) for d, s in self._out_specs]
        return inputs, outputs

    def __call__(self, *args: Any) -> Union[np.ndarray, Tuple[Any, ...]]:
        inputs, outputs = self._prepare(args)
        self._native.run(inputs, outputs)
        return _unflatten(self._structure, outputs)

    def time(self, *args: Any, runs: int = 10) -> Dict[str, float]:
        """Times `runs` runs after one warm-up, on buffers prepared once (the
        arrays' preparation is not timed). Returns seconds per run:
        `{"median", "min", "max", "mean"}` and `"runs"`."""
        inputs, outputs = self._prepare(args)
        ts = self._native.time(inputs, outputs, runs)
        return {
            "median": _statistics.median(ts),
            "min": min(ts),
            "max": max(ts),
            "mean": sum(ts) / len(ts),
            "runs": len(ts),
        }

    def __repr__(self) -> str:
        p = ", ".join(f"{d}{list(s)}" for d, s in self.params)
        r = ", ".join(f"{d}{list(s)}" for d, s in self.results)
        return f"<rxla.Executable ({p}) -> ({r})>"


def compile(
    hlo_text: str,
    pipeline: Union[str, Sequence[str], None] = "O2",
    *,
    threads: Union[int, None] = None,
    fallback: bool = True,
    name: str = "<hlo>",
) -> Executable:
    """Parses, verifies, optimizes (`pipeline`: a named pipeline "O0", "O1",
    "O2", pipeline text such as "inline,cse,dce", a list of pass names, or
    None for no passes) and JIT-compiles HLO text. `threads`: worker threads
    (default: RXLA_THREADS, else the cores). `fallback=False` makes an
    instruction without native code a CompileError instead of running it on
    the reference interpreter. `name` is the file name used in errors.
    The GIL is released while compiling."""
    return Executable(
        _rxla.compile(
            hlo_text,
            _pipeline_text(pipeline),
            threads=threads,
            fallback=fallback,
            name=name,
        )
    )


def _pipeline_text(p: Union[str, Sequence[str], None]) -> Union[str, None]:
    if p is None or isinstance(p, str):
        return p
    return ",".join(p)


def optimize(
    hlo_text: str,
    passes: Union[str, Sequence[str]] = "O2",
    print_ir_after_all: bool = False,
    *,
    verify: bool = True,
    name: str = "<hlo>",
) -> Union[str, Tuple[str, str]]:
    """Runs a pass pipeline on HLO text and returns the optimized HLO text.

    `passes`: pipeline text ("inline,cse,fixpoint(simplify,dce)"), a list of
    pass names, or a named pipeline ("O0", "O1", "O2"). With
    `print_ir_after_all=True` the result is a pair `(text, log)` where `log`
    holds the IR after every pass, each dump headed by
    `// ----- IR after <pass> (changed|unchanged) -----`. `verify` runs the
    verifier after each pass. Raises HloError for bad input, ValueError for
    a malformed pipeline, PassError when a pass fails."""
    text, log = _rxla.optimize(
        hlo_text,
        _pipeline_text(passes),
        print_ir_after_all=print_ir_after_all,
        verify=verify,
        name=name,
    )
    return (text, log) if print_ir_after_all else text


def check(hlo_text: str, *, name: str = "<hlo>") -> Dict[str, Any]:
    """Parses and verifies HLO text. Returns a summary dict (`module`,
    `computations`, `instructions`, `entry`, `program_shape`, `parameters`,
    `result`); raises HloError (with `.line`, `.col`, `.message`; line and
    col are None for a verifier error) when the text is malformed or
    invalid."""
    return _rxla.check(hlo_text, name=name)


def __getattr__(attr: str) -> Any:
    # `rxla.jax` is imported on first use, so `import rxla` needs no jax.
    if attr == "jax":
        import importlib

        return importlib.import_module(".jax", __name__)
    raise AttributeError(f"module 'rxla' has no attribute {attr!r}")
