"""onnxdata's parser of ONNX's textual syntax against onnx's (the oracle).

Every model onnx's node tests build and every model of onnx's package is
printed by onnx's printer and parsed by both: the same bytes.  Texts that use
every part of the syntax (``corpus.py``), and mutations of them and of printed
models (characters and tokens deleted, inserted, repeated, swapped; hostile
numbers), are parsed by both: the same bytes, or both refuse with the same
``ParseError`` message (onnx's C++ exceptions, ``IndexError('stoll')`` and
the like, count as refusals: onnxdata raises ``ParseError`` there).
"""

from __future__ import annotations

import random
import struct
import warnings
from decimal import Decimal, localcontext
from pathlib import Path
from typing import Any

import onnx
import onnx.parser
import onnx.printer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata.parser
from tests.support.message_strategies import scaled
from tests.support.syntax_oracle import mutants, outcome, same
from tests.syntax.corpus import TEXTS

PACKAGE_MODELS = sorted((Path(onnx.__file__).parent / "backend" / "test" / "data").rglob("*.onnx"))
_SEEDS = [(kind, text) for kind, texts in TEXTS.items() for text in texts]


@pytest.fixture(scope="module")
def node_texts() -> list[tuple[str, str]]:
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases(None)
    return [(c.name, onnx.printer.to_text(c.model)) for c in cases if c.model is not None]


def test_every_node_test_model_parses_to_onnx_s_bytes(node_texts: list[tuple[str, str]]) -> None:
    assert len(node_texts) > 1800
    differ = [
        name
        for name, text in node_texts
        if onnxdata.parser.parse_model(text).SerializeToString()
        != onnx.parser.parse_model(text).SerializeToString()
    ]
    assert differ == []


def test_every_model_of_onnx_s_package_parses_to_onnx_s_bytes() -> None:
    assert len(PACKAGE_MODELS) > 100
    differ = []
    for path in PACKAGE_MODELS:
        text = onnx.printer.to_text(onnx.load(str(path), load_external_data=False))
        if same("model", text) is not None:
            differ.append(path.name)
    assert differ == []


@pytest.mark.parametrize(("kind", "text"), _SEEDS, ids=[k for k, _ in _SEEDS])
def test_the_corpus_parses_to_onnx_s_bytes(kind: str, text: str) -> None:
    theirs = outcome(kind, text, ours=False)
    assert theirs[0] == "ok"  # the corpus is valid: its mutants start from a parsed text
    assert outcome(kind, text, ours=True) == theirs


def _sweep(seed: int, per_text: int, node_texts: list[tuple[str, str]] | None = None) -> None:
    rng = random.Random(seed)
    seeds = list(_SEEDS)
    if node_texts is not None:
        seeds += [("model", text) for _, text in rng.sample(node_texts, 200)]
    differ = [
        (kind, mutant, found)
        for kind, text in seeds
        for mutant in mutants(text, rng, per_text)
        if (found := same(kind, mutant)) is not None
    ]
    assert differ == []


def test_seeded_mutants_of_the_corpus_agree() -> None:
    _sweep(seed=41, per_text=150)


@pytest.mark.slow
def test_many_mutants_of_the_corpus_and_of_node_test_models_agree(
    node_texts: list[tuple[str, str]],
) -> None:
    for seed in range(6):
        _sweep(seed, per_text=400, node_texts=node_texts)


@given(
    st.sampled_from(_SEEDS),
    st.randoms(use_true_random=False),
    st.integers(min_value=1, max_value=4),
)
@settings(max_examples=scaled(2.0))
def test_mutants_agree(seed: tuple[str, str], rng: random.Random, count: int) -> None:
    kind, text = seed
    for mutant in mutants(text, rng, count):
        assert same(kind, mutant) is None, mutant


