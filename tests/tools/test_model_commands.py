"""The commands on models: ``show`` (the summary), ``raw`` with field names,
``json``, and ``to-npy --name``; run in-process through ``main()``, and the
size and escaping cases in subprocesses, as a shell runs the program.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from typing import Any

import numpy as np
import onnx
import pytest
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from onnxdata.cli import main
from tests.support.paths import ROOT

ONNX_DIR = pathlib.Path(onnx.__file__).parent
SIMPLE = ONNX_DIR / "backend" / "test" / "data" / "simple"


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def program(*argv: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "onnxdata", *map(str, argv)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ},
    )


def clean(text: str) -> list[str]:
    """The lines of ``text``, each asserted to hold only printable characters."""
    lines = text.split("\n")
    assert lines[-1] == ""
    for line in lines[:-1]:
        assert line.isprintable(), line
    return lines[:-1]


def rich_model() -> onnx.ModelProto:
    """A model with one of everything the summary shows."""
    x = helper.make_tensor_value_info("x", T.FLOAT, ["N", 3, None])
    seq = helper.make_value_info(
        "s", helper.make_sequence_type_proto(helper.make_tensor_type_proto(T.INT64, None))
    )
    opt = helper.make_value_info(
        "o", helper.make_optional_type_proto(helper.make_tensor_type_proto(T.FLOAT, [2]))
    )
    mapped = helper.make_value_info(
        "m", helper.make_map_type_proto(T.STRING, helper.make_tensor_type_proto(T.FLOAT, [1]))
    )
    y = helper.make_tensor_value_info("y", T.FLOAT, ["N", 3, None])
    nodes = [helper.make_node("Relu", ["x"], ["r0"])]
    nodes += [helper.make_node("Relu", [f"r{i}"], [f"r{i + 1}"]) for i in range(2)]
    nodes += [
        helper.make_node("Add", ["r2", "big"], ["a"]),
        helper.make_node("Mul", ["a", "small"], ["y"]),
    ]
    inits = [
        numpy_helper.from_array(np.zeros((4, 8), np.float32), "small"),
        numpy_helper.from_array(np.zeros((64, 32), np.float16), "big"),
        numpy_helper.from_array(np.array([1, 2], np.int64), "ints"),
    ]
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([5.0], np.float32), "sp"),
        numpy_helper.from_array(np.array([3], np.int64), "sp_i"),
        [10],
    )
    graph = helper.make_graph(
        nodes, "rich", [x, seq, opt, mapped], [y], inits, sparse_initializer=[sparse]
    )
    function = helper.make_function(
        "local",
        "Twice",
        ["a"],
        ["b"],
        [helper.make_node("Add", ["a", "a"], ["b"])],
        [helper.make_opsetid("", 18)],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)],
        functions=[function],
        producer_name="tests",
    )
    helper.set_model_props(model, {"author": "me"})
    return model


def test_show_summarises_a_model(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(rich_model(), path)
    status, out, err = run(capsys, "show", path)
    assert (status, err) == (0, "")
    assert clean(out) == [
        f"{path}: ModelProto ir_version={onnx.IR_VERSION} producer_name=tests",
        "  opset_import: ai.onnx:18, local:1",
        "  graph rich",
        "  inputs: 4",
        "    x: tensor(FLOAT)[N,3,?]",
        "    s: seq(tensor(INT64))",
        "    o: optional(tensor(FLOAT)[2])",
        "    m: map(STRING,tensor(FLOAT)[1])",
        "  outputs: 1",
        "    y: tensor(FLOAT)[N,3,?]",
        "  nodes: 5 (and 1 in functions)",
        "          3 Relu",
        "          1 Add",
        "          1 Mul",
        "  initializers: 3, 4.1 KiB",
        "         4.0 KiB big: FLOAT16[64,32]",
        "       128 bytes small: FLOAT[4,8]",
        "        16 bytes ints: INT64[2]",
        "  sparse initializers: 1",
        "    sp: FLOAT[10], 1 non-zero",
        "  functions: 1",
        "    local:Twice(a) -> (b), 1 nodes",
        "  metadata_props: 1",
        "    author = 'me'",
    ]


def test_show_names_external_files_and_whether_they_exist(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(
        rich_model(), path, save_as_external_data=True, location="weights.bin", size_threshold=0
    )
    status, out, _ = run(capsys, "show", path)
    assert status == 0
    assert "  external data files: 1" in out
    assert "    weights.bin: 3 tensors, 4.1 KiB, found" in out
    (tmp_path / "weights.bin").unlink()
    status, out, _ = run(capsys, "show", path)
    assert status == 0 and "weights.bin: 3 tensors, 4.1 KiB, missing" in out


def test_show_of_a_huge_graph_is_bounded(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = [
        helper.make_node(f"Op{i % 50}", [f"v{i}"], [f"v{i + 1}"], domain="x") for i in range(3000)
    ]
    inits = [helper.make_tensor(f"w{i}", T.FLOAT, [1], [0.0]) for i in range(500)]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("v0", T.FLOAT, [1])],
        [helper.make_tensor_value_info("v3000", T.FLOAT, [1])],
        inits,
    )
    path = tmp_path / "big.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("x", 1)]), path)
    status, out, _ = run(capsys, "show", path)
    lines = clean(out)
    assert status == 0 and len(lines) < 70
    assert "  nodes: 3000" in lines and "    ... 30 more operators" in lines
    assert "    ... 480 more initializers" in lines


def _sparse_model(path: pathlib.Path, size: int) -> None:
    """A model whose one initializer has ``size`` bytes of raw_data, written as a hole."""

    def varint(n: int) -> bytes:
        out = bytearray()
        while n >= 0x80:
            out.append(n & 0x7F | 0x80)
            n >>= 7
        return bytes(out + bytes([n]))

    def field(number: int, payload: bytes, declared: int | None = None) -> bytes:
        n = len(payload) if declared is None else declared
        return varint(number << 3 | 2) + varint(n) + payload

    head = (
        field(1, varint(size // 4))
        + b"\x10\x01"
        + field(8, b"W")
        + varint(9 << 3 | 2)
        + varint(size)
    )
    tensor = field(5, head, len(head) + size)
    graph_head = field(2, b"g")
    graph = field(7, graph_head + tensor, len(graph_head) + len(tensor) + size)
    opset = field(8, b"\x10\x11")
    with open(path, "wb") as f:
        f.write(b"\x08\x08" + opset + graph)
        f.truncate(len(b"\x08\x08" + opset + graph) + size)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_show_and_check_of_a_2_gib_model_read_only_its_metadata(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "huge.onnx"
    _sparse_model(path, 2 << 30)
    # The peak of this process's own memory (VmHWM): ``ru_maxrss`` of a process
    # just started counts its parent's size at the fork (a large test run's).
    code = (
        "import sys\n"
        "from onnxdata.cli import main\n"
        "status = max(main(['show', sys.argv[1]]), main(['check', sys.argv[1]]))\n"
        "status_lines = open('/proc/self/status').read().splitlines()\n"
        "print(status, next(x.split()[1] for x in status_lines if x.startswith('VmHWM')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.stderr == ""
    *lines, last = done.stdout.splitlines()
    status, peak_kib = map(int, last.split())
    assert status == 0
    assert "  initializers: 1, 2.0 GiB" in lines
    assert "         2.0 GiB W: FLOAT[536870912]" in lines
    assert peak_kib < 300 * 1024  # the 2 GiB of values were never read


def test_raw_names_a_model_s_fields(capsys: pytest.CaptureFixture[str]) -> None:
    path = SIMPLE / "test_sequence_model1" / "model.onnx"
    status, out, _ = run(capsys, "raw", path)
    lines = clean(out)
    assert status == 0
    assert lines[:4] == [
        "@0 1 ir_version: varint 7",
        "@2 2 producer_name: len[12] 'backend-test'",
        "@16 7 graph: len[346] GraphProto:",
        "  @19 1 node: len[26] NodeProto:",
    ]
    status, typed, _ = run(capsys, "raw", "--type", "model", path)
    assert (status, typed) == (0, out)


def test_raw_of_a_tensor_typed_names_its_fields(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.pb"
    path.write_bytes(helper.make_tensor("t", T.FLOAT, [2], [1, 2]).SerializeToString())
    status, out, _ = run(capsys, "raw", "--type", "tensor", path)
    assert status == 0
    assert clean(out)[:2] == ["@0 1 dims: varint 2", "@2 2 data_type: varint 1"]
    status, out, _ = run(capsys, "raw", path)
    assert clean(out)[:2] == ["@0 1: varint 2", "@2 2: varint 1"]  # no type: no names


def test_raw_stops_at_nesting_protobuf_refuses(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def field(number: int, payload: bytes) -> bytes:  # payloads under 16 KiB here
        n = len(payload)
        size = bytes([n]) if n < 0x80 else bytes([n & 0x7F | 0x80, n >> 7])
        return bytes([number << 3 | 2]) + size + payload

    graph = b""
    for _ in range(40):  # 3 messages a level: GraphProto > NodeProto > AttributeProto
        attribute = field(1, b"then_branch") + b"\xa0\x01\x05" + field(6, graph)
        graph = field(1, field(4, b"If") + field(5, attribute))
    path = tmp_path / "deep.onnx"
    path.write_bytes(b"\x08\x08" + field(7, graph))
    with pytest.raises(DecodeError):  # upb's limit: 100 levels
        onnx.ModelProto.FromString(path.read_bytes())
    for command in ("raw", "show", "check", "json"):
        status, _, err = run(capsys, command, path)
        assert status == 2, command
        assert err.count("\n") == 1 and err.startswith(f"onnxdata: {path}: offset "), err
        assert "deeper than 100" in err or "nesting" in err, err


def test_json_of_a_model_is_protobuf_s(capsys: pytest.CaptureFixture[str]) -> None:
    path = SIMPLE / "test_sequence_model1" / "model.onnx"
    status, out, _ = run(capsys, "json", path)
    assert status == 0
    assert json.loads(out) == json.loads(json_format.MessageToJson(onnx.load(path)))


def _nested_model() -> onnx.ModelProto:
    body = helper.make_graph(
        [helper.make_node("Identity", ["inner_w"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", T.FLOAT, [2])],
        [numpy_helper.from_array(np.array([7, 8], np.float32), "inner_w")],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["weight"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", T.FLOAT, [2])],
    )
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([5.0], np.float32), "sp"),
        numpy_helper.from_array(np.array([3], np.int64), "i"),
        [4],
    )
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=other)],
        "main",
        [helper.make_tensor_value_info("c", T.BOOL, [])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2])],
        [
            numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "weight"),
            numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "weigth2"),
        ],
        sparse_initializer=[sparse],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("external", [False, True], ids=["inline", "external"])
def test_to_npy_writes_one_initializer_by_name(
    external: bool, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.onnx"
    model = _nested_model()
    onnx.save(model, path, save_as_external_data=external, size_threshold=0, location="w.bin")
    out = tmp_path / "w.npy"
    for name, expected in [
        ("weight", np.arange(6, dtype=np.float32).reshape(2, 3)),
        ("inner_w", np.array([7, 8], np.float32)),  # in a subgraph
        ("sp", np.array([0, 0, 0, 5], np.float32)),  # sparse, densified
    ]:
        status, _, err = run(capsys, "to-npy", path, "--name", name, "-o", out)
        assert (status, err) == (0, "")
        array = np.load(out)
        assert array.dtype == expected.dtype and array.tolist() == expected.tolist()


def test_to_npy_with_an_unknown_name_lists_close_names(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_nested_model(), path)
    out = tmp_path / "w.npy"
    status, stdout, err = run(capsys, "to-npy", path, "--name", "wieght", "-o", out)
    assert (status, stdout) == (2, "")
    assert (
        err
        == f"onnxdata: {path}: no initializer named 'wieght'; close names: 'weight', 'weigth2'\n"
    )
    status, _, err = run(capsys, "to-npy", path, "-o", out)
    assert (
        status == 2
        and err == f"onnxdata: {path}: is a model: name the initializer to write with --name\n"
    )
    tensor = tmp_path / "t.pb"
    tensor.write_bytes(helper.make_tensor("t", T.FLOAT, [1], [1]).SerializeToString())
    status, _, err = run(capsys, "to-npy", tensor, "--name", "t", "-o", out)
    assert status == 2 and "--name picks an initializer of a model" in err
    assert not out.exists()


def test_to_npy_refuses_to_overwrite_the_external_data_it_reads(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_nested_model(), path, save_as_external_data=True, size_threshold=0, location="w.bin")
    before = (tmp_path / "w.bin").read_bytes()
    status, _, err = run(capsys, "to-npy", path, "--name", "weight", "-o", tmp_path / "w.bin")
    assert status == 2 and "holds the tensor's external data" in err
    assert (tmp_path / "w.bin").read_bytes() == before


NASTY = "\x1b]0;owned\x07\u202e\nonnxdata: all files OK\r"


def test_untrusted_text_of_a_model_is_escaped_in_every_command(tmp_path: pathlib.Path) -> None:
    node = helper.make_node("Relu" + NASTY, ["x" + NASTY], ["y"], domain="d" + NASTY)
    graph = helper.make_graph(
        [node],
        "g" + NASTY,
        [helper.make_tensor_value_info("x" + NASTY, T.FLOAT, [1])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["n" + NASTY])],
        [helper.make_tensor("w" + NASTY, T.FLOAT, [1], [1])],
    )
    model = helper.make_model(graph, producer_name=NASTY)
    helper.set_model_props(model, {NASTY: NASTY})
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    for command in ("show", "check", "raw", "json"):
        done = program(command, path)
        assert done.returncode in (0, 1), (command, done.stderr)
        assert "Traceback" not in done.stderr
        lines = clean(done.stdout)
        assert not any(line.startswith("onnxdata: all files OK") for line in lines)
    shown = program("show", path).stdout
    assert "\\x1b]0;owned\\x07\\u202e\\nonnxdata: all files OK\\r" in shown


def test_a_damaged_model_is_one_line_and_status_2(tmp_path: pathlib.Path) -> None:
    data = rich_model().SerializeToString()
    path = tmp_path / "cut.onnx"
    path.write_bytes(data[: len(data) // 2])
    for command in ("show", "check", "json"):
        done = program(command, "--type", "model", path)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"onnxdata: {path}: offset ")
