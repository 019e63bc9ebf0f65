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
  existing key again keeps its place). ``computeIfAbsent`` / ``compute`` / ``merge`` are the
  exception: a new key goes to the *head* of its bucket (:meth:`JavaHashMapOrder.put_first`).

A bucket that outgrows 8 keys in a table of fewer than 64 buckets doubles the table (Java's
``treeifyBin``), which is modelled. Not modelled: a bucket that turns into a red-black tree (more
than 8 keys in one bucket of a table with 64 or more buckets). Java then links keys added later
right after their tree parent rather than at the bucket's end. With well-spread hash codes that
is rare (about one bucket in ten million at the usual load); there this model answers insertion
order, which may differ.

Hash codes of the key types Kafka uses: :func:`string_hash` (``String.hashCode``, over UTF-16
code units), :func:`topic_partition_hash` (``TopicPartition.hashCode``), :func:`uuid_hash`
(``org.apache.kafka.common.Uuid.hashCode``), :func:`java_util_uuid_hash` (``java.util.UUID``).
Kafka topic ids travel as base64 text: :func:`kafka_uuid_from_base64` gives the two signed longs
that ``uuid_hash`` and ``Uuid.compareTo`` read (:func:`kafka_uuid_to_base64` the reverse).
"""

from __future__ import annotations

import base64
import binascii
import sys
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import repeat
from operator import and_, itemgetter, mul, xor
from typing import Any, Generic, TypeVar, cast

K = TypeVar("K", bound=Hashable)

_MASK32 = 0xFFFFFFFF
#: Java's ``HashMap.TREEIFY_THRESHOLD`` and ``MIN_TREEIFY_CAPACITY``.
TREEIFY_THRESHOLD = 8
MIN_TREEIFY_CAPACITY = 64


def to_int32(value: int) -> int:
    """Wrap an integer to Java's signed 32-bit range."""
    value &= _MASK32
    return value - (1 << 32) if value >= 1 << 31 else value


#: Strings up to this many UTF-16 code units hash with the table below (longer ones by a loop).
_TABLE_LENGTH = 1024
#: ``31^0, 31^1, ..., 31^(L-1)`` modulo 2^32: the weight of the code unit ``k`` places before
#: the last one (the last weighs 1).
_POWERS = [pow(31, k, 1 << 32) for k in range(_TABLE_LENGTH)]
_UTF16_NATIVE = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"


def string_hash(text: str) -> int:
    """Java's ``String.hashCode()``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units.

    The weighted sum runs in C (``sum(map(mul, ...))`` over the code units, last first, and a
    table of powers of 31 modulo 2^32); the result is wrapped to 32 bits once, at the end, which
    gives the same value as Java's wrapping at every step.
    """
    units: bytes | memoryview
    if text.isascii():
        units = text.encode("ascii")
    else:
        units = memoryview(text.encode(_UTF16_NATIVE)).cast("H")
    if len(units) <= _TABLE_LENGTH:
        h = sum(map(mul, units[::-1], _POWERS))
    else:
        h = 0
        for unit in units:
            h = (31 * h + unit) & _MASK32
    return to_int32(h)


