"""The numpy bridge behind ``numpy_helper``: dtypes, float formats, tensors, sparse."""
