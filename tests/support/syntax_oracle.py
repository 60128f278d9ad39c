"""Both parsers of ONNX's textual syntax on one text, and mutations of texts.

:func:`outcome` runs one parser and gives what it did as one comparable value:
the message's bytes, onnx's ``ParseError`` message, or "refused" for any other
exception (onnx lets C++ exceptions escape where onnxdata raises ``ParseError``,
and its Python side raises protobuf's ``DecodeError`` on messages nested
deeper than protobuf reads; both refuse the text).  :func:`mutants` makes character- and token-level
mutations of a text from a ``random.Random``: deletions, insertions of the
syntax's characters and words, swaps, duplications, and hostile numbers.
"""

from __future__ import annotations

import random
import re
from typing import Any

import onnx.parser
from google.protobuf.message import DecodeError

import onnxdata.parser

KINDS = ("model", "graph", "function", "node")

# Characters and words the syntax gives a meaning to, and values at its edges.
_PIECES = [
    *"<>()[]{},:=@.?\"#-\n \\_",
    "float", "int64", "int32", "uint64", "double", "string", "bool", "float16", "seq(",
    "map(", "optional(", "sparse_tensor(", "opaque(", "float6e2m3", "int2", "inf", "-nan",
    "Infinity", "1e", "1.",
    "1e39", "3.4028236e38", "1e-50", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "18446744073709551616", "2147483648", "-1", "0.5", "007",
    '""', '"a\\"b"', "@alpha", ": ints", ": float", ": tensor", "=>", "ir_version",
    "opset_import", "doc_string", "metadata_props", "overload", "domain", "# c\n",
    "\x00", "é", "g (float[2] x) => (float y) { y = Relu(x) }",
]  # fmt: skip
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|[0-9.eE+-]+|\S')


def outcome(kind: str, text: str, ours: bool) -> tuple[str, Any]:
    """What one parser does with ``text``: ("ok", bytes), ("error", message) or
    ("refused", exception name)."""
    module: Any = onnxdata.parser if ours else onnx.parser
    try:
        return "ok", getattr(module, f"parse_{kind}")(text).SerializeToString()
    except module.ParseError as exc:
        return "error", exc.args[0]
    except (IndexError, ValueError, RuntimeError, TypeError, DecodeError) as exc:
        return "refused", type(exc).__name__


def same(kind: str, text: str) -> tuple[tuple[str, Any], tuple[str, Any]] | None:
    """None if both parsers agree on ``text``, else (onnx's outcome, ours).

    Agreeing: the same bytes, or the same ``ParseError`` message, or onnx
    throwing a C++ exception where onnxdata raises ``ParseError``.
    """
    theirs, ours = outcome(kind, text, False), outcome(kind, text, True)
    if theirs == ours or (theirs[0] == "refused" and ours[0] == "error"):
        return None
    return theirs, ours


def mutants(text: str, rng: random.Random, count: int) -> list[str]:
    """``count`` mutations of ``text``, one to three edits each."""
    found = []
    for _ in range(count):
        t = text
        for _ in range(rng.randint(1, 3)):
            t = _edit(t, rng)
        found.append(t)
    return found


def _edit(text: str, rng: random.Random) -> str:
    if not text:
        return rng.choice(_PIECES)
    i = rng.randrange(len(text) + 1)
    j = min(len(text), i + rng.randint(1, 8))
    kind = rng.randrange(6)
    if kind == 0:
        return text[:i] + text[j:]
    if kind == 1:
        return text[:i] + rng.choice(_PIECES) + text[i:]
    if kind == 2:
        return text[:i] + text[i:j] * rng.randint(2, 3) + text[j:]
    tokens = [m.span() for m in _TOKEN.finditer(text)]
    if not tokens:
        return text
    a, b = rng.choice(tokens)
    if kind == 3:
        return text[:a] + rng.choice(_PIECES) + text[b:]
    if kind == 4:
        return text[:a] + text[b:]
    c, d = rng.choice(tokens)
    return text[:a] + text[c:d] + text[b:] if (c, d) != (a, b) else text
