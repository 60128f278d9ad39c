"""The ``onnxdata`` command: look inside ONNX data and model files without protobuf.

Errors are one line on stderr naming the file, offset and field path, with
exit status 2; a traceback would only hide the offset a user needs.

Three rules hold for every command, in one place each, so that a new command
cannot forget them:

* Every line printed, on stdout or stderr (``_tools/console.py``),
  goes through :func:`printable`: a name, a location or a JSON key from a
  file cannot drive the terminal or forge a line.
* A command declares which arguments it reads and which it writes; an output
  that is the same file as an input (through a hard link, a symlink, a
  relative path or ``/dev/fd/N``), stdout included, is refused before
  anything runs (``console.same_file``).  Files are written atomically
  (:func:`_write`): on failure, nothing is written and an existing output
  is left as it was; a device, a FIFO or ``/dev/stdout`` is written
  through, never replaced.
* When the reader of stdout goes away (``onnxdata check bad.pb | head -1``),
  the output stops but the work does not: the exit status is the one the
  command computed, never 0 for a failure.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from . import __version__
from ._core.errors import DecodeError, EncodeError
from ._messages.declarations import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from ._messages.graphs import ModelProto
from ._syntax.parse_errors import ParseError
from ._tools.console import Output, external_output, same_file, say
from ._tools.terminal import printable

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import BinaryIO

TYPES: dict[str, type[Message]] = {
    "tensor": TensorProto,
    "sparse": SparseTensorProto,
    "sequence": SequenceProto,
    "map": MapProto,
    "optional": OptionalProto,
    "model": ModelProto,
}


class CommandError(Exception):
    """A failure to report as one line: the file, then what went wrong."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``onnxdata`` command; return the exit status (0 ok, 1 violations, 2 errors).

    A closed stdout does not change the status: the command runs to its end
    with its output discarded.  Failing to write stdout otherwise (a full
    disk) is an error, status 2.

    Raises:
        SystemExit: the arguments are wrong (status 2, after one line of
            usage), or ``--help`` / ``--version`` was asked for (status 0).
    """
    parser = _parser()
    args = parser.parse_args(argv)
    out = Output()
    clash = same_file(args, out)
    if clash is not None:
        output, source = clash
        status = _fail(output, f"is the same file as the input {source}: refused, "
                               "writing it would destroy the input")  # fmt: skip
    else:
        run: Callable[[argparse.Namespace, Output], int] = args.run
        status = run(args, out)
    return out.finish(status)


def command() -> int:
    """The ``onnxdata`` program (the console script, ``python -m onnxdata``): :func:`main`,
    with each warning printed as one line on stderr, as errors are.

    How warnings are shown is the process's; the program owns its process, so
    it sets that here, while a caller of :func:`main` keeps its own.
    """
    warnings.showwarning = _show_warning
    return main()


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    say("onnxdata: warning: " + " ".join(str(message).split()), file)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose error line (which quotes the arguments) is escaped."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, printable(f"{self.prog}: error: {message}") + "\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="onnxdata", description="Inspect, check and convert ONNX data files (.pb)."
    )
    parser.add_argument("--version", action="version", version=f"onnxdata {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(
        name: str,
        help: str,
        description: str,
        run: Callable[[argparse.Namespace, Output], int],
        inputs: tuple[str, ...] = ("file",),
        outputs: tuple[str, ...] = (),
    ) -> argparse.ArgumentParser:
        """Add a command: ``run(args, out)``, which reads the files named by the
        arguments ``inputs`` and writes those named by ``outputs`` (argument
        names as argparse stores them), and prints through ``out``."""
        sub = commands.add_parser(name, help=help, description=description)
        sub.set_defaults(run=run, inputs=inputs, outputs=outputs)
        return sub

    def typed(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--type", choices=sorted(TYPES), help="the message type (default: detect it)"
        )

    show = command(
        "show",
        "outline what a file holds",
        "Outline each file: message type, names, types, shapes and a few values; for a "
        "model, a summary (versions, inputs and outputs, operators, initializers by size, "
        "external data). A folder with model.onnx is a test case: the model's summary, then "
        "each test_data_set_*/ file read as the type the model declares for it. "
        "The type is detected when --type is not given.",
        _cmd_show,
        inputs=("files",),
    )
    show.add_argument("files", nargs="+", metavar="FILE")
    typed(show)
    shown_as = show.add_mutually_exclusive_group()
    shown_as.add_argument(
        "--format",
        choices=["outline", "text"],
        default="outline",
        help="outline: a bounded preview (the default); text: the whole message in "
        "protobuf's text format (as google.protobuf.text_format.MessageToString)",
    )
    shown_as.add_argument("--text", action="store_true", help="the model in ONNX's textual "
                      "syntax (as onnx.printer.to_text), its strings escaped")  # fmt: skip
    raw = command(
        "raw",
        "dump every field without a schema",
        "Dump every field (offset, number, wire type, value), guessing nested messages, "
        "like protoc --decode_raw. On damaged bytes, show how far they parse and where "
        "they break (exit status 2).",
        _cmd_raw,
    )
    raw.add_argument("file", metavar="FILE")
    raw.add_argument(
        "--type",
        choices=sorted(TYPES),
        help="name the fields and read their payloads as this message type says",
    )
    check = command(
        "check",
        "check files against the ONNX rules",
        "Check each file against every MUST of the ONNX protos; print one line per "
        "violation. A model is checked against the rules of its tensors and the model rules "
        "that need no operator schema; a test-case folder (model.onnx and "
        "test_data_set_*/) also checks each data file against the type the model declares. "
        "Exit status 1 if any file breaks a rule, 2 if one cannot be read.",
        _cmd_check,
        inputs=("files",),
    )
    check.add_argument("files", nargs="+", metavar="FILE")
    typed(check)
    to_json = command(
        "json",
        "print a file as protobuf JSON",
        "Print the message in protobuf's canonical JSON mapping "
        "(as google.protobuf.json_format.MessageToJson).",
        _cmd_json,
    )
    to_json.add_argument("file", metavar="FILE")
    typed(to_json)
    from_json = command(
        "from-json",
        "write a .pb from protobuf JSON",
        "Read protobuf JSON (what json_format.Parse accepts) and write the binary message.",
        _cmd_from_json,
        outputs=("output",),
    )
    from_json.add_argument("file", metavar="FILE.json")
    from_json.add_argument("-o", "--output", required=True, metavar="OUT.pb")
    from_json.add_argument(
        "--type",
        choices=sorted(TYPES),
        help="the message type (default: the first of tensor, sparse, sequence, map, optional, "
        "model whose fields fit)",
    )
    to_npy = command(
        "to-npy",
        "write a tensor as a .npy array (needs numpy)",
        "Convert a TensorProto (or SparseTensorProto, densified) to a .npy file; from a "
        "model, the initializer named by --name (external data is read).",
        _cmd_to_npy,
        outputs=("output",),
    )
    to_npy.add_argument("file", metavar="FILE")
    to_npy.add_argument("-o", "--output", required=True, metavar="OUT.npy")
    to_npy.add_argument(
        "--name",
        help="in a model: the initializer (dense or sparse) to write, looked for in the "
        "main graph, then in subgraphs",
    )
    typed(to_npy)
    from_npy = command(
        "from-npy",
        "write a .npy array as a TensorProto (needs numpy)",
        "Convert a .npy array to a TensorProto .pb file.",
        _cmd_from_npy,
        outputs=("output",),
    )
    from_npy.add_argument("file", metavar="IN.npy")
    from_npy.add_argument("-o", "--output", required=True, metavar="OUT.pb")
    from_npy.add_argument("--name", help="the tensor's name")
    corpus = command(
        "corpus",
        "write seed corpora and a dictionary for fuzzers",
        "Write OUT/<Message>/ for each ONNX data message (valid, non-canonical and malformed "
        "seeds, named by what they are) and OUT/onnx.dict, a libFuzzer/AFL dictionary. "
        "The same --seed and --count give the same files.",
        _cmd_corpus,
        inputs=(),
    )
    corpus.add_argument("out", metavar="OUT")
    corpus.add_argument("--seed", type=int, default=0, help="the random seed (default 0)")
    corpus.add_argument(
        "--count", type=int, default=2, help="variants of each case, at least 1 (default 2)"
    )
    corpus.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty OUT: its message folders and onnx.dict are replaced, "
        "nothing else is touched",
    )
    _add_generated(command)
    return parser


def _fail(path: str, message: str) -> int:
    say(f"onnxdata: {path}: {message}")
    return 2


def _guarded(path: str, action: Callable[[], int]) -> int:
    """Run ``action``; turn every expected failure into one line on stderr and status 2.

    Besides the library's own errors, what the standard library and numpy raise
    for input they cannot take (a number too large, nesting too deep, a
    declared size that cannot be allocated) is bad input too.
    """
    try:
        return action()
    except DecodeError as err:
        return _fail(path, f"offset {err.offset}: {err}")
    except EncodeError as err:
        return _fail(path, f"cannot encode: {err}")
    except CommandError as err:
        return _fail(path, str(err))
    except OSError as err:
        text = err.strerror or str(err)
        if err.filename is not None and os.fsdecode(err.filename) != path:
            # Another file than the one named: an external tensor's data file.
            text = f"{os.fsdecode(err.filename)}: {text}"
        return _fail(path, text)
    except ParseError as err:  # onnx's message: where, the line of text, what was expected
        expected = err.args[0].decode("utf-8", "replace").rsplit("\n", 1)[-1]
        return _fail(path, f"line {err.line} column {err.column}: {expected}")
    except RecursionError:
        return _fail(path, "nested too deeply")
    except MemoryError:
        return _fail(path, "too large to hold in memory")
    except (ValueError, OverflowError) as err:
        return _fail(path, _one_line(err))


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def _read(path: str) -> bytes:
    """The whole of a small file (JSON, a raw dump); only a regular file is read."""
    from ._io.regular_files import open_regular

    with open_regular(path) as f:
        return f.read()


def _load(path: str, type_name: str | None) -> Message:
    """The message in the file at ``path``, as ``onnxdata.load`` reads it: a model
    when ``--type model`` or the file's name says so (``.onnx``, a text or JSON
    extension), in the format of its extension; else the type given, or detected
    (``.pb``, no extension).  Protobuf files are mapped, decoded without copies;
    external data is not read."""
    from ._io.choosing import DEFAULT_FORMAT
    from ._io.entry import load

    fmt = _format(path)
    cls = None if type_name is None else TYPES[type_name]
    try:
        with _no_onnxtxt_warning():
            found: Message = load(
                path, None if fmt == DEFAULT_FORMAT else fmt, False, type=cls, mmap=True
            )
    except ValueError as err:
        if fmt == DEFAULT_FORMAT or cls not in (None, ModelProto):
            raise
        raise CommandError(f"{_one_line(err)} (read as a model in {fmt}, as its extension "
                           "says: --type names another type)") from None  # fmt: skip
    return found


@contextlib.contextmanager
def _no_onnxtxt_warning() -> Iterator[None]:
    """Without onnx's warning that onnxtxt is experimental: news to a library user only."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The onnxtxt format is experimental")
        yield


