"""JSON text as `json.dumps(document, indent=2)` writes it, byte for byte, in a fraction of the time.

The standard library serialises an indented document with its pure-Python encoder: a chain
of generators, one per nesting level, that every piece of output passes through (3.3 M calls
for the files of a 2,000-block conv chain). This encoder appends the same pieces to one list
in a plain recursive walk, joins a list of scalars in one step, and leaves strings to the
standard library's C escaping function. Output is ASCII, as `ensure_ascii` makes it.

`iter_json` yields the text one top-level entry at a time, so a document of large strings
(a consts document's base64 weights) is never held whole as text; a `DeferredText` is
computed as its entry is serialised.
"""

import math
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring_ascii

INDENT = "  "


class DeferredText:
    """A string in a JSON document that is computed only while the document is written,
    so that a document of large strings (the weights in base64) never holds them all."""

    def __init__(self, compute: Callable[[], str]):
        self.compute = compute

    def __str__(self) -> str:
        return self.compute()


def _float(value: float) -> str:
    if math.isfinite(value):
        return float.__repr__(value)
    return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"


def _scalar(value: object) -> str | None:
    """The text of a value that is not a list or a dict, as `json` writes it; None for those."""
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, list | tuple | dict):
        return None
    if isinstance(value, DeferredText):
        return encode_basestring_ascii(str(value))
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _key(key: object) -> str:
    if isinstance(key, str):
        return encode_basestring_ascii(key)
    if isinstance(key, bool | None | int | float):
        return f'"{_scalar(key) if not isinstance(key, float) else _float(key)}"'
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _append(value: list | tuple | dict, newline: str, parts: list[str]) -> None:
    """Append the text of a non-empty list or dict whose opening bracket sits after `newline`."""
    inner = newline + INDENT
    if isinstance(value, dict):
        entries = [(encode_basestring_ascii(key) if isinstance(key, str) else _key(key)) + ": "
                   for key in value]
        items = value.values()
        texts = map(_scalar, items)
        opening, closing = "{", newline + "}"
    else:
        items = value
        texts = [_scalar(item) for item in value]  # type: ignore[assignment]
        if None not in texts:  # a list of scalars (a shape): one piece
            parts.append("[" + inner + ("," + inner).join(texts) + newline + "]")  # type: ignore[arg-type]
            return
        entries = [""] * len(value)
        opening, closing = "[", newline + "]"
    separator = opening + inner
    for entry, item, text in zip(entries, items, texts):
        if text is not None:
            parts.append(separator + entry + text)
        elif not item:
            parts.append(separator + entry + ("{}" if isinstance(item, dict) else "[]"))
        else:
            parts.append(separator + entry)
            _append(item, inner, parts)
        separator = "," + inner
    parts.append(closing)


def iter_json(document: object) -> Iterator[str]:
    """The text of `document` as `json.dumps(document, indent=2)` writes it, in pieces: one
    per top-level entry of a list or dict."""
    text = _scalar(document)
    if text is not None or not document:
        yield text if text is not None else "{}" if isinstance(document, dict) else "[]"
        return
    assert isinstance(document, list | tuple | dict)
    is_dict = isinstance(document, dict)
    items = document.items() if is_dict else enumerate(document)
    separator = ("{" if is_dict else "[") + "\n" + INDENT
    for key, item in items:
        parts = [separator + _key(key) + ": " if is_dict else separator]
        separator = ",\n" + INDENT
        text = _scalar(item)
        if text is not None:
            parts.append(text)
        elif not item:
            parts.append("{}" if isinstance(item, dict) else "[]")
        else:
            _append(item, "\n" + INDENT, parts)
        yield "".join(parts)
    yield "\n}" if is_dict else "\n]"


def json_text(document: object) -> str:
    """`json.dumps(document, indent=2)`, faster (see the module docstring)."""
    return "".join(iter_json(document))
