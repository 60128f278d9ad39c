"""Fixtures of the codec's tests."""

from __future__ import annotations

import pytest

from onnxdata._core import switches


@pytest.fixture
def fast_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast paths on, whatever ``ONNXDATA_GENERAL_PATHS`` says: for a test
    of a fast path itself, or one that compares it with the general path
    (under the switch it would compare the general path with itself)."""
    monkeypatch.setattr(switches, "GENERAL_PATHS", False)
