"""The fuzzing toolkit behind ``fuzz`` and ``strategies``: seed corpus and mutator.
"""
