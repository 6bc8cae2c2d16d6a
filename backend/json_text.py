"""JSON text as `json.dumps(document, indent=2)` writes it, byte for byte, in a fraction of the time.

The standard library serialises an indented document with its pure-Python encoder: a chain
of generators, one per nesting level, that every piece of output passes through (3.3 M calls
for the files of a 2,000-block conv chain). Here each list or dict is one `str.join` over its
items, a scalar's text is found by its exact type, and strings are escaped by the standard
library's C function, except that a long string needing no escape (base64 weights) is only
checked, which is several times faster. Output is ASCII, as `ensure_ascii` makes it;
`json_text(document, ensure_ascii=False)` keeps other characters as they are.

`iter_json` yields the text one top-level entry at a time, so a document of large strings
(a consts document's base64 weights) is never held whole as text. A `DeferredText` is
computed as its entry is written and yielded as a piece of its own, never copied into the
text around it: with a consts document's weights as base64 bytes, they go to the file as
`base64` made them.
"""

import math
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring, encode_basestring_ascii

INDENT = "  "
_PLAIN = bytes(c for c in range(0x20, 0x7F) if c not in b'"\\')
"""The characters JSON writes as they are (with `ensure_ascii`)."""
_LONG = 64
"""Strings from this length are checked for characters to escape before they are escaped."""


_SLOT = "\0"
"""Where a `DeferredText` goes in the text of an entry: JSON text holds no NUL otherwise
(`ensure_ascii` escapes it)."""


class DeferredText:
    """A string in a JSON document that is computed only while the document is written,
    so that a document of large strings (the weights in base64) never holds them all.
    `compute` returns the text, or ASCII bytes. `plain` says that the text never needs
    escaping (base64 is letters, digits, `+`, `/` and `=`): it is then written unchecked,
    which saves a pass over each weight's text."""

    def __init__(self, compute: Callable[[], str | bytes], plain: bool = False):
        self.compute = compute
        self.plain = plain

    def __str__(self) -> str:
        text = self.compute()
        return text.decode("ascii") if isinstance(text, bytes) else text


def _string(text: str) -> str:
    if len(text) >= _LONG and text.isascii() and not text.encode("ascii").translate(None, _PLAIN):
        return f'"{text}"'
    return encode_basestring_ascii(text)


def _float(value: float) -> str:
    if math.isfinite(value):
        return float.__repr__(value)
    return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"


_SCALARS: dict[type, Callable[[object], str]] = {
    str: _string,  # type: ignore[dict-item]
    int: int.__repr__,  # type: ignore[dict-item]
    float: _float,  # type: ignore[dict-item]
    bool: lambda value: "true" if value else "false",
    type(None): lambda value: "null",
    DeferredText: lambda value: _SLOT,
}
"""The text of a scalar, by its exact type (`_subclass` takes the rest as `json` does)."""
_UNICODE_SCALARS = {**_SCALARS, str: encode_basestring}
"""The same, with non-ASCII characters kept (`ensure_ascii=False`)."""


def _subclass(value: object, quote: Callable[[str], str]) -> str | None:
    """The text of an instance of a subclass of a JSON type, in `json`'s order of tests
    (strings quoted by `quote`); None for a list, tuple or dict."""
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, list | tuple | dict):
        return None
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _key(key: object, quote: Callable[[str], str] = encode_basestring_ascii) -> str:
    if isinstance(key, str):
        return quote(key)
    if isinstance(key, float):
        return f'"{_float(key)}"'
    if key is None or isinstance(key, int):
        return f'"{_SCALARS[type(key)](key) if type(key) in _SCALARS else int.__repr__(key)}"'
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _text(value: object, newline: str, scalars: dict = _SCALARS,
          quote: Callable[[str], str] = encode_basestring_ascii) -> str:
    """The text of `value`, its first line continuing a line that ends in `newline`; the
    text of its scalars by `scalars`, of its keys by `quote`."""
    scalar = scalars.get(type(value))
    if scalar is not None:
        return scalar(value)
    return _container(value, newline, scalars, quote)