def integer_hash(value: int) -> int:
    """Java's ``Integer.hashCode()``: the value itself."""
    return to_int32(value)


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
    The table doubles when it passes its load factor, and, while it has fewer than 64 buckets,
    when a put leaves more than 8 keys in one bucket (``treeifyBin``). Not modelled: the order of
    a bucket that has become a tree (more than 8 keys in one bucket of a table of 64 or more,
    which takes keys built to share a hash).
    """

    __slots__ = ("_capacity", "_hash_of", "_hashes", "_head_seq", "_keys", "_seq")

    def __init__(self, hash_of: Callable[[K], int], initial_capacity: int | None = None) -> None:
        self._hash_of = hash_of
        self._capacity = 16 if initial_capacity is None else table_size_for(initial_capacity)
        self._keys: dict[K, int] = {}
        self._hashes: dict[K, int] = {}
        self._seq = 0
        self._head_seq = 0

    @property
    def capacity(self) -> int:
        """The table's current number of buckets."""
        return self._capacity

    def put(self, key: K) -> None:
        """``map.put(key, ...)``: a new key goes last in its bucket; an existing key stays."""
        if key in self._keys:
            return
        hashed = spread(self._hash_of(key))
        crowded = self._crowded(hashed, TREEIFY_THRESHOLD)
        self._keys[key] = self._seq
        self._hashes[key] = hashed
        self._seq += 1
        if crowded:
            self._capacity <<= 1
        while len(self._keys) > self._capacity * 3 // 4:
            self._capacity <<= 1

    def put_first(self, key: K) -> None:
        """``map.computeIfAbsent(key, ...)`` (also ``compute``, ``merge``) for a new key.

        Java links the new node in front of the bucket's existing keys, not behind them, and
        grows the table *before* inserting (when the size is already over the threshold), so the
        map may stay one key over it; an existing key stays where it is.
        """
        if key in self._keys:
            return
        if len(self._keys) > self._capacity * 3 // 4:
            self._capacity <<= 1
        hashed = spread(self._hash_of(key))
        crowded = self._crowded(hashed, TREEIFY_THRESHOLD - 1)
        self._head_seq -= 1
        self._keys[key] = self._head_seq
        self._hashes[key] = hashed
        if crowded:
            self._capacity <<= 1

    def touch(self) -> None:
        """``map.computeIfAbsent(key, ...)`` for a key already present: Java grows a table that is
        over its threshold before it looks the key up, so the call may still double it."""
        if len(self._keys) > self._capacity * 3 // 4:
            self._capacity <<= 1

    def _crowded(self, hashed: int, limit: int) -> bool:
        """Whether adding to this key's bucket makes Java's ``treeifyBin`` double a small table.

        Java turns a bucket into a tree once it holds more than ``TREEIFY_THRESHOLD`` keys, but a
        table under ``MIN_TREEIFY_CAPACITY`` buckets is doubled instead (which this model
        follows); the tree itself (larger tables) is not modelled.
        """
        if self._capacity >= MIN_TREEIFY_CAPACITY:
            return False
        mask = self._capacity - 1
        bucket = hashed & mask
        return sum(1 for h in self._hashes.values() if h & mask == bucket) >= limit

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
    """The iteration order of a ``HashMap``/``HashSet`` filled with ``keys`` in that order.

    Without removals the order is the keys sorted by their bucket in the final table, stably
    (insertion order within a bucket), which one sort computes. Only where ``treeifyBin`` may
    have doubled a small table (more than 8 keys and fewer than 64 buckets) are the puts
    replayed one by one (:class:`JavaHashMapOrder`).
    """
    distinct = list(dict.fromkeys(keys))
    capacity = 16 if initial_capacity is None else table_size_for(initial_capacity)
    while len(distinct) > capacity * 3 // 4:
        capacity <<= 1
    if capacity < MIN_TREEIFY_CAPACITY and len(distinct) > TREEIFY_THRESHOLD:
        table: JavaHashMapOrder[K] = JavaHashMapOrder(hash_of, initial_capacity)
        table.put_all(distinct)
        return list(table)
    if len(distinct) < 2:
        return distinct
    return bucket_order(distinct, [hash_of(key) for key in distinct], capacity)


def bucket_order(keys: Sequence[K], hash_codes: Sequence[int], capacity: int) -> list[K]:
    """``keys`` sorted by their bucket in a table of ``capacity`` buckets, stably.

    ``hash_codes[i]`` is ``keys[i].hashCode()``. This is a ``HashMap``'s iteration order when
    its keys went in (``put``) in the order given and no bucket is a tree; for keys linked at
    the head of their buckets (``computeIfAbsent``), give them in reverse insertion order.
    """
    mask = capacity - 1
    buckets = [(h ^ ((h & _MASK32) >> 16)) & mask for h in hash_codes]
    return [keys[i] for i in sorted(range(len(keys)), key=buckets.__getitem__)]


def head_first_order(
    keys: Sequence[K], hash_codes: Sequence[int], initial_capacity: int | None = None
) -> list[K]:
    """The iteration order of a new ``HashMap`` after ``computeIfAbsent`` of each key in turn.

    ``keys`` are distinct; ``hash_codes[i]`` is ``keys[i].hashCode()``. Same answer as
    :meth:`JavaHashMapOrder.put_first` for every key, then iteration: the table grows before an
    insertion that finds it over its threshold, and each new key goes to the head of its bucket,
    so the order is the keys in reverse insertion order sorted stably by bucket (one sort; a
    table small enough for ``treeifyBin`` to double it is replayed key by key).
    """
    capacity = head_first_capacity(len(keys), initial_capacity)
    if capacity < MIN_TREEIFY_CAPACITY and len(keys) >= TREEIFY_THRESHOLD:
        codes = dict(zip(keys, hash_codes, strict=True))
        table: JavaHashMapOrder[K] = JavaHashMapOrder(codes.__getitem__, initial_capacity)
        for key in keys:
            table.put_first(key)
        return list(table)
    return bucket_order(keys[::-1], hash_codes[::-1], capacity)


