"""The generated models the model benchmarks open: deterministic, written once per size.

* ``weights``: a small graph whose initializers are ``count`` float32 tensors of
  ``tensor_mb`` MiB of ``raw_data`` each (a weights-heavy model);
* ``graph``: ``nodes`` nodes of a transformer-like network, each with its inputs,
  outputs, name and the attributes its operator takes, and a ``value_info`` entry
  for every intermediate value (a graph-heavy model);
* ``external``: the ``weights`` model with its weights in a side file
  (``data_location=EXTERNAL``, ``location``/``offset``/``length``).

Written with onnxdata's own encoder, streaming (``encode_to``): every tensor
shares one payload object, so making a 1 GB model needs about one tensor's
memory.  The benchmark checks onnx can read each file before timing anything.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

MiB = 1 << 20
HIDDEN = 768

# A layer: (block, op type, attributes) in order; every node takes the previous
# output and, for the ops with weights, a named initializer.
_LAYER: list[tuple[str, str, dict[str, Any]]] = [
    ("attn", "LayerNormalization", {"axis": -1, "epsilon": 1e-5}),
    ("attn", "MatMul", {}),
    ("attn", "Add", {}),
    ("attn", "Reshape", {"allowzero": 0}),
    ("attn", "Transpose", {"perm": [0, 2, 1, 3]}),
    ("attn", "MatMul", {}),
    ("attn", "Div", {}),
    ("attn", "Softmax", {"axis": -1}),
    ("attn", "MatMul", {}),
    ("attn", "Transpose", {"perm": [0, 2, 1, 3]}),
    ("attn", "Reshape", {"allowzero": 0}),
    ("attn", "Gemm", {"alpha": 1.0, "beta": 1.0, "transB": 1}),
    ("mlp", "LayerNormalization", {"axis": -1, "epsilon": 1e-5}),
    ("mlp", "Conv", {"kernel_shape": [1, 1], "strides": [1, 1], "pads": [0, 0, 0, 0],
                     "dilations": [1, 1], "group": 1}),
    ("mlp", "Gelu", {"approximate": b"tanh"}),
    ("mlp", "Cast", {"to": 1}),
    ("mlp", "Resize", {"mode": b"linear", "coordinate_transformation_mode": b"half_pixel"}),
    ("mlp", "Add", {}),
]  # fmt: skip
_WEIGHTED = {"MatMul", "Add", "Gemm", "Conv", "LayerNormalization"}


def path_for(folder: Path, kind: str, size: int, tensor_mb: float = 0) -> Path:
    """Where the model of that kind and size lives in ``folder``."""
    if kind == "graph":
        return folder / f"graph_{size}_nodes.onnx"
    return folder / f"{kind}_{size}x{tensor_mb:g}MiB.onnx"


def make(folder: Path, kind: str, size: int, tensor_mb: float = 0) -> Path:
    """The model's path, written first if it is not there yet (a write that fails
    leaves no file behind, so a half-written model is never reused)."""
    path = path_for(folder, kind, size, tensor_mb)
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    try:
        if kind == "graph":
            _write(partial, graph_model(size))
        else:
            _write_weights(partial, size, int(tensor_mb * MiB), external=kind == "external")
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def _write(path: Path, model: Any) -> None:
    with open(path, "wb") as f:
        model.encode_to(f)


def _attribute(name: str, value: Any) -> Any:
    import onnxdata

    a = onnxdata.AttributeProto
    if isinstance(value, float):
        return a(name=name, type=a.FLOAT, f=value)
    if isinstance(value, int):
        return a(name=name, type=a.INT, i=value)
    if isinstance(value, bytes):
        return a(name=name, type=a.STRING, s=value)
    return a(name=name, type=a.INTS, ints=value)


def _value_info(name: str, elem_type: int, dims: list[int | str]) -> Any:
    import onnxdata

    dim = onnxdata.TensorShapeProto.Dimension
    shape = onnxdata.TensorShapeProto(
        dim=[dim(dim_param=d) if isinstance(d, str) else dim(dim_value=d) for d in dims]
    )
    tensor = onnxdata.TypeProto.Tensor(elem_type=elem_type, shape=shape)
    return onnxdata.ValueInfoProto(name=name, type=onnxdata.TypeProto(tensor_type=tensor))


def graph_model(nodes: int) -> Any:
    """A model of ``nodes`` nodes in layers of :data:`_LAYER`, with a value_info per value."""
    import onnxdata

    float_type = onnxdata.TensorProto.FLOAT
    made, infos = [], []
    previous = "input"
    for k in range(nodes):
        layer, step = divmod(k, len(_LAYER))
        block, op, attrs = _LAYER[step]
        name = f"/model/layers.{layer}/{block}/{op}_{step}"
        inputs = [previous]
        if op in _WEIGHTED:
            inputs.append(f"model.layers.{layer}.{block}.{op.lower()}_{step}.weight")
        output = f"{name}_output_0"
        made.append(
            onnxdata.NodeProto(
                input=inputs,
                output=[output],
                name=name,
                op_type=op,
                attribute=[_attribute(key, value) for key, value in attrs.items()],
            )
        )
        infos.append(_value_info(output, float_type, ["batch", "sequence", HIDDEN]))
        previous = output
    graph = onnxdata.GraphProto(
        node=made,
        name="graph_heavy",
        input=[_value_info("input", float_type, ["batch", "sequence", HIDDEN])],
        output=[_value_info(previous, float_type, ["batch", "sequence", HIDDEN])],
        value_info=infos[:-1],
    )
    return _model(graph)


def _model(graph: Any) -> Any:
    import onnxdata

    return onnxdata.ModelProto(
        ir_version=10,
        opset_import=[onnxdata.OperatorSetIdProto(domain="", version=21)],
        producer_name="onnxdata-benchmarks",
        graph=graph,
    )


def _write_weights(path: Path, count: int, nbytes: int, external: bool) -> None:
    """A MatMul chain over ``count`` float32 weights of ``nbytes`` bytes each."""
    import onnxdata

    tensor = onnxdata.TensorProto
    rows = max(1, nbytes // (4 * HIDDEN))
    dims = [rows, HIDDEN]
    payload = random.Random(0).randbytes(rows * HIDDEN * 4)
    side = path.with_name(path.name.replace(".partial", ".onnx") + ".data")
    weights, made = [], []
    previous = "input"
    for k in range(count):
        name = f"model.layers.{k}.weight"
        t = tensor(name=name, dims=dims, data_type=tensor.FLOAT)
        if external:
            entry = onnxdata.StringStringEntryProto
            t.data_location = tensor.EXTERNAL
            t.external_data.extend(
                [
                    entry(key="location", value=side.name),
                    entry(key="offset", value=str(k * len(payload))),
                    entry(key="length", value=str(len(payload))),
                ]
            )
        else:
            t.raw_data = payload
        weights.append(t)
        output = f"/model/layers.{k}/MatMul_output_0"
        made.append(
            onnxdata.NodeProto(
                input=[previous, name], output=[output], name=f"/model/layers.{k}/MatMul",
                op_type="MatMul",
            )
        )  # fmt: skip
        previous = output
    graph = onnxdata.GraphProto(
        node=made,
        name="weights_heavy",
        initializer=weights,
        input=[_value_info("input", tensor.FLOAT, ["batch", dims[0]])],
        output=[_value_info(previous, tensor.FLOAT, ["batch", dims[1]])],
    )
    if external:
        with open(side, "wb") as f:
            for _ in range(count):
                f.write(payload)
    _write(path, _model(graph))
