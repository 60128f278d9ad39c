"""Shared pytest set-up: where the shared helpers are, and the hypothesis profiles.

The tests mirror the package: one folder per layer (``core/``, ``codec/``,
``messages/``, ``text/``, ``io/``, ``tools/``, ``numpy/``, ``fuzz/``) and
``package/`` for the package as a whole (layers, imports, docs, wheel).  The
test files (``test_*.py``) are named by the behaviour they prove; what they
share lives in the package ``tests/support/``, imported as
``tests.support.<module>`` (never through ``sys.path`` edits), and nowhere
else:

* ``support/oracle.py``: protobuf (upb, through the ``onnx`` classes) as the
  oracle: ``ORACLE``, ``MESSAGE_TYPES``, ``to_oracle``, ``assert_same``,
  ``check_decode`` (the decode contract), ``varint_path``, and the onnx
  wheel's typed backend test data (``CORPUS``, ``corpus_files``);
* ``support/wirekit.py``: exact wire bytes (varints, tags, fields, nesting),
  the raw field tree, and the one engine that mutates valid encodings;
* ``support/message_strategies.py``: hypothesis strategies of valid messages
  and of decoder inputs, ``scaled`` (examples as a share of the profile) and
  ``constants`` (a module's thresholds set for one example);
* ``support/numpy_support.py``: numpy-side helpers and sample messages;
* ``support/paths.py``: where the checkout's files are (``ROOT``, ``DATA``,
  ``FUZZ``, ``BENCHMARKS``), for tests in any folder;
* ``fuzz/``: besides its tests, the seeds, the differential check and the
  seeded mutator shared by the CI differential run and the atheris targets.

This file holds the suite-wide set-up and fixtures: ``fast_paths`` turns the
fast paths on whatever ``ONNXDATA_GENERAL_PATHS`` says, for a test of a fast
path itself (CI runs the suite once with the switch).

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

No test depends on anything but its drawn data (docs/robustness.md, "the suite
is seed-independent"): ``python -m tests.support.seeds N [FILES]`` runs the
hypothesis tests N times, each with a random seed and an empty example
database, and counts the runs that failed.  Where ``CI`` is set, every profile
keeps no example database: CI works in a fresh clone, where the database would
only carry one run's examples into the next (``.ci/run`` runs the suite four
times), so the general-paths run would replay the default run's examples
instead of drawing its own; a failure is reported with its
``@reproduce_failure`` blob (``print_blob``), which replays it anywhere.
Locally the database (``.hypothesis/``) is kept: a failure found is replayed
first in every later run until it is fixed, and since the tests depend on their
drawn data alone, that replay is the same failure.

Two test profiles (``ONNXDATA_TESTS``):

* the default deselects the tests marked ``slow``: long ones whose kind of
  check faster tests also make (a message above 2 GiB, the wheel in Pyodide,
  the biggest hypothesis and mutation sweeps), so the suite stays within a
  few minutes on a 2-core machine with every module still tested;
* ``ONNXDATA_TESTS=all`` runs everything, slow tests included (with
  ``HYPOTHESIS_PROFILE=long`` too for a soak run before a release).

An explicit ``-m`` expression chooses by itself (``-m slow`` runs only the
slow tests), and naming only slow tests (a file, a node id, ``-k``) runs
them: a run never ends with nothing selected because of the profile.

``parametrize`` takes lists and tuples here, never a generator or another
one-shot iterator (pytest 10 refuses them; a generator is also empty the
second time it is read): :func:`pytest_generate_tests` fails the test that
passes one.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator

import pytest
from hypothesis import HealthCheck, Phase, settings

from onnxdata._core import switches

_SUPPRESSED = [HealthCheck.too_slow, HealthCheck.data_too_large]
# No example database in CI (see above): every run there draws its own examples.
_DATABASE: dict[str, None] = {"database": None} if os.environ.get("CI") else {}

settings.register_profile(
    "ci",
    **_DATABASE,
    max_examples=250,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SUPPRESSED,
)
settings.register_profile(
    "long",
    **_DATABASE,
    max_examples=6000,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SUPPRESSED,
)
# For finding which tests fail after a broad change: few examples, no shrinking.
settings.register_profile(
    "triage",
    **_DATABASE,
    max_examples=20,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=_SUPPRESSED,
)

_profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
if os.environ.get("CI") and _profile != "long":
    _profile = "ci"
settings.load_profile(_profile)


_PROFILES = ("default", "all")
_TESTS = os.environ.get("ONNXDATA_TESTS") or "default"


def pytest_configure(config: pytest.Config) -> None:
    if _TESTS not in _PROFILES:
        raise pytest.UsageError(
            f"ONNXDATA_TESTS={_TESTS!r}: expected one of {', '.join(_PROFILES)}"
        )


def pytest_report_header(config: pytest.Config) -> str:
    return f"onnxdata test profile: {_TESTS} (ONNXDATA_TESTS=all runs the slow tests too)"


@pytest.hookimpl(trylast=True)  # after -k and -m have chosen
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The default profile deselects the slow tests, unless only slow ones were chosen."""
    if _TESTS == "all" or config.getoption("markexpr"):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if not slow or len(slow) == len(items):
        return
    config.hook.pytest_deselected(items=slow)
    items[:] = [item for item in items if item.get_closest_marker("slow") is None]
    config.stash[_DESELECTED_SLOW] = len(slow)


_DESELECTED_SLOW = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    count = terminalreporter.config.stash.get(_DESELECTED_SLOW, 0)
    if count:
        terminalreporter.write_line(
            f"{count} slow tests deselected by the default profile; "
            "ONNXDATA_TESTS=all python -m pytest runs them"
        )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Refuse parametrize values given as a generator or another one-shot iterator."""
    for mark in metafunc.definition.iter_markers("parametrize"):
        values = mark.args[1] if len(mark.args) > 1 else mark.kwargs.get("argvalues")
        if isinstance(values, Iterator) or not isinstance(values, Collection):
            raise TypeError(
                f"{metafunc.definition.nodeid}: parametrize got a {type(values).__name__}; "
                "pass a list or a tuple (pytest 10 refuses iterators)"
            )


@pytest.fixture
def fast_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast paths on, whatever ``ONNXDATA_GENERAL_PATHS`` says: for a test
    of a fast path itself, or one that compares it with the general path
    (under the switch it would compare the general path with itself)."""
    monkeypatch.setattr(switches, "GENERAL_PATHS", False)
