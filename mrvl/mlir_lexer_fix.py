"""A linear-time string-literal pattern for xDSL's MLIR lexer.

xDSL 0.74 matches string literals with `"(?:[^"\\...]+|\\...)*"`: a `+` inside a `*`.
When the closing quote is missing (a file cut short in a weight blob's hex, a stray `"`)
Python's regex engine tries every way of splitting the text between the two quantifiers
before it gives up, which takes exponential time: `mrvl-opt` on a truncated `.mlir` file
hung instead of reporting the unterminated string. Possessive quantifiers (Python 3.11+)
match the same strings but never give characters back, so a failed match is linear.
"""

import re

from xdsl.utils.mlir_lexer import MLIRLexer

XDSL_STRING_LITERAL = r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
"""The pattern this replaces: when xDSL's differs, an upgrade has to look at this again."""
STRING_LITERAL = r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'


def use_linear_string_literals() -> None:
    MLIRLexer._unescaped_characters_regex = re.compile(STRING_LITERAL)
