"""What the tests share: the oracle, exact wire bytes, strategies, numpy helpers and paths."""