_PIECES = st.sampled_from(
    [*"<>()[]{},:=@.?\"#-\n _", "float", "int64", "seq(", "map(", "inf", "nan", "1e", "1.5",
     "2147483648", "9223372036854775808", "-1", '"s"', '"a\\"b"', "\\", '\\"', "@a", ": ints",
     "=>", "g", "x", "Op"]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=40), st.sampled_from(["model", "graph", "function", "node"]))
@settings(max_examples=scaled(3.0))
def test_texts_of_the_syntax_s_pieces_agree(pieces: list[str], kind: str) -> None:
    text = " ".join(pieces)
    assert same(kind, text) is None, text


def _midpoints(rng: random.Random, count: int) -> list[str]:
    """Decimal texts at, just above and just below midpoints between two float32s:
    where rounding through a double would go the wrong way."""
    found = []
    with localcontext() as ctx:
        ctx.prec = 200
        while len(found) < count:
            bits = rng.getrandbits(31)
            low, high = struct.unpack("<2f", struct.pack("<2I", bits, bits + 1))
            if high != high or high == float("inf"):
                continue
            middle = (Decimal(low) + Decimal(high)) / 2
            step = Decimal(10) ** (middle.adjusted() - rng.randint(20, 60))
            found += [format(v, "e") for v in (middle, middle + step, middle - step)]
    return found


def test_float_literals_round_once_to_float32_as_onnx() -> None:
    texts = _midpoints(random.Random(7), 900)
    texts += ["3.40282356779733661637539395458142568447e38", "3.4028235677973366e38",
              "1e-46", "7.006492321624085e-46", "7.006492321624086e-46", "-0", "1e39", "0.1",
              "1."]  # fmt: skip
    differ = [
        t
        for t in texts
        if same("node", f"y = F <a: float = {t}, b: floats = [{t}]> ()") is not None
    ]
    assert differ == []


@pytest.mark.parametrize(
    "text",
    [
        "y = Relu(x",
        "y = Foo <a = 1.5.3> (x)",
        "y = Foo <a = 0x10> (x)",
        "y = Foo <a = t> (x)",
        "y = Foo <a = int32[2] {1, 99999999999}> (x)",
        "y = Foo <a: ints = []> (x)",
        "y = Foo <a = []> (x)",
        "y = Foo <a: int = []> (x)",
        "y = Foo <a: bogus = 1> (x)",
        'y = Foo <a: int = "s"> (x)',
        "y = Foo <a = float[N] {1}> (x)",
        "y = Foo <a = seq(float) {1}> (x)",
        "y = Foo <a = notnan> (x)",
        "y = Foo <a = -nan0> (x)",
        'y = Foo <a = "unterminated> (x)',
        "y = Foo <a = map(seq(int8), float)> (x)",
        "y = Foo <a = sparse_tensor(seq(float))> (x)",
        "\n\n   y = Foo <a = )",
        "y = Foo\x00 <a = 1> (x)",
        "y = Fé <a = é> (x)",
        "",
    ],
)
def test_errors_say_what_onnx_says(text: str) -> None:
    theirs = outcome("node", text, ours=False)
    assert outcome("node", text, ours=True) == theirs


@pytest.mark.parametrize(
    ("text", "onnx_raises"),
    [
        ("y = Foo <a = 99999999999999999999> (x)", IndexError),
        ("y = Foo <a = - 5> (x)", ValueError),
        ("y = Foo <a = 1e99> (x)", RuntimeError),
        ("y = Foo <a = 1e> (x)", RuntimeError),
        ("y = Foo <a = int64[1] {-9223372036854775809}> (x)", IndexError),
        ("y = Foo <a = uint64[1] {18446744073709551616}> (x)", IndexError),
        ("y = Foo <a = double[1] {1e309}> (x)", RuntimeError),
    ],
)
def test_what_onnx_throws_is_a_parse_error_here(text: str, onnx_raises: type) -> None:
    with pytest.raises(onnx_raises):
        onnx.parser.parse_node(text)
    with pytest.raises(onnxdata.parser.ParseError) as caught:
        onnxdata.parser.parse_node(text)
    assert caught.value.args[0].startswith(b"[ParseError at position (line: 1 column: ")


