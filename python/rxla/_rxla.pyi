"""Type stubs of the native module `rxla._rxla` (src/lib.rs). Use the
wrappers in `rxla` (`rxla.compile`, `rxla.optimize`, `rxla.check`)."""

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

PIPELINES: List[Tuple[str, str]]
PASSES: List[str]

class RxlaError(Exception): ...

class HloError(RxlaError):
    message: str
    line: Optional[int]
    col: Optional[int]
    file: str

class PassError(RxlaError): ...
class CompileError(RxlaError): ...
class RunError(RxlaError): ...

class Executable:
    params: List[Tuple[str, List[int]]]
    results: List[Tuple[str, List[int]]]
    result_structure: Union[int, List[Any]]
    optimized_hlo: str
    stats: Dict[str, Any]
    def run(self, inputs: List[np.ndarray], outputs: List[np.ndarray]) -> None: ...
    def time(
        self, inputs: List[np.ndarray], outputs: List[np.ndarray], runs: int = 10
    ) -> List[float]: ...

def compile(
    hlo_text: str,
    pipeline: Optional[str] = "O2",
    threads: Optional[int] = None,
    fallback: bool = True,
    name: str = "<hlo>",
) -> Executable: ...
def optimize(
    hlo_text: str,
    pipeline: str,
    print_ir_after_all: bool = False,
    verify: bool = True,
    name: str = "<hlo>",
) -> Tuple[str, str]: ...
def check(hlo_text: str, name: str = "<hlo>") -> Dict[str, Any]: ...
