"""The CI-sized differential run: seeded structure-aware mutations, onnxdata vs protobuf.

Tens of thousands of inputs per run, no atheris needed: valid messages (the onnx
wheel's backend test data, hand-made cases, random messages built from the
descriptors) rewritten on the wire by ``tests/fuzz/mutate.py`` (byte flips,
truncations, splices, unknown fields and groups, duplicated singular messages,
unpacked and re-packed repeated fields, over-long varints, forged huge and short
lengths, wrong wire types, invalid UTF-8, nesting around the limit of 100) and
compared with the oracle by ``tests/fuzz/differential.py`` (accept/reject,
re-encoded bytes, every field value, error attributes).  Each input is also
decoded as one other message type.

Scale and seed from the environment:

    ONNXDATA_DIFF_SCALE=10 python -m pytest tests/codec/test_differential.py -s   # 10x the cases
    ONNXDATA_DIFF_SEED=1234 ...                                              # another seed

A divergence message gives the seed, the case index and the input in hex;
``python -m tests.fuzz.differential TYPE FILE`` replays a saved input.
"""

from __future__ import annotations

import os
import random
import time

import pytest

from tests.fuzz import differential, mutate

SCALE = float(os.environ.get("ONNXDATA_DIFF_SCALE", "1"))
SEED = int(os.environ.get("ONNXDATA_DIFF_SEED", "20261129"))
# Cases per message type at scale 1 (the containers' cases cost more).
CASES = {
    "tensor": 13_500,
    "segment": 4_500,
    "entry": 4_500,
    "sparse": 6_000,
    "sequence": 6_000,
    "map": 6_000,
    "optional": 6_000,
}


@pytest.mark.slow
@pytest.mark.parametrize("short", list(CASES))
def test_mutated_messages_match_the_oracle(short: str, capsys: pytest.CaptureFixture[str]) -> None:
    cls = differential.SHORT[short]
    n = max(1, int(CASES[short] * SCALE))
    started = time.perf_counter()
    mutator = mutate.Mutator(cls, SEED)
    others = [c for c in differential.MESSAGE_TYPES if c is not cls]
    pick = random.Random(f"{SEED}:others:{short}")
    accepted = rejected = cross = 0
    for i in range(n):
        data = mutator.case()
        try:
            if differential.compare(cls, data):
                accepted += 1
            else:
                rejected += 1
            other = pick.choice(others)
            differential.compare(other, data)
            cross += 1
        except Exception as exc:
            raise AssertionError(
                f"case {i} (seed {SEED}, {short}): {type(exc).__name__}: {exc}\ninput: {data.hex()}"
            ) from exc
    took = time.perf_counter() - started
    with capsys.disabled():
        print(
            f"\n[differential] {cls.__qualname__}: {n} cases ({accepted} accepted, {rejected} "
            f"rejected by both), {cross} also decoded as another type, 0 divergences, "
            f"{took:.1f} s, seed {SEED}"
        )
    # Both outcomes must be well represented, or the mutations have gone stale.
    assert accepted >= n // 10 and rejected >= n // 10, (accepted, rejected)
