"""The codec knows field kinds, never a message or a field by its name.

What the decoder specialises for one field is said in that field's
declaration (``first``, ``last``, ``runs``); every other choice is made by
kind.  So no module of ``onnxdata/_codec/`` holds a message name or a field
name of the schema: not as an identifier, not in a string, not in a
comment.

A few field names are also everyday words of code (``end``, ``values``,
``name``...): those are refused only where they could name the field, as a
whole string (``"name"``, ``by_name["values"]``) or as an attribute read on
a message (``msg.keys``).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

import onnxdata._codec
from onnxdata._core.schema import spec_of
from tests.support.oracle import ALL_MESSAGE_TYPES

CODEC = Path(onnxdata._codec.__file__).parent

# Field names that are also words every codec uses for its own variables.
EVERYDAY = {"begin", "end", "indices", "key", "keys", "name", "value", "values"}
# Field names of the model messages that are everyday words (and typecodes) of
# any code: not looked for at all.
GENERIC = {"f", "g", "i", "s", "t", "input", "output", "type", "functions", "floats", "ints",
           "shape", "strings", "tensors", "version"}  # fmt: skip


def _schema_names() -> tuple[set[str], set[str]]:
    """(message names, field names) of every message the schema reaches."""
    messages: set[str] = set()
    fields: set[str] = set()
    todo = list(ALL_MESSAGE_TYPES)
    while todo:
        spec = spec_of(todo.pop())
        if spec.name in messages:
            continue
        messages.update({spec.name, spec.cls.__name__})
        for f in spec.fields:
            fields.add(f.name)
            if f.message is not None:
                todo.append(f.message)
    return messages, fields


MESSAGES, FIELDS = _schema_names()
DISTINCT = (MESSAGES | FIELDS) - EVERYDAY - GENERIC
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _found(text: str) -> set[str]:
    return {w for w in _WORD.findall(text) if w in DISTINCT}


def offences(source: str) -> list[str]:
    """Where ``source`` names a message or a field of the schema."""
    found: list[str] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        where = f"line {tok.start[0]}"
        if tok.type == tokenize.NAME and tok.string in DISTINCT:
            found.append(f"{where}: identifier {tok.string}")
        elif tok.type in (tokenize.STRING, tokenize.COMMENT):
            for word in sorted(_found(tok.string)):
                found.append(f"{where}: {word} in {tok.string[:60]!r}")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and node.value in EVERYDAY:
            found.append(f"line {node.lineno}: the string {node.value!r}")
        if (
            isinstance(node, ast.Attribute)
            and node.attr in EVERYDAY
            and isinstance(node.value, ast.Name)
            and node.value.id in ("msg", "m", "message")
        ):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_the_names_are_the_schemas() -> None:
    # The test below needs the names to look for: the schema's own.
    assert {"TensorProto", "MapProto", "raw_data", "elem_type", "dims"} <= DISTINCT
    assert len(DISTINCT) > 30


@pytest.mark.parametrize("path", sorted(CODEC.glob("*.py")), ids=lambda p: p.name)
def test_no_codec_module_names_a_message_or_a_field(path: Path) -> None:
    assert offences(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "source",
    [
        'FAST = {("TensorProto", "raw_data"): "first"}',
        'dims = spec.by_name["dims"].tag',
        "x = 1  # the elem_type field",
        'def f():\n    """Reads a SequenceProto."""',
        'g = spec.by_name["values"]',
        "n = msg.keys",
    ],
)
def test_the_check_finds_a_name(source: str) -> None:
    assert offences(source) != []


def test_the_check_lets_everyday_words_be() -> None:
    assert offences("def f(values, end):\n    name = f.name\n    return values[end], name\n") == []
