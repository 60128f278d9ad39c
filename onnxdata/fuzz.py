"""Fuzzing tools: a structure-aware mutator for coverage-guided fuzzers, and a
differential property that compares any parser with the reference reading.

Mutation (standard library only)::

    import atheris, sys
    from onnxdata.fuzz import mutate, crossover

    atheris.Setup(sys.argv, TestOneInput, custom_mutator=mutate, custom_crossover=crossover)

:func:`mutate` and :func:`crossover` read their input as a ``TensorProto``;
:func:`mutator_for` gives the same pair for another message.

The property::

    from onnxdata.fuzz import check_parser
    check_parser(my_parse, data, message=onnxdata.TensorProto)  # raises Disagreement

The reference is onnxdata's decoder, which accepts and reads exactly what
protobuf's parser does.

Seed corpora (``corpus``, ``corpus_files``, ``dictionary``; the command
``onnxdata corpus OUT``): files for fuzzers that start from files, one folder
per message, with a libFuzzer dictionary.
"""

from __future__ import annotations

from collections.abc import Callable

from ._core.schema import spec_of
from ._fuzz import mutate as _mutate
from ._fuzz.corpus import DICTIONARY_NAME, corpus_files, dictionary, write_corpus
from ._fuzz.property import Bits as Bits  # what a Disagreement holds for a float
from ._fuzz.property import Disagreement, WrongType, check_parser
from ._fuzz.property import message_class as _message_class
from ._messages.declarations import Message, TensorProto

corpus = write_corpus
"""Write seed corpora for C/C++/Rust fuzzers: ``corpus(OUT, seed=0, count=2)`` (see
:func:`write_corpus`; the command is ``onnxdata corpus OUT``)."""

__all__ = [
    "DICTIONARY_NAME",
    "Disagreement",
    "WrongType",
    "check_parser",
    "corpus",
    "corpus_files",
    "crossover",
    "dictionary",
    "mutate",
    "mutator_for",
    "write_corpus",
]


# -- mutation -------------------------------------------------------------------------


def mutate(data: bytes, max_size: int, seed: int, *, message: type[Message] = TensorProto) -> bytes:
    """One structure-aware mutation of ``data``, read as a ``message`` (default ``TensorProto``).

    The signature of atheris' and libFuzzer's custom mutators.  The input is
    read as wire fields, as far as it parses (the rest is kept as raw bytes),
    and the fields of ``message`` and of its sub-messages by their schema;
    one to three of these changes are made to the root or to a sub-message:
    add a field (known, of a wire type its parser accepts, or unknown),
    drop, duplicate or reorder fields, set a value to an edge (integer
    limits, ``2**31``, ``2**64 - 1``; NaNs with payloads, signalling NaN,
    infinities, -0.0, subnormals; empty, long and invalid UTF-8 strings),
    switch a repeated number field between packed and unpacked, lengthen a
    varint without changing its value, splice in a sub-message from
    elsewhere in the input, or give a tensor a data type and a matching
    storage field (a sequence or an optional an element type and an element).
    In a model message (``mutator_for(onnxdata.ModelProto)``), some changes
    know the model's structure: a oneof's member swapped for another or
    followed by one (the last wins), an attribute's ``type`` set in or out of
    step with its value field, a singular sub-message (``graph``) split in two
    occurrences that protobuf merges, two nodes swapped, a node input renamed
    to a name nothing defines, subgraphs nested to protobuf's depth limit of
    100 (or one past it).
    About one call in ten breaks the encoding instead, with one class of the
    defect catalog that applies to ``message`` (``onnxdata.strategies.DEFECTS``
    names them): truncations, bad wire types, lengths past the end, field
    number 0 or ``2**29`` and above, over-long varints, group errors, nesting
    deeper than 100.

    The result depends only on ``(data, max_size, seed)`` and is never longer
    than ``max_size`` (whole top-level fields are dropped first, then the
    bytes cut).  Any bytes are accepted.

    Raises:
        TypeError: ``data`` is not bytes-like, or ``max_size`` or ``seed`` is
            not an int, or ``message`` is not an onnxdata message class.
    """
    return _mutate.mutate(data, max_size, seed, _message_class(message))


def crossover(
    data1: bytes, data2: bytes, max_size: int, seed: int, *, message: type[Message] = TensorProto
) -> bytes:
    """A mix of two inputs, read as ``message``: libFuzzer's custom crossover.

    One of: the two concatenated (for protobuf, merging two messages), some
    top-level fields of ``data2`` inserted among those of ``data1``, or a
    sub-message of ``data2`` spliced into ``data1`` at any depth.
    Deterministic per arguments; never longer than ``max_size``.

    Raises:
        TypeError: as :func:`mutate`.
    """
    return _mutate.crossover(data1, data2, max_size, seed, _message_class(message))


def mutator_for(
    message: type[Message],
) -> tuple[Callable[[bytes, int, int], bytes], Callable[[bytes, bytes, int, int], bytes]]:
    """``(mutate, crossover)`` that read their inputs as ``message``, with the
    positional signatures fuzzers call::

        mutate_seq, crossover_seq = mutator_for(onnxdata.SequenceProto)
        atheris.Setup(sys.argv, test, custom_mutator=mutate_seq, custom_crossover=crossover_seq)

    Raises:
        TypeError: ``message`` is not an onnxdata message class.
    """
    cls = _message_class(message)

    def mutate_message(data: bytes, max_size: int, seed: int) -> bytes:
        return _mutate.mutate(data, max_size, seed, cls)

    def crossover_message(data1: bytes, data2: bytes, max_size: int, seed: int) -> bytes:
        return _mutate.crossover(data1, data2, max_size, seed, cls)

    mutate_message.__name__ = f"mutate_{spec_of(cls).name.replace('.', '_')}"
    crossover_message.__name__ = f"crossover_{spec_of(cls).name.replace('.', '_')}"
    return mutate_message, crossover_message
