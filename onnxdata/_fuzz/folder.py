"""The seeds of one message folder of the corpus, named by what they are."""

from __future__ import annotations

import random

from .._core.schema import spec_of
from .._messages.declarations import Message


class Folder:
    """The seeds of one message, named by what they are."""

    def __init__(self, cls: type[Message], rng: random.Random) -> None:
        self.cls = cls
        self.spec = spec_of(cls)
        self.rng = rng
        self.files: dict[str, bytes] = {}
        self.counts: dict[str, int] = {}
        self.bases: list[bytes] = []  # canonical encodings, to derive the other seeds from

    def add(self, kind: str, what: str, data: bytes) -> None:
        key = f"{kind}-{what}"
        i = self.counts.get(key, 0)
        self.counts[key] = i + 1
        self.files[f"{key}-{i}.pb"] = data

    def valid(self, what: str, msg: Message, base: bool = True) -> None:
        data = msg.encode()
        self.add("valid", what, data)
        if base and data:
            self.bases.append(data)
