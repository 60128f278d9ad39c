"""bytes -> numpy and numpy -> message, the same calls on both sides.

The oracle side is ``onnx.numpy_helper`` on protobuf (upb) messages; the
onnxdata side is ``onnxdata.numpy_helper`` (or any module with the same
functions, given by ``run.py --bridge``).  Each workload kind maps to one pair:

========  ===========================  ======================================
kind      to numpy                     from numpy
========  ===========================  ======================================
tensor    ``to_array(t)``              ``from_array(a)``
sequence  ``to_list(s)``               ``from_list(l)``
map       ``to_dict(m)``               ``from_dict(d)``
optional  ``to_optional(o)``           ``from_optional(v)``
sparse    ``to_array`` of values and   ``from_array`` of both, then a
          of indices, plus ``dims``    ``SparseTensorProto`` (the oracle:
                                       ``onnx.helper.make_sparse_tensor``)
========  ===========================  ======================================
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

NEEDS = {
    "tensor": ("to_array", "from_array"),
    "sequence": ("to_list", "from_list"),
    "map": ("to_dict", "from_dict"),
    "optional": ("to_optional", "from_optional"),
    "sparse": ("to_array", "from_array"),
}


@dataclass
class Bridge:
    module: str
    to_numpy: dict[str, Callable[[Any], Any]]  # kind -> message -> numpy value
    from_numpy: dict[str, Callable[[Any], Any]]  # kind -> numpy value -> message
    missing: dict[str, str]  # kind -> why it is n/a


def oracle() -> Bridge:
    from onnx import helper
    from onnx import numpy_helper as nh

    def sparse_to(m: Any) -> Any:
        return nh.to_array(m.values), nh.to_array(m.indices), list(m.dims)

    def sparse_from(v: Any) -> Any:
        values, indices, dims = v
        return helper.make_sparse_tensor(nh.from_array(values), nh.from_array(indices), dims)

    return Bridge(
        "onnx.numpy_helper",
        {
            "tensor": nh.to_array,
            "sequence": nh.to_list,
            "map": nh.to_dict,
            "optional": nh.to_optional,
            "sparse": sparse_to,
        },
        {
            "tensor": nh.from_array,
            "sequence": nh.from_list,
            "map": nh.from_dict,
            "optional": nh.from_optional,
            "sparse": sparse_from,
        },
        {},
    )


def ours(module_name: str = "onnxdata.numpy_helper") -> Bridge:
    """onnxdata's bridge, as far as it exists: missing kinds are reported, not fatal."""
    try:
        mod = importlib.import_module(module_name)
    except Exception as exc:  # not written yet, half written, numpy missing...
        why = f"{module_name} does not import: {type(exc).__name__}: {exc}"
        return Bridge(module_name, {}, {}, dict.fromkeys(NEEDS, why))
    import onnxdata

    to: dict[str, Callable[[Any], Any]] = {}
    frm: dict[str, Callable[[Any], Any]] = {}
    missing: dict[str, str] = {}
    for kind, (to_name, from_name) in NEEDS.items():
        absent = [n for n in (to_name, from_name) if not callable(getattr(mod, n, None))]
        if absent:
            missing[kind] = f"{module_name} has no {' or '.join(absent)}"
            continue
        to[kind] = getattr(mod, to_name)
        frm[kind] = getattr(mod, from_name)

    if "sparse" in to:
        to_array, from_array = to["sparse"], frm["sparse"]

        def sparse_to(m: Any) -> Any:
            return to_array(m.values), to_array(m.indices), list(m.dims)

        def sparse_from(v: Any) -> Any:
            values, indices, dims = v
            return onnxdata.SparseTensorProto(
                values=from_array(values), indices=from_array(indices), dims=list(dims)
            )

        to["sparse"], frm["sparse"] = sparse_to, sparse_from
    return Bridge(module_name, to, frm, missing)


def same(a: Any, b: Any, path: str = "") -> str | None:
    """Where two numpy results differ (dtype, shape, bits, structure), or None."""
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return f"{path or 'value'}: {type(a).__name__} vs {type(b).__name__}"
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{path or 'array'}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        if a.dtype == object:
            return None if a.tolist() == b.tolist() else f"{path or 'array'}: values differ"
        if np.ascontiguousarray(a).tobytes() != np.ascontiguousarray(b).tobytes():
            return f"{path or 'array'}: values differ"
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return f"{path or 'dict'}: keys differ"
        for k in a:
            d = same(a[k], b[k], f"{path}[{k!r}]")
            if d:
                return d
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{path or 'list'}: length {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            d = same(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if type(a) is not type(b) or a != b:
        return f"{path or 'value'}: {a!r:.60} vs {b!r:.60}"
    return None
