"""What an operator's inference rule sees of its node: onnx's ``InferenceContextImpl``.

The input types are the types known when the node is reached (the graph's declared or merged
types, initializers' types, earlier nodes' outputs), the constant inputs are initializers and
``Constant`` outputs, the output types start empty and the rule fills them.  Asking for an input
or output past the node's is onnx's runtime error, raised at once (:class:`ImmediateError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._messages.types import TypeProto
from .failures import ImmediateError


class InferenceContext:
    """One node's inference: its attributes, input types and data, output types to fill."""

    __slots__ = ("_attributes", "_data", "_inputs", "_symbolic", "node", "outputs")

    def __init__(
        self,
        node: Any,
        types: Mapping[str, Any],
        constants: Mapping[str, Any],
        generated: Mapping[str, Any] | None = None,
        sparse: frozenset[str] | set[str] = frozenset(),
    ) -> None:
        self.node = node
        self._attributes = {attribute.name: attribute for attribute in node.attribute}
        self._inputs: list[Any] = [types.get(name) for name in node.input]
        self._data: list[Any] = [constants.get(name) for name in node.input]
        # a value propagated by data propagation, for the inputs that are not constants
        values = generated or {}
        # (and not sparse initializers, whose data onnx keeps apart)
        self._symbolic: list[Any] = [
            None if data is not None or name in sparse else values.get(name)
            for name, data in zip(node.input, self._data, strict=True)
        ]
        self.outputs: list[Any] = [TypeProto() for _ in node.output]

    @property
    def num_inputs(self) -> int:
        return len(self._inputs)

    @property
    def num_outputs(self) -> int:
        return len(self.outputs)

    def attribute(self, name: str) -> Any:
        """The node's attribute of that name (the last one, as onnx's map keeps), or None."""
        return self._attributes.get(name)

    def input_type(self, index: int) -> Any:
        """The type known for input ``index``, None when none is; onnx's runtime error past
        the node's inputs."""
        if index >= len(self._inputs):
            raise ImmediateError(f"Input {index} is out of bounds.")
        return self._inputs[index]

    def input_data(self, index: int) -> Any:
        """The constant value (a ``TensorProto``) of input ``index``, or None."""
        if index >= len(self._data):
            raise ImmediateError(f"Input {index} is out of bounds.")
        return self._data[index]

    def symbolic_input(self, index: int) -> Any:
        """The shape value data propagation computed for input ``index`` (a
        ``TensorShapeProto``), or None (onnx's ``getSymbolicInput``)."""
        if index >= len(self._symbolic):
            raise ImmediateError(f"Input {index} is out of bounds.")
        return self._symbolic[index]

    def output_type(self, index: int) -> Any:
        """The type being inferred for output ``index``, to fill in place."""
        if index >= len(self.outputs):
            raise ImmediateError(f"Output {index} is out of bounds.")
        return self.outputs[index]

    def has_input(self, index: int) -> bool:
        return index < len(self.node.input) and self.node.input[index] != ""

    def has_output(self, index: int) -> bool:
        return index < len(self.node.output) and self.node.output[index] != ""

    @property
    def display_name(self) -> str:
        """onnx's ``getDisplayName``: ``node Op``, with ``[domain]`` and `` (name)`` if set."""
        node = self.node
        text = f"node {node.op_type}"
        if node.domain:
            text += f"[{node.domain}]"
        if node.name:
            text += f" ({node.name})"
        return text
