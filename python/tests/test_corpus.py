"""Every corpus case (tests/corpus and tests/corpus_jax, the module as JAX
hands it to XLA and XLA's optimised one, whose layouts are permuted)
compiled by rxla.compile and run on numpy arrays, against the outputs
XLA:CPU computed, within each case's tolerance."""

import pytest

import rxla
from conftest import assert_close, case_names, load_case

CASES = case_names()

# Known JIT failures (the CLI's `rxla run --backend jit` fails the same
# way), by case: none today (threefry_normal's fusion bug is fixed and
# pinned by tests/fusion_work.rs, fusion_verifies_on_every_corpus_module).
KNOWN_JIT_FAILURES: dict = {}


def test_corpus_is_there():
    assert len(CASES) >= 24 + 174


@pytest.mark.parametrize("suffix", ["hlo", "opt.hlo"])
@pytest.mark.parametrize("name", CASES)
def test_case(name, suffix):
    case, d = load_case(name)
    stem = name.split("/")[1]
    try:
        exe = rxla.compile((d / f"{stem}.{suffix}").read_text(), name=f"{stem}.{suffix}")
    except rxla.CompileError:
        if f"{name}.{suffix}" in KNOWN_JIT_FAILURES:
            pytest.xfail(KNOWN_JIT_FAILURES[f"{name}.{suffix}"])
        raise
    got = exe(*case["inputs"])
    leaves = list(got) if isinstance(got, tuple) else [got]
    assert len(leaves) == len(case["outputs"])
    tol = case.get("tolerance", {})
    for i, (g, w) in enumerate(zip(leaves, case["outputs"])):
        assert_close(g, w, tol.get("rtol", 0.0), tol.get("atol", 0.0), f"{name}.{suffix} output {i}")
