"""The benchmarks: ``python -m benchmarks.run`` from the checkout's root (docs/benchmarks.md)."""
