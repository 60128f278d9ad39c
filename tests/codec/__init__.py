"""Decoding and encoding against the oracle; each fast path against the general one."""
