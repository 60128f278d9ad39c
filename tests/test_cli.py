"""The ``onnxdata`` command, run in-process through ``main()``, plus one subprocess smoke test.

JSON output is compared with ``google.protobuf.json_format.MessageToJson`` of
the oracle message; ``from-json`` with ``json_format.Parse``.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import message_strategies as ms
import onnx
import pytest
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings

import onnxdata
from onnxdata._json import JSONError, from_json, to_json_object
from onnxdata.cli import main

DATA = pathlib.Path(__file__).with_name("data")
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
    from onnxdata._detect import detect

    return detect(path.read_bytes())[0].type


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
        ours = to_json_object(m)
        if any("\udc80" <= c <= "\udcff" for c in json.dumps(ours, ensure_ascii=False)):
            return  # invalid UTF-8 in a string field: protobuf's JSON has no mapping for it
        text = json_format.MessageToJson(ORACLE[cls].FromString(m.encode()))
        assert ours == json.loads(text)
        back = from_json(cls, text)
        try:
            expected = json_format.Parse(text, ORACLE[cls]())
        except json_format.ParseError:
            # protobuf refuses the 3.4028235e+38 its own writer prints for FLT_MAX
            assert "e+38" in text
            return
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
    assert from_json(onnxdata.TensorProto, text).encode() == expected


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
    with pytest.raises(JSONError):
        from_json(onnxdata.TensorProto, text)


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
    from onnxdata._raw import dump

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
    assert err == f"onnxdata: {src}: TensorProto.dims[0]: 'x' is not an integer\n"


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
        cwd=pathlib.Path(__file__).parent.parent,
    )
    assert done.returncode == 0, done.stderr
    oracle = onnx.TensorProto.FromString(path.read_bytes())
    assert json.loads(done.stdout) == json.loads(json_format.MessageToJson(oracle))


def test_from_json_detects_the_type(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "m.json"
    src.write_text('{"keyType": 7, "keys": ["1"], "values": {"elemType": 4, "mapValues": [{}]}}')
    out = tmp_path / "m.pb"
    assert run(capsys, "from-json", str(src), "-o", str(out))[0] == 0
    expected = json_format.Parse(src.read_text(), onnx.MapProto()).SerializeToString()
    assert out.read_bytes() == expected