def _format(path: str) -> str:
    """The format of the file at ``path`` by its extension, as onnx chooses it
    (``.onnxtxt``: onnx's textual syntax, read by ``onnxdata.parser``)."""
    from ._io.choosing import choose_format

    return choose_format(None, path)


def _is_model(path: str, type_name: str | None) -> bool:
    """Whether the file is read as a model by what it is called or by ``--type``."""
    from ._io.choosing import names_a_model

    return type_name == "model" or (type_name is None and names_a_model(path))


def _load_model(path: str) -> ModelProto:
    """The model in the file at ``path``, mapped: ``raw_data`` are views of the
    file, and external data is not read, so ``show`` costs the model's metadata
    only.  The one place the command reads a model."""
    from ._io.model_io import load_model

    with _no_onnxtxt_warning():
        return load_model(path, load_external_data=False, mmap=True)


class _WriteOnly:
    """A file seen only through its ``write`` method."""

    __slots__ = ("write",)

    def __init__(self, file: BinaryIO) -> None:
        self.write = file.write


def _write(path: str, write: Callable[[BinaryIO], object]) -> None:
    """Write the file at ``path`` atomically with ``write(file)``: into a temporary
    beside it, renamed over it when complete, so a failure (a full disk, a file
    size limit) writes nothing and leaves an existing ``path`` as it was.  What
    is not a regular file (``/dev/null``, a FIFO, ``/dev/stdout``) is written
    through instead, never replaced (``_io/atomic.AtomicFile``).

    Raises:
        CommandError: the file cannot be written.
    """
    from ._io.atomic import AtomicFile

    try:
        target = AtomicFile(path)
        try:
            write(target.file)
        except BaseException:
            target.discard()
            raise
        target.commit()
    except OSError as err:
        raise CommandError(f"cannot write {path}: {err.strerror or err}") from None


