"""A ``.npy`` file's header checked against the file's size, before numpy reads it.

numpy allocates the array its header declares before reading a byte of data, so a
20-byte file declaring a terabyte of float64 is a ``MemoryError`` (or worse, the
memory); reading the header first costs nothing and refuses it in one line.
"""

from __future__ import annotations

import os
from typing import Any

from .._io.regular_files import open_regular

__all__ = ["npy_shortfall"]


def npy_shortfall(np: Any, path: str) -> str | None:
    """Why the ``.npy`` file at ``path`` cannot hold what its header declares, or
    ``None`` when it can (or when numpy refuses it anyway: object arrays, which
    need pickle).

    Raises:
        ValueError: the header is not one numpy can read.
        OSError: the file cannot be opened, or is not a regular file.
    """
    fmt = np.lib.format
    with open_regular(path) as f:
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = fmt.read_array_header_1_0(f)
        else:
            shape, _, dtype = fmt.read_array_header_2_0(f)
        count = 1
        for n in shape:
            count *= n
        need = count * dtype.itemsize
        have = os.fstat(f.fileno()).st_size - f.tell()
    if dtype.hasobject or need <= have:
        return None
    return (
        f"not a .npy array: the header declares shape {tuple(shape)} of {dtype} "
        f"({need} bytes), but {have} bytes follow it"
    )
