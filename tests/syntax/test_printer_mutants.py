"""Mutants of the node-test models print as onnx prints them, or fail as onnx fails.

onnxdata's structure-aware mutator (``onnxdata.fuzz.mutate`` on ``ModelProto``) sets
fields to edge values (NaNs with payloads, -0.0, subnormals, integer limits, invalid
UTF-8, long strings), swaps oneof members, puts an attribute's ``type`` out of step with
its value, nests subgraphs to protobuf's depth limit, and breaks the encoding now and
then.  Where protobuf reads the mutant, both printers must give the same text, or the
same error with the same message.
"""

from __future__ import annotations

import onnx
import onnx.printer
from google.protobuf.message import DecodeError as ProtobufDecodeError

import onnxdata
from onnxdata import printer
from onnxdata.fuzz import mutate
from tests.syntax.test_printer_oracle import outcome

MUTANTS_PER_MODEL = 4


def _differing(models: list[tuple[str, bytes]]) -> tuple[list[tuple[str, int]], int]:
    differ, compared = [], 0
    for k, (name, data) in enumerate(models):
        for seed in range(MUTANTS_PER_MODEL):
            mutant = mutate(data, 4 * len(data) + 256, k * MUTANTS_PER_MODEL + seed,
                            message=onnxdata.ModelProto)  # fmt: skip
            try:
                theirs_model = onnx.ModelProto.FromString(mutant)
            except ProtobufDecodeError:
                continue  # a broken encoding: the decoders' business, tested elsewhere
            ours_model = onnxdata.ModelProto.decode(mutant)
            compared += 1
            ours = outcome(printer.to_text, ours_model)
            theirs = outcome(onnx.printer.to_text, theirs_model)
            if ours != theirs:
                differ.append((name, seed))
    return differ, compared


def test_mutants_of_every_node_test_model(node_models: list[tuple[str, bytes]]) -> None:
    differ, compared = _differing(node_models)
    assert compared > 5000
    assert differ == []
