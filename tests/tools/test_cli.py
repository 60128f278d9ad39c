"""The ``onnxdata`` command, run in-process through ``main()``, plus one subprocess smoke test.

JSON output is compared with ``google.protobuf.json_format.MessageToJson`` of
the oracle message; ``from-json`` with ``json_format.Parse``.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import onnx
import pytest
from google.protobuf import json_format, text_format
from hypothesis import HealthCheck, given, settings

import onnxdata
from onnxdata import TensorProto  # named by a field declared in a test below
from onnxdata.cli import main
from onnxdata.json_format import MessageToDict, MessageToJson, Parse, ParseError
from tests.support import message_strategies as ms
from tests.support.paths import DATA, ROOT

DATA = DATA
SAMPLES = sorted(DATA.glob("*.pb"))
ORACLE = {
    onnxdata.TensorProto: onnx.TensorProto,
    onnxdata.SparseTensorProto: onnx.SparseTensorProto,
    onnxdata.SequenceProto: onnx.SequenceProto,
    onnxdata.MapProto: onnx.MapProto,
    onnxdata.OptionalProto: onnx.OptionalProto,
}
TYPE_NAMES = {
    onnxdata.TensorProto: "tensor",
    onnxdata.SparseTensorProto: "sparse",
    onnxdata.SequenceProto: "sequence",
    onnxdata.MapProto: "map",
    onnxdata.OptionalProto: "optional",
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def detected(path: pathlib.Path) -> type[onnxdata.Message]:
    return type(onnxdata.load(path))


@pytest.mark.parametrize(
    "command", ["show", "raw", "check", "json", "from-json", "to-npy", "from-npy"]
)
def test_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert "usage: onnxdata " + command in capsys.readouterr().out


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_json_matches_message_to_json(
    path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cls = detected(path)
    status, out, err = run(capsys, "json", "--type", TYPE_NAMES[cls], str(path))
    assert status == 0, err
    oracle = ORACLE[cls].FromString(path.read_bytes())
    assert json.loads(out) == json.loads(json_format.MessageToJson(oracle))


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_show_text_matches_message_to_string(
    path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cls = detected(path)
    status, out, err = run(capsys, "show", "--format", "text", str(path))
    assert status == 0, err
    assert out == text_format.MessageToString(ORACLE[cls].FromString(path.read_bytes()))


def test_show_text_names_each_of_several_files(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(p) for p in SAMPLES[:2]]
    status, out, err = run(capsys, "show", "--format", "text", *paths)
    assert status == 0, err
    assert out.startswith(f"# {paths[0]}\n") and f"\n# {paths[1]}\n" in out
    assert [line for line in out.splitlines() if line.startswith("# ")] == [f"# {p}" for p in paths]


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_from_json_matches_parse(
    path: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cls = detected(path)
    oracle = ORACLE[cls].FromString(path.read_bytes())
    text = json_format.MessageToJson(oracle, preserving_proto_field_name=True)
    (tmp_path / "m.json").write_text(text)
    out = tmp_path / "m.pb"
    status, _, err = run(
        capsys, "from-json", "--type", TYPE_NAMES[cls], str(tmp_path / "m.json"), "-o", str(out)
    )
    assert status == 0, err
    assert out.read_bytes() == json_format.Parse(text, ORACLE[cls]()).SerializeToString()


@pytest.mark.parametrize("cls", list(ORACLE), ids=lambda c: c.__qualname__)
def test_json_agrees_with_oracle_on_generated_messages(cls: type[onnxdata.Message]) -> None:
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(ms.messages_of(cls, big=False))
    def agree(m: onnxdata.Message) -> None:
        ours = MessageToDict(m)
        if any("\udc80" <= c <= "\udcff" for c in json.dumps(ours, ensure_ascii=False)):
            return  # invalid UTF-8 in a string field: protobuf's JSON has no mapping for it
        text = json_format.MessageToJson(ORACLE[cls].FromString(m.encode()))
        assert MessageToJson(m) == text
        back = Parse(text, cls())
        # protobuf refuses the 3.4028235e+38 its own writer prints for FLT_MAX, and takes
        # FLT_MAX spelled in full; onnxdata reads both
        full = text.replace("3.4028235e+38", repr(3.4028234663852886e38))
        expected = json_format.Parse(full, ORACLE[cls]())
        assert back.encode() == expected.SerializeToString()

    agree()


@pytest.mark.parametrize(
    "text",
    [
        '{"data_type": "1", "dims": [2, "3"], "floatData": ["NaN", "-Infinity", 1]}',
        '{"rawData": "AP8", "stringData": ["-_8="], "dataLocation": 1}',
        '{"dataLocation": "EXTERNAL", "name": null, "int32Data": [1.0, "2e0"]}',
        '{"segment": {"begin": "-1", "end": 5}, "uint64Data": ["18446744073709551615"]}',
        '{"floatData": [true, "1e39", 1e-50], "doubleData": ["1e400", "-Infinity"]}',
        '{"rawData": "+/8=", "stringData": ["", "YQ"], "dims": [1e3, "1e3"]}',
        '{"externalData": [{"key": "location", "value": "w.bin"}], "dataLocation": "1"}',
    ],
)
def test_from_json_accepts_what_parse_accepts(text: str) -> None:
    expected = json_format.Parse(text, onnx.TensorProto()).SerializeToString()
    assert Parse(text, onnxdata.TensorProto()).encode() == expected


@pytest.mark.parametrize(
    "text",
    [
        '{"nope": 1}',
        '{"dims": 3}',
        '{"dims": [1.5]}',
        '{"dataType": true}',
        '{"floatData": ["nan"]}',
        '{"dataLocation": "SOMEWHERE"}',
        '{"dims": ["1 2"]}',
        '{"int32Data": [4294967296]}',
        '{"dims": [null]}',
        '{"segment": 3}',
        '{"name": "a", "name": "b"}',
        '{"name": 1}',
        '{"name": "\\ud800"}',
        '{"dataLocation": 2}',
        '{"int64Data": [9223372036854775808]}',
        '{"floatData": [1e39]}',
        "null",
        "[1]",
        "{",
    ],
)
def test_from_json_rejects_what_parse_rejects(text: str) -> None:
    with pytest.raises(json_format.ParseError):
        json_format.Parse(text, onnx.TensorProto())
    with pytest.raises(ParseError):
        Parse(text, onnxdata.TensorProto())


def test_check_valid_and_invalid(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.pb"
    good.write_bytes(onnxdata.TensorProto(dims=[1], data_type=1, float_data=[1.0]).encode())
    bad = tmp_path / "bad.pb"
    bad.write_bytes(onnxdata.TensorProto(dims=[2], data_type=1, float_data=[1.0]).encode())
    assert run(capsys, "check", str(good)) == (0, "", "")
    status, out, _ = run(capsys, "check", "--type", "tensor", str(good), str(bad))
    assert status == 1
    assert out == f"{bad}: TensorProto.float_data: 1 values, but dims [2] of FLOAT need 2\n"


def test_show_and_raw(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "map_string_keys.pb"
    status, out, _ = run(capsys, "show", str(path))
    assert status == 0 and "MapProto" in out
    status, out, _ = run(capsys, "raw", str(path))
    assert status == 0
    assert out.splitlines()[0] == "@0 1: len[2] 'sm'"
    assert "  @15 1: len[1] 'v'" in out.splitlines()


def test_raw_on_damaged_file(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cut.pb"
    path.write_bytes((DATA / "onnx_float_1x1000.pb").read_bytes()[:40])
    status, out, err = run(capsys, "raw", str(path))
    assert status == 2
    assert out.splitlines() == ["@0 1: varint 1", "@2 1: varint 1000", "@5 2: varint 1"]
    assert err == (
        f"onnxdata: {path}: offset 8: length 4000 at offset 8 runs past the end of the input "
        "(30 bytes left) (the first 7 bytes parse)\n"
    )


def test_raw_shapes() -> None:
    from onnxdata._tools.raw import dump

    data = bytes.fromhex("0d0000803f1100000000000000f01b08011c2203616263")
    lines = dump(data).lines
    assert lines[0].startswith("@0 1: i32 0x3f800000 (float 1.0)")
    assert lines[1].startswith("@5 2: i64")
    assert lines[2:5] == ["@14 3: sgroup {", "  @15 1: varint 1", "}"]
    assert lines[5] == "@18 4: len[3] 'abc'"
    for broken in (b"\x08", b"\x00", b"\x0f", b"\x1c", b"\x1b", b"\x0d\x00", b"\x09\x00"):
        result = dump(broken)
        assert result.error is not None and result.parsed <= 1


@pytest.mark.parametrize("command", ["show", "check", "json", "raw"])
def test_errors_are_one_line(
    command: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, command, str(tmp_path / "missing.pb"))
    assert status == 2 and err.count("\n") == 1 and "missing.pb" in err
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\x0a\x05ab")
    status, _, err = run(capsys, command, str(bad))
    assert status == 2 and err.count("\n") == 1 and "offset" in err and "Traceback" not in err


def test_from_json_error(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "t.json"
    src.write_text('{"dims": ["x"]}')
    status, _, err = run(capsys, "from-json", str(src), "-o", str(tmp_path / "o.pb"))
    assert status == 2
    assert err == (
        f"onnxdata: {src}: Failed to parse dims field: "
        "invalid literal for int() with base 10: 'x'.\n"
    )


def test_npy_round_trip(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    import numpy as np

    src = DATA / "onnx_float_1x1000.pb"
    npy = tmp_path / "a.npy"
    assert run(capsys, "to-npy", str(src), "-o", str(npy))[0] == 0
    expected = onnx.numpy_helper.to_array(onnx.TensorProto.FromString(src.read_bytes()))
    np.testing.assert_array_equal(np.load(npy), expected)
    out = tmp_path / "b.pb"
    assert run(capsys, "from-npy", str(npy), "-o", str(out), "--name", "w")[0] == 0
    oracle = onnx.numpy_helper.from_array(expected, name="w")
    assert out.read_bytes() == oracle.SerializeToString()
    status, _, err = run(capsys, "to-npy", str(DATA / "map_string_keys.pb"), "-o", str(npy))
    assert status == 2 and "takes a tensor" in err


def test_subprocess_smoke(tmp_path: pathlib.Path) -> None:
    path = DATA / "tensor_int64.pb"
    done = subprocess.run(
        [sys.executable, "-m", "onnxdata", "json", str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    oracle = onnx.TensorProto.FromString(path.read_bytes())
    assert json.loads(done.stdout) == json.loads(json_format.MessageToJson(oracle))


def _external_tensor(path: pathlib.Path, *extra: tuple[str, str]) -> None:
    """A FLOAT tensor whose data lies in ``missing.bin`` next to it, which does not exist."""
    t = onnxdata.TensorProto(dims=[2], data_type=1, name="w", data_location=1)
    for key, value in (("location", "missing.bin"), *extra):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    path.write_bytes(t.encode())


def test_a_missing_data_file_is_named(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The error is about the external data file, not the .pb named on the command line.
    src = tmp_path / "w.pb"
    _external_tensor(src)
    status, _, err = run(capsys, "to-npy", str(src), "-o", str(tmp_path / "w.npy"))
    assert (status, err) == (2, f"onnxdata: {src}: missing.bin: No such file or directory\n")


def test_the_program_prints_a_warning_as_one_line(tmp_path: pathlib.Path) -> None:
    # onnx warns of an external data key it does not know, and so do we; the program
    # prints it as one line, as it prints errors, not as Python shows warnings.
    src = tmp_path / "w.pb"
    _external_tensor(src, ("colour", "red"))
    done = subprocess.run(
        [sys.executable, "-m", "onnxdata", "to-npy", str(src), "-o", str(tmp_path / "w.npy")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "onnxdata: warning: Ignoring unknown external data key(s) ['colour'] for tensor 'w'. "
        "Allowed keys: ['basepath', 'checksum', 'length', 'location', 'offset']",
        f"onnxdata: {src}: missing.bin: No such file or directory",
    ]


def test_from_json_detects_the_type(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "m.json"
    src.write_text('{"keyType": 7, "keys": ["1"], "values": {"elemType": 4, "mapValues": [{}]}}')
    out = tmp_path / "m.pb"
    assert run(capsys, "from-json", str(src), "-o", str(out))[0] == 0
    expected = json_format.Parse(src.read_text(), onnx.MapProto()).SerializeToString()
    assert out.read_bytes() == expected


# -- show: a bounded preview read from the wire ----------------------------------------


def show_lines(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    status, out, err = run(capsys, "show", *argv)
    assert status == 0, err
    return out.splitlines()


def test_show_previews_large_payloads_without_decoding_them(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from array import array

    from onnxdata._io import type_detection

    def no_decoding(*args: object) -> None:
        raise AssertionError("show decoded the message")

    monkeypatch.setattr(type_detection, "decode_part", no_decoding)
    n = 200_000
    cases = {
        "raw": onnxdata.TensorProto(
            dims=[n], data_type=1, raw_data=array("f", range(n)).tobytes(), name="r"
        ),
        "floats": onnxdata.TensorProto(dims=[n], data_type=1, float_data=array("f", range(n))),
        "int64": onnxdata.TensorProto(dims=[n], data_type=7, int64_data=array("q", range(n))),
        "strings": onnxdata.TensorProto(
            dims=[n], data_type=8, string_data=[b"s%d" % i for i in range(n)]
        ),
    }
    expected = {
        "raw": "TensorProto 'r' dims=[200000] data_type=FLOAT "
        "raw_data=[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, ... (200000 in all)]",
        "floats": "TensorProto dims=[200000] data_type=FLOAT "
        "float_data=[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, ... (200000 in all)]",
        "int64": "TensorProto dims=[200000] data_type=INT64 "
        "int64_data=[0, 1, 2, 3, 4, 5, ... (200000 in all)]",
        "strings": "TensorProto dims=[200000] data_type=STRING "
        "string_data=['s0', 's1', 's2', 's3', 's4', 's5', ... (200000 in all)]",
    }
    for name, tensor in cases.items():
        path = tmp_path / f"{name}.pb"
        onnxdata.save(tensor, path)
        for argv in ([str(path)], ["--type", "tensor", str(path)]):
            assert show_lines(capsys, *argv) == [f"{path}: TensorProto", "  " + expected[name]]


def test_show_is_read_from_the_schema(tmp_path: pathlib.Path) -> None:
    # A message declared here, never seen by _tools/show.py, is outlined field by field.
    from onnxdata._core.classes import message
    from onnxdata._core.schema import REPEATED, field, unknown
    from onnxdata._tools.show import peek, render

    @message
    class Extra(onnxdata.Message):
        count: int | None = field(1, "int64", default=None)
        tags: list[bytes] = field(2, "string", default_factory=REPEATED)
        weights: list[float] = field(3, "double", packed=True, default_factory=REPEATED)
        inner: TensorProto | None = field(4, "message", message="TensorProto", default=None)
        unknown_fields: bytes = unknown(default=b"")

    data = bytes.fromhex("08fdffffffffffffffff0112016112026263") + (
        b"\x1a\x08" + bytes(8) + b"\x22\x04\x08\x02\x10\x07" + b"\x78\x01"
    )
    assert render(peek(Extra, data, 0, len(data))) == [
        f"{Extra.__qualname__} count=-3 tags=['a', 'bc'] weights=[0.0]",
        "  inner: TensorProto dims=[2] data_type=INT64",
        "  (2 bytes of unknown fields)",
    ]


def test_show_outlines_nested_messages_and_cuts_long_lists(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tensors = [onnxdata.TensorProto(dims=[1], data_type=6, int32_data=[i]) for i in range(8)]
    seq = onnxdata.SequenceProto(name="s", elem_type=1, tensor_values=tensors)
    path = tmp_path / "s.pb"
    onnxdata.save(seq, path)
    lines = show_lines(capsys, str(path))
    assert lines[:3] == [
        f"{path}: SequenceProto",
        "  SequenceProto 's' elem_type=TENSOR",
        "    tensor_values[0]: TensorProto dims=[1] data_type=INT32 int32_data=[0]",
    ]
    assert lines[-1] == "    ... 2 more tensor_values"
    assert len(lines) == 2 + 6 + 1


def test_show_says_when_the_type_is_ambiguous(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.pb"
    path.write_bytes(b"")
    assert show_lines(capsys, str(path))[0] == (
        f"{path}: TensorProto (ambiguous: also decodes as SparseTensorProto, SequenceProto, "
        "MapProto, OptionalProto; use --type)"
    )
    assert show_lines(capsys, "--type", "map", str(path)) == [f"{path}: MapProto", "  MapProto"]


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_show_detects_what_load_detects(
    path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = show_lines(capsys, str(path))[0]
    assert head.split()[1] == type(onnxdata.load(path)).__qualname__


# -- every command: bad input is one line and exit status 2 ---------------------------


def one_line_failure(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status, _, err = run(capsys, *argv)
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("onnxdata: "), err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize(
    "text",
    [
        '{"floatData": [1' + "0" * 400 + "]}",  # a 400-digit number: OverflowError in float()
        '{"floatData": [' + "1" * 400 + ".5]}",
        '{"name": "\\ud800"}',  # a lone surrogate
        '{"\\udc80": 1}',  # in a key: the message names it
        "[" * 3000 + "]" * 3000,  # nesting: RecursionError in json
        '{"sequenceValues": [' * 3000 + "]}" * 3000,
        '{"dims": [' + "1" * 5000 + "]}",  # past int's digit limit
        "\xff",
    ],
    ids=[
        "400-digits",
        "400-digit-float",
        "surrogate",
        "surrogate-key",
        "nested-lists",
        "nested-messages",
        "5000-digits",
        "not-utf8",
    ],
)
def test_from_json_bad_input_is_one_line(
    text: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "bad.json"
    src.write_bytes(text.encode("utf-8", "surrogatepass") if text != "\xff" else b"\xff")
    out = tmp_path / "o.pb"
    for extra in ([], ["--type", "sequence"]):
        one_line_failure(capsys, "from-json", *extra, str(src), "-o", str(out))
        assert not out.exists()


def npy_with_header(shape: tuple[int, ...], body: bytes = b"") -> bytes:
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape!r}, }}"
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + body


@pytest.mark.parametrize(
    "data",
    [
        npy_with_header((1 << 40,)),  # 4 TiB declared, nothing behind it
        npy_with_header((1 << 20, 1 << 20), bytes(64)),
        npy_with_header((3,), bytes(4)),  # a truncated body
        b"\x93NUMPY\x01\x00\xff\xff{",  # a broken header
        b"not numpy at all",
        b"",
    ],
    ids=["4TiB", "4TiB-2d", "truncated", "bad-header", "no-magic", "empty"],
)
def test_from_npy_bad_input_is_one_line(
    data: bytes, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "bad.npy"
    src.write_bytes(data)
    err = one_line_failure(capsys, "from-npy", str(src), "-o", str(tmp_path / "o.pb"))
    assert "not a .npy array" in err


@pytest.mark.parametrize(
    "command", ["show", "check", "json", "raw", "to-npy", "from-json", "from-npy"]
)
def test_a_directory_or_device_is_one_line(
    command: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ["-o", str(tmp_path / "o")] if command in ("to-npy", "from-json", "from-npy") else []
    bad = [str(tmp_path)] + (["/dev/zero"] if pathlib.Path("/dev/zero").exists() else [])
    for path in bad:
        err = one_line_failure(capsys, command, path, *out)
        assert "not a regular file" in err


def test_raw_reads_in_place_and_cuts_large_payloads(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from onnxdata._tools.raw import dump

    text = b"\x0a\x03abc"
    assert dump(memoryview(bytearray(text))).lines == dump(text).lines == ["@0 1: len[3] 'abc'"]
    big = b"a" * 70_000  # printable, but too long to be decoded as text
    data = b"\x42" + bytes([0xF0, 0xA2, 0x04]) + big
    path = tmp_path / "big.pb"
    path.write_bytes(data)
    status, out, _ = run(capsys, "raw", str(path))
    assert status == 0
    assert out.startswith("@0 8: len[70000] bytes 61 61 61 ")
    assert "... (70000 bytes)" in out
    with pytest.raises(TypeError):
        dump("text")
