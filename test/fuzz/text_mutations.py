"""Mutations of IR text: the kind of damage hand edits and broken tools do to `.mlir` files.

The text is the tool's own output, so unmutated it parses; a mutation changes one token
(a number, a type, an SSA name, an op name, a punctuation mark), one line (dropped,
repeated, swapped), a weight blob's hex, or cuts the text short.
"""

import random
import re

TOKEN = re.compile(r'%[\w.$-]+|@[\w.$-]+|"[^"\n]*"|0x[0-9A-Fa-f]+|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|[\w.]+|\S')
NUMBERS = ["0", "-1", "1", "3", "65536", "4294967296", "9223372036854775807", "99999999999999999999999",
           "1099511627776", "-9223372036854775808", "1.5", "nan", "0x7FC00000"]
TYPES = ["f32", "f16", "bf16", "i1", "i8", "i64", "ui8", "index", "none", "tensor<?xf32>", "tensor<*xf32>",
         "tensor<0xf32>", "tensor<1099511627776x1099511627776xf32>", "memref<4xf32>", "!graph.nope"]
PUNCTUATION = list("{}()<>[]:,=%@#^\"!") + ["->", "\\", "\x00", "\u00e9"]


def mutate_text(text: str, rng: random.Random) -> tuple[str, str]:
    """`text` with one mutation, and what it was."""
    kind = rng.choice(["token"] * 6 + ["line-drop", "line-repeat", "line-swap", "cut", "blob"])
    lines = text.splitlines(keepends=True)
    if kind == "line-drop":
        i = rng.randrange(len(lines))
        del lines[i]
        return "".join(lines), f"line {i + 1} dropped"
    if kind == "line-repeat":
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines)), lines[i])
        return "".join(lines), f"line {i + 1} repeated"
    if kind == "line-swap":
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines), f"lines {i + 1} and {j + 1} swapped"
    if kind == "cut":
        cut = rng.randrange(len(text))
        return text[:cut], f"cut at {cut}"
    if kind == "blob" and (blobs := list(re.finditer(r'"0x[0-9A-Fa-f]+"', text))):
        blob = rng.choice(blobs)
        hex_digits = blob.group()[1:-1]
        changed = rng.choice([hex_digits[:-2], hex_digits + "00", hex_digits[:-1], hex_digits[:10],
                              hex_digits.replace("0", "G", 1), "0x"])
        return text[:blob.start() + 1] + changed + text[blob.end() - 1:], f"blob at {blob.start()} changed"
    tokens = list(TOKEN.finditer(text))
    token = rng.choice(tokens)
    word = token.group()
    if word.startswith("%"):
        others = [t.group() for t in tokens if t.group().startswith("%")]
        new = rng.choice([*others, "%undefined", "%0"])
    elif re.fullmatch(r"-?\d.*", word):
        new = rng.choice(NUMBERS)
    elif re.fullmatch(r"[fiu]i?\d+|bf16|index", word):
        new = rng.choice(TYPES)
    elif "." in word and word[0].isalpha():  # an op or dialect attribute name
        new = rng.choice([word[:-1], word + "x", "graph.Conv", "mrvl.conv2d", "cpu.call_mlip", "func.func",
                          "builtin.module", "mrvl.subgraph"])
    else:
        new = rng.choice([*PUNCTUATION, "", word * 2])
    return text[:token.start()] + new + text[token.end():], f"{word!r} at {token.start()} -> {new!r}"
