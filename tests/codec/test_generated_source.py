"""Generated code is code one can read and step into.

Every decoder and encoder is compiled by ``codegen.build``, which registers
its source with ``linecache``: a traceback through one shows the generated
line, ``inspect.getsource`` finds it, ``pdb`` lists and steps through it, and
``python -m onnxdata generated`` prints it.
"""

from __future__ import annotations

import inspect
import io
import linecache
import os
import pdb
import subprocess
import sys
import traceback

import pytest

import onnxdata
from onnxdata import EncodeError, SequenceProto, TensorProto
from onnxdata._codec import decode, encode
from onnxdata._core import switches
from onnxdata.cli import main


@pytest.fixture(params=[False, True], ids=["fast", "general"])
def paths(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(switches, "GENERAL_PATHS", request.param)
    on: bool = request.param
    return on


def test_a_traceback_shows_the_generated_line(paths: bool) -> None:
    # A float in an integer field fails inside the generated encoder.
    m = TensorProto(dims=[1.5])  # type: ignore[list-item]
    try:
        m.encode()
    except EncodeError:
        text = traceback.format_exc()
        frames = traceback.extract_tb(sys.exc_info()[2])
    else:  # pragma: no cover - the encode must fail
        pytest.fail("no error")
    generated = [f for f in frames if f.filename.startswith("<onnxdata encoder TensorProto")]
    assert len(generated) == 1
    line = generated[0].line
    assert line and "TAG_dims" in line  # the line that wrote the field
    assert line in text


def test_a_decode_error_traceback_shows_the_generated_line(paths: bool) -> None:
    data = b"\x08\xff"  # dims: a varint cut short
    with pytest.raises(onnxdata.DecodeError) as info:
        TensorProto.decode(data)
    frames = [f for f in traceback.extract_tb(info.tb) if "<onnxdata decoder" in f.filename]
    assert frames and all(f.line for f in frames)
    assert any("read_varint" in (f.line or "") for f in frames)
    text = "".join(traceback.format_exception(info.value))
    assert frames[-1].line in text


@pytest.mark.parametrize("cls", [TensorProto, SequenceProto])
def test_inspect_finds_the_source(cls: type, paths: bool) -> None:
    decoder = decode.decoder(cls)[1]
    assert inspect.getsource(decoder) == decode.source(cls)
    encoder = encode.encoder(cls)
    assert inspect.getsource(encoder) == encode.source(cls)
    filename = decoder.__code__.co_filename
    assert filename.startswith("<onnxdata decoder")
    assert linecache.getline(filename, 1).startswith("def decode_")


@pytest.mark.usefixtures("fast_paths")
def test_pdb_lists_and_steps_through_a_decoder() -> None:
    new, decoder = decode.decoder(TensorProto)
    data = TensorProto(dims=[2, 3]).encode()
    out = io.StringIO()
    debugger = pdb.Pdb(  # nosigint: pdb would otherwise keep its SIGINT handler installed
        stdin=io.StringIO("list\nstep\nstep\nwhere\ncontinue\n"), stdout=out, nosigint=True
    )
    debugger.use_rawinput = False
    msg = new()
    debugger.runcall(decoder, data, 0, len(data), msg, 100, [])
    text = out.getvalue()
    assert msg.dims == [2, 3]
    assert "run_end = -1" in text  # listed from the generated source
    assert "<onnxdata decoder TensorProto>" in text


def test_the_command_prints_the_generated_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generated", "TensorProto", "--decode"]) == 0
    out = capsys.readouterr().out
    assert decode.source(TensorProto) in out
    assert decode.source(TensorProto, copy=False) in out
    assert encode.source(TensorProto) not in out
    assert main(["generated", "map", "--encode"]) == 0
    out = capsys.readouterr().out
    assert out.count("def encode_") == 1 and "def decode_" not in out
    assert main(["generated"]) == 0
    out = capsys.readouterr().out
    # The five top-level data messages and the model: a decoder per mode, an encoder.
    assert out.count("def decode_") == 12 and out.count("def encode_") == 6


def test_the_command_prints_the_general_paths_under_the_switch() -> None:
    env = {"ONNXDATA_GENERAL_PATHS": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "onnxdata", "generated", "sequence", "--decode"],
        capture_output=True,
        text=True,
        check=True,
        env={**_environ(), **env},
    )
    assert "def decode_SequenceProto" in run.stdout
    assert "msg = sub" not in run.stdout  # the tail path is gone
    default = subprocess.run(
        [sys.executable, "-m", "onnxdata", "generated", "sequence", "--decode"],
        capture_output=True,
        text=True,
        check=True,
        env={k: v for k, v in _environ().items() if k != "ONNXDATA_GENERAL_PATHS"},
    )
    assert "msg = sub" in default.stdout


def _environ() -> dict[str, str]:
    return dict(os.environ)
