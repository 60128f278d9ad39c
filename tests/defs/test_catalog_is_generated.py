"""The checked-in catalog is exactly what the generator writes from the installed onnx.

So the data cannot drift from the onnx the tests pin: a change of onnx, or a hand edit of a
``table*.py``, fails here until ``python -m tests.support.defs_generate`` is run again.
"""

from __future__ import annotations

from tests.support import defs_generate


def test_regenerating_gives_the_checked_in_files() -> None:
    files = defs_generate.generate()
    present = {p.name for p in defs_generate.OUT.glob("table*.py")}
    assert present == set(files)
    for name, text in files.items():
        assert (defs_generate.OUT / name).read_text(encoding="utf-8") == text, name


def test_check_mode_finds_nothing_to_change() -> None:
    assert defs_generate.main(["--check"]) == 0
