"""Where Kafka's answers depend on the iteration order of Java's ``HashMap`` / ``HashSet``.

Kafka's assignors sometimes walk a ``java.util.HashMap`` (or a ``HashSet``, which is a
``HashMap`` underneath) and hand out partitions in the order they meet the keys. That order is
deterministic, and this module reproduces it so that the strategies can stay faithful without
scattering hash arithmetic through their code.

The model (OpenJDK 17 ``java.util.HashMap``):

* a key's hash is ``h ^ (h >>> 16)`` of its ``hashCode()`` (32-bit);
* its bucket is ``hash & (capacity - 1)``; the capacity is a power of two, 16 by default (or the
  next power of two of the constructor's ``initialCapacity``), and doubles whenever the size
  exceeds ``0.75 * capacity``; it never shrinks;
* iteration walks buckets in index order and, inside a bucket, keys in insertion order (a
  resize splits a bucket in two and keeps the relative order; a removal unlinks a key; putting an
  existing key again keeps its place).

Not modelled: a bucket that turns into a red-black tree (8 or more keys in one bucket of a table
with 64 or more buckets). Java then links keys added later right after their tree parent rather
than at the bucket's end. With well-spread hash codes that is rare (about one bucket in ten
million at the usual load); there this model answers insertion order, which may differ.

Hash codes of the key types Kafka uses: :func:`string_hash` (``String.hashCode``, over UTF-16
code units), :func:`topic_partition_hash` (``TopicPartition.hashCode``), :func:`uuid_hash`
(``org.apache.kafka.common.Uuid.hashCode``), :func:`java_util_uuid_hash` (``java.util.UUID``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

_MASK32 = 0xFFFFFFFF


def to_int32(value: int) -> int:
    """Wrap an integer to Java's signed 32-bit range."""
    value &= _MASK32
    return value - (1 << 32) if value >= 1 << 31 else value


def string_hash(text: str) -> int:
    """Java's ``String.hashCode()``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units."""
    h = 0
    if text.isascii():
        for char in text:
            h = (31 * h + ord(char)) & _MASK32
    else:
        data = text.encode("utf-16-be")
        for index in range(0, len(data), 2):
            h = (31 * h + ((data[index] << 8) | data[index + 1])) & _MASK32
    return to_int32(h)


def integer_hash(value: int) -> int:
    """Java's ``Integer.hashCode()``: the value itself."""
    return to_int32(value)


def long_hash(value: int) -> int:
    """Java's ``Long.hashCode()``: ``(int)(value ^ (value >>> 32))``."""
    value &= 0xFFFFFFFFFFFFFFFF
    return to_int32(value ^ (value >> 32))


def topic_partition_hash(topic: str, partition: int) -> int:
    """Kafka's ``TopicPartition.hashCode()``: ``31 * (31 + partition) + topic.hashCode()``."""
    return to_int32(31 * (31 + partition) + string_hash(topic))


def uuid_hash(most_significant: int, least_significant: int) -> int:
    """Kafka's ``Uuid.hashCode()``: fold ``msb ^ lsb`` (64 bits) to 32 bits by xor of halves."""
    h = (most_significant ^ least_significant) & 0xFFFFFFFFFFFFFFFF
    return to_int32((h >> 32) ^ h)


def java_util_uuid_hash(most_significant: int, least_significant: int) -> int:
    """``java.util.UUID.hashCode()``: fold ``msb ^ lsb`` like Kafka's ``Uuid`` does."""
    return uuid_hash(most_significant, least_significant)


def spread(hash_code: int) -> int:
    """``HashMap.hash``: the high half xor-ed into the low half (unsigned 32-bit result)."""
    h = hash_code & _MASK32
    return h ^ (h >> 16)


def table_size_for(capacity: int) -> int:
    """``HashMap.tableSizeFor``: the smallest power of two >= ``capacity`` (at least 1)."""
    size = 1
    while size < capacity:
        size <<= 1
    return size


class JavaHashMapOrder(Generic[K]):
    """Tracks the keys of one Java ``HashMap`` to answer its iteration order.

    Call :meth:`put` and :meth:`remove` in the order the Java code does; iterate to get the keys
    in the order Java's ``keySet()`` / ``entrySet()`` / ``values()`` would.
    ``initial_capacity`` mirrors ``new HashMap<>(initialCapacity)`` (``None``: the default 16).
    """

    __slots__ = ("_capacity", "_hash_of", "_hashes", "_keys", "_seq")

    def __init__(self, hash_of: Callable[[K], int], initial_capacity: int | None = None) -> None:
        self._hash_of = hash_of
        self._capacity = 16 if initial_capacity is None else table_size_for(initial_capacity)
        self._keys: dict[K, int] = {}
        self._hashes: dict[K, int] = {}
        self._seq = 0

    @property
    def capacity(self) -> int:
        """The table's current number of buckets."""
        return self._capacity

    def put(self, key: K) -> None:
        """``map.put(key, ...)``: a new key goes last in its bucket; an existing key stays."""
        if key in self._keys:
            return
        self._keys[key] = self._seq
        self._hashes[key] = spread(self._hash_of(key))
        self._seq += 1
        while len(self._keys) > self._capacity * 3 // 4:
            self._capacity <<= 1

    def put_all(self, keys: Iterable[K]) -> None:
        for key in keys:
            self.put(key)

    def remove(self, key: K) -> None:
        """``map.remove(key)``; the capacity does not shrink."""
        self._keys.pop(key, None)
        self._hashes.pop(key, None)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[K]:
        mask = self._capacity - 1
        return iter(sorted(self._keys, key=lambda k: (self._hashes[k] & mask, self._keys[k])))


def hash_order(
    keys: Iterable[K], hash_of: Callable[[K], int], initial_capacity: int | None = None
) -> list[K]:
    """The iteration order of a ``HashMap``/``HashSet`` filled with ``keys`` in that order."""
    table: JavaHashMapOrder[K] = JavaHashMapOrder(hash_of, initial_capacity)
    table.put_all(keys)
    return list(table)


def hash_set_copy_capacity(size: int) -> int:
    """Initial capacity ``new HashSet<>(collection)`` asks for: ``max(size / .75f + 1, 16)``."""
    return max(int(size / 0.75) + 1, 16)
