"""The one switch that turns every fast path off: ``ONNXDATA_GENERAL_PATHS=1``.

onnxdata's fast paths (numpy varint decoding and big-integer lanes, runs of
short ``bytes`` entries through the unpickler, the tail paths of nested lists
and optionals, runs of tensors sharing a head, the encoder's caches) each
produce exactly what the general path produces.  With the environment
variable ``ONNXDATA_GENERAL_PATHS`` set to anything but ``""`` or ``"0"`` when
onnxdata is imported, none of them is taken: the general code alone runs, so
the whole test suite can prove it right on its own (CI runs it both ways), and
a user who suspects a fast path can rule it out with one variable.

Code asks :data:`GENERAL_PATHS` when it chooses a path (not at import time),
so a test may also set it for one block with ``monkeypatch``: the codec
generates its decoders and encoders from its general tables alone while it
is set, and keeps the codecs of each state apart, so flipping it needs no
clearing (``decode.clear()`` and ``encode.clear()`` forget the generated
codecs, for a test that changes a declaration).  Pausing the garbage
collector during a large decode is not a path and stays on.
"""

from __future__ import annotations

import os

__all__ = ["GENERAL_PATHS"]

GENERAL_PATHS: bool = os.environ.get("ONNXDATA_GENERAL_PATHS", "") not in ("", "0")
