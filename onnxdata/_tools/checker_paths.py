"""Where an external tensor's data is, as onnx's checker resolves it.

onnx's ``resolve_external_data_location`` (``checker.cc``) refuses an empty
or absolute location, a location whose normal form has ``..`` anywhere in it,
and a file that is a symbolic link, is not a regular file, resolves outside
the model's folder or has more than one hard link.  The checks touch the
file system, as onnx's do: a model whose data file is missing fails
``check_model``.  ``lexically_normal`` is ``std::filesystem``'s, kept exactly
(a trailing separator stays), since its result appears in the messages.
"""

from __future__ import annotations

import os

from .checker_context import fail

__all__ = ["lexically_normal", "resolve_external_data_location"]


def lexically_normal(path: str) -> str:
    """``std::filesystem::path::lexically_normal`` for a POSIX path: ``.`` and
    ``name/..`` go, and a separator that ends what is left stays
    (``"a/b/.."`` is ``"a/"``, ``"a/.."`` is ``"."``)."""
    if not path:
        return ""
    rooted = path.startswith("/")
    out: list[str] = []
    trail = False
    for name in path.split("/"):
        if not name:
            continue
        if name == ".":
            trail = bool(out)
        elif name == ".." and out and out[-1] != "..":
            out.pop()
            trail = bool(out)
        elif name == ".." and rooted and not out:
            trail = False
        else:
            out.append(name)
            trail = False
    if path.endswith("/") and out and out[-1] != "..":
        trail = True
    text = ("/" if rooted else "") + "/".join(out) + ("/" if trail and out else "")
    return text or ("/" if rooted else ".")


def _join(base: str, relative: str) -> str:
    """``std::filesystem``'s ``base / relative`` for a relative ``relative``."""
    if not base:
        return relative
    return base + relative if base.endswith("/") else f"{base}/{relative}"


def resolve_external_data_location(base_dir: str, location: str, tensor_name: str) -> str:
    """onnx's checks of an external tensor's location; the file's path.

    Raises:
        ValidationError: onnx's message for the first check that fails.
    """
    if not location:
        fail("Location of external TensorProto ( tensor name: ", tensor_name, ") should not be "
             "empty.")  # fmt: skip
    if location.startswith("/"):
        fail("Location of external TensorProto ( tensor name: ", tensor_name, ") should be a "
             "relative path, but it is an absolute path: ", location)  # fmt: skip
    relative = lexically_normal(location)
    if ".." in relative:
        fail("Data of TensorProto ( tensor name: ", tensor_name, ") should be file inside '",
             base_dir, "', but '", location, "' points outside the directory.")  # fmt: skip
    data_path = _join(base_dir, relative)
    # The system calls see the path up to its first NUL, as C++'s c_str() hands it
    # over ("d.bin\0x" is d.bin to onnx); Python's would raise "embedded null byte".
    on_disk = data_path.split("\0", 1)[0]
    if os.path.islink(on_disk):
        fail("Data of TensorProto ( tensor name: ", tensor_name, ") should be stored in ",
             data_path, ", but it is a symbolic link.")  # fmt: skip
    if data_path.startswith("#"):
        return data_path
    real = os.path.realpath(on_disk)
    if base_dir:
        base = os.path.realpath(base_dir)
        if not (real.startswith(base.rstrip("/") + "/") or real == base):
            fail("Tensor ", tensor_name, " external data resolves outside model directory.")
    if not os.path.isfile(on_disk):
        fail("Data of TensorProto ( tensor name: ", tensor_name, ") should be stored in ",
             data_path, ", but it is not regular file.")  # fmt: skip
    if os.stat(on_disk).st_nlink > 1:
        fail("Data of TensorProto ( tensor name: ", tensor_name, ") should be stored in ",
             data_path, ", but it has multiple hard links, indicating a potential hardlink "
             "attack.")  # fmt: skip
    return data_path
