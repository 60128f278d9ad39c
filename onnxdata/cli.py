"""The ``onnxdata`` command: look inside ONNX data files without protobuf.

Errors are one line on stderr naming the file, offset and field path, with
exit status 2; a traceback would only hide the offset a user needs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__
from ._detect import detect
from ._errors import DecodeError
from ._messages import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from ._show import outline

TYPES: dict[str, type[Message]] = {
    "tensor": TensorProto,
    "sparse": SparseTensorProto,
    "sequence": SequenceProto,
    "map": MapProto,
    "optional": OptionalProto,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="onnxdata", description="Inspect ONNX data files (.pb) without protobuf."
    )
    parser.add_argument("--version", action="version", version=f"onnxdata {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser(
        "show",
        help="outline what a file holds",
        description="Outline each file: message type, names, types, shapes and a few values. "
        "The type is detected when --type is not given.",
    )
    show.add_argument("files", nargs="+", metavar="FILE")
    show.add_argument("--type", choices=sorted(TYPES), help="the message type (default: detect)")
    args = parser.parse_args(argv)
    status = 0
    for path in args.files:
        try:
            print("\n".join(_show(path, args.type)))
        except DecodeError as err:
            print(f"onnxdata: {path}: offset {err.offset}: {err}", file=sys.stderr)
            status = 2
        except OSError as err:
            print(f"onnxdata: {path}: {err.strerror or err}", file=sys.stderr)
            status = 2
    return status


def _show(path: str, type_name: str | None) -> list[str]:
    with open(path, "rb") as f:
        data = f.read()
    if type_name is not None:
        return [f"{path}:", *outline(TYPES[type_name].decode(data), "  ")]
    found = detect(data)
    best = found[0]
    lines = [f"{path}: {best.type.__qualname__}"]
    ties = [c.type.__qualname__ for c in found[1:] if c.misfit == best.misfit]
    if ties:
        lines[0] += f" (ambiguous: also decodes as {', '.join(ties)}; use --type)"
    return lines + outline(best.message, "  ")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
