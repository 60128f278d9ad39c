"""Small elements made inline: the fast path a ``runs="small"`` declaration asks for.

A repeated message field whose elements are mostly one short scalar (a
shape's dimensions: a size, or a symbolic name such as ``"batch"``) costs a call
of the element's decoder per element.  Declared ``runs="small"``, the run of
elements tests each element's bytes for the forms encoders write for one
field with a one-byte tag: an integer below 0x80 (tag, value) or a string
shorter than 128 bytes (tag, length, text), and makes the element inline;
any other element is decoded by the call, as on the general path.

The values stored are the general path's: a one-byte varint is its own
value for every integer kind, and the text is made as ``reading._string``
makes it.  The element was made blank, so the other members of a oneof are
unset already.
"""

from __future__ import annotations

from .._core.schema import INT32, INT64, STRING, UINT64, spec_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from .._core.schema import FieldSpec

__all__ = ["small_element"]

_INTS = (INT32, INT64, UINT64)


def small_element(f: FieldSpec, call: str) -> str | None:
    """The statements that fill ``sub`` from ``buf[pos:pos + n]`` for a field declared
    ``runs="small"``: inline tests for the element's one-field forms, else ``call``.
    None if ``f`` is not so declared.

    Raises:
        ValueError: ``f`` is so declared but is not a repeated message field
            whose element has a one-byte-tagged integer or string field.
    """
    if f.runs != "small":
        return None
    element = spec_of(f.message) if f.message is not None else None
    tests: list[tuple[str, str]] = []
    for g in element.fields if element is not None and f.repeated else ():
        tag = g.tag[0] if len(g.tag) == 1 else None
        if g.repeated or tag is None:
            continue
        if g.kind in _INTS:
            tests.append((f"n == 2 and buf[pos] == {tag} and buf[pos + 1] < 0x80",
                          f"sub.{g.slot} = buf[pos + 1]"))  # fmt: skip
        elif g.kind == STRING:
            text = 'str(buf[pos + 2 : pos + n], "utf-8", "surrogateescape")'
            tests.append((f"2 <= n < 0x82 and buf[pos] == {tag} and buf[pos + 1] == n - 2",
                          f"sub.{g.slot} = {text}"))  # fmt: skip
    if not tests:
        raise ValueError(f"{f.name}: runs='small' needs a repeated message with scalar fields")
    out = []
    for keyword, (test, store) in zip(["if", *["elif"] * len(tests)], tests, strict=False):
        out += [f"{keyword} {test}:", f"    {store}"]
    out += ["else:", f"    {call}"]
    return "\n".join(out)
