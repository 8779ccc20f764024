"""Shared helpers of the rxla Python tests: the repository's corpus cases
(tests/corpus, tests/corpus_jax) read as numpy arrays."""

import json
import pathlib

import numpy as np
import pytest

import rxla

REPO = pathlib.Path(__file__).resolve().parents[2]
CORPORA = [REPO / "tests" / "corpus", REPO / "tests" / "corpus_jax"]

_DTYPES = {
    "pred": "bool",
    "s8": "int8",
    "s16": "int16",
    "s32": "int32",
    "s64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "s2": "int2",
    "s4": "int4",
    "u2": "uint2",
    "u4": "uint4",
    "f8e4m3fn": "float8_e4m3fn",
    "f8e5m2": "float8_e5m2",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz",
    "f8e4m3fnuz": "float8_e4m3fnuz",
    "f8e5m2fnuz": "float8_e5m2fnuz",
}


def to_array(v):
    """A corpus JSON array (`{"dtype", "shape", "data"}`) as numpy."""
    data = [float(x) if isinstance(x, str) else x for x in v["data"]]
    dt = rxla._dtype(_DTYPES[v["dtype"]])
    if dt.kind == "V" or dt.name == "bfloat16" or v["dtype"] in ("s2", "s4", "u2", "u4") or v["dtype"].startswith("f8"):
        a = np.array(data, dtype=np.float64).astype(dt)
    else:
        a = np.array(data, dtype=dt)
    return a.reshape(v["shape"])


def case_names():
    out = []
    for d in CORPORA:
        for j in sorted(d.glob("*.json")):
            out.append(f"{d.name}/{j.stem}")
    return out


def load_case(name):
    """(case dict with numpy `inputs`/`outputs`, directory)."""
    corpus, stem = name.split("/")
    d = REPO / "tests" / corpus
    case = json.loads((d / f"{stem}.json").read_text())
    case["inputs"] = [to_array(v) for v in case["inputs"]]
    case["outputs"] = [to_array(v) for v in case["outputs"]]
    return case, d


def assert_close(got, want, rtol, atol, what=""):
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, want {want.dtype}"
    if want.dtype.kind in "fV" or want.dtype.name == "bfloat16":
        np.testing.assert_allclose(
            got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
            equal_nan=True, err_msg=what,
        )
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.fixture
def add_hlo():
    return (REPO / "tests" / "corpus" / "add.hlo").read_text()
