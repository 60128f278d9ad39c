"""onnx's ``check_model``: a model's versions, metadata, opsets, graph and functions.

onnx 1.23.2's ``check_model`` (``checker.cc``) in its order and with its
messages, from a model, its bytes or its file.  A file is memory-mapped, so
a model file above 2 GiB is checked too (onnx cannot parse one: protobuf's
limit); external data files are looked for beside it, as onnx looks.

``full_check`` asks onnx to run shape inference after the checks, which
onnxdata does not have yet: once the checks pass, a ``RuntimeWarning`` says
that inference did not run.  A model onnx refuses only in inference (a type
that does not fit an operator, a shape that cannot be) passes here, with
that warning; code written for onnx that calls ``full_check=True`` on valid
models keeps working, and ``-W error::RuntimeWarning`` makes it a failure
for whoever needs the full verdict.
"""

from __future__ import annotations

import os
import warnings

from .._core.errors import DecodeError, EncodeError, ValidationError
from .._core.wire import EGROUP, read_varint, split_tag
from .._io.files import load
from .._messages.convert import as_message
from .._messages.graphs import ModelProto
from .._messages.versions import IR_VERSION
from .checker_context import CheckerContext, LexicalScopeContext, fail, within
from .checker_functions import check_model_local_functions, checked_opset_version
from .checker_graphs import check_graph
from .checker_schemas import SchemaCache
from .model_rules import PROPS

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "MAXIMUM_PROTOBUF",
    "check_model",
    "check_model_path",
    "check_model_proto",
    "decode_as_onnx",
    "guarded",
]

MAXIMUM_PROTOBUF = 2147483647
"""The largest message protobuf parses (2 GiB - 1 byte), as in onnx."""

_PARSE_BYTES = (
    "Unable to parse proto from the given bytes: data is malformed, truncated, or exceeds "
    "the size limit."
)
_NO_INFERENCE = (
    "check_model(full_check=True): the model passed every check of onnx's checker but shape "
    "inference, which onnxdata does not have yet and did not run"
)


def _full_check(full_check: bool) -> None:
    """Say that the inference part of ``full_check`` did not run."""
    if full_check:
        warnings.warn(_NO_INFERENCE, RuntimeWarning, stacklevel=4)


def check_model_proto(model: Any, ctx: CheckerContext) -> None:
    """onnx's ``check_model(model, ctx)``. Raises ValidationError, its path
    starting with ``ModelProto``."""
    try:
        _check(model, ctx)
    except ValidationError as err:
        within(err, "ModelProto")
        raise


def guarded(message: Any, check: Callable[[], None]) -> None:
    """Run ``check`` of ``message``, an object built in Python: a value of the
    wrong type in it (an ``int`` for a name) that breaks the check itself is
    reported as ``encode()`` reports it, an ``EncodeError`` with the field's
    path (onnx serializes a message before checking it, and fails there)."""
    try:
        check()
    except (TypeError, AttributeError, KeyError, IndexError) as err:
        try:
            message.encode()
        except EncodeError as refused:
            raise refused from err
        raise


def _check(model: Any, ctx: CheckerContext) -> None:
    ir_version = model.ir_version
    if not ir_version:
        fail("The model does not have an ir_version set properly.")
    if ir_version > IR_VERSION:
        fail("Your model ir_version ", ir_version, " is higher than the checker's (", IR_VERSION,
             ").")  # fmt: skip
    entries = getattr(model, PROPS)
    if len(entries) > 1:
        keys = [e.key for e in entries]
        if len(set(keys)) != len(keys):
            fail("Your model has duplicate keys in ", PROPS, ".")
    ctx.ir_version = ir_version
    imports: dict[str, int] = {}
    for entry in model.opset_import:
        imports[entry.domain] = checked_opset_version(entry.version)
    if ir_version >= 3:
        if not imports:
            fail("model with IR version >= 3 must specify opset_import for ONNX")
    elif imports:
        fail("model with IR version < 3 cannot have opset_import specified")
    else:
        imports[""] = 1
    ctx.opset_imports = imports
    lex_ctx = LexicalScopeContext()
    try:
        check_graph(model.graph, ctx, lex_ctx)
    except ValidationError as err:
        within(err, "graph")
        raise
    if ir_version >= 8:
        check_model_local_functions(model, ctx, lex_ctx)


