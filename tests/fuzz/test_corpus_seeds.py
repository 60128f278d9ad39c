"""The seed corpora of ``onnxdata corpus`` hold what their file names say.

Each file is judged by protobuf (the oracle) and by onnxdata's decoder: a
``valid-`` seed is protobuf's own bytes for the message both read the same; a
``noncanonical-`` seed is accepted by both, read the same, and is not what
protobuf writes back; a ``malformed-`` seed is rejected by both.  What the
valid seeds must reach is read from the schema (every field of every message)
and from the data type table (every data type in every storage form).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import onnxdata
from onnxdata._core.schema import KINDS, spec_of
from onnxdata._fuzz.corpus import (
    CORPUS_TYPES,
    DICTIONARY_NAME,
    corpus_files,
    dictionary,
    write_corpus,
)
from onnxdata._messages.datatypes import DATA_TYPES
from onnxdata._messages.declarations import MESSAGE_TYPES
from onnxdata.cli import main
from tests.support.oracle import check_decode, oracle_parse

FOLDERS: dict[str, type] = {spec_of(cls).name: cls for cls in MESSAGE_TYPES}
# Every folder of the corpus; the model folders are judged in test_models.py.
ALL_FOLDERS = {spec_of(cls).name for cls in CORPUS_TYPES}
NAME = re.compile(r"(valid|noncanonical|malformed)-([a-z0-9_.-]+)-(\d+)\.pb")
# Valid seeds that set fields regardless of ONNX's rules; every other one follows them.
RULE_FREE = ("field-", "all-fields", "edge-", "random")
# The defect classes every message can hold, by their file names.
DEFECTS = {
    "truncated", "truncated-tag", "truncated-varint", "truncated-length", "truncated-fixed32",
    "truncated-fixed64", "length-past-the-end", "wire-type-6", "wire-type-7", "field-number-0",
    "field-number-2-29-or-above", "tag-longer-than-5-bytes", "varint-longer-than-10-bytes",
    "length-longer-than-5-bytes", "unmatched-end-group", "mismatched-end-group",
    "unterminated-group", "wrong-wire-type-cut-short", "groups-nested-too-deep",
}  # fmt: skip


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus") / "out"
    write_corpus(folder)
    return folder


def _seeds(out: Path, folder: str, kind: str) -> list[tuple[str, bytes]]:
    found = []
    for path in sorted((out / folder).iterdir()):
        match = NAME.fullmatch(path.name)
        assert match, path.name
        if match[1] == kind:
            found.append((path.name, path.read_bytes()))
    assert found, (folder, kind)
    return found


def _what(name: str) -> str:
    match = NAME.fullmatch(name)
    assert match
    return match[2]


def test_out_holds_a_folder_per_message_and_the_dictionary(out: Path) -> None:
    assert sorted(os.listdir(out)) == sorted([*ALL_FOLDERS, DICTIONARY_NAME])
    written = {
        str(p.relative_to(out)).replace(os.sep, "/"): p.read_bytes()
        for p in out.rglob("*")
        if p.is_file()
    }
    assert written == corpus_files()


@pytest.mark.parametrize("folder", FOLDERS)
def test_valid_seeds_are_protobufs_own_bytes(out: Path, folder: str) -> None:
    cls = FOLDERS[folder]
    for name, data in _seeds(out, folder, "valid"):
        parsed = oracle_parse(cls, data)
        assert parsed is not None, name
        assert parsed.SerializeToString() == data, name
        assert check_decode(cls, data) is not None, name  # same values, same bytes


@pytest.mark.parametrize("folder", FOLDERS)
def test_noncanonical_seeds_are_accepted_but_not_what_protobuf_writes(
    out: Path, folder: str
) -> None:
    cls = FOLDERS[folder]
    for name, data in _seeds(out, folder, "noncanonical"):
        parsed = oracle_parse(cls, data)
        assert parsed is not None, name
        assert parsed.SerializeToString() != data, name
        assert check_decode(cls, data) is not None, name


@pytest.mark.parametrize("folder", FOLDERS)
def test_malformed_seeds_are_rejected_by_protobuf_and_onnxdata(out: Path, folder: str) -> None:
    cls = FOLDERS[folder]
    for name, data in _seeds(out, folder, "malformed"):
        assert check_decode(cls, data) is None, name


@pytest.mark.parametrize("folder", FOLDERS)
def test_valid_seeds_set_every_field_of_the_schema(out: Path, folder: str) -> None:
    cls = FOLDERS[folder]
    seen: set[str] = set()
    for _, data in _seeds(out, folder, "valid"):
        seen |= {fd.name for fd, _ in oracle_parse(cls, data).ListFields()}
    assert seen == {f.name for f in spec_of(cls).fields}


def _parsed(out: Path, folder: str) -> list[tuple[str, Any]]:
    """The valid seeds of ``folder`` as protobuf reads them."""
    cls = FOLDERS[folder]
    return [(name, oracle_parse(cls, data)) for name, data in _seeds(out, folder, "valid")]


def test_tensors_hold_every_data_type_in_each_storage_form(out: Path) -> None:
    forms: dict[int, set[str]] = {dt: set() for dt in DATA_TYPES}
    for name, t in _parsed(out, "TensorProto"):
        if _what(name).startswith(RULE_FREE) or t.data_type not in DATA_TYPES:
            continue
        info = DATA_TYPES[t.data_type]
        if t.HasField("segment"):
            forms[t.data_type].add("segment")
        elif t.data_location == onnxdata.TensorProto.EXTERNAL:
            if any(e.key == "location" and e.value for e in t.external_data):
                forms[t.data_type].add("external")
        elif len(t.raw_data):
            forms[t.data_type].add("raw")
        elif len(getattr(t, info.storage)):
            forms[t.data_type].add("typed")
    string = onnxdata.TensorProto.STRING
    for dt, found in forms.items():
        allowed = {"typed", "segment"} if dt == string else {"typed", "raw", "external", "segment"}
        assert found == allowed, (DATA_TYPES[dt].name, found)


def test_sparse_tensors_hold_every_data_type(out: Path) -> None:
    kinds = {s.values.data_type for name, s in _parsed(out, "SparseTensorProto")
             if not _what(name).startswith(RULE_FREE)}  # fmt: skip
    assert kinds == set(DATA_TYPES)


@pytest.mark.parametrize("folder", FOLDERS)
def test_seeds_named_as_onnx_values_follow_the_onnx_rules(out: Path, folder: str) -> None:
    cls = FOLDERS[folder]
    checked = 0
    for name, data in _seeds(out, folder, "valid"):
        if not _what(name).startswith(RULE_FREE):
            assert onnxdata.check(cls.decode(data)) == [], name
            checked += 1
    if folder in ("TensorProto", "SparseTensorProto", "SequenceProto", "MapProto", "OptionalProto"):
        assert checked >= 10, checked


@pytest.mark.parametrize("count", [1, 2, 4])
def test_malformed_seeds_are_10_to_50_percent_of_each_folder(count: int) -> None:
    files = corpus_files(seed=7, count=count)
    for folder in FOLDERS:
        names = [rel for rel in files if rel.startswith(folder + "/")]
        malformed = [rel for rel in names if rel.startswith(f"{folder}/malformed-")]
        share = len(malformed) / len(names)
        assert 0.10 <= share <= 0.50, (folder, count, share)


def test_every_folder_has_every_defect_class(out: Path) -> None:
    for folder, cls in FOLDERS.items():
        found = {
            re.sub(r"-nested$", "", _what(name)) for name, _ in _seeds(out, folder, "malformed")
        }
        assert found >= DEFECTS, (folder, DEFECTS - found)
        if _holds_itself(cls):  # SequenceProto, MapProto, OptionalProto
            assert "nested-too-deep" in found, folder
        for f in spec_of(cls).fields:
            if f.typecode in ("f", "d"):
                size = 4 if f.typecode == "f" else 8
                assert f"packed-{f.kind}-payload-not-a-multiple-of-{size}" in found, folder
        if any(True for _ in spec_of(cls).children()):
            assert "length-past-the-sub-message" in found, folder


def _holds_itself(cls: type) -> bool:
    """Whether a chain of message fields leads from ``cls`` back to it (read from the schema)."""
    pending, seen = [cls], set()
    while pending:
        for f in spec_of(pending.pop()).children():
            if f.message is cls:
                return True
            if f.message not in seen:
                seen.add(f.message)
                pending.append(f.message)
    return False


def test_tensor_noncanonical_seeds_cover_every_rewrite(out: Path) -> None:
    found = {_what(name) for name, _ in _seeds(out, "TensorProto", "noncanonical")}
    assert found >= {
        "reordered", "overlong-tag", "overlong-length", "overlong-varint", "varint-extra-bits",
        "int32-upper-bits", "unpacked", "packed", "split-packed", "empty-packed",
        "repeated-singular", "split-message", "unknown-field-first", "wrong-wire-type",
        "unknown-enum-value",
    }  # fmt: skip


def test_same_seed_gives_the_same_files_and_another_seed_other_bytes() -> None:
    first = corpus_files(seed=3, count=1)
    assert corpus_files(seed=3, count=1) == first
    other = corpus_files(seed=4, count=1)
    common = [rel for rel in first if rel in other and rel != DICTIONARY_NAME]
    assert len(common) > len(first) // 2
    assert sum(first[rel] != other[rel] for rel in common) > len(common) // 2


def test_the_bytes_do_not_depend_on_string_hashing() -> None:
    """Set and dict order of strings changes with PYTHONHASHSEED; the corpus must not."""
    code = (
        "import hashlib, sys\n"
        "from onnxdata._fuzz.corpus import corpus_files\n"
        "h = hashlib.sha256()\n"
        "for k, v in corpus_files(seed=5, count=1).items():\n"
        "    h.update(k.encode() + b'\\0' + v)\n"
        "print(h.hexdigest())\n"
    )
    digests = set()
    for hash_seed in ("1", "2"):
        home = str(Path(onnxdata.__file__).parent.parent)  # this checkout's onnxdata
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": home}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        digests.add(done.stdout.strip())
    assert len(digests) == 1, digests


def test_corpus_files_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        corpus_files(count=0)
    with pytest.raises(TypeError, match="count"):
        corpus_files(count="2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        corpus_files(seed=True)


# -- the dictionary -------------------------------------------------------------------------


def _parse_entry(line: str) -> bytes:
    """One dictionary entry as libFuzzer's ParseOneDictionaryEntry reads it (and AFL's
    stricter grammar: a name of letters, digits and underscores, printable ASCII)."""
    name, sep, quoted = line.partition("=")
    assert sep and re.fullmatch(r"[A-Za-z0-9_]+", name), line
    assert len(quoted) >= 2 and quoted[0] == quoted[-1] == '"', line
    body = quoted[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        assert 0x20 <= ord(c) < 0x7F, line
        if c == "\\":
            if body[i + 1 : i + 2] in ("\\", '"'):
                out.append(ord(body[i + 1]))
                i += 2
                continue
            hexa = body[i + 2 : i + 4]
            assert body[i + 1 : i + 2] == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", hexa), line
            out.append(int(hexa, 16))
            i += 4
            continue
        assert c != '"', line
        out.append(ord(c))
        i += 1
    return bytes(out)


def _entries(text: str) -> dict[str, bytes]:
    entries: dict[str, bytes] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        value = _parse_entry(line.strip())
        assert 1 <= len(value) <= 64, line  # libFuzzer drops longer words
        name = line.partition("=")[0]
        assert name not in entries, name
        entries[name] = value
    return entries


def test_dictionary_parses_and_holds_every_tag_and_data_type(out: Path) -> None:
    text = (out / DICTIONARY_NAME).read_text(encoding="ascii")
    assert text == dictionary()
    values = set(_entries(text).values())
    for cls in MESSAGE_TYPES:
        for f in spec_of(cls).fields:
            accepted = f.accepted_wire_types()
            if f.repeated and KINDS[f.kind].packable:
                assert len(accepted) == 2, f
            for wire_type in accepted:
                assert f.tag_for(wire_type) in values, (f, wire_type)
    data_type = spec_of(onnxdata.TensorProto).by_name["data_type"]
    for dt in DATA_TYPES:
        assert data_type.tag + bytes([dt]) in values, dt
    for word in (b"location", b"offset", b"length", b"checksum"):
        assert word in values, word
    assert b"\xff" * 9 + b"\x01" in values  # -1 as a 10-byte varint


def test_dictionary_parser_refuses_what_libfuzzer_refuses() -> None:
    for bad in ('x="\\q"', 'x="\\x4"', "x=abc", 'x y="a"', 'x="a"b"'):
        with pytest.raises(AssertionError):
            _parse_entry(bad)


# -- the command ------------------------------------------------------------------------------


def test_cli_writes_the_corpus_and_refuses_a_non_empty_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "seeds"
    assert main(["corpus", str(out), "--count", "1", "--seed", "5"]) == 0
    printed = capsys.readouterr().out
    assert f"{out}/TensorProto: " in printed and "malformed (" in printed
    assert {p.name for p in out.iterdir()} == {*ALL_FOLDERS, DICTIONARY_NAME}
    assert main(["corpus", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not empty" in err and "--force" in err


def test_cli_force_replaces_the_corpus_and_nothing_else(tmp_path: Path) -> None:
    out = tmp_path / "seeds"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "TensorProto").mkdir()
    (out / "TensorProto" / "stale.pb").write_bytes(b"\x08\x01")
    assert main(["corpus", str(out), "--count", "1", "--force"]) == 0
    assert (out / "notes.txt").read_text() == "mine"
    assert not (out / "TensorProto" / "stale.pb").exists()
    assert sorted(os.listdir(out)) == sorted([*ALL_FOLDERS, DICTIONARY_NAME, "notes.txt"])
    expected = corpus_files(count=1)
    assert (out / "TensorProto.Segment" / "valid-all-fields-0.pb").read_bytes() == expected[
        "TensorProto.Segment/valid-all-fields-0.pb"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--count", "0"], "--count must be at least 1"), (["--count", "-3"], "at least 1")],
)
def test_cli_refuses_a_bad_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["corpus", str(tmp_path / "x"), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not (tmp_path / "x").exists()


def test_cli_refuses_a_file_as_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "file.pb"
    target.write_bytes(b"")
    assert main(["corpus", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a folder" in err
    assert target.read_bytes() == b""


def test_write_corpus_refuses_what_the_cli_refuses(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_bytes(b"x")
    with pytest.raises(NotADirectoryError):
        write_corpus(target)
    full = tmp_path / "full"
    full.mkdir()
    (full / "a").write_bytes(b"")
    with pytest.raises(FileExistsError):
        write_corpus(full)
    assert os.listdir(full) == ["a"]


def test_a_failed_write_leaves_no_staging_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    calls = {"n": 0}
    real = os.rename

    def failing(src: Any, dst: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "rename", failing)
    with pytest.raises(OSError, match="No space"):
        write_corpus(out, count=1)
    assert os.listdir(out) == []