def _cmd_show(args: argparse.Namespace, out: Output) -> int:
    status = 0
    several = len(args.files) > 1
    for path in args.files:

        def one(path: str = path) -> int:
            if args.text:
                from ._tools.show_text import model_syntax

                if not _is_model(path, args.type):
                    raise CommandError("not a model (--type model reads it as one)")
                named = f"# {printable(path)}\n" if several else ""
                out.block(named + model_syntax(_load(path, "model")) + "\n")  # type: ignore[arg-type]
            elif args.format == "text":
                out.block(_show_text(path, args.type, several))
            else:
                out.lines(_show(path, args.type))
            return 0

        status = max(status, _guarded(path, one))
    return status


def _show_text(path: str, type_name: str | None, named: bool) -> str:
    """The whole message in protobuf's text format (``named``: after a ``# path`` comment)."""
    from .text_format import MessageToString

    if os.path.isdir(path):
        raise CommandError("is a folder: --format text shows one file (its model.onnx)")

    text = MessageToString(_load(path, type_name))
    # The path's own line breaks are escaped; the text format's are its lines.
    return f"# {printable(path)}\n{text}" if named else text


def _show(path: str, type_name: str | None) -> list[str]:
    """The outline of the file at ``path`` (the summary of a model or a test-case folder)."""
    from ._io.choosing import DEFAULT_FORMAT
    from ._tools.testcase import is_test_case

    if is_test_case(path):
        return _show_case(path, type_name)
    if _is_model(path, type_name):
        return _show_model(path)
    if _format(path) != DEFAULT_FORMAT:  # a data message in text or JSON, by --type
        from ._tools.show import show

        msg = _load(path, type_name)
        head, *lines = show(msg.encode(), type(msg))
        return [f"{path}: {head}", *lines]
    return _show_data(path, type_name)


