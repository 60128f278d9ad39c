"""The fuzzing toolkit behind ``fuzz`` and ``strategies``, one concept per module.

- ``records``: whole fields as ``(number, wire type, body)``, on the wire toolkit;
- ``defects``: the one catalog of malformed-input classes, and how to place one;
- ``samples``, ``noncanonical``, ``folder``, ``dictionary``, ``corpus``: the seed corpus;
- ``mutate``: the structure-aware mutator and crossover;
- ``property``: the differential property ``check_parser``;
- ``strategy_args``, ``valid_strategies``, ``wire_strategies``: the hypothesis strategies
  (imported only by ``onnxdata.strategies``: ``import onnxdata`` needs no hypothesis).
"""
