"""The iteration order of a C++ `std::unordered_map<std::string, ...>`, as libstdc++ keeps it.

TVM's JSON serializer stores a node's attributes in such a map and writes them in its
iteration order (`JSONGraphNode::attrs_`, apache/tvm `src/runtime/contrib/json/json_node.h`), so
the key order of every layer in a nodes file TVM wrote is that order. It depends only on
the keys and the order they were inserted in: each key's hash (`std::_Hash_bytes`, the
64-bit MurmurHash variant libstdc++ uses for `std::hash<std::string>`, seed 0xc70f6907),
the bucket counts the prime rehash policy picks as the map grows (13, 29, 59, ...), and
how nodes are linked: a key goes to the front of its bucket, or to the front of the whole
list when its bucket is empty, and a rehash relinks the list in its current order.

This mirrors libstdc++'s `hashtable.h`, `hashtable_c++0x.cc` and `hash_bytes.cc` (GCC 5 and
later, LP64). It reproduces the key order of all 31 layers in `test/golden/` (up to 39
keys), and `test/test_json_emitter.py` checks it against a real `std::unordered_map` (g++)
on random key sets.
"""

import bisect
from collections.abc import Sequence
from functools import lru_cache

_MASK = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_SEED = 0xC70F6907


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def hash_bytes(data: bytes, seed: int = _SEED) -> int:
    """`std::_Hash_bytes` for 64-bit `size_t`: what `std::hash<std::string>` returns."""
    length = len(data)
    aligned = length & ~7
    h = (seed ^ (length * _MUL)) & _MASK
    for i in range(0, aligned, 8):
        word = int.from_bytes(data[i:i + 8], "little")
        h = ((h ^ ((_shift_mix((word * _MUL) & _MASK) * _MUL) & _MASK)) * _MUL) & _MASK
    if length & 7:
        h = ((h ^ int.from_bytes(data[aligned:], "little")) * _MUL) & _MASK
    return _shift_mix((_shift_mix(h) * _MUL) & _MASK)


# `_Prime_rehash_policy`: small bucket counts come from a table, larger ones are the next
# prime of libstdc++'s list (its start is all a node's attributes ever need).
_FAST_BUCKETS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83,
           89, 97, 103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257)


class _Map:
    """The node list and bucket array of a `std::unordered_map` (keys only)."""

    def __init__(self) -> None:
        self.bucket_count = 1
        self.next_resize = 0
        self.codes: dict[str, int] = {}
        self.next: dict[str | None, str | None] = {None: None}
        """The singly linked list; `None` is the sentinel `_M_before_begin`."""
        self.buckets: dict[int, str | None] = {}
        """Bucket -> the node before its first node (`None`: the sentinel)."""

    def _next_bucket_count(self, n: int) -> int:
        if n < len(_FAST_BUCKETS):
            self.next_resize = _FAST_BUCKETS[n]
            return _FAST_BUCKETS[n]
        if n > _PRIMES[-1]:
            raise ValueError(f"more keys ({n}) than this model of libstdc++'s rehash policy covers")
        prime = _PRIMES[bisect.bisect_left(_PRIMES, n, 6)]
        self.next_resize = prime
        return prime

    def _grown_bucket_count(self) -> int | None:
        """`_M_need_rehash` for one more element (max load factor 1)."""
        elements = len(self.codes) + 1
        if elements <= self.next_resize:
            return None
        minimum = max(elements, 0 if self.next_resize else 11)
        if minimum >= self.bucket_count:
            return self._next_bucket_count(max(minimum + 1, self.bucket_count * 2))
        self.next_resize = self.bucket_count
        return None

    def _rehash(self, count: int) -> None:
        """`_M_rehash_aux` for unique keys."""
        order = self.keys()
        self.bucket_count, self.next, self.buckets = count, {None: None}, {}
        first_bucket = 0
        for key in order:
            bucket = self.codes[key] % count
            if bucket not in self.buckets:
                self.next[key], self.next[None] = self.next[None], key
                self.buckets[bucket] = None
                if self.next[key] is not None:
                    self.buckets[first_bucket] = key
                first_bucket = bucket
            else:
                before = self.buckets[bucket]
                self.next[key], self.next[before] = self.next[before], key

    def insert(self, key: str) -> None:
        """`operator[]` of a key: a new key is linked in, an existing one stays put."""
        if key in self.codes:
            return
        code = hash_bytes(key.encode())
        if (count := self._grown_bucket_count()) is not None:
            self._rehash(count)
        self.codes[key] = code
        bucket = code % self.bucket_count
        if bucket in self.buckets:  # `_M_insert_bucket_begin`
            before = self.buckets[bucket]
            self.next[key], self.next[before] = self.next[before], key
        else:
            self.next[key], self.next[None] = self.next[None], key
            if (after := self.next[key]) is not None:
                self.buckets[self.codes[after] % self.bucket_count] = key
            self.buckets[bucket] = None

    def keys(self) -> list[str]:
        keys, key = [], self.next[None]
        while key is not None:
            keys.append(key)
            key = self.next[key]
        return keys


@lru_cache(maxsize=1024)
def _order(keys: tuple[str, ...]) -> tuple[str, ...]:
    table = _Map()
    for key in keys:
        table.insert(key)
    return tuple(table.keys())


def iteration_order(keys: Sequence[str]) -> tuple[str, ...]:
    """The order a `std::unordered_map` filled with `keys` (in this order; repeats are
    assignments to an existing key) iterates them in."""
    return _order(tuple(keys))
