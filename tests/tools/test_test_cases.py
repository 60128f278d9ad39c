"""Test-case folders: ``model.onnx`` and ``test_data_set_*/{input,output}_*.pb``,
each data file read as the type the model declares for it.

The folders are written as onnx's ``backend-test-tools generate-data`` writes
them (``numpy_helper.from_array`` / ``from_list`` / ``from_optional`` /
``from_dict`` by the declared type); each file is decoded as the declared
message and compared with onnx's reading of the same bytes.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

import onnxdata
from onnxdata._tools.terminal import printable
from onnxdata._tools.testcase import is_test_case, read_test_case
from onnxdata.cli import main
from tests.support.paths import ROOT

ONNX_DIR = pathlib.Path(onnx.__file__).parent
PACKAGE_CASES = sorted(
    p for p in (ONNX_DIR / "backend" / "test" / "data").glob("*/*") if is_test_case(str(p))
)
ORACLE = {
    onnxdata.TensorProto: onnx.TensorProto,
    onnxdata.SequenceProto: onnx.SequenceProto,
    onnxdata.OptionalProto: onnx.OptionalProto,
    onnxdata.MapProto: onnx.MapProto,
    onnxdata.SparseTensorProto: onnx.SparseTensorProto,
}


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _inputs() -> list[tuple[onnx.ValueInfoProto, Any]]:
    """Declared inputs and their values: a tensor, a sequence, an optional holding a
    tensor (byte for byte a one-element sequence), an empty optional, a map."""
    tensor = helper.make_tensor_type_proto(T.FLOAT, ["N", 2])
    return [
        (helper.make_value_info("x", tensor), np.ones((3, 2), np.float32)),
        (
            helper.make_value_info(
                "s", helper.make_sequence_type_proto(helper.make_tensor_type_proto(T.INT64, None))
            ),
            [np.array([1, 2], np.int64), np.array([3], np.int64)],
        ),
        (
            helper.make_value_info(
                "o", helper.make_optional_type_proto(helper.make_tensor_type_proto(T.FLOAT, [2]))
            ),
            np.array([1, 2], np.float32),
        ),
        (
            helper.make_value_info(
                "e",
                helper.make_optional_type_proto(
                    helper.make_sequence_type_proto(helper.make_tensor_type_proto(T.FLOAT, None))
                ),
            ),
            None,
        ),
        (
            helper.make_value_info(
                "m",
                helper.make_map_type_proto(T.INT64, helper.make_tensor_type_proto(T.FLOAT, [1])),
            ),
            {1: np.array([1.0], np.float32), 2: np.array([2.0], np.float32)},
        ),
    ]


def _encode(info: onnx.ValueInfoProto, value: Any) -> bytes:
    """As onnx's generate-data writes a value of the declared type."""
    kind = info.type.WhichOneof("value")
    if kind == "sequence_type":
        return numpy_helper.from_list(value, info.name).SerializeToString()
    if kind == "optional_type":
        return numpy_helper.from_optional(value, info.name).SerializeToString()
    if kind == "map_type":
        return numpy_helper.from_dict(value, info.name).SerializeToString()
    return numpy_helper.from_array(value, info.name).SerializeToString()


def make_case(folder: pathlib.Path) -> pathlib.Path:
    inputs = _inputs()
    y = helper.make_tensor_value_info("y", T.FLOAT, ["N", 2])
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "case", [i for i, _ in inputs], [y]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    folder.mkdir()
    onnx.save(model, folder / "model.onnx")
    data = folder / "test_data_set_0"
    data.mkdir()
    for i, (info, value) in enumerate(inputs):
        (data / f"input_{i}.pb").write_bytes(_encode(info, value))
    (data / "output_0.pb").write_bytes(_encode(y, np.ones((3, 2), np.float32)))
    return folder


