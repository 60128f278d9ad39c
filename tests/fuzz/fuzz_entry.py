#!/usr/bin/env python3
"""Fuzz target: bytes decoded as the entry message, by onnxdata and by protobuf (upb).

    python -m tests.fuzz.fuzz_entry WORK_DIR SEED_DIR -dict=SEEDS/wire.dict -max_len=4096

(see docs/robustness.md; ``python -m tests.fuzz.run`` runs every target).
"""

from tests.fuzz.target import main

if __name__ == "__main__":
    main("entry")
