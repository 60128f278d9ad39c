"""ONNX's textual syntax (``onnx.parser``, ``onnx.printer``): its lexicon, its printer, its parser.

The printer's modules are ``print_*.py``, the parser's ``parse_*.py``; what both need (the
identifier rule, the names of the types and keywords) is in ``lexicon.py``.
"""
