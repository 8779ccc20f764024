"""`rxla.jax.jit`: run JAX functions on rxla.

    import rxla.jax
    fast = rxla.jax.jit(model)          # or @rxla.jax.jit; static_argnums= as jax.jit
    y = fast(params, x)                 # same pytree structure as jax.jit(model)(params, x)

On the first call for a given input signature (the pytree structure of the
arguments, each leaf's shape, dtype and weak type, and the values of static
arguments) the function is lowered with `jax.jit(f).lower(*args)`, the
lowering is printed as XLA HLO text (`Lowered.as_text(dialect="hlo")`) and
compiled by `rxla.compile`; later calls with the same signature reuse the
executable. Outputs are numpy arrays (jax.jit returns jax.Array), in the
function's output pytree.

This module imports jax; `import rxla` does not.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, Hashable, Optional, Sequence, Tuple, Union

import jax
import numpy as np

import rxla

__all__ = ["jit", "Jitted", "hlo_text"]


def _leaf_key(x: Any) -> Hashable:
    """What of a dynamic leaf the lowering depends on."""
    if isinstance(x, (bool, int, float, complex)):
        # Python scalars lower as weakly typed scalars of the default type.
        return ("py", type(x).__name__)
    shape = tuple(np.shape(x))
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = np.asarray(x).dtype
    return (shape, str(dtype), bool(getattr(x, "weak_type", False)))


def _split(
    args: Tuple[Any, ...],
    kwargs: Dict[str, Any],
    static_argnums: Tuple[int, ...],
    static_argnames: Tuple[str, ...],
) -> Tuple[Tuple[Any, ...], Dict[str, Any], Hashable]:
    """Dynamic args and kwargs (as jax.jit flattens them) and the static part."""
    n = len(args)
    nums = {i % n for i in static_argnums if -n <= i < n}
    dyn_args = tuple(a for i, a in enumerate(args) if i not in nums)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    static = (
        tuple((i, args[i]) for i in sorted(nums)),
        tuple(sorted((k, v) for k, v in kwargs.items() if k in static_argnames)),
    )
    return dyn_args, dyn_kwargs, static


def hlo_text(lowered: Any) -> str:
    """XLA HLO text of a `jax.stages.Lowered`."""
    return lowered.as_text(dialect="hlo")


class _Entry:
    __slots__ = ("exe", "out_tree", "n_leaves", "hlo")

    def __init__(self, exe: rxla.Executable, out_tree: Any, n_leaves: int, hlo: str):
        self.exe = exe
        self.out_tree = out_tree
        self.n_leaves = n_leaves
        self.hlo = hlo


class Jitted:
    """A JAX function compiled on rxla (made by `rxla.jax.jit`).

    Attributes: `compile_count` (how many times it was lowered and compiled),
    `cache_size()`, `clear_cache()`, `lower_hlo(*args, **kwargs)` (the HLO
    text rxla compiles for these arguments), `executable(*args, **kwargs)`
    (the cached `rxla.Executable`, e.g. for `.stats` or `.time`).
    """

    def __init__(
        self,
        fun: Callable[..., Any],
        *,
        static_argnums: Union[int, Sequence[int], None] = None,
        static_argnames: Union[str, Sequence[str], None] = None,
        pipeline: Union[str, Sequence[str], None] = "O2",
        threads: Optional[int] = None,
    ):
        if isinstance(static_argnums, int):
            static_argnums = (static_argnums,)
        if isinstance(static_argnames, str):
            static_argnames = (static_argnames,)
        self._fun = fun
        self._static_argnums: Tuple[int, ...] = tuple(static_argnums or ())
        self._static_argnames: Tuple[str, ...] = tuple(static_argnames or ())
        self._pipeline = pipeline
        self._threads = threads
        # keep_unused: every flattened argument stays an HLO parameter, so
        # the call passes the leaves as they are.
        self._jax_jit = jax.jit(
            fun,
            static_argnums=self._static_argnums,
            static_argnames=self._static_argnames,
            keep_unused=True,
        )
        self._cache: Dict[Hashable, _Entry] = {}
        self.compile_count = 0
        functools.update_wrapper(self, fun)

    def cache_size(self) -> int:
        return len(self._cache)

    def clear_cache(self) -> None:
        self._cache.clear()

    def _entry(self, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Tuple[_Entry, list]:
        dyn_args, dyn_kwargs, static = _split(
            args, kwargs, self._static_argnums, self._static_argnames
        )
        leaves, in_tree = jax.tree_util.tree_flatten((dyn_args, dyn_kwargs))
        try:
            key = (in_tree, tuple(_leaf_key(x) for x in leaves), static)
            hash(key)
        except TypeError as e:
            raise TypeError(f"rxla.jax.jit: static arguments must be hashable: {e}") from e
        entry = self._cache.get(key)
        if entry is None:
            lowered = self._jax_jit.lower(*args, **kwargs)
            text = hlo_text(lowered)
            exe = rxla.compile(
                text,
                self._pipeline,
                threads=self._threads,
                name=getattr(self._fun, "__name__", "<jax>"),
            )
            n = len(exe.params)
            if n != len(leaves):
                raise rxla.RxlaError(
                    f"rxla.jax.jit: the lowered module takes {n} parameter(s) but the "
                    f"call has {len(leaves)} array leaves"
                )
            entry = _Entry(exe, lowered.out_tree, len(exe.results), text)
            self._cache[key] = entry
            self.compile_count += 1
        return entry, leaves

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        entry, leaves = self._entry(args, kwargs)
        exe = entry.exe
        # jax.jit casts each leaf to the parameter's dtype (e.g. float64 to
        # float32 without x64, Python scalars to weak types): do the same.
        # np.asarray of a CPU jax.Array of the right dtype does not copy.
        arrays = [
            np.asarray(x, dtype=rxla._dtype(d)) for x, (d, _) in zip(leaves, exe.params)
        ]
        out = exe(*arrays)
        if isinstance(out, np.ndarray):
            out_leaves = [out]
        else:
            out_leaves = jax.tree_util.tree_leaves(out, is_leaf=lambda x: isinstance(x, np.ndarray))
        if len(out_leaves) != entry.out_tree.num_leaves:
            raise rxla.RxlaError(
                f"rxla.jax.jit: the module returns {len(out_leaves)} array(s) but the "
                f"function's output has {entry.out_tree.num_leaves} leaves"
            )
        return jax.tree_util.tree_unflatten(entry.out_tree, out_leaves)

    def lower_hlo(self, *args: Any, **kwargs: Any) -> str:
        """The HLO text rxla compiles for these arguments."""
        return self._entry(args, kwargs)[0].hlo

    def executable(self, *args: Any, **kwargs: Any) -> rxla.Executable:
        """The rxla executable for these arguments (compiled if needed)."""
        return self._entry(args, kwargs)[0].exe


def jit(
    fun: Optional[Callable[..., Any]] = None,
    *,
    static_argnums: Union[int, Sequence[int], None] = None,
    static_argnames: Union[str, Sequence[str], None] = None,
    pipeline: Union[str, Sequence[str], None] = "O2",
    threads: Optional[int] = None,
) -> Any:
    """Compiles `fun` with rxla instead of XLA: `rxla.jax.jit(f)(*args)`
    returns what `jax.jit(f)(*args)` returns, as numpy arrays. Usable as
    `@rxla.jax.jit` or `@rxla.jax.jit(static_argnums=...)`."""
    def wrap(f: Callable[..., Any]) -> Jitted:
        return Jitted(
            f,
            static_argnums=static_argnums,
            static_argnames=static_argnames,
            pipeline=pipeline,
            threads=threads,
        )

    return wrap if fun is None else wrap(fun)
