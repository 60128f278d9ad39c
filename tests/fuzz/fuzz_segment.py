#!/usr/bin/env python3
"""Fuzz target: bytes decoded as the segment message, by onnxdata and by protobuf (upb).

    python tests/fuzz/fuzz_segment.py WORK_DIR SEED_DIR -dict=SEEDS/wire.dict -max_len=4096

(see docs/robustness.md; ``tests/fuzz/run.py`` runs every target).
"""

from target import main

if __name__ == "__main__":
    main("segment")
