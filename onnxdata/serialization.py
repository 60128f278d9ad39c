"""onnx's ``onnx.serialization``: the formats a message is saved and loaded in.

The serializers live in ``_io/formats.py``, with the files they serve; this module
is the public face, under onnx's name.
"""

from __future__ import annotations

from ._io.formats import ProtoSerializer, registry

__all__ = ["ProtoSerializer", "registry"]
