"""The compiled generated code kept on disk is used only when it is exactly right.

A hit gives the code a fresh compilation gives; a changed declaration (a
changed source) is compiled anew; a cache folder that cannot be written, a
file cut short or altered, or two processes filling one folder at once,
never change what is decoded.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import onnxdata
from onnxdata import ModelProto, TensorProto
from onnxdata._codec import decode, encode
from onnxdata._core import codecache, codegen
from onnxdata._core.classes import message
from onnxdata._core.schema import field, unknown
from tests.support.paths import ROOT

MODEL = ROOT / "tests" / "data" / "model_if_subgraph.onnx"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh cache folder, and codecs generated anew through it."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("ONNXDATA_CACHE_DIR", str(folder))
    decode.clear()
    encode.clear()
    yield folder
    decode.clear()
    encode.clear()


def _codec_sources() -> dict[str, str]:
    return {
        name: text
        for name, text in codegen.generated().items()
        if name.startswith(("<onnxdata decoder", "<onnxdata blank", "<onnxdata encoder"))
    }


def test_a_hit_is_the_code_a_fresh_compilation_gives(cache: Path) -> None:
    data = MODEL.read_bytes()
    before = _codec_sources()  # what earlier tests generated, through other folders
    first = ModelProto.decode(data)
    kept = list(cache.iterdir())
    assert kept, "nothing was written to the cache"
    # the pieces this decode generated (each compiled anew is a new string object)
    sources = {n: t for n, t in _codec_sources().items() if before.get(n) is not t}
    assert sources
    for name, text in sources.items():
        hit = codecache.cached(text, name)
        assert hit is not None, name
        assert hit == compile(text, name, "exec"), name
    decode.clear()  # generated again: every piece from the cache, none written
    again = ModelProto.decode(data)
    assert sorted(cache.iterdir()) == sorted(kept)
    assert again == first  # (== generates, and caches, its own readers: after the check)
    assert first.encode() == data


def test_a_changed_declaration_is_compiled_anew(cache: Path) -> None:
    def declared(number: int) -> Any:
        class Probe(onnxdata.Message):
            value: int | None = field(number, "int64", default=None)
            unknown_fields: bytes = unknown(default=b"")

        Probe.__qualname__ = "Probe"  # one name, two declarations
        made: Any = message(Probe)
        return made

    one, two = declared(1), declared(2)
    assert one.decode(b"\x08\x05").value == 5
    files = set(cache.iterdir())
    assert two.decode(b"\x10\x07").value == 7  # not the code of field 1
    assert two.decode(b"\x08\x05").value == 0  # field 1 is unknown to it
    assert set(cache.iterdir()) > files


def test_an_unwritable_folder_only_compiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a file"
    blocker.write_bytes(b"")
    monkeypatch.setenv("ONNXDATA_CACHE_DIR", str(blocker / "cache"))  # no folder can be made
    decode.clear()
    try:
        assert TensorProto.decode(TensorProto(dims=[3]).encode()).dims == [3]
    finally:
        decode.clear()
    assert blocker.read_bytes() == b""


def test_a_read_only_cache_is_read_and_never_written(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    TensorProto.decode(b"")
    kept = {p: p.read_bytes() for p in cache.iterdir()}
    decode.clear()
    monkeypatch.setattr(codecache, "folder", lambda: (str(cache), False))
    compiled: list[str] = []
    real = compile

    def counting(source: str, name: str, mode: str) -> object:
        compiled.append(name)
        return real(source, name, mode)

    monkeypatch.setattr(codegen, "compile", counting, raising=False)
    assert TensorProto.decode(TensorProto(dims=[3]).encode()).dims == [3]
    assert [n for n in compiled if "TensorProto" in n and "decoder" in n] == []  # all hits
    # A message never decoded before: compiled, and not written.
    assert onnxdata.MapProto.decode(onnxdata.MapProto(keys=[1]).encode()).keys == [1]
    assert compiled
    assert {p: p.read_bytes() for p in cache.iterdir()} == kept


@pytest.mark.parametrize("damage", ["cut", "flip code", "flip key", "empty", "garbage", "longer"])
def test_a_damaged_file_is_compiled_anew_and_rewritten(cache: Path, damage: str) -> None:
    data = TensorProto(dims=[2, 3], raw_data=b"x" * 24).encode()
    TensorProto.decode(data)
    sources = {n: t for n, t in _codec_sources().items() if codecache.cached(t, n)}
    assert any("decoder TensorProto" in n for n in sources)
    for path in sorted(cache.iterdir()):
        raw = bytearray(path.read_bytes())
        if damage == "cut":
            raw = raw[: len(raw) // 2]
        elif damage == "flip code":
            raw[-3] ^= 0x40
        elif damage == "flip key":
            raw[60] ^= 0x01
        elif damage == "empty":
            raw = bytearray()
        elif damage == "garbage":
            raw = bytearray(os.urandom(len(raw)))
        else:
            raw += b"\x00"
        path.write_bytes(bytes(raw))
    assert [name for name, text in sources.items() if codecache.cached(text, name)] == []
    decode.clear()
    encode.clear()
    assert TensorProto.decode(data) == TensorProto(dims=[2, 3], raw_data=b"x" * 24)
    assert TensorProto.decode(data).encode() == data
    for name, text in sources.items():  # written again, whole
        assert codecache.cached(text, name) == compile(text, name, "exec")


_RACER = """
import sys
import onnxdata
m = onnxdata.load(sys.argv[1])
assert m.graph.node, "no nodes"
print(len(m.SerializeToString()))
"""


def test_two_processes_fill_one_folder_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    env = {**os.environ, "ONNXDATA_CACHE_DIR": str(folder), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", _RACER, str(MODEL)]
    for _ in range(2):  # an empty folder, then a full one
        racers = [
            subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        outs = [r.communicate(timeout=120)[0] for r in racers]
        assert [r.returncode for r in racers] == [0, 0]
        assert outs[0] == outs[1] == f"{len(MODEL.read_bytes())}\n"
    names = [p.name for p in folder.iterdir()]
    assert names and all(n.endswith(".code") for n in names)  # no temporary file left
    for path in folder.iterdir():
        raw = path.read_bytes()
        assert raw.startswith(b"onnxdata generated code 1\n")
