"""Every ```python block of README.md and docs/*.md runs, each file in one namespace, in order.

docs/vendoring.md (tests/test_vendoring.py), docs/numpy.md (tests/test_numpy_docs.py) and
docs/bigdata.md (tests/test_bigdata_docs.py) are run by their own tests and skipped here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN_ELSEWHERE = {"vendoring.md", "numpy.md", "bigdata.md"}
FILES = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in RUN_ELSEWHERE),
]
WITH_BLOCKS = [p for p in FILES if re.search(r"```python\n", p.read_text(encoding="utf-8"))]


def blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_the_docs_have_examples() -> None:
    names = {p.name for p in WITH_BLOCKS}
    assert {"README.md", "fuzzing.md"} <= names


@pytest.mark.parametrize("path", WITH_BLOCKS, ids=[p.name for p in WITH_BLOCKS])
def test_blocks_run(path: Path, tmp_path: Path) -> None:
    namespace: dict[str, object] = {"__name__": "__doc__"}
    old = os.getcwd()
    os.chdir(tmp_path)  # examples that write files write them here
    try:
        for i, block in enumerate(blocks(path)):
            exec(compile(block, f"{path.name}[block {i}]", "exec"), namespace)
    finally:
        os.chdir(old)
