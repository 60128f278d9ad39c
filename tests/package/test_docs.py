"""The documents are tested: every ```python block runs, and every test they cite exists.

One runner for README.md and docs/*.md, parametrized per document: the blocks
of a document run in order, in one namespace, in a fresh working directory
(examples that write files write them there).  docs/vendoring.md is the
exception: its blocks are files of a project, which tests/package/test_vendoring.py
writes out and runs exactly as the document says; here it is checked that
test_vendoring.py takes every one of them.

docs/wire-format.md names, for every rule, the test that shows it: those tests
(and the rows of their tables) exist.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from tests.support.numpy_support import chdir
from tests.support.paths import ROOT

ROOT = ROOT
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN_BY_ITS_OWN_TEST = {"vendoring.md": ROOT / "tests" / "package" / "test_vendoring.py"}
# Documents whose examples must not silently disappear, and how many they have at least.
MIN_BLOCKS = {
    "README.md": 1,
    "compat.md": 1,
    "fuzzing.md": 1,
    "guide.md": 5,
    "numpy.md": 3,
    "bigdata.md": 5,
}


def blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


WITH_BLOCKS = [p for p in DOCS if blocks(p)]


def test_the_docs_have_examples() -> None:
    counts = {p.name: len(blocks(p)) for p in DOCS}
    short = {name: counts.get(name, 0) for name, n in MIN_BLOCKS.items() if counts.get(name, 0) < n}
    assert not short, f"fewer examples than expected: {short}"


@pytest.mark.parametrize("path", WITH_BLOCKS, ids=[p.name for p in WITH_BLOCKS])
def test_blocks_run(path: Path, tmp_path: Path) -> None:
    own_test = RUN_BY_ITS_OWN_TEST.get(path.name)
    if own_test is not None:
        taken = re.findall(r'_block\("([^"]+)"\)', own_test.read_text(encoding="utf-8"))
        for block in blocks(path):
            first = block.splitlines()[0]
            assert any(first.startswith(t) for t in taken), (
                f"{own_test.name} does not run the block of {path.name} starting {first!r}"
            )
        return
    namespace: dict[str, object] = {"__name__": "__doc__"}
    with chdir(tmp_path):
        for i, block in enumerate(blocks(path)):
            exec(compile(block, f"{path.name}[block {i}]", "exec"), namespace)


# --------------------------------------------------------------------------
# docs/wire-format.md: the tests it cites

WIRE_FORMAT = ROOT / "docs" / "wire-format.md"

# The parametrized tests whose row ids the document cites, and where their ids come from.
_ROWS = {
    ("core/test_wire", "test_encode_table"): ("ENCODE_TABLE", 0),
    ("core/test_wire", "test_decode_table"): ("DECODE_TABLE", 0),
    ("core/test_wire", "test_decode_rejects"): ("REJECT_TABLE", 0),
    ("core/test_wire", "test_encode_rejects_bad_values_like_the_oracle"): ("BAD_VALUES", 0),
    ("core/test_wire", "test_encode_accepts_values_like_the_oracle"): ("GOOD_VALUES", 0),
    ("core/test_wire", "test_encode_error_names_the_field"): ("ENCODE_ERROR_PATHS", 1),
}


def _references() -> list[tuple[str, str, str | None]]:
    """(module, test, row or None) for every test cited in the Test column."""
    refs = []
    for line in WIRE_FORMAT.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith("| Rule") or line.startswith("| ---"):
            continue
        cell = line.rstrip(" |").rsplit(" | ", 1)[-1]  # the Test column
        module = test = None
        for code in re.findall(r"`([^`]+)`", cell):
            m = re.fullmatch(r"(?:tests/([\w/]+)\.py)?(?:::(\w+))?(?:\[(.+)\])?", code)
            if not m or not any(m.groups()):
                continue  # e.g. `oracle.varint_path`
            module = m[1] or module
            test = m[2] or test
            if m[2] is None and m[3] is None:
                test = None  # a bare file reference
            if module:
                refs.append((module, test or "", m[3]))
    return refs


def test_the_wire_format_document_cites_tests() -> None:
    assert len(_references()) > 150


@pytest.mark.parametrize("module, test, row", sorted(set(_references()), key=str))
def test_cited_test_exists(module: str, test: str, row: str | None) -> None:
    mod = importlib.import_module("tests." + module.replace("/", "."))
    if not test:
        return
    assert callable(getattr(mod, test, None)), f"{module}::{test} does not exist"
    if row is not None:
        table, column = _ROWS[(module, test)]
        ids = [r[column] for r in getattr(mod, table)]
        assert row in ids, f"{module}::{test}[{row}] does not exist"


# docs/architecture.md's layer listing: a line per module under its layer's folder.
ARCHITECTURE = ROOT / "docs" / "architecture.md"
_FOLDER = re.compile(r"(onnxdata|_[a-z]+)/ {2,}\S")  # a layer: its folder, what it is for
_MODULE = re.compile(r" {4}([a-z_0-9]+\.py) {2,}\S")  # a module of it: its file, what it is for
_RULE = re.compile(r" ─+")


def _listing() -> list[tuple[str, str]]:
    """(folder, file name) for each line of the listing, in order; a folder's own line is
    (folder, "")."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = text.split("## The folders are the layers", 1)[1].split("```\n", 2)[1]
    found: list[tuple[str, str]] = []
    for line in block.splitlines():
        folder, module = _FOLDER.match(line), _MODULE.match(line)
        if folder:
            found.append((folder[1], ""))
        elif module and found:
            found.append((found[-1][0], module[1]))
        else:
            assert _RULE.fullmatch(line), f"not a folder, a module or a rule: {line!r}"
    return found


def test_architecture_names_every_module() -> None:
    """Every module of the package has its line in its layer's folder, once, and every line
    names a module that exists.  A layer's ``__init__.py`` is its folder's line."""
    package = ROOT / "onnxdata"
    modules = {
        (p.parent.name, p.name)
        for p in package.rglob("*.py")
        if not (p.name == "__init__.py" and p.parent != package)
    }
    listed = [entry for entry in _listing() if entry[1]]
    assert len(listed) == len(set(listed)), "a module is listed twice"
    assert sorted(modules - set(listed)) == [], "modules missing from docs/architecture.md"
    assert sorted(set(listed) - modules) == [], "docs/architecture.md lists modules not there"


def test_architecture_lists_the_layers_top_down() -> None:
    """The listing's folders are test_layers.LAYERS from the top down, the public faces first."""
    from tests.package.test_layers import LAYERS

    folders = [folder for folder, module in _listing() if not module]
    assert folders == ["onnxdata", *reversed(LAYERS)]
