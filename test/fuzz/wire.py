"""Structure-aware mutations of protobuf messages, at the wire format.

Flipping bytes of a model file mostly breaks the outermost framing, so the parser refuses
the file and nothing deeper is reached. Here the message is decoded into a tree of
fields (a length-delimited field whose payload decodes as fields is taken for a nested
message), one field anywhere in the tree is mutated, and the tree is encoded again with
its lengths recomputed: the result is a well-framed message with one wrong value deep
inside (a dim, a data type, a name, a tensor's data), the kind of input that reaches the
importer. Mutations that break framing on purpose (a wrong length, a wrong wire type)
are among them too.
"""

import random
from dataclasses import dataclass

from mrvl.frontend.protobuf_wire import FIXED32, FIXED64, LEN, VARINT, WireError, encode_varint, fields, read_varint

INTERESTING_INTEGERS = [
    0, 1, 2, 3, 7, 8, 16, 255, 256, 1 << 16, (1 << 31) - 1, 1 << 31, (1 << 32) - 1, 1 << 32, 1 << 40,
    (1 << 62), (1 << 63) - 1, 1 << 63, (1 << 64) - 1,  # as uint64: -1
    (1 << 64) - 2, (1 << 64) - (1 << 31),
]
"""Varint values at the edges of the types fields are read as (int32, int64, enums, bools)."""


@dataclass
class Field:
    number: int
    wire: int
    value: "int | bytes | list[Field]"
    """VARINT: the integer; FIXED32/FIXED64/LEN: the bytes; a nested message: its fields."""


def decode(data: bytes, depth: int = 0) -> list[Field]:
    """The fields of a message; raises WireError when `data` is not one."""
    found = []
    for number, wire, _, start, end in fields(data, 0, len(data)):
        if number == 0:
            raise WireError("field number 0")
        if wire == VARINT:
            value: int | bytes | list[Field] = read_varint(data, start, end)[0]
        elif wire == LEN:
            value = _maybe_message(data[start:end], depth)
        else:
            value = data[start:end]
        found.append(Field(number, wire, value))
    return found


def _maybe_message(payload: bytes, depth: int) -> "bytes | list[Field]":
    # Long raw data (weights) is left as bytes: it would decode as fields by chance.
    if depth > 12 or not payload or len(payload) > 4096 and not payload[:1].isalpha():
        return payload
    try:
        return decode(payload, depth + 1)
    except WireError:
        return payload


def encode(message: list[Field]) -> bytes:
    out = bytearray()
    for f in message:
        out += encode_varint((f.number << 3) | f.wire)
        if f.wire == VARINT:
            out += encode_varint(f.value)  # type: ignore[arg-type]
        elif f.wire == LEN:
            payload = encode(f.value) if isinstance(f.value, list) else f.value
            out += encode_varint(len(payload)) + payload  # type: ignore[operator]
        else:
            out += f.value  # type: ignore[operator]
    return bytes(out)


def _all_fields(message: list[Field]) -> list[tuple[list[Field], int]]:
    """(the list holding it, its index) of every field, nested ones included."""
    found = []
    for i, f in enumerate(message):
        found.append((message, i))
        if isinstance(f.value, list):
            found.extend(_all_fields(f.value))
    return found


def mutate_field(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """`data` (a message) with one field mutated, and what was done."""
    tree = decode(data)
    holder, i = rng.choice(_all_fields(tree))
    f = holder[i]
    kind = rng.choice(["delete", "duplicate", "value", "value", "value", "wire-type", "move"])
    if kind == "delete":
        del holder[i]
    elif kind == "duplicate":
        holder.insert(rng.randrange(len(holder) + 1), Field(f.number, f.wire, f.value))
    elif kind == "move":
        holder.insert(rng.randrange(len(holder)), holder.pop(i))
    elif kind == "wire-type":
        f.wire = rng.choice([w for w in (VARINT, FIXED64, LEN, FIXED32) if w != f.wire])
        f.value = {VARINT: rng.choice(INTERESTING_INTEGERS), FIXED64: rng.randbytes(8), FIXED32: rng.randbytes(4),
                   LEN: rng.randbytes(rng.randrange(9))}[f.wire]
    elif f.wire == VARINT:
        nearby = [f.value + 1, max(f.value - 1, 0), f.value ^ (1 << rng.randrange(64))]
        f.value = rng.choice([*INTERESTING_INTEGERS, *nearby])
    elif f.wire == LEN and isinstance(f.value, bytes):
        f.value = _mutate_bytes(f.value, rng)
    elif f.wire == LEN:
        f.value = encode(f.value)[: rng.randrange(len(encode(f.value)) + 1)]  # a nested message cut short
    else:
        f.value = rng.randbytes(len(f.value))  # type: ignore[arg-type]
    return encode(tree), f"{kind} of field {f.number} (wire type {f.wire})"


def _mutate_bytes(payload: bytes, rng: random.Random) -> bytes:
    """A string or raw-data payload: cut, grown, or a byte changed."""
    choice = rng.randrange(4)
    if choice == 0 or not payload:
        return payload[: rng.randrange(len(payload) + 1)]
    if choice == 1:
        return payload + rng.randbytes(rng.choice([1, 3, 4, 8, 100]))
    if choice == 2:
        return payload[:rng.randrange(len(payload))] + rng.choice([b"\xff", b"\x00", b"\xc3", b"/", b"..", b"\n"])
    position = rng.randrange(len(payload))
    return payload[:position] + bytes([payload[position] ^ (1 << rng.randrange(8))]) + payload[position + 1:]


def mutate_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """`data` with raw bytes flipped, cut or spliced: framing is not respected."""
    choice = rng.randrange(3)
    if choice == 0:
        cut = rng.randrange(len(data))
        return data[:cut], f"truncated to {cut} bytes"
    if choice == 1:
        out = bytearray(data)
        for _ in range(rng.choice([1, 1, 2, 8])):
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        return bytes(out), "bits flipped"
    start = rng.randrange(len(data))
    length = rng.randrange(1, 64)
    return data[:start] + rng.randbytes(length) + data[start + length:], f"{length} bytes overwritten at {start}"