def _both_paths(kind: str, text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    from onnxdata._core import switches

    results = []
    for general in (False, True):
        monkeypatch.setattr(switches, "GENERAL_PATHS", general)
        results.append(outcome(kind, text, ours=True))
    return results[0], results[1]


def test_the_fast_node_path_and_the_general_path_agree(
    node_texts: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nodes in the common form are read by one regular expression
    (``_syntax/parse_fast.py``); every text gives what the general path gives."""
    rng = random.Random(3)
    texts = [("model", t) for _, t in node_texts[::10]]
    texts += [(k, m) for k, t in _SEEDS for m in mutants(t, rng, 100)]
    texts += [("node", f"y = F <a{suffix}> (x)") for suffix in _FAST_EDGES]
    texts += [("graph", f"g () => () {{ {node} }}") for node in _FAST_NODES]
    differ = [(k, t) for k, t in texts if len(set(_both_paths(k, t, monkeypatch))) != 1]
    assert differ == []
    nodes = [f"g () => () {{ {node} }}" for node in _FAST_NODES]
    assert [t for t in nodes if same("graph", t) is not None] == []


_FAST_NODES = [
    '["a,b"] "x,y", z = Op ("p,q", "", r)', '[""] "" = Op ("")', '[ ] y = Op ()',
    '"a\\"b" = Op (x)', "y = Op (x,)", "y = Op (, x)", "y = Op (x) <a = 1>", "y = Op (x) # c",
    "y = a.b.Op (x)", "y = a . Op (x)", "y = Op:ov (x)", '"y\n" = Op ("#x")', "= Op ()",
    "y = Op <a = 1> (x) <b = 2>", '[n] y = Op <s = "a>b", t = [1, 2]> (x)',
]  # fmt: skip
_FAST_EDGES = [
    " = 1", " = 1.", " = 1e5", " = -0", " = 99999999999999999999", ": float = 2", ": int = 2.5",
    ": ints = [1, 2]", ": floats = [1, 2]", " = [1, 2.5, 3]", ' = ["a", "b"]', ' = [1, "a"]',
    ": strings = [1]", ": bogus = 1", ": tensor = 1", " = 3.4028236e38", ' = "a\\"b"', " = 1e",
    " = [1e39]", ": string = 2",
]  # fmt: skip


def _tensor_texts() -> list[str]:
    rng = random.Random(5)
    floats = [repr(rng.uniform(-1e6, 1e6)) for _ in range(200)]
    lists = {
        "float": [", ".join(floats), ", ".join(_midpoints(rng, 30)), "1e-40, 1", "1e39, 1",
                  "3.4028235677973366e38", "1, 2, ", "1, #c\n 2", "- 1", "1e", "007, -0", "1.5.2"],
        "double": [", ".join(floats), "1e309", "1e-320, -0", "1.e5, 2"],
        "int64": ["9223372036854775807, -9223372036854775808", "9223372036854775808",
                  "0000000000000000000001", "1, -2, 3", "1.5", "1e3"],
        "int32": ["2147483647, -2147483648", "2147483648", "-2147483649", "1,2,3"],
        "int8": ["300, -300", "1, 2"],
        "float16": ["15360, 1", "1.5"],
        "complex64": ["1, 2.5, -3"],
    }  # fmt: skip
    return [
        f"g () => () <{kind}[3] w = {{{values}}}> {{}}"
        for kind, texts in lists.items()
        for values in texts
    ]


def test_tensor_values_read_as_onnx_reads_them_on_both_paths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tensor literal of plain numbers is read at once (``parse_fast.fast_values``),
    the rest value by value: both give onnx's bytes, or its refusal."""
    differ = []
    for text in _tensor_texts():
        fast, general = _both_paths("graph", text, monkeypatch)
        if fast != general or same("graph", text) is not None:
            differ.append(text)
    assert differ == []
