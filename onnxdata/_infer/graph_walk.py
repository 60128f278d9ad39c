"""The graph walk: onnx's ``ShapeInferenceImplBase`` for a model's main graph.

In node order, each node's rule is run on the types known so far; each inferred output type
has its unknown dims named (``unk__N``), then is merged into the type the graph already
declares for that name, or appended to ``value_info`` (and copied into a graph output that has
no type).  A node's ``InferenceError`` is collected with the node's op type and name, and
raised only in strict mode, all together; other failures are raised at once, as onnx does.
"""

from __future__ import annotations

from typing import Any

from .._defs.registry import lookup
from .._messages.declarations import TensorProto
from .._messages.types import TypeProto
from . import fields
from .context import InferenceContext
from .failures import ImmediateError, InferenceError, NodeError, unavailable
from .merging import case_of, check_shapes_and_types, materialize, merge_shapes_and_types
from .operators import propagator_for, rule_for
from .propagation import DataPropagationContext
from .symbols import SymbolTable
from .type_check import check_input_output_type

_ONNX_DOMAINS = ("", "ai.onnx")
_INT, _FLOAT, _INTS, _FLOATS, _TENSOR = 2, 1, 7, 6, 4  # AttributeProto.AttributeType
_SPARSE_TENSOR = 11


class Options:
    """onnx's ``ShapeInferenceOptions``."""

    __slots__ = ("check_type", "data_prop", "strict")

    def __init__(
        self, *, check_type: bool = False, strict: bool = False, data_prop: bool = False
    ) -> None:
        self.check_type = check_type
        self.strict = strict
        self.data_prop = data_prop


class GraphWalk:
    """One graph's inference: what is known of each name, and the errors so far.

    ``types`` holds the live type of each known name (a declared type, an initializer's, a
    ``value_info`` added), ``untyped`` the empty types of declared values without one,
    ``constants`` the tensors of initializers and ``Constant`` outputs.
    """

    __slots__ = (
        "constants", "errors", "generated", "graph", "ir_version", "local_functions", "opsets",
        "options", "sparse", "symbols", "types", "unsupported", "untyped",
    )  # fmt: skip

    def __init__(
        self,
        *,
        graph: Any,
        opsets: dict[str, int],
        options: Options,
        symbols: SymbolTable,
        ir_version: int,
        local_functions: frozenset[str] = frozenset(),
    ) -> None:
        self.graph = graph
        self.opsets = opsets
        self.options = options
        self.symbols = symbols
        self.ir_version = ir_version
        self.local_functions = local_functions
        self.types: dict[str, Any] = {}
        self.untyped: dict[str, Any] = {}
        self.constants: dict[str, Any] = {}
        self.generated: dict[str, Any] = {}
        self.sparse: set[str] = set()
        self.errors: list[str] = []
        self.unsupported = False

    def run(self) -> None:
        """Infer the whole graph in place; raise as onnx's ``FinalizeShapeInference``."""
        graph = self.graph
        self.symbols.add_graph_tree(graph)
        for values in (graph.value_info, graph.input, graph.output):
            for value in values:
                self._declare(value)
        for tensor in graph.initializer:
            self._declare_initializer(tensor.name, tensor, fields.TENSOR_TYPE, tensor.data_type)
        for sparse in graph.sparse_initializer:
            self._declare_initializer(sparse.values.name, sparse, fields.SPARSE_TENSOR_TYPE,
                              sparse.values.data_type)  # fmt: skip
        for node in graph.node:
            self._infer_node(node)
        if self.errors and self.options.strict:
            raise InferenceError(
                "[ShapeInferenceError] Inference error(s): "
                + "".join(error + "\n" for error in self.errors)
            )

    def _declare(self, value: Any) -> None:
        if value.HasField(fields.VALUE_INFO_TYPE):
            self.types[value.name] = value.type
        else:  # onnx takes the mutable type: the value ends with an empty one
            value.type.SetInParent()
            self.untyped[value.name] = value.type

    def _declare_initializer(self, name: str, tensor: Any, case: str, data_type: int) -> None:
        declared = TypeProto()
        holder = getattr(declared, case)
        holder.elem_type = data_type
        holder.shape.SetInParent()
        for size in tensor.dims:
            holder.shape.dim.add().dim_value = size
        if case == fields.TENSOR_TYPE:
            self.constants[name] = tensor
        else:
            self.sparse.add(name)
        existing = self.types.get(name)
        if existing is not None:
            try:
                check_shapes_and_types(declared, existing)
            except NodeError as exc:  # outside any node: onnx raises it as it is
                raise InferenceError(str(exc)) from None
        elif self.ir_version >= 4:
            self.types[name] = declared

    def _infer_node(self, node: Any) -> None:
        version = self.opsets.get(node.domain)
        if version is None and node.domain == "":
            version = self.opsets.get("ai.onnx")
        if version is None:
            raise InferenceError(
                f"[TypeInferenceError] Cannot infer type and shape for node name {node.name}. "
                f"No opset import for domain {node.domain} optype {node.op_type}"
            )
        schema = lookup(node.op_type, version, node.domain)
        if schema is None:
            identifier = f"{node.domain}:{node.op_type}"
            if node.overload:
                identifier += f":{node.overload}"
            if identifier in self.local_functions:
                raise unavailable(f"the model-local function {identifier!r} (a call of it)")
            self.unsupported = True
            return
        ctx = InferenceContext(node, self.types, self.constants, self.generated, self.sparse)
        try:
            self._infer(node, schema, ctx)
        except NodeError as exc:
            if not self.unsupported:
                self.errors.append(f"{_where(node)}{exc}")
        except ImmediateError as exc:
            raise InferenceError(f"[ShapeInferenceError] {_where(node)}{exc}") from None

    def _infer(self, node: Any, schema: Any, ctx: InferenceContext) -> None:
        what = f"{schema.domain or 'ai.onnx'} {schema.name}-{schema.since_version}"
        if schema.has_type_and_shape_inference_function:
            rule = rule_for(schema.domain, schema.name, schema.since_version)
            if rule is None:
                raise unavailable(f"operator {what}")
            rule(ctx)
        elif schema.has_function:
            raise unavailable(f"operator {what} (inferred through its function body)")
        if self.options.check_type:
            check_input_output_type(schema, ctx)
        for name, inferred in zip(node.output, ctx.outputs, strict=True):
            if name:
                self._update(name, inferred)
        self._constant(node)
        if self.options.data_prop and schema.has_data_propagation_function:
            propagate = propagator_for(schema.domain, schema.name, schema.since_version)
            if propagate is None:
                raise unavailable(f"data propagation through {what}")
            propagate(DataPropagationContext(node, self.types, self.constants, self.generated))

    def _update(self, name: str, inferred: Any) -> None:
        """onnx's ``UpdateType``: named, then merged or added to ``value_info``."""
        if case_of(inferred) is None:
            return
        materialize(inferred, self.symbols)
        existing = self.types.get(name)
        if existing is not None:
            merge_shapes_and_types(inferred, existing)
            return
        added = self.graph.value_info.add()
        added.name = name
        added.type.SetInParent()
        added.type.CopyFrom(inferred)
        self.types[name] = added.type
        untyped = self.untyped.get(name)
        if untyped is not None:
            untyped.CopyFrom(inferred)

    def _constant(self, node: Any) -> None:
        """onnx's ``ProcessConstant``: a ``Constant``'s value, kept for the nodes after it."""
        if node.domain not in _ONNX_DOMAINS or node.op_type != "Constant":
            return
        if len(node.output) != 1:
            return
        name = node.output[0]
        for attribute in node.attribute:
            if attribute.name == "value":
                if attribute.type == _TENSOR and attribute.HasField(fields.ATTR_T):
                    self.constants[name] = attribute.t
                elif attribute.type == _SPARSE_TENSOR and attribute.HasField(
                    fields.ATTR_SPARSE_TENSOR
                ):
                    self.sparse.add(name)
            elif attribute.type in (_INT, _INTS, _FLOAT, _FLOATS):
                self.constants[name] = _attribute_tensor(attribute)