def _context(model_dir: str, skip_opset_compatibility_check: bool, check_custom_domain: bool
             ) -> CheckerContext:  # fmt: skip
    ctx = CheckerContext()
    ctx.model_dir = model_dir
    ctx.skip_opset_compatibility_check = skip_opset_compatibility_check
    ctx.check_custom_domain = check_custom_domain
    ctx.schemas = SchemaCache()
    return ctx


def _stops_early(err: DecodeError, data: Any) -> int | None:
    """Where onnx's C++ parser stops with success where upb (and onnxdata) refuse:
    an end-group tag with no group open, or a tag that is the number 0, at the
    top level of the model, ends the message there (inside a sub-message it
    fails, as here).  The offset of that tag, or None."""
    if err.path != "ModelProto" or err.offset is None:
        return None
    at = int(err.offset)
    if "end-group tag" in str(err):
        return at
    if "field number 0" in str(err):
        view = memoryview(data)
        try:
            tag = read_varint(view, at, len(view))[0]
        except DecodeError:  # pragma: no cover - the decoder read this tag
            return None
        if tag == 0 or split_tag(tag)[1] == EGROUP:  # 0 (in any length), or field 0's end-group
            return at
    return None


def decode_as_onnx(data: Any) -> Any:
    """The model in ``data`` as onnx's checker parses it (see :func:`_stops_early`).

    Raises:
        DecodeError: the bytes are no model.
    """
    try:
        return ModelProto.decode(data)
    except DecodeError as err:
        stop = _stops_early(err, data)
        if stop is None:
            raise
    return ModelProto.decode(memoryview(data)[:stop])


def check_model_path(path: str, full_check: bool, skip: bool, custom: bool) -> None:
    """onnx's ``check_model_path``: the model in the file at ``path``, its
    external data looked for in the file's folder.

    Raises:
        ValidationError: the file cannot be opened or parsed (onnx's text), or
            the model breaks a rule.

    Warns:
        RuntimeWarning: ``full_check`` (the inference part did not run).
    """
    try:
        try:
            model = load(path, ModelProto)
        except DecodeError:
            if os.path.getsize(path) > MAXIMUM_PROTOBUF:
                raise  # onnx's parser cannot read it at all
            with open(path, "rb") as f:  # rare: read it whole, as onnx does
                model = decode_as_onnx(f.read())
    except DecodeError as err:
        raise ValidationError(
            f"Unable to parse proto from file: {path}. Please check if it is a valid protobuf "
            "file of proto. "
        ) from err
    except (OSError, ValueError) as err:
        raise ValidationError(
            f"Unable to open proto file: {path}. Please check if it is a valid proto. "
        ) from err
    cut = max(path.rfind("/"), path.rfind("\\"))  # onnx: find_last_of("\\/")
    check_model_proto(model, _context(path[: cut + 1] if cut >= 0 else "", skip, custom))
    _full_check(full_check)


def check_model(
    model: Any,
    full_check: bool = False,
    skip_opset_compatibility_check: bool = False,
    check_custom_domain: bool = False,
    limit: int = MAXIMUM_PROTOBUF,
) -> None:
    """``onnx.checker.check_model`` for a model (onnxdata's or onnx's), its bytes
    or a path.

    Raises:
        ValidationError: the model breaks one of onnx's rules: the first one,
            with onnx's text; ``err.path`` is the field path.
        ValueError: bytes above ``limit`` (2 GiB), or bytes that do not
            decode (onnx's texts; the ``DecodeError`` is the cause).
        TypeError: ``model`` is none of these.
        EncodeError: a value of the wrong type in the model breaks the check
            (the field's path, as ``encode()`` names it).

    Warns:
        RuntimeWarning: ``full_check=True``: shape inference did not run.
    """
    if isinstance(model, (str, os.PathLike)):
        check_model_path(os.fspath(model), full_check, skip_opset_compatibility_check,
                         check_custom_domain)  # fmt: skip
        return
    if isinstance(model, (bytes, bytearray, memoryview)):
        if len(model) > limit:
            raise ValueError("This protobuf of onnx model is too large (>2GiB). Call check_model "
                             "with model path instead.")  # fmt: skip
        try:
            model = decode_as_onnx(model)
        except DecodeError as err:
            raise ValueError(_PARSE_BYTES) from err
    else:
        model = as_message(model, ModelProto)
    ctx = _context("", skip_opset_compatibility_check, check_custom_domain)
    guarded(model, lambda: check_model_proto(model, ctx))
    _full_check(full_check)
