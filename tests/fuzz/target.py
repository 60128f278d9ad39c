"""The atheris harness every ``fuzz_<type>.py`` runs: one message type per process.

onnxdata is imported under atheris's instrumentation (so libFuzzer's coverage
counters, ``cov``/``ft`` in its status lines, measure onnxdata's own branches);
the oracle (upb, C code) is not instrumented.  Each input goes through
:func:`differential.compare`, and any :class:`differential.Divergence` or any
exception other than ``onnxdata.DecodeError`` is a crash that libFuzzer saves
as ``crash-<sha1>`` (see ``-artifact_prefix``).
"""

from __future__ import annotations

import sys

import atheris

from tests.support.paths import FUZZ, ROOT

HERE = FUZZ

with atheris.instrument_imports(include=["onnxdata"]):
    import onnxdata
    import onnxdata._codec.decode
    import onnxdata._codec.encode
    import onnxdata._codec.npvarints
    import onnxdata._core.wire

from tests.fuzz import differential  # noqa: E402  (after the instrumented imports)

# The codec's decoders and encoders are generated when first used (onnxdata/_codec/loop.py,
# writers.py), so instrument_imports does not see them: instrument each one here.
for _cls in set(differential.SHORT.values()):
    for _copy in (True, False):
        atheris.instrument_func(onnxdata._codec.decode.decoder(_cls, _copy)[1])
    for _plan in (False, True):
        atheris.instrument_func(onnxdata._codec.encode.encoder(_cls, _plan))


def main(short: str) -> None:
    cls = differential.SHORT[short]
    assert onnxdata.__file__.startswith(str(ROOT)), onnxdata.__file__
    compare = differential.compare

    def test_one_input(data: bytes) -> None:
        compare(cls, data)

    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
