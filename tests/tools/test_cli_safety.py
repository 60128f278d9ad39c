"""The command line's safety rules, for every command (issue 31).

- Class 1: an output that is the same file as an input is refused, however it
  is named; every writer writes atomically.
- Class 4: no text from a file or an argument reaches the terminal raw.
- Class 5: a closed pipe never turns a failure into success.
- Class 1b/6: bad input is one line on stderr and status 2.

The pipe, file-size-limit and file-descriptor cases run in subprocesses, as
a shell would run the program.
"""

from __future__ import annotations

import ast
import json
import os
import pathlib
import resource
import subprocess
import sys

import pytest

import onnxdata
from onnxdata._tools.terminal import printable
from onnxdata.cli import main
from tests.support.paths import ROOT

C0 = "".join(map(chr, range(0x20)))
DEL = "\x7f"
C1 = "".join(map(chr, range(0x80, 0xA0)))
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"
SURROGATES = "\ud800\udbff\udc80\udfff"
FORGED = "\nonnxdata: all files OK\r"
NASTY = "x" + C0 + DEL + C1 + BIDI + SURROGATES + FORGED
"""Every character that must never reach a terminal raw."""
# What a file name or a stored string can hold: no NUL or "/" in a name, and only
# the surrogates that stand for undecodable bytes (surrogateescape).
STORED = "".join(
    c for c in NASTY if c not in "\0/" and not ("\ud800" <= c <= "\udfff" and c != "\udc80")
)