def _show_model(path: str) -> list[str]:
    """A model's summary: its metadata only, never an initializer's values."""
    from ._tools.summary import summary

    head, *lines = summary(_load(path, "model"), os.path.dirname(os.path.abspath(path)))
    return [f"{path}: {head}", *lines]


def _show_case(path: str, type_name: str | None) -> list[str]:
    """A test case: its model's summary, then each data file, declared and found."""
    from ._tools.summary import LIMIT
    from ._tools.testcase import MODEL_FILE, read_test_case, value_text
    from ._tools.typetext import type_text

    if type_name is not None:
        raise CommandError("is a test-case folder: its model declares its files' types")
    lines = _show_model(os.path.join(path, MODEL_FILE))
    case = read_test_case(path, _load_model(os.path.join(path, MODEL_FILE)))
    lines.append(f"{path}: {len(case.data_sets)} data sets")
    for name, files in list(case.data_sets.items())[:LIMIT]:
        lines.append(f"  {name}: {len(files)} files")
        for f in files[:LIMIT]:
            found = "unread" if f.message is None else value_text(f.message)
            declared = "undeclared" if f.declared is None else type_text(f.declared)
            problems = f", {len(f.problems)} problems" if f.problems else ""
            lines.append(f"    {f.path.rsplit('/', 1)[-1]} {f.name!r}: {found} "
                         f"(declared {declared}){problems}")  # fmt: skip
        if len(files) > LIMIT:
            lines.append(f"    ... {len(files) - LIMIT} more files")
    if len(case.data_sets) > LIMIT:
        lines.append(f"  ... {len(case.data_sets) - LIMIT} more data sets")
    return lines


def _show_data(path: str, type_name: str | None) -> list[str]:
    """The outline of a data file, read from a mapping: only the values shown are
    ever read, so a file of any size shows at once.  A file detected as a model
    gets the model's summary instead."""
    from ._codec.decode import as_read_only_view
    from ._io.file_buffers import open_buffer
    from ._io.models import is_model
    from ._tools.show import show

    buf, mapping = open_buffer(path, mmap=True)
    view = as_read_only_view(buf)
    try:
        cls = None if type_name is None else TYPES[type_name]
        model = cls is None and is_model(view)
        if not model:
            head, *lines = show(view, cls, _releaser(mapping))
    finally:
        view.release()
        _close(buf, mapping)
    return _show_model(path) if model else [f"{path}: {head}", *lines]


def _close(buf: Any, mapping: Any) -> None:
    """Unmap a file that ``open_buffer`` mapped, once nothing refers to it."""
    if mapping is not None:
        mapping.close()


