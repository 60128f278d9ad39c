"""Every python code block of docs/bigdata.md runs, each in a fresh namespace."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from numpy_support import chdir

DOC = Path(__file__).resolve().parent.parent / "docs" / "bigdata.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_there_are_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_doc_block_runs(index: int, tmp_path: Path) -> None:
    with chdir(tmp_path):
        exec(compile(BLOCKS[index], f"{DOC.name}[block {index}]", "exec"), {})