def _container(value: object, newline: str, scalars: dict, quote: Callable[[str], str]) -> str:
    """`_text` of a value that is not of a scalar type: a list, tuple or dict (by exact type
    first, as most are), else a subclass of a JSON type."""
    kind = type(value)
    if kind is not dict and kind is not list and kind is not tuple:
        if not isinstance(value, list | tuple | dict):
            return _subclass(value, scalars[str])  # type: ignore[return-value]
        kind = dict if isinstance(value, dict) else list
    if not value:
        return "{}" if kind is dict else "[]"
    inner = newline + INDENT
    text = scalars.get
    if kind is dict:
        items = [(quote(k) if type(k) is str else _key(k, quote)) + ": "
                 + (s(v) if (s := text(type(v))) else _container(v, inner, scalars, quote))
                 for k, v in value.items()]  # type: ignore[union-attr]
        return "{" + inner + ("," + inner).join(items) + newline + "}"
    if len(value) == 1:  # most lists in the nodes JSON: one item, without a list's comprehension
        item = value[0]  # type: ignore[index]
        item_text = s(item) if (s := text(type(item))) else _container(item, inner, scalars, quote)
        return "[" + inner + item_text + newline + "]"
    items = [s(v) if (s := text(type(v))) else _container(v, inner, scalars, quote) for v in value]  # type: ignore[union-attr]
    return "[" + inner + ("," + inner).join(items) + newline + "]"


def _deferred(value: object) -> Iterator[DeferredText]:
    """The `DeferredText`s in `value`, in the order its text holds them."""
    if isinstance(value, DeferredText):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _deferred(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _deferred(item)


def _quoted(deferred: DeferredText, string: Callable[[str], str]) -> Iterator[str | bytes]:
    text = deferred.compute()
    if isinstance(text, str):
        yield f'"{text}"' if deferred.plain else string(text)
    elif deferred.plain or not text.translate(None, _PLAIN):
        yield from ('"', text, '"')
    else:
        yield encode_basestring_ascii(text.decode("ascii"))


def _entry(text: str, value: object, string: Callable[[str], str]) -> Iterator[str | bytes]:
    """The pieces of an entry's text, with each deferred string of `value` in its slot
    (quoted by `string`)."""
    if _SLOT not in text:
        yield text
        return
    pieces = text.split(_SLOT)
    yield pieces[0]
    for deferred, piece in zip(_deferred(value), pieces[1:], strict=True):
        yield from _quoted(deferred, string)
        yield piece


def iter_json(document: object, ensure_ascii: bool = True) -> Iterator[str | bytes]:
    """The text of `document` as `json.dumps(document, indent=2, ensure_ascii=ensure_ascii)`
    writes it, in pieces: one per top-level entry of a list or dict, and one for each
    deferred string (its ASCII bytes when it computes bytes)."""
    scalars, quote = (_SCALARS, encode_basestring_ascii) if ensure_ascii else (_UNICODE_SCALARS, encode_basestring)
    string = scalars[str]
    if not isinstance(document, list | tuple | dict) or not document:
        yield from _entry(_text(document, "\n", scalars, quote), document, string)
        return
    inner = "\n" + INDENT
    if isinstance(document, dict):
        separator = "{" + inner
        for key, value in document.items():
            yield from _entry(separator + _key(key, quote) + ": " + _text(value, inner, scalars, quote), value, string)
            separator = "," + inner
        yield "\n}"
    else:
        separator = "[" + inner
        for value in document:
            yield from _entry(separator + _text(value, inner, scalars, quote), value, string)
            separator = "," + inner
        yield "\n]"


def json_text(document: object, ensure_ascii: bool = True) -> str:
    """`json.dumps(document, indent=2, ensure_ascii=ensure_ascii)`, faster (see the module
    docstring)."""
    return "".join(piece if isinstance(piece, str) else piece.decode("ascii")
                   for piece in iter_json(document, ensure_ascii))