def _releaser(mapping: Any) -> Callable[[int, int], None] | None:
    """A function that gives the pages of ``mapping`` in ``[start, end)`` back,
    so that counting through a large payload does not keep it all resident."""
    import mmap

    if mapping is None:
        return None
    page = mmap.PAGESIZE

    def release(start: int, end: int) -> None:
        first = -(-start // page) * page  # whole pages only: a neighbour may still be read
        if end > first:
            mapping.dont_need(first, end - first)

    return release


def _cmd_raw(args: argparse.Namespace, out: Output) -> int:
    from ._tools.raw import dump

    def run() -> int:
        from ._io.choosing import DEFAULT_FORMAT
        from ._io.file_buffers import open_buffer
        from ._io.models import is_model

        if _format(args.file) != DEFAULT_FORMAT:
            raise CommandError(f"is {_format(args.file)} text by its extension: raw dumps "
                               "the binary encoding")  # fmt: skip
        cls: type[Message] | None = ModelProto if _is_model(args.file, args.type) else None
        if args.type and cls is None:
            cls = TYPES[args.type]
        buf, mapping = open_buffer(args.file, mmap=True)
        try:
            if cls is None and is_model(buf):
                cls = ModelProto  # a model's fields are named without --type
            result = dump(buf, cls)
        finally:
            _close(buf, mapping)
        out.lines(result.lines)
        if result.error is not None:
            err = result.error
            return _fail(
                args.file,
                f"offset {err.offset}: {err.reason} (the first {result.parsed} bytes parse)",
            )
        return 0

    return _guarded(args.file, run)


def _cmd_check(args: argparse.Namespace, out: Output) -> int:
    from ._tools.check import check
    from ._tools.testcase import is_test_case

    status = 0
    for path in args.files:

        def one(path: str = path) -> int:
            if is_test_case(path):
                found = _check_case(path, args.type)
            else:
                msg = _load(path, args.type)
                found = check(msg)
                if isinstance(msg, ModelProto):
                    from ._tools.external_files import external_violations

                    found += external_violations(msg, os.path.dirname(os.path.abspath(path)))
            out.lines(f"{path}: {v}" for v in found)
            return 1 if found else 0

        status = max(status, _guarded(path, one))
    return status


def _check_case(path: str, type_name: str | None) -> list[Any]:
    """The violations of a test case: its model's, then its data files'."""
    from ._tools.testcase import MODEL_FILE, check_test_case

    if type_name is not None:
        raise CommandError("is a test-case folder: its model declares its files' types")
    return check_test_case(path, _load_model(os.path.join(path, MODEL_FILE)))


def _cmd_json(args: argparse.Namespace, out: Output) -> int:
    from .json_format import MessageToJson

    def run() -> int:
        out.block(MessageToJson(_load(args.file, args.type)) + "\n")
        return 0

    return _guarded(args.file, run)


def _cmd_from_json(args: argparse.Namespace, out: Output) -> int:
    from .json_format import Parse, ParseError

    def run() -> int:
        text = _read(args.file)
        # JSON names no type either: without --type, the first type whose fields fit.
        names = [args.type] if args.type else list(TYPES)
        first: ParseError | None = None
        for name in names:
            try:
                msg = Parse(text, TYPES[name]())
                break
            except ParseError as err:
                first = first or err
        else:
            raise CommandError(_one_line(first or ParseError("no type fits")))
        data = msg.encode()
        _write(args.output, lambda f: f.write(data))
        return 0

    return _guarded(args.file, run)


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise CommandError("this command needs numpy: pip install 'onnxdata[numpy]'") from None
    return numpy


def _cmd_to_npy(args: argparse.Namespace, out: Output) -> int:
    def run() -> int:
        np = _numpy()
        from . import numpy_helper

        msg = _load(args.file, args.type)
        if isinstance(msg, ModelProto):
            if args.name is None:
                raise CommandError("is a model: name the initializer to write with --name")
            from ._tools.modelwalk import initializer

            try:
                msg = initializer(msg, args.name)
            except LookupError as err:
                raise CommandError(err.args[0]) from None
        elif args.name is not None:
            raise CommandError(f"--name picks an initializer of a model, not of a "
                               f"{type(msg).__qualname__}")  # fmt: skip
        if not isinstance(msg, (TensorProto, SparseTensorProto)):
            raise CommandError(f"to-npy takes a tensor, not a {type(msg).__qualname__}")
        base = os.path.dirname(os.path.abspath(args.file))
        clash = external_output(msg, base, args.output)
        if clash is not None:
            raise CommandError(f"{args.output} holds the tensor's external data ({clash}): "
                               "refused, writing it would destroy the input")  # fmt: skip
        try:
            array = numpy_helper.to_array(msg, base)
        except (ValueError, TypeError) as err:
            raise CommandError(f"cannot convert to an array: {err}") from None
        if array.dtype.kind == "O":
            raise CommandError("STRING tensors cannot be saved as .npy without pickle")
        # Through ``write`` only: numpy's ``tofile`` for a real file asks its
        # position, which a FIFO or a device written through has not.
        _write(args.output, lambda f: np.save(_WriteOnly(f), array, allow_pickle=False))
        return 0

    return _guarded(args.file, run)


def _cmd_from_npy(args: argparse.Namespace, out: Output) -> int:
    def run() -> int:
        np = _numpy()
        from . import numpy_helper

        try:
            from ._numpy.npy_files import npy_shortfall

            problem = npy_shortfall(np, args.file)
            if problem:
                raise CommandError(problem)
            array = np.load(args.file, allow_pickle=False)
        except (ValueError, OverflowError, EOFError) as err:
            raise CommandError(f"not a .npy array: {_one_line(err)}") from None
        except MemoryError:
            raise CommandError("not a .npy array: too large to hold in memory") from None
        try:
            tensor = numpy_helper.from_array(array, name=args.name)
        except (ValueError, TypeError) as err:
            raise CommandError(f"cannot convert: {err}") from None
        data = tensor.encode()
        _write(args.output, lambda f: f.write(data))
        return 0

    return _guarded(args.file, run)


def _cmd_corpus(args: argparse.Namespace, out: Output) -> int:
    from ._fuzz.corpus import DICTIONARY_NAME, write_corpus

    def run() -> int:
        folder_out = args.out
        if args.count < 1:
            raise CommandError(f"--count must be at least 1, not {args.count}")
        if os.path.exists(folder_out) and not os.path.isdir(folder_out):
            raise CommandError("exists and is not a folder")
        if os.path.isdir(folder_out) and os.listdir(folder_out) and not args.force:
            raise CommandError("is not empty (--force replaces the corpus in it)")
        summary = write_corpus(folder_out, seed=args.seed, count=args.count, force=args.force)
        for folder, counts in summary.items():
            total = sum(counts.values())
            share = 100 * counts["malformed"] / total
            out.line(
                f"{folder_out}/{folder}: {total} files: {counts['valid']} valid, "
                f"{counts['noncanonical']} non-canonical, {counts['malformed']} malformed "
                f"({share:.0f} %)"
            )
        out.line(f"{folder_out}/{DICTIONARY_NAME}: the dictionary")
        return 0

    return _guarded(args.out, run)


def _add_generated(command: Callable[..., argparse.ArgumentParser]) -> None:
    """The ``generated`` command's parser entry: the decoders and encoders as they run."""
    sub = command(
        "generated",
        "print the decoders and encoders generated from the schema",
        "Print the source of the decode and encode functions generated for MESSAGE "
        "(default: every message), as they run: tracebacks and pdb show these lines. "
        "ONNXDATA_GENERAL_PATHS=1 prints the general paths alone.",
        _cmd_generated,
        inputs=(),
    )
    names = sorted({*TYPES, *(cls.__name__ for cls in TYPES.values())})
    sub.add_argument("message", nargs="?", choices=names, metavar="MESSAGE", help=", ".join(names))
    which = sub.add_mutually_exclusive_group()
    which.add_argument("--decode", action="store_true", help="the decoders only")
    which.add_argument("--encode", action="store_true", help="the encoders only")


def _cmd_generated(args: argparse.Namespace, out: Output) -> int:
    from ._codec import decode, encode

    by_name = {**TYPES, **{cls.__name__: cls for cls in TYPES.values()}}
    classes = [by_name[args.message]] if args.message else list(TYPES.values())
    for cls in classes:
        if not args.encode:
            for copy in (True, False):
                mode = "" if copy else " (copy=False)"
                out.line(f"# the decoder of {cls.__name__}{mode}")
                out.block(decode.source(cls, copy) + "\n")
        if not args.decode:
            out.line(f"# the encoder of {cls.__name__}")
            out.block(encode.source(cls) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