def head_first_capacity(size: int, initial_capacity: int | None = None) -> int:
    """A ``HashMap``'s buckets after ``computeIfAbsent`` of ``size`` new keys (no ``treeifyBin``).

    It grows before an insertion that finds it over its threshold, so it may end one key over.
    """
    capacity = 16 if initial_capacity is None else table_size_for(initial_capacity)
    while size - 1 > capacity * 3 // 4:
        capacity <<= 1
    return capacity


def consecutive_buckets(first_code: int, count: int, capacity: int) -> list[int]:
    """The buckets of the hash codes ``first_code, first_code + 1, ...`` (``count`` of them).

    Codes wrap modulo 2^32 like Java's ``int``; ``TopicIdPartition(id, 0 .. n - 1)`` hash to
    such a run (``31 * id.hashCode() + partition``). Within a run of codes sharing their high 16
    bits, ``spread`` xors one constant into the low half, so the buckets come from C-level maps
    over a ``range`` per run, not from arithmetic per key in Python.
    """
    mask = capacity - 1
    buckets: list[int] = []
    code = first_code & _MASK32
    while count > 0:
        run = min(count, 0x10000 - (code & 0xFFFF))
        high = code >> 16
        buckets.extend(map(and_, map(xor, range(code, code + run), repeat(high)), repeat(mask)))
        count -= run
        code = (code + run) & _MASK32
    return buckets


def hash_set_copy_capacity(size: int) -> int:
    """Initial capacity ``new HashSet<>(collection)`` asks for: ``max(size / .75f + 1, 16)``."""
    return max(int(size / 0.75) + 1, 16)


def integer_set_copy_order(numbers: Sequence[int]) -> list[int]:
    """The iteration order of ``new HashSet<>(numbers)`` for ``Integer`` elements.

    Numbers from 0 to below both the table's capacity and 2^16 are their own buckets, so they
    come out ascending; any other set takes :func:`hash_order`.
    """
    if not numbers:
        return []
    requested = hash_set_copy_capacity(len(numbers))
    if min(numbers) >= 0 and max(numbers) < min(table_size_for(requested), 1 << 16):
        return sorted(set(numbers))
    return hash_order(numbers, integer_hash, requested)


_MASK64 = 0xFFFFFFFFFFFFFFFF


def to_int64(value: int) -> int:
    """Wrap an integer to Java's signed 64-bit range (a ``long``)."""
    value &= _MASK64
    return value - (1 << 64) if value >= 1 << 63 else value


