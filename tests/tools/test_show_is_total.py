"""``show`` and ``check`` are total on decoded models: every number a model holds
(dims, external ``offset``/``length`` entries, sizes) is read strictly and
printed whole, never through a float or a conversion that can refuse it.

onnx loads every model here; ``show`` gave OverflowError (17 dims of 2**62: the
size went through a float; a 400-digit length) or ValueError (a length of
``"²"`` passed ``str.isdigit`` and ``int`` refused it; 300 dims of 2**62 made
an element count ``str`` refuses to print), each as exit status 2.
"""

from __future__ import annotations

import pathlib
import tempfile
from typing import Any

import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto as T
from onnx import helper

import onnxdata
from onnxdata._io.external import MAX_DIGITS, parse_count
from onnxdata._tools.check import check
from onnxdata._tools.external_files import external_violations
from onnxdata._tools.summary import size_text, summary
from onnxdata.cli import main

BIG = 2**62


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def model_of(t: onnx.TensorProto) -> onnx.ModelProto:
    graph = helper.make_graph([], "g", [], [], initializer=[t])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def external(**entries: str) -> onnx.TensorProto:
    t = onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[2], data_location=T.EXTERNAL)
    t.external_data.add(key="location", value="w.bin")
    for key, value in entries.items():
        t.external_data.add(key=key, value=value)
    return t


ODD_TENSORS: dict[str, onnx.TensorProto] = {
    "17 dims of 2**62": onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[BIG] * 17),
    "300 dims of 2**62": onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[BIG] * 300),
    "overflow before a zero": onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[BIG, BIG, 0]),
    "a zero before an overflow": onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[0, BIG, BIG]),
    "negative dims": onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[-5, BIG], float_data=[1]),
    "int64 extremes": onnx.TensorProto(
        name="w", data_type=T.INT4, dims=[2**63 - 1, -(2**63)], raw_data=b"\x01"
    ),
    "400-digit length": external(length="9" * 400),
    "5000-digit length": external(length="9" * 5000),
    "5000 zeros then 5": external(length="0" * 5000 + "5"),
    "superscript two": external(length="\u00b2"),
    "arabic-indic three": external(offset="\u0663"),
    "spaces": external(length=" 7 "),
    "underscore": external(offset="1_0"),
    "negative": external(offset="-3"),
    "empty": external(length=""),
    "huge offset": external(offset="9" * 90),
    "unknown key": external(**{"x": "1", "checksum": "\u00b2"}),
}

OVERFLOWS = {"17 dims of 2**62", "300 dims of 2**62", "overflow before a zero"}


@pytest.mark.parametrize("case", sorted(ODD_TENSORS))
def test_show_and_check_take_every_odd_model_onnx_loads(
    case: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = model_of(ODD_TENSORS[case])
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    assert onnx.load(str(path), load_external_data=False) == model
    status, out, err = run(capsys, "show", path)
    assert (status, err) == (0, ""), err
    assert out.startswith(f"{path}: ModelProto")
    if case == "300 dims of 2**62":  # a summary line stays short, whatever the rank
        assert f"FLOAT[{','.join([str(BIG)] * 8)},...(300 dims)]" in out
    status, out, err = run(capsys, "check", path)
    assert status in (0, 1) and err == "", err
    if case in OVERFLOWS:  # onnx refuses them for the same reason
        with pytest.raises(onnx.checker.ValidationError, match="product overflow"):
            onnx.checker.check_model(model)
        assert "(onnx: Tensor dimension product overflow)" in out


def test_a_number_of_any_size_is_shown() -> None:
    assert size_text(17 * 2**62 * 4) == "285212672.0 TiB"  # 17 * 2**64 bytes
    assert size_text(10**400) == "at least 2**1328 bytes"
    assert size_text(None) == "? bytes"


ASCII = [("0", 0), ("7", 7), ("+5", 5), ("007", 7), ("9" * MAX_DIGITS, int("9" * MAX_DIGITS)),
         ("0" * 5000 + "5", 5)]  # fmt: skip
REFUSED = ["", "-3", "\u00b2", "\u0663", " 7", "7 ", "1_0", "0x10", "1e3", "7\n",
           "9" * (MAX_DIGITS + 1)]  # fmt: skip


def test_offsets_and_lengths_are_ascii_decimal_integers() -> None:
    """One reading, shared by the reader, the validator and show: what int() reads
    of ASCII digits, and nothing of what it also takes (other digits, spaces,
    underscores) or what isdigit() takes and int() does not."""
    for text, value in ASCII:
        assert parse_count(text) == value
    for text in REFUSED:
        with pytest.raises(ValueError):
            parse_count(text)
    assert "\u00b2".isdigit() and int("\u0663") == 3 and int(" 7") == int("1_0") + -3 == 7


# -- any model -------------------------------------------------------------------

_DIGITS = st.text(st.sampled_from("0123456789+-_ \u00b2\u0663\uff11"), max_size=8)
_VALUES = st.one_of(_DIGITS, st.text(max_size=6), st.integers(0, 10**120).map(str))
_ENTRIES = st.lists(
    st.tuples(st.sampled_from(["location", "offset", "length", "checksum", "x"]), _VALUES),
    max_size=5,
)
_DIMS = st.lists(
    st.one_of(st.integers(-(2**63), 2**63 - 1), st.sampled_from([0, 1, BIG, 2**63 - 1])),
    max_size=24,
)


@st.composite
def odd_models(draw: st.DrawFn) -> onnxdata.ModelProto:
    tensors = []
    for i in range(draw(st.integers(1, 3))):
        t = onnxdata.TensorProto(name=f"t{i}", data_type=draw(st.integers(0, 30)))
        t.dims.extend(draw(_DIMS))
        if draw(st.booleans()):
            t.data_location = onnxdata.TensorProto.EXTERNAL
            for key, value in draw(_ENTRIES):
                t.external_data.add(key=key, value=value)
        elif draw(st.booleans()):
            t.raw_data = draw(st.binary(max_size=16))
        tensors.append(t)
    graph = onnxdata.GraphProto(name="g", initializer=tensors)
    model = onnxdata.ModelProto(ir_version=draw(st.integers(0, 2**63 - 1)), graph=graph)
    return onnxdata.ModelProto.decode(model.encode())


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(odd_models())
def test_the_summary_and_check_of_any_decoded_model_never_raise(
    model: onnxdata.ModelProto,
) -> None:
    """An empty folder of its own for each example: the external files are looked
    for (and are missing), and nothing outside the drawn model is read."""
    with tempfile.TemporaryDirectory() as folder:
        lines = summary(model, folder)
        assert lines[0].startswith("ModelProto ir_version=")
        check(model)
        found = external_violations(model, folder)
        external = sum(t.data_location == 1 for t in model.graph.initializer)
        assert len(found) <= external


@given(st.integers(0, 2**53))
def test_sizes_read_as_the_float_formatting_read_them(n: int) -> None:
    """The whole-number formatting gives the text the float one gave, wherever a
    float holds the size exactly."""
    expected = f"{n} bytes"
    if n >= 1024:
        units = n
        for unit in ("KiB", "MiB", "GiB", "TiB"):
            value = units / 1024
            if value < 1024 or unit == "TiB":
                expected = f"{value:.1f} {unit}"
                break
            units = int(value)
    assert size_text(n) == expected
