"""The names onnx gives unknown dimensions: ``unk__0``, ``unk__1``... skipping the model's own.

onnx's ``SymbolTableImpl`` counts from 0 across the whole inference of a model and skips any
name already used as a ``dim_param`` by a graph's inputs, outputs or value infos (those of
subgraphs in node attributes included, gathered as each graph is entered).
"""

from __future__ import annotations

from typing import Any

from . import fields


class SymbolTable:
    """New ``unk__N`` names, none equal to an existing symbol or an earlier new one."""

    __slots__ = ("_existing", "_next")

    def __init__(self) -> None:
        self._next = 0
        self._existing: set[str] = set()

    def create(self, prefix: str = "unk__") -> str:
        while True:
            name = f"{prefix}{self._next}"
            self._next += 1
            if name not in self._existing:
                self._existing.add(name)
                return name

    def add_from_graph(self, graph: Any) -> None:
        """The symbols of a graph's inputs, outputs and value infos (onnx's ``addFromGraph``)."""
        for values in (graph.input, graph.output, graph.value_info):
            for value in values:
                if value.HasField(fields.VALUE_INFO_TYPE):
                    self._add_type(value.type)

    def add_graph_tree(self, graph: Any) -> None:
        """onnx's ``TraverseGraphsToAddExistingSymbols``: this graph and those in its nodes'
        ``g`` attributes (not ``graphs`` lists), depth first, with an explicit stack."""
        stack = [graph]
        while stack:
            current = stack.pop()
            self.add_from_graph(current)
            inner = [a.g for n in current.node for a in n.attribute if a.HasField(fields.ATTR_G)]
            stack.extend(reversed(inner))

    def _add_type(self, type_proto: Any) -> None:
        while True:
            case = type_proto.WhichOneof(fields.VALUE)
            if case in (fields.TENSOR_TYPE, fields.SPARSE_TENSOR_TYPE):
                holder = getattr(type_proto, case)
                if holder.HasField(fields.SHAPE):
                    for dim in holder.shape.dim:
                        if dim.HasField(fields.DIM_PARAM):
                            self._existing.add(dim.dim_param)
                return
            if case in (fields.SEQUENCE_TYPE, fields.OPTIONAL_TYPE):
                type_proto = getattr(type_proto, case).elem_type
            elif case == fields.MAP_TYPE:
                type_proto = type_proto.map_type.value_type
            else:
                return