def kafka_uuid_from_base64(text: str) -> tuple[int, int]:
    """Kafka's ``Uuid.fromString``: URL-safe base64 of 16 bytes -> (most, least) significant longs.

    Both halves are signed 64-bit values, as Java holds them; ``Uuid.compareTo`` orders by the
    most significant long, then the least, each compared as signed numbers, which is plain tuple
    order on the result. The trailing ``==`` padding is optional, as in Kafka.
    Raises ``ValueError`` with the reason when ``text`` is not such a string.
    """
    if len(text) > 24:
        raise ValueError(f"topic id {text!r} is too long for a base64 Kafka Uuid (22 characters)")
    padded = text + "=" * (-len(text) % 4)
    try:
        raw = base64.b64decode(padded, altchars=b"-_", validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError(f"topic id {text!r} is not URL-safe base64 ({error})") from None
    if len(raw) != 16:
        raise ValueError(
            f"topic id {text!r} decodes to {len(raw)} bytes; a Kafka Uuid is 16 bytes"
            " (22 base64 characters)"
        )
    return (
        int.from_bytes(raw[:8], "big", signed=True),
        int.from_bytes(raw[8:], "big", signed=True),
    )


def kafka_uuid_to_base64(most_significant: int, least_significant: int) -> str:
    """Kafka's ``Uuid.toString``: URL-safe base64 of the 16 bytes, without padding."""
    raw = (most_significant & _MASK64).to_bytes(8, "big") + (least_significant & _MASK64).to_bytes(
        8, "big"
    )
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def java_string_key(text: str) -> str:
    """A sort key that orders strings as Java's ``String.compareTo`` does.

    Java compares UTF-16 code units; Python compares code points. The two orders differ only
    for characters beyond U+FFFF (a surrogate pair sorts below U+E000..U+FFFF in Java). The key
    spells the string's UTF-16 code units as pairs of Latin-1 characters, which compare in
    code-unit order; compare keys only with keys, never with plain strings.
    """
    return text.encode("utf-16-be", "surrogatepass").decode("latin-1")


def java_uuid_halves(text: str) -> tuple[int, int]:
    """``java.util.UUID.fromString`` of a canonical UUID -> (most, least) significant longs.

    Both halves are signed 64-bit values, so plain tuple order on the result is
    ``UUID.compareTo`` (a UUID starting with ``8``-``f`` sorts before one starting with ``0``).
    Raises ``ValueError`` when ``text`` is not 32 hex digits in the 8-4-4-4-12 form.
    """
    parts = text.split("-")
    if [len(part) for part in parts] != [8, 4, 4, 4, 12]:
        raise ValueError(f"{text!r} is not a UUID in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")
    value = int("".join(parts), 16)
    return to_int64(value >> 64), to_int64(value)


E = TypeVar("E")


class JavaPriorityQueue(Generic[E]):
    """``java.util.PriorityQueue`` with a comparator, step for step (OpenJDK 17).

    The array-backed binary heap matters when the comparator reads state that changes while
    elements sit in the queue (loads that grow as tasks are handed out): the heap is then no
    longer ordered, and which element comes out first is decided by Java's exact ``siftUp`` /
    ``siftDown`` moves, which this class repeats. Give the order either as ``less(a, b)``
    (``compare(a, b) < 0``; ``compare(a, b) > 0`` is taken as ``less(b, a)``) or as ``key``:
    ``compare`` then orders ``key(a)`` against ``key(b)``, keys being read afresh at every
    operation (once per element visited, since nothing changes during one operation), which
    is faster. Iteration walks the backing array in index order, as Java's iterator does.
    ``remove`` finds the first element equal to the argument (``equals``), like
    ``PriorityQueue.remove(Object)``.
    """

    __slots__ = ("_heap", "_key", "_less")

    def __init__(
        self,
        less: Callable[[E, E], bool] | None = None,
        *,
        key: Callable[[E], Any] | None = None,
    ) -> None:
        if (less is None) == (key is None):
            raise TypeError("give exactly one of less and key")
        self._less = less
        self._key = key
        self._heap: list[E] = []

    def __len__(self) -> int:
        return len(self._heap)

    def __iter__(self) -> Iterator[E]:
        return iter(list(self._heap))

    def offer(self, element: E) -> None:
        self._heap.append(element)
        self._sift_up(len(self._heap) - 1, element)

    def poll(self) -> E | None:
        heap = self._heap
        if not heap:
            return None
        result = heap[0]
        last = heap.pop()
        if heap:
            self._sift_down(0, last)
        return result

    def remove(self, element: E) -> bool:
        for index, candidate in enumerate(self._heap):
            if candidate == element:
                self._remove_at(index)
                return True
        return False

    def _remove_at(self, index: int) -> None:
        heap = self._heap
        moved = heap.pop()
        if index == len(heap):
            return
        self._sift_down(index, moved)
        if heap[index] is moved:
            self._sift_up(index, moved)

    def _sift_up(self, index: int, element: E) -> None:
        heap = self._heap
        key = self._key
        if key is not None:
            element_key = key(element)
            while index > 0:
                parent = (index - 1) >> 1
                above = heap[parent]
                if not element_key < key(above):
                    break
                heap[index] = above
                index = parent
            heap[index] = element
            return
        less = cast(Callable[[E, E], bool], self._less)
        while index > 0:
            parent = (index - 1) >> 1
            above = heap[parent]
            if not less(element, above):
                break
            heap[index] = above
            index = parent
        heap[index] = element

    def _sift_down(self, index: int, element: E) -> None:
        heap = self._heap
        size = len(heap)
        half = size >> 1
        key = self._key
        if key is not None:
            element_key = key(element)
            while index < half:
                child = 2 * index + 1
                smaller = heap[child]
                smaller_key = key(smaller)
                right = child + 1
                if right < size:
                    right_key = key(heap[right])
                    if right_key < smaller_key:
                        child, smaller, smaller_key = right, heap[right], right_key
                if not smaller_key < element_key:
                    break
                heap[index] = smaller
                index = child
            heap[index] = element
            return
        less = cast(Callable[[E, E], bool], self._less)
        while index < half:
            child = 2 * index + 1
            smaller = heap[child]
            right = child + 1
            if right < size and less(heap[right], smaller):
                child = right
                smaller = heap[right]
            if not less(smaller, element):
                break
            heap[index] = smaller
            index = child
        heap[index] = element


class JavaKeyedPriorityQueue(Generic[E]):
    """``java.util.PriorityQueue`` for elements whose order key does not change while queued.

    The same heap moves as :class:`JavaPriorityQueue` with ``key`` (so equal keys come out in
    Java's order), but each element's key is read once, when it is offered, and kept beside it:
    a poll compares stored keys instead of calling ``key`` at every step. Only for queues whose
    elements are changed after they are polled and before they are offered again.
    """

    __slots__ = ("_elements", "_key", "_keys")

    def __init__(self, key: Callable[[E], Any]) -> None:
        self._key = key
        self._keys: list[Any] = []
        self._elements: list[E] = []

    def __len__(self) -> int:
        return len(self._elements)

    def offer(self, element: E) -> None:
        keys, elements = self._keys, self._elements
        element_key = self._key(element)
        index = len(keys)
        keys.append(element_key)
        elements.append(element)
        while index > 0:
            parent = (index - 1) >> 1
            if not element_key < keys[parent]:
                break
            keys[index] = keys[parent]
            elements[index] = elements[parent]
            index = parent
        keys[index] = element_key
        elements[index] = element

    def head_key(self) -> Any:
        """The key of the element :meth:`poll` would answer (the smallest); not when empty."""
        return self._keys[0]

    def poll_rounds(self, rounds: int, key_after: Any) -> list[E]:
        """``rounds`` times: poll every element once, each offered back right after its poll.

        Only when all queued keys are equal and every polled element goes back with the key
        ``key_after``, greater than theirs (then each round polls every element once, and the
        next starts with equal keys again). The elements polled, in order, as :meth:`poll` and
        :meth:`offer` step for step would answer: a round's moves depend only on which elements
        were polled already, so one round of the queue's size, replayed once on numbers
        (:func:`_equal_key_round`), gives every round's order and the array it leaves.
        """
        elements = self._elements
        size = len(elements)
        if size == 1:
            polled = elements * rounds
        else:
            at, after = _equal_key_round(size)
            pick, arrange = itemgetter(*at), itemgetter(*after)
            polled = []
            for _ in range(rounds):
                polled += pick(elements)
                elements = list(arrange(elements))
        self._elements = elements
        self._keys = [key_after] * size
        return polled

    def poll(self) -> E | None:
        keys, elements = self._keys, self._elements
        if not elements:
            return None
        result = elements[0]
        last_key, last = keys.pop(), elements.pop()
        size = len(elements)
        if size:
            index, half = 0, size >> 1
            while index < half:
                child = 2 * index + 1
                right = child + 1
                if right < size and keys[right] < keys[child]:
                    child = right
                if not keys[child] < last_key:
                    break
                keys[index] = keys[child]
                elements[index] = elements[child]
                index = child
            keys[index] = last_key
            elements[index] = last
        return result


@lru_cache(maxsize=4)
def _equal_key_round(size: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One round of :meth:`JavaKeyedPriorityQueue.poll_rounds` on a queue of ``size`` elements.

    The queue holds the positions ``0 .. size - 1`` of the round's starting array, all with key
    0; each is polled and offered back with key 1 until all have been. Answers the positions in
    the order they were polled and the array the round leaves (position per index).
    """
    queue: JavaKeyedPriorityQueue[int] = JavaKeyedPriorityQueue(key=lambda _: 1)
    queue._keys = [0] * size
    queue._elements = list(range(size))
    polled = []
    for _ in range(size):
        position = queue.poll()
        assert position is not None
        polled.append(position)
        queue.offer(position)
    return tuple(polled), tuple(queue._elements)


def hash_set_order(keys: Sequence[K], hash_codes: Sequence[int]) -> list[K]:
    """The iteration order of a new ``HashSet`` (default capacity) after ``add`` of each key.

    ``keys`` are distinct and ``hash_codes[i]`` is ``keys[i].hashCode()``. Gives the same
    answer as :func:`hash_order` (no removals, so bucket then insertion order), computed in one
    sort; for hot loops that offer back a set of rejected candidates.
    """
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity <<= 1
    mask = capacity - 1
    buckets = [spread(code) & mask for code in hash_codes]
    return [keys[i] for i in sorted(range(len(keys)), key=lambda i: (buckets[i], i))]