def test_each_file_is_read_as_its_declared_type(tmp_path: pathlib.Path) -> None:
    folder = make_case(tmp_path / "case")
    case = read_test_case(str(folder))
    files = case.data_sets["test_data_set_0"]
    kinds = [type(f.message) for f in files]
    assert kinds == [
        onnxdata.TensorProto,
        onnxdata.SequenceProto,
        onnxdata.OptionalProto,
        onnxdata.OptionalProto,
        onnxdata.MapProto,
        onnxdata.TensorProto,
    ]
    assert case.violations() == []
    # The optional holding a tensor: the bytes alone detect as a sequence.
    optional = (folder / "test_data_set_0" / "input_2.pb").read_bytes()
    assert (
        type(onnxdata.load(folder / "test_data_set_0" / "input_2.pb")) is not onnxdata.OptionalProto
    )
    for f in files:
        assert f.message is not None
        data = (folder / f.path).read_bytes()
        oracle = ORACLE[type(f.message)].FromString(data)
        assert f.message.encode() == oracle.SerializeToString() == data
    assert optional


def test_show_and_check_a_test_case(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_case(tmp_path / "case")
    status, out, err = run(capsys, "check", folder)
    assert (status, out, err) == (0, "", "")
    status, out, err = run(capsys, "show", folder)
    assert (status, err) == (0, "")
    assert out.endswith(
        f"{folder}: 1 data sets\n"
        "  test_data_set_0: 6 files\n"
        "    input_0.pb 'x': tensor(FLOAT)[3,2] (declared tensor(FLOAT)[N,2])\n"
        "    input_1.pb 's': seq(tensor(INT64)[2]) of 2 (declared seq(tensor(INT64)))\n"
        "    input_2.pb 'o': optional(tensor(FLOAT)[2]) (declared optional(tensor(FLOAT)[2]))\n"
        "    input_3.pb 'e': optional(empty) (declared optional(seq(tensor(FLOAT))))\n"
        "    input_4.pb 'm': map(INT64,...) of 2 (declared map(INT64,tensor(FLOAT)[1]))\n"
        "    output_0.pb 'y': tensor(FLOAT)[3,2] (declared tensor(FLOAT)[N,2])\n"
    )
    assert out.startswith(f"{folder}/model.onnx: ModelProto ir_version=")


def _write(folder: pathlib.Path, name: str, message: Any) -> None:
    (folder / "test_data_set_0" / name).write_bytes(message.SerializeToString())


MISMATCHES: dict[str, tuple[str, Any, str]] = {
    "element type": (
        "input_0.pb",
        numpy_helper.from_array(np.ones((3, 2), np.int32), "x"),
        "input_0.pb: TensorProto.data_type: is INT32, not FLOAT (the input 'x' is "
        "tensor(FLOAT)[N,2])",
    ),
    "rank": (
        "input_0.pb",
        numpy_helper.from_array(np.ones(6, np.float32), "x"),
        "input_0.pb: TensorProto.dims: [6] has rank 1, not 2",
    ),
    "fixed dimension": (
        "output_0.pb",
        numpy_helper.from_array(np.ones((3, 3), np.float32), "y"),
        "output_0.pb: TensorProto.dims[1]: is 3, not 2",
    ),
    "sequence element": (
        "input_1.pb",
        numpy_helper.from_list([np.ones(1, np.float32)], "s"),
        "input_1.pb: SequenceProto.tensor_values[0].data_type: is FLOAT, not INT64",
    ),
    "optional holding a sequence": (
        "input_2.pb",
        numpy_helper.from_optional([np.ones(2, np.float32)], "o"),
        "input_2.pb: OptionalProto.elem_type: is SEQUENCE, not TENSOR",
    ),
    "map key": (
        "input_4.pb",
        numpy_helper.from_dict({np.int32(1): np.ones(1, np.float32)}, "m"),
        "input_4.pb: MapProto.key_type: is INT32, not INT64",
    ),
    "map value": (
        "input_4.pb",
        numpy_helper.from_dict({1: np.ones(2, np.float32)}, "m"),
        "input_4.pb: MapProto.values.tensor_values[0].dims[0]: is 2, not 1",
    ),
    "data rule": (
        "input_0.pb",
        onnx.TensorProto(name="x", data_type=T.FLOAT, dims=[3, 2], float_data=[1.0]),
        "input_0.pb: TensorProto.float_data: 1 values, but dims [3, 2] of FLOAT need 6",
    ),
    "extra input": (
        "input_9.pb",
        numpy_helper.from_array(np.ones(1, np.float32), "z"),
        "input_9.pb: the model's graph has 5 inputs: no input 9",
    ),
}


@pytest.mark.parametrize("case", sorted(MISMATCHES))
def test_a_file_that_does_not_fit_is_a_violation(
    case: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, message, expected = MISMATCHES[case]
    folder = make_case(tmp_path / "case")
    _write(folder, name, message)
    status, out, err = run(capsys, "check", folder)
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert any(line.startswith(f"{folder}: test_data_set_0/{expected}") for line in lines), lines


def test_a_gap_in_the_numbering_and_a_damaged_file_are_violations(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_case(tmp_path / "case")
    data = folder / "test_data_set_0"
    os.remove(data / "input_1.pb")
    whole = (data / "input_0.pb").read_bytes()
    (data / "input_0.pb").write_bytes(whole[:-3])
    status, out, err = run(capsys, "check", folder)
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert (
        f"{folder}: test_data_set_0/input_1.pb: is missing, though inputs with higher "
        "numbers are there" in lines
    )
    assert any(line.startswith(f"{folder}: test_data_set_0/input_0.pb: offset ") for line in lines)


def _gap_lines(folder: pathlib.Path, number: int) -> list[str]:
    """The check's lines for a case whose inputs are 0, 2, 3, 4 and ``number``."""
    return [
        f"{folder}: test_data_set_0/input_{number}.pb: the model's graph has 5 inputs: "
        f"no input {number}",
        f"{folder}: test_data_set_0/input_1.pb: is missing, though inputs with higher "
        "numbers are there",
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_AS is POSIX")
@pytest.mark.parametrize("number", [7, 1_000_000_000, 10**60])
def test_a_huge_number_in_a_file_name_is_two_violations_in_bounded_memory(
    number: int, tmp_path: pathlib.Path
) -> None:
    """Memory goes by the files present, not by their numbers: under a 1 GiB address
    space (the old reading built a list as long as the largest number, 2.2 GB for
    input_20000000.pb), the huge number gives the lines a small one gives."""
    folder = make_case(tmp_path / "case")
    data = folder / "test_data_set_0"
    os.rename(data / "input_1.pb", data / f"input_{number}.pb")
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from onnxdata.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    for command in ("check", "show"):
        done = subprocess.run(
            [sys.executable, "-c", script, command, str(folder)],
            capture_output=True, text=True, cwd=ROOT, check=False,
        )  # fmt: skip
        assert done.stderr == ""
        if command == "check":
            assert (done.returncode, done.stdout.splitlines()) == (1, _gap_lines(folder, number))
        else:
            assert done.returncode == 0
            assert f"    input_{number}.pb None: unread (declared undeclared), 1 problems" in (
                done.stdout.splitlines()
            )


def test_a_name_onnx_never_reads_is_a_violation(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """onnx's runner counts every input_*.pb and reads input_0.pb, input_1.pb...: a
    number with a leading zero, in other digits than ASCII's, or none, is counted and
    never read (and input_01.pb must not replace input_1.pb)."""
    folder = make_case(tmp_path / "case")
    data = folder / "test_data_set_0"
    names = ["input_01.pb", "input_\u0663.pb", "input_.pb", "output_1\n.pb"]
    for name in names:
        (data / name).write_bytes((data / "input_0.pb").read_bytes())
    status, out, err = run(capsys, "check", folder)
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert len(lines) == len(names), lines
    for name in names:
        kind = name.split("_")[0]
        line = (
            f"{folder}: test_data_set_0/{name}: is not named {kind}_<n>.pb with n in decimal "
            f"digits (no leading zero): onnx's test runner counts it among the {kind}s but never "
            "reads it"
        )
        assert printable(line) in lines, name
    case = read_test_case(str(folder))
    read = [f.path for f in case.data_sets["test_data_set_0"] if f.message is not None]
    assert "test_data_set_0/input_1.pb" in read


def test_a_broken_model_in_a_test_case_is_reported_at_model_onnx(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_case(tmp_path / "case")
    model = onnx.load(folder / "model.onnx")
    model.graph.name = ""
    onnx.save(model, folder / "model.onnx")
    status, out, _ = run(capsys, "check", folder)
    assert status == 1
    assert out == f"{folder}: model.onnx: ModelProto.graph.name: is empty: a graph must be named\n"


def test_a_folder_without_a_model_is_refused_in_one_line(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("show", "check"):
        status, out, err = run(capsys, command, tmp_path)
        assert (status, out) == (2, "")
        assert err.startswith(f"onnxdata: {tmp_path}: ") and err.count("\n") == 1
    folder = make_case(tmp_path / "case")
    status, _, err = run(capsys, "check", "--type", "tensor", folder)
    assert status == 2 and "its model declares its files' types" in err


def test_the_package_test_cases_are_valid() -> None:
    assert len(PACKAGE_CASES) > 100
    for folder in PACKAGE_CASES:
        case = read_test_case(str(folder))
        assert case.data_sets, folder
        assert case.violations() == [], folder


@pytest.mark.slow
@pytest.mark.parametrize(
    "op",
    [
        "OptionalHasElement",
        "OptionalGetElement",
        "SequenceInsert",
        "SplitToSequence",
        "ConcatFromSequence",
        "Loop",
        "If",
    ],
)
def test_onnx_node_test_cases_are_valid(op: str, tmp_path: pathlib.Path) -> None:
    from onnx.backend.test.case import node

    for test in node.collect_testcases(op):
        if test.model is None or not test.data_sets:
            continue
        folder = tmp_path / test.name
        folder.mkdir()
        onnx.save(test.model, folder / "model.onnx")
        for k, (inputs, outputs) in enumerate(test.data_sets):
            data = folder / f"test_data_set_{k}"
            data.mkdir()
            for kind, values, infos in (
                ("input", inputs, test.model.graph.input),
                ("output", outputs, test.model.graph.output),
            ):
                for i, value in enumerate(values):
                    if isinstance(value, onnx.TensorProto):
                        blob = value.SerializeToString()
                    else:
                        blob = _encode(infos[i], value)
                    (data / f"{kind}_{i}.pb").write_bytes(blob)
        case = read_test_case(str(folder))
        assert [str(v) for v in case.violations()] == [], test.name


def test_checker_check_test_case_raises_with_every_violation(tmp_path: pathlib.Path) -> None:
    from onnxdata import checker

    folder = make_case(tmp_path / "case")
    checker.check_test_case(folder)  # valid: returns None
    _write(folder, "input_0.pb", numpy_helper.from_array(np.ones((3, 2), np.int32), "x"))
    _write(folder, "output_0.pb", numpy_helper.from_array(np.ones(6, np.float32), "y"))
    with pytest.raises(checker.ValidationError) as caught:
        checker.check_test_case(folder)
    paths = [v.path for v in caught.value.violations]
    assert paths == [
        "test_data_set_0/input_0.pb: TensorProto.data_type",
        "test_data_set_0/output_0.pb: TensorProto.dims",
    ]
    with pytest.raises(ValueError, match=r"holds no model\.onnx"):
        checker.check_test_case(tmp_path)
