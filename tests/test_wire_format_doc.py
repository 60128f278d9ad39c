"""docs/wire-format.md names, for every rule, the test that shows it: those tests exist."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "wire-format.md"

# The parametrized tests whose row ids the document cites, and where their ids come from.
_ROWS = {
    ("test_wire", "test_encode_table"): ("ENCODE_TABLE", 0),
    ("test_wire", "test_decode_table"): ("DECODE_TABLE", 0),
    ("test_wire", "test_decode_rejects"): ("REJECT_TABLE", 0),
    ("test_wire", "test_encode_rejects_bad_values_like_the_oracle"): ("BAD_VALUES", 0),
    ("test_wire", "test_encode_accepts_values_like_the_oracle"): ("GOOD_VALUES", 0),
    ("test_wire", "test_encode_error_names_the_field"): ("ENCODE_ERROR_PATHS", 1),
}


def _references() -> list[tuple[str, str, str | None]]:
    """(module, test, row or None) for every test cited in the Test column."""
    refs = []
    for line in DOC.read_text().splitlines():
        if not line.startswith("| ") or line.startswith("| Rule") or line.startswith("| ---"):
            continue
        cell = line.rstrip(" |").rsplit(" | ", 1)[-1]  # the Test column
        module = test = None
        for code in re.findall(r"`([^`]+)`", cell):
            m = re.fullmatch(r"(?:tests/(\w+)\.py)?(?:::(\w+))?(?:\[(.+)\])?", code)
            if not m or not any(m.groups()):
                continue  # e.g. `oracle.varint_path`
            module = m[1] or module
            test = m[2] or test
            if m[2] is None and m[3] is None:
                test = None  # a bare file reference
            if module:
                refs.append((module, test or "", m[3]))
    return refs


def test_the_document_cites_tests() -> None:
    assert len(_references()) > 150


@pytest.mark.parametrize("module, test, row", sorted(set(_references()), key=str))
def test_cited_test_exists(module: str, test: str, row: str | None) -> None:
    mod = importlib.import_module(module)
    if not test:
        return
    assert callable(getattr(mod, test, None)), f"{module}::{test} does not exist"
    if row is not None:
        table, column = _ROWS[(module, test)]
        ids = [r[column] for r in getattr(mod, table)]
        assert row in ids, f"{module}::{test}[{row}] does not exist"
