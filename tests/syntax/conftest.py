"""Fixtures of the syntax tests: the node-test models, built once per run."""

from __future__ import annotations

import warnings

import pytest


@pytest.fixture(scope="session")
def node_models() -> list[tuple[str, bytes]]:
    """(name, bytes) of every node-test model onnx's test cases build (about 1,900)."""
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases(None)
    return [(c.name, c.model.SerializeToString()) for c in cases if c.model is not None]