OUTPUT_COMMANDS = ["to-npy", "from-npy", "from-json"]
ALL_COMMANDS = ["show", "raw", "check", "json", *OUTPUT_COMMANDS, "corpus"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def clean(text: str) -> list[str]:
    """The lines of ``text``, each asserted to hold only printable characters."""
    lines = text.split("\n")
    assert lines[-1] == "", "every line ends with a line break"
    for line in lines[:-1]:
        bad = sorted({hex(ord(c)) for c in line if not c.isprintable()})
        assert not bad, f"unescaped {bad} in {line!r}"
        assert not line.startswith("onnxdata: all files OK"), line  # no forged line
    return lines[:-1]


def program(*argv: str, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    """Run the installed program as a shell would (``python -m onnxdata``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "onnxdata", *argv],
        env=env,
        capture_output="stdout" not in kwargs,
        check=False,
        **kwargs,  # type: ignore[call-overload]
    )


def tensor_file(path: pathlib.Path, n: int = 1000, name: str = "w") -> bytes:
    data = onnxdata.TensorProto(dims=[n], data_type=1, name=name, float_data=[0.5] * n).encode()
    path.write_bytes(data)
    return data


CHECK = ["check", "--type", "sequence"]  # the bytes of many_violations() detect as a tensor


def many_violations(path: pathlib.Path, n: int = 5000) -> None:
    """A sequence of ``n`` tensors of a data type that does not exist: ``n``
    violations when checked as a sequence (:data:`CHECK`)."""
    seq = onnxdata.SequenceProto(elem_type=1)
    for _ in range(n):
        seq.tensor_values.add().data_type = 99
    path.write_bytes(seq.encode())


def external_tensor(path: pathlib.Path, location: str, *extra: tuple[str, str]) -> None:
    t = onnxdata.TensorProto(dims=[2], data_type=1, name="w", data_location=1)
    for key, value in (("location", location), *extra):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    path.write_bytes(t.encode())


# -- class 4: one escaping function -------------------------------------------------


def test_printable_escapes_every_control_and_format_character() -> None:
    for char in NASTY:
        if char.isprintable():
            assert printable(char) == char
        else:
            assert printable(char) == repr(char)[1:-1]  # as show's repr spells it
            assert printable(char).isprintable() and len(printable(char)) > 1
    assert printable(NASTY).isprintable()
    assert "\n" not in printable(NASTY) and "\x1b" not in printable(NASTY)


@pytest.mark.parametrize("text", ["plain", "é ü 中文 🙂", "a\\nb", repr(NASTY), json.dumps(NASTY)])
def test_printable_keeps_what_is_already_printable(text: str) -> None:
    # Escaped text (a repr, JSON) is printable: escaping it again changes nothing.
    assert printable(text) == text
    assert printable(printable(NASTY)) == printable(NASTY)


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_a_nasty_argument_is_escaped(
    command: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A path that cannot be opened (NUL, lone surrogates, control characters).
    out = ["-o", str(tmp_path / "o")] if command in OUTPUT_COMMANDS else []
    status, stdout, err = run(capsys, command, str(tmp_path / NASTY), *out)
    assert status == 2 and stdout == ""
    assert len(clean(err)) == 1 and err.startswith("onnxdata: ")


@pytest.mark.parametrize("command", ["show", "raw", "check", "json", "to-npy"])
def test_a_nasty_file_name_is_escaped(
    command: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A file that exists, named with every character a name can hold: errors
    # and output lines both name it.
    path = os.path.join(os.fsencode(tmp_path), os.fsencode(STORED))
    with open(path, "wb") as f:
        f.write(b"\x0a\x05ab")  # malformed
    name = os.fsdecode(path)
    out = ["-o", str(tmp_path / "o.npy")] if command == "to-npy" else []
    status, stdout, err = run(capsys, command, name, *out)
    assert status == 2 and len(clean(err)) == 1
    clean(stdout)
    many_violations(pathlib.Path(name), 3)
    argv = [*CHECK, name] if command == "check" else [command, name, *out]
    status, stdout, err = run(capsys, *argv)
    clean(stdout)
    clean(err)
    if command == "check":
        assert status == 1 and len(clean(stdout)) == 3


@pytest.mark.parametrize("fmt", ["outline", "text"])
def test_show_escapes_names_and_paths(
    fmt: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = os.fsdecode(os.path.join(os.fsencode(tmp_path), os.fsencode(STORED)))
    tensor_file(pathlib.Path(a), 3, name=STORED)
    status, out, err = run(capsys, "show", "--format", fmt, a, a)
    assert (status, err) == (0, "")
    lines = clean(out)
    assert sum("all files OK" in line for line in lines) >= 2  # shown, escaped, in place
    assert not any(line.startswith("onnxdata: all files OK") for line in lines)


def test_json_escapes_a_nasty_name(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "t.pb"
    tensor_file(src, 2, name=STORED)
    status, out, err = run(capsys, "json", str(src))
    assert (status, err) == (0, "")
    clean(out)
    assert json.loads(out)["name"] == STORED  # still the JSON of the message


@pytest.mark.parametrize(
    "doc",
    [
        {NASTY: 1},  # an unknown key
        {"floatData": [NASTY]},  # a float string
        {"dataLocation": NASTY},  # an enum string
        {"dataType": NASTY},
        {"dims": [NASTY]},
        {"externalData": [{NASTY: NASTY}]},
    ],
    ids=["key", "float", "enum", "int", "int64", "nested-key"],
)
def test_from_json_escapes_what_it_quotes(
    doc: dict[str, object], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "t.json"
    src.write_text(json.dumps(doc))  # ASCII, with the lone surrogates as \ud800 escapes
    for extra in ([], ["--type", "tensor"]):
        status, out, err = run(capsys, "from-json", *extra, str(src), "-o", str(tmp_path / "o"))
        assert (status, out) == (2, "")
        assert len(clean(err)) == 1


def test_an_external_location_is_escaped(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "w.pb"
    for location in (STORED, "/" + STORED, "../" + STORED):
        external_tensor(src, location)
        status, out, err = run(capsys, "to-npy", str(src), "-o", str(tmp_path / "o.npy"))
        assert (status, out) == (2, "") and len(clean(err)) == 1
        status, out, err = run(capsys, "check", str(src))
        clean(out)
        assert err == ""
        status, out, err = run(capsys, "show", str(src))
        clean(out)


def test_argparse_errors_are_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["check", "--" + NASTY.replace(" ", "")], ["show", "--type", NASTY, "f"], [NASTY],
                 ["corpus", "o", "--seed", NASTY]):  # fmt: skip
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert clean(err)[-1].startswith("onnxdata")


def test_the_program_escapes_warnings_and_errors_as_bytes(tmp_path: pathlib.Path) -> None:
    # Through real stderr: no control byte but the line breaks, no C1 or bidi
    # character, valid UTF-8; a warning and an error, one line each.
    src = tmp_path / "w.pb"
    external_tensor(src, STORED, (STORED, "red"))
    done = program("to-npy", str(src), "-o", str(tmp_path / "o.npy"))
    assert done.returncode == 2
    text = done.stderr.decode("utf-8")
    lines = clean(text)
    assert [line.split(":")[1] for line in lines] == [" warning", f" {src}"]
    assert not set(done.stderr) & (set(range(0x20)) - {0x0A} | {0x7F})


def test_no_line_is_printed_but_through_the_escaping() -> None:
    # The one place rule, kept by the code's shape: the command prints nothing itself
    # (no print(), no sys.stdout/sys.stderr write) but in console.Output and console.say,
    # and argparse's error line in cli._Parser.
    allowed = {"cli.py": {"_Parser"}, "_tools/console.py": {"Output", "say"}}
    for module, names in allowed.items():
        tree = ast.parse((ROOT / "onnxdata" / module).read_text(encoding="utf-8"))
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
        prints = [n.lineno for n in calls if isinstance(n.func, ast.Name) and n.func.id == "print"]
        assert prints == [], module
        body = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for name, node in body.items():
            if name in names:
                continue
            text = ast.unparse(node)
            assert "sys.stdout" not in text and "sys.stderr" not in text, (module, name)


# -- class 1: an output is never an input, and is written atomically ---------------


def _inputs_for(command: str, tmp_path: pathlib.Path) -> pathlib.Path:
    import numpy as np

    if command == "to-npy":
        src = tmp_path / "in.pb"
        tensor_file(src)
    elif command == "from-npy":
        src = tmp_path / "in.npy"
        np.save(src, np.arange(1000, dtype=np.float32))
    else:
        src = tmp_path / "in.json"
        src.write_text('{"dims": ["3"], "dataType": 1, "floatData": [1, 2, 3]}')
    return src


@pytest.mark.parametrize("how", ["same", "relative", "hard-link", "symlink", "dev-fd"])
@pytest.mark.parametrize("command", OUTPUT_COMMANDS)
def test_an_output_that_is_the_input_is_refused(
    command: str, how: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _inputs_for(command, tmp_path)
    before = src.read_bytes()
    monkeypatch.chdir(tmp_path)
    fds: tuple[int, ...] = ()
    if how == "same":
        out = str(src)
    elif how == "relative":
        out = os.path.join(".", src.name)
    elif how == "hard-link":
        out = str(tmp_path / "link")
        os.link(src, out)
    elif how == "symlink":
        out = str(tmp_path / "sym")
        os.symlink(src.name, out)
    else:
        fd = os.open(src, os.O_RDONLY)
        fds = (fd,)
        out = f"/dev/fd/{fd}"
    try:
        done = program(command, str(src), "-o", out, pass_fds=fds, cwd=tmp_path)
    finally:
        for fd in fds:
            os.close(fd)
    assert done.returncode == 2, done.stderr
    assert done.stdout == b""
    line = done.stderr.decode()
    assert line.count("\n") == 1 and "is the same file as the input" in line
    assert src.read_bytes() == before


@pytest.mark.parametrize("command", ["show", "raw", "check", "json"])
def test_stdout_onto_the_input_is_refused(command: str, tmp_path: pathlib.Path) -> None:
    # `onnxdata json w.pb >> w.pb`: the input would be appended to while read.
    src = tmp_path / "w.pb"
    before = tensor_file(src)
    with open(src, "ab") as out:
        done = program(command, str(src), stdout=out, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert done.stderr.decode().startswith("onnxdata: <stdout>: is the same file as the input")
    assert src.read_bytes() == before


def test_to_npy_refuses_to_overwrite_the_external_data(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "w.bin"
    data.write_bytes(bytes(8))
    src = tmp_path / "w.pb"
    external_tensor(src, "w.bin")
    status, out, err = run(capsys, "to-npy", str(src), "-o", str(data))
    assert (status, out) == (2, "")
    assert "holds the tensor's external data (w.bin)" in err and err.count("\n") == 1
    assert data.read_bytes() == bytes(8)
    # Another output is fine: the values are read from w.bin.
    assert run(capsys, "to-npy", str(src), "-o", str(tmp_path / "w.npy"))[0] == 0


def _limit_file_size() -> None:
    # Every file the program writes is limited to 4 KiB: writing more fails with EFBIG
    # (Python ignores SIGXFSZ, so the write fails instead of the process dying).
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


@pytest.mark.parametrize("command", OUTPUT_COMMANDS)
def test_a_failed_write_leaves_the_output_as_it_was(command: str, tmp_path: pathlib.Path) -> None:
    import numpy as np

    if command == "to-npy":
        src = tmp_path / "in.pb"
        tensor_file(src, 50_000)
    elif command == "from-npy":
        src = tmp_path / "in.npy"
        np.save(src, np.arange(2000, dtype=np.float32))  # 8 KiB: allowed to exist already
    else:
        src = tmp_path / "in.json"
        src.write_text(json.dumps({"dataType": 1, "dims": ["5000"], "floatData": [1.5] * 5000}))
    out = tmp_path / "out"
    out.write_bytes(b"x" * 100)
    done = program(command, str(src), "-o", str(out), preexec_fn=_limit_file_size)
    assert done.returncode == 2
    assert done.stderr.decode().count("\n") == 1
    assert f"cannot write {out}" in done.stderr.decode()
    assert out.read_bytes() == b"x" * 100
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([src.name, "out"])  # no temporary


@pytest.mark.parametrize("command", OUTPUT_COMMANDS)
def test_an_output_in_a_missing_folder_is_one_line(
    command: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _inputs_for(command, tmp_path)
    out = tmp_path / "no" / "out"
    status, stdout, err = run(capsys, command, str(src), "-o", str(out))
    assert (status, stdout) == (2, "")
    assert err == f"onnxdata: {src}: cannot write {out}: No such file or directory\n"


# -- class 5: a closed pipe keeps the status ------------------------------------------


def _closed_early(argv: list[str], lines: int = 1) -> tuple[int, bytes, bytes]:
    """Run the program into a pipe that the reader closes after ``lines`` lines."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen(
        [sys.executable, "-m", "onnxdata", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert child.stdout is not None and child.stderr is not None
    head = b"".join(child.stdout.readline() for _ in range(lines))
    child.stdout.close()  # as `| head -1` does
    err = child.stderr.read()
    return child.wait(timeout=120), head, err


def test_check_into_a_closed_pipe_still_fails(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.pb"
    many_violations(bad)  # 5000 lines: far more than a pipe holds
    status, head, err = _closed_early([*CHECK, str(bad)])
    assert status == 1
    assert head.startswith(str(bad).encode())
    assert err == b""  # no "Exception ignored ... BrokenPipeError"
    status, head, err = _closed_early([*CHECK, str(tmp_path / "missing.pb"), str(bad)])
    assert status == 2
    assert err.decode().count("\n") == 1 and b"missing.pb" in err


def test_the_work_goes_on_after_the_pipe_closes(tmp_path: pathlib.Path) -> None:
    # The reader left during the first file; a later file's failure still counts.
    bad = tmp_path / "bad.pb"
    many_violations(bad)
    broken = tmp_path / "broken.pb"
    broken.write_bytes(b"\x0a\x05ab")
    status, _, err = _closed_early([*CHECK, str(bad), str(broken)])
    assert status == 2 and err.decode().count("\n") == 1 and b"broken.pb" in err
    status, _, err = _closed_early(["show", "--format", "text", str(bad), str(broken)])
    assert status == 2 and b"broken.pb" in err and b"Exception" not in err


@pytest.mark.parametrize(
    "argv",
    [["json"], ["show", "--format", "text"], ["raw"], ["show"]],
    ids=["json", "text", "raw", "show"],
)
def test_a_closed_pipe_after_success_is_success(argv: list[str], tmp_path: pathlib.Path) -> None:
    src = tmp_path / "big.pb"
    many_violations(src)  # a valid encoding: these commands succeed on it
    status, head, err = _closed_early([*argv, str(src)])
    assert (status, err) == (0, b"")
    assert head


def test_a_closed_stdout_keeps_the_status(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.pb"
    many_violations(bad, 3)
    done = program(*CHECK, str(bad), preexec_fn=lambda: os.close(1))
    assert (done.returncode, done.stderr) == (1, b"")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_on_stdout_is_an_error(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "t.pb"
    tensor_file(src)
    with open("/dev/full", "wb") as full:
        done = program("json", str(src), stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert done.stderr == b"onnxdata: cannot write the output: No space left on device\n"


# -- class 1b/6: one line and status 2 on bad input, for every command ---------------


BAD_INPUTS = {
    "missing": None,
    "empty-dir": "dir",
    "truncated": b"\x0a\x05ab",
    "bad-tag": b"\x00",
    "huge-length": b"\x0a\xff\xff\xff\xff\x0f",
    "garbage": bytes(range(256)) * 4,
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
@pytest.mark.parametrize("command", ["show", "raw", "check", "json", *OUTPUT_COMMANDS])
def test_bad_input_is_one_line_and_status_2(
    command: str, name: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content = BAD_INPUTS[name]
    src = tmp_path / "in"
    if content == "dir":
        src.mkdir()
    elif isinstance(content, bytes):
        src.write_bytes(content)
    out = tmp_path / "out"
    extra = ["-o", str(out)] if command in OUTPUT_COMMANDS else []
    status, stdout, err = run(capsys, command, str(src), *extra)
    assert (status, stdout) == (2, ""), err
    assert len(clean(err)) == 1 and err.startswith(f"onnxdata: {src}: ")
    assert "Traceback" not in err
    assert not out.exists()
