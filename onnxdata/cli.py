"""The ``onnxdata`` command: look inside ONNX data files without protobuf.

Errors are one line on stderr naming the file, offset and field path, with
exit status 2; a traceback would only hide the offset a user needs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from . import __version__
from ._detect import detect
from ._errors import DecodeError, EncodeError
from ._messages import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from ._show import outline

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

TYPES: dict[str, type[Message]] = {
    "tensor": TensorProto,
    "sparse": SparseTensorProto,
    "sequence": SequenceProto,
    "map": MapProto,
    "optional": OptionalProto,
}


class CommandError(Exception):
    """A failure to report as one line: the file, then what went wrong."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``onnxdata`` command; return the exit status (0 ok, 1 violations, 2 errors)."""
    parser = _parser()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except BrokenPipeError:  # `onnxdata json big.pb | head`: stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="onnxdata", description="Inspect, check and convert ONNX data files (.pb)."
    )
    parser.add_argument("--version", action="version", version=f"onnxdata {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str, description: str, run: Any) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=description)
        sub.set_defaults(run=run)
        return sub

    def typed(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--type", choices=sorted(TYPES), help="the message type (default: detect it)"
        )

    show = command(
        "show",
        "outline what a file holds",
        "Outline each file: message type, names, types, shapes and a few values. "
        "The type is detected when --type is not given.",
        _cmd_show,
    )
    show.add_argument("files", nargs="+", metavar="FILE")
    typed(show)
    raw = command(
        "raw",
        "dump every field without a schema",
        "Dump every field (offset, number, wire type, value), guessing nested messages, "
        "like protoc --decode_raw. On damaged bytes, show how far they parse and where "
        "they break (exit status 2).",
        _cmd_raw,
    )
    raw.add_argument("file", metavar="FILE")
    check = command(
        "check",
        "check files against the ONNX rules",
        "Check each file against every MUST of the ONNX protos; print one line per "
        "violation. Exit status 1 if any file breaks a rule, 2 if one cannot be read.",
        _cmd_check,
    )
    check.add_argument("files", nargs="+", metavar="FILE")
    typed(check)
    to_json = command(
        "json",
        "print a file as protobuf JSON",
        "Print the message in protobuf's canonical JSON mapping "
        "(as google.protobuf.json_format.MessageToJson).",
        _cmd_json,
    )
    to_json.add_argument("file", metavar="FILE")
    typed(to_json)
    from_json = command(
        "from-json",
        "write a .pb from protobuf JSON",
        "Read protobuf JSON (what json_format.Parse accepts) and write the binary message.",
        _cmd_from_json,
    )
    from_json.add_argument("file", metavar="FILE.json")
    from_json.add_argument("-o", "--output", required=True, metavar="OUT.pb")
    from_json.add_argument(
        "--type",
        choices=sorted(TYPES),
        help="the message type (default: the first of tensor, sparse, sequence, map, optional "
        "whose fields fit)",
    )
    to_npy = command(
        "to-npy",
        "write a tensor as a .npy array (needs numpy)",
        "Convert a TensorProto (or SparseTensorProto, densified) to a .npy file.",
        _cmd_to_npy,
    )
    to_npy.add_argument("file", metavar="FILE")
    to_npy.add_argument("-o", "--output", required=True, metavar="OUT.npy")
    typed(to_npy)
    from_npy = command(
        "from-npy",
        "write a .npy array as a TensorProto (needs numpy)",
        "Convert a .npy array to a TensorProto .pb file.",
        _cmd_from_npy,
    )
    from_npy.add_argument("file", metavar="IN.npy")
    from_npy.add_argument("-o", "--output", required=True, metavar="OUT.pb")
    from_npy.add_argument("--name", help="the tensor's name")
    return parser


def _fail(path: str, message: str) -> int:
    print(f"onnxdata: {path}: {message}", file=sys.stderr)
    return 2


def _guarded(path: str, action: Callable[[], int]) -> int:
    """Run ``action``; turn every expected failure into one line on stderr and status 2."""
    try:
        return action()
    except DecodeError as err:
        return _fail(path, f"offset {err.offset}: {err}")
    except EncodeError as err:
        return _fail(path, f"cannot encode: {err}")
    except CommandError as err:
        return _fail(path, str(err))
    except BrokenPipeError:
        raise
    except OSError as err:
        return _fail(path, err.strerror or str(err))


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _load(path: str, type_name: str | None) -> Message:
    data = _read(path)
    if type_name is not None:
        return TYPES[type_name].decode(data)
    return detect(data)[0].message


def _write(path: str, data: bytes) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _cmd_show(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:

        def one(path: str = path) -> int:
            print("\n".join(_show(path, args.type)))
            return 0

        status = max(status, _guarded(path, one))
    return status


def _show(path: str, type_name: str | None) -> list[str]:
    data = _read(path)
    if type_name is not None:
        return [f"{path}:", *outline(TYPES[type_name].decode(data), "  ")]
    found = detect(data)
    best = found[0]
    lines = [f"{path}: {best.type.__qualname__}"]
    ties = [c.type.__qualname__ for c in found[1:] if c.misfit == best.misfit]
    if ties:
        lines[0] += f" (ambiguous: also decodes as {', '.join(ties)}; use --type)"
    return lines + outline(best.message, "  ")


def _cmd_raw(args: argparse.Namespace) -> int:
    from ._raw import dump

    def run() -> int:
        result = dump(_read(args.file))
        if result.lines:
            print("\n".join(result.lines))
        if result.error is not None:
            err = result.error
            return _fail(
                args.file,
                f"offset {err.offset}: {err.reason} (the first {result.parsed} bytes parse)",
            )
        return 0

    return _guarded(args.file, run)


def _cmd_check(args: argparse.Namespace) -> int:
    from ._check import check

    status = 0
    for path in args.files:

        def one(path: str = path) -> int:
            found = check(_load(path, args.type))
            for v in found:
                print(f"{path}: {v}")
            return 1 if found else 0

        status = max(status, _guarded(path, one))
    return status


def _cmd_json(args: argparse.Namespace) -> int:
    from ._json import to_json

    def run() -> int:
        print(to_json(_load(args.file, args.type)))
        return 0

    return _guarded(args.file, run)


def _cmd_from_json(args: argparse.Namespace) -> int:
    from ._json import JSONError, from_json

    def run() -> int:
        text = _read(args.file)
        # JSON names no type either: without --type, the first type whose fields fit.
        names = [args.type] if args.type else list(TYPES)
        first: JSONError | None = None
        for name in names:
            try:
                msg = from_json(TYPES[name], text)
                break
            except JSONError as err:
                first = first or err
        else:
            raise CommandError(str(first))
        _write(args.output, msg.encode())
        return 0

    return _guarded(args.file, run)


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise CommandError("this command needs numpy: pip install 'onnxdata[numpy]'") from None
    return numpy


def _cmd_to_npy(args: argparse.Namespace) -> int:
    def run() -> int:
        np = _numpy()
        from . import numpy_helper

        msg = _load(args.file, args.type)
        if not isinstance(msg, (TensorProto, SparseTensorProto)):
            raise CommandError(f"to-npy takes a tensor, not a {type(msg).__qualname__}")
        try:
            array = numpy_helper.to_array(msg, os.path.dirname(os.path.abspath(args.file)))
        except (ValueError, TypeError) as err:
            raise CommandError(f"cannot convert to an array: {err}") from None
        if array.dtype.kind == "O":
            raise CommandError("STRING tensors cannot be saved as .npy without pickle")
        with open(args.output, "wb") as f:
            np.save(f, array, allow_pickle=False)
        return 0

    return _guarded(args.file, run)


def _cmd_from_npy(args: argparse.Namespace) -> int:
    def run() -> int:
        np = _numpy()
        from . import numpy_helper

        try:
            array = np.load(args.file, allow_pickle=False)
        except ValueError as err:
            raise CommandError(f"not a .npy array: {err}") from None
        try:
            tensor = numpy_helper.from_array(array, name=args.name)
        except (ValueError, TypeError) as err:
            raise CommandError(f"cannot convert: {err}") from None
        _write(args.output, tensor.encode())
        return 0

    return _guarded(args.file, run)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
