"""Shared pytest set-up: where the shared helpers are, and the hypothesis profiles.

The test files (``test_*.py``) are named by the behaviour they prove; what
they share lives in these modules, next to this file, and nowhere else:

* ``oracle.py``: protobuf (upb, through the ``onnx`` classes) as the oracle:
  ``ORACLE``, ``MESSAGE_TYPES``, ``to_oracle``, ``assert_same``,
  ``check_decode`` (the decode contract), ``varint_path``, and the onnx
  wheel's typed backend test data (``CORPUS``, ``corpus_files``);
* ``wirekit.py``: exact wire bytes (varints, tags, fields, nesting), the raw
  field tree, and the one engine that mutates valid encodings;
* ``message_strategies.py``: hypothesis strategies of valid messages and of
  decoder inputs, ``scaled`` (examples as a share of the profile) and
  ``constants`` (a module's thresholds set for one example);
* ``numpy_support.py``: numpy-side helpers and sample messages;
* ``fuzz/``: seeds, the differential check and the seeded mutator shared by the
  CI differential run and the atheris targets.

Two profiles:

* ``ci`` (the default, and always used when the ``CI`` environment variable is
  set): a few hundred examples per property, so that the whole suite stays
  within a few minutes on a 2-core machine.
* ``long``: thousands of examples per property, for a soak run before a release:

      HYPOTHESIS_PROFILE=long python -m pytest tests/

``HYPOTHESIS_PROFILE`` picks the profile by name; without it (or with ``CI``
set) the ``ci`` profile is loaded.  A test that wants fewer examples than the
profile (because each example is expensive) scales the profile's count with
``message_strategies.scaled`` instead of hard-coding a number, so ``long`` makes it
longer too.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SUPPRESSED = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "ci",
    max_examples=250,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SUPPRESSED,
)
settings.register_profile(
    "long",
    max_examples=6000,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SUPPRESSED,
)

_profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
if os.environ.get("CI") and _profile != "long":
    _profile = "ci"
settings.load_profile(_profile)