def _attribute_tensor(attribute: Any) -> Any:
    """onnx's ``AddTemporaryConstant``: a tensor of an ``int``/``ints``/``float``/``floats``
    attribute (a scalar for the single ones, a vector for the lists)."""
    tensor = TensorProto()
    if attribute.type in (_INT, _INTS):
        tensor.data_type = TensorProto.INT64
        values = [attribute.i] if attribute.type == _INT else list(attribute.ints)
        tensor.int64_data.extend(values)
    else:
        tensor.data_type = TensorProto.FLOAT
        values = [attribute.f] if attribute.type == _FLOAT else list(attribute.floats)
        tensor.float_data.extend(values)
    if attribute.type in (_INTS, _FLOATS):
        tensor.dims.append(len(values))
    return tensor


def _where(node: Any) -> str:
    """onnx's ``GetErrorWithNodeInfo`` prefix: ``(op_type:Add, node name: n): ``."""
    name = f", node name: {node.name}" if node.HasField(fields.NODE_NAME) else ""
    return f"(op_type:{node.op_type}{name}): "


def infer_model(model: Any, options: Options) -> None:
    """Infer ``model``'s main graph in place, as onnx's ``InferShapes(ModelProto&)``."""
    model.graph.SetInParent()  # onnx takes the mutable graph: a model without one gains it
    opsets = {opset.domain: opset.version for opset in model.opset_import}
    functions = frozenset(
        f"{f.domain}:{f.name}" + (f":{f.overload}" if f.overload else "") for f in model.functions
    )
    walk = GraphWalk(
        graph=model.graph, opsets=opsets, options=options, symbols=SymbolTable(),
        ir_version=model.ir_version, local_functions=functions,
    )  # fmt: skip
    walk.run()
