"""The protobuf wire format, read field by field without parsing a message.

`model_file` walks a model's bytes to cut the raw data of large initializers out of it
before protobuf parses the rest; the fuzzing harness walks them to mutate one field.
"""

from collections.abc import Iterator

VARINT, FIXED64, LEN, FIXED32 = 0, 1, 2, 5
"""The wire types a field's tag can carry (3 and 4, groups, are obsolete)."""


class WireError(Exception):
    """The bytes are not a well-formed protobuf message."""


def read_varint(data: bytes | memoryview, pos: int, end: int) -> tuple[int, int]:
    """The varint at `pos` and the position after it."""
    value = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise WireError("bad varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def encode_varint(value: int) -> bytes:
    """`value` as a varint; negative values as their 64-bit two's complement, as protobuf does."""
    value &= (1 << 64) - 1
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def fields(data: bytes | memoryview, start: int, end: int) -> Iterator[tuple[int, int, int, int, int]]:
    """(field number, wire type, field start, value start, value end) of each field."""
    pos = start
    while pos < end:
        tag, value_start = read_varint(data, pos, end)
        number, wire = tag >> 3, tag & 7
        if wire == VARINT:
            _, value_end = read_varint(data, value_start, end)
        elif wire == FIXED64:
            value_end = value_start + 8
        elif wire == FIXED32:
            value_end = value_start + 4
        elif wire == LEN:
            length, value_start = read_varint(data, value_start, end)
            value_end = value_start + length
        else:
            raise WireError(f"unsupported wire type {wire}")
        if value_end > end:
            raise WireError("field runs past the end of its message")
        yield number, wire, pos, value_start, value_end
        pos = value_end


def len_field(number: int, payload: bytes) -> bytes:
    """A length-delimited field: its tag, its length and `payload`."""
    return encode_varint((number << 3) | LEN) + encode_varint(len(payload)) + payload
