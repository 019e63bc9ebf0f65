"""The Java hash-order helper: hash codes and ``HashMap`` iteration order.

Expected values are ones a reader can check: well-known ``String.hashCode`` results, sums worked
out by hand from ``s[0]*31^(n-1) + ... + s[n-1]``, and a ``HashMap`` filled until it resizes.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors.java_order import (
    JavaHashMapOrder,
    JavaKeyedPriorityQueue,
    JavaPriorityQueue,
    consecutive_buckets,
    hash_order,
    hash_set_copy_capacity,
    head_first_capacity,
    head_first_order,
    integer_hash,
    integer_set_copy_order,
    spread,
    string_hash,
    to_int32,
    topic_partition_hash,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("a", 97),
        ("C0", 67 * 31 + 48),  # 2125
        ("hello", 99162322),
        # the classic overflow example: exactly Integer.MIN_VALUE
        ("polygenelubricants", -(2**31)),
        # a colliding pair: 65*31 + 97 == 66*31 + 66
        ("Aa", 2112),
        ("BB", 2112),
        ("é", 0xE9),
        # beyond U+FFFF Java hashes the UTF-16 surrogate pair: 31 * 0xD83D + 0xDE00
        ("\U0001f600", 31 * 0xD83D + 0xDE00),
    ],
)
def test_string_hash_matches_java(text: str, expected: int) -> None:
    assert string_hash(text) == expected


def test_topic_partition_hash_is_kafkas_formula() -> None:
    # 31 * (31 + partition) + topic.hashCode()
    assert topic_partition_hash("t", 0) == 31 * 31 + 116
    assert topic_partition_hash("t", 3) == 31 * 34 + 116


def test_spread_folds_the_high_half_into_the_low_half() -> None:
    assert spread(0x12345678) == 0x12345678 ^ 0x1234
    assert spread(-1) == 0xFFFF_FFFF ^ 0xFFFF


def test_keys_in_one_bucket_iterate_in_insertion_order() -> None:
    # "Aa" and "BB" share hash 2112, so bucket 2112 & 15 == 0 in a 16-bucket table
    assert hash_order(["BB", "Aa"], string_hash) == ["BB", "Aa"]
    assert hash_order(["Aa", "BB"], string_hash) == ["Aa", "BB"]


def test_iteration_order_follows_buckets_and_survives_a_resize() -> None:
    # Integers hash to themselves. With 16 buckets, 16 shares bucket 0 with 0 and 17 shares
    # bucket 1 with 1, each behind the key inserted first.
    keys = [16, 0, 17, 1, *range(2, 10)]  # 12 keys: at the 0.75 load limit, no resize yet
    assert hash_order(keys, integer_hash) == [16, 0, 17, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    # the 13th key exceeds 12 = 0.75 * 16: the table doubles to 32 and 16, 17 get own buckets
    table: JavaHashMapOrder[int] = JavaHashMapOrder(integer_hash)
    table.put_all([*keys, 10])
    assert table.capacity == 32
    assert list(table) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17]


def test_removal_and_reinsertion_moves_a_key_behind_its_bucket_mates() -> None:
    table: JavaHashMapOrder[int] = JavaHashMapOrder(integer_hash)
    table.put_all([0, 16, 32])
    table.remove(0)
    table.put(0)
    assert list(table) == [16, 32, 0]


def test_initial_capacity_rounds_up_to_a_power_of_two() -> None:
    table: JavaHashMapOrder[int] = JavaHashMapOrder(integer_hash, initial_capacity=20)
    assert table.capacity == 32
    table.put_all([31, 15])
    assert list(table) == [15, 31]


@given(st.text(max_size=40))
def test_string_hash_is_a_signed_32_bit_polynomial(text: str) -> None:
    units = text.encode("utf-16-be", "surrogatepass")
    expected = 0
    for index in range(0, len(units), 2):
        expected = expected * 31 + int.from_bytes(units[index : index + 2], "big")
    assert string_hash(text) == to_int32(expected)


@given(st.lists(st.integers(min_value=0, max_value=10_000), unique=True, max_size=60))
def test_hash_order_is_bucket_then_insertion_order(keys: list[int]) -> None:
    order = hash_order(keys, integer_hash)
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2
    expected = sorted(keys, key=lambda k: (spread(k) & (capacity - 1), keys.index(k)))
    assert order == expected


def test_compute_if_absent_links_a_new_key_at_the_head_of_its_bucket() -> None:
    """``computeIfAbsent`` puts a new node before the bucket's others (``put`` appends)."""
    table: JavaHashMapOrder[int] = JavaHashMapOrder(integer_hash)
    table.put(0)
    table.put_first(16)  # same bucket (0) of 16
    table.put(32)
    assert list(table) == [16, 0, 32]


def test_a_crowded_bucket_of_a_small_table_doubles_the_table() -> None:
    """Java's treeifyBin: a 9th key in one bucket of a table under 64 buckets resizes instead."""
    table: JavaHashMapOrder[int] = JavaHashMapOrder(integer_hash)
    table.put_all(16 * i for i in range(8))
    assert table.capacity == 16 and list(table) == [16 * i for i in range(8)]
    table.put(128)
    assert table.capacity == 32
    assert list(table) == [0, 32, 64, 96, 128, 16, 48, 80, 112]
    heads: JavaHashMapOrder[int] = JavaHashMapOrder(integer_hash)
    for i in range(8):  # computeIfAbsent already resizes on the 8th key of a bucket
        heads.put_first(16 * i)
    assert heads.capacity == 32


#: Keys that crowd a few buckets (multiples of 16 and 64) as well as spread ones, both signs.
_KEYS = st.lists(
    st.one_of(
        st.integers(min_value=0, max_value=40).map(lambda k: 16 * k),
        st.integers(min_value=-(2**31), max_value=2**31 - 1),
    ),
    max_size=120,
)


def _replayed(keys: list[int], initial_capacity: int | None, *, head_first: bool) -> list[int]:
    """The order the step-by-step model answers (``put`` or ``computeIfAbsent`` per key)."""
    table: JavaHashMapOrder[int] = JavaHashMapOrder(integer_hash, initial_capacity)
    for key in keys:
        table.put_first(key) if head_first else table.put(key)
    return list(table)


@given(_KEYS, st.sampled_from([None, 1, 16, 40, 64, 300]))
def test_hash_order_in_one_sort_answers_as_the_key_by_key_model(
    keys: list[int], initial_capacity: int | None
) -> None:
    """Crowded small tables included (there the model replays them), repeated keys kept once."""
    assert hash_order(keys, integer_hash, initial_capacity) == _replayed(
        keys, initial_capacity, head_first=False
    )


@given(_KEYS, st.sampled_from([None, 1, 16, 40, 64, 300]))
def test_head_first_order_answers_as_compute_if_absent_key_by_key(
    keys: list[int], initial_capacity: int | None
) -> None:
    distinct = list(dict.fromkeys(keys))
    assert head_first_order(distinct, distinct, initial_capacity) == _replayed(
        distinct, initial_capacity, head_first=True
    )


@given(
    st.integers(min_value=-(2**40), max_value=2**40),
    st.integers(min_value=0, max_value=70_000),
    st.sampled_from([16, 1024, 1 << 21]),
)
def test_consecutive_buckets_are_each_codes_spread_bucket(
    first: int, count: int, capacity: int
) -> None:
    """Runs that cross a 2^16 boundary and the 2^32 wrap included."""
    expected = [spread(to_int32(first + k)) & (capacity - 1) for k in range(count)]
    assert consecutive_buckets(first, count, capacity) == expected


@given(st.lists(st.integers(min_value=-5, max_value=70_000), max_size=80))
def test_integer_set_copy_order_is_the_order_of_new_hash_set_of_the_numbers(
    numbers: list[int],
) -> None:
    """``new HashSet<>(numbers)``: presized for the collection, so no resize happens."""
    capacity = hash_set_copy_capacity(len(numbers))
    assert integer_set_copy_order(numbers) == _replayed(numbers, capacity, head_first=False)


def test_head_first_capacity_grows_before_the_insertion_that_finds_the_table_full() -> None:
    assert head_first_capacity(13) == 16  # the 13th finds 12 keys: not over 12, stays at 16
    assert head_first_capacity(14) == 32  # the 14th finds 13 > 12 and doubles first
    assert head_first_capacity(1_000_000, 1_333_334) == 1 << 21


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 3)), max_size=60))
def test_keyed_priority_queue_moves_like_javas_heap_with_equal_keys(
    operations: list[tuple[bool, int]],
) -> None:
    """Keys read once per offer: the same polls as Java's heap (ties in heap order, not FIFO),
    for elements whose key changes only while they are out of the queue."""
    keys: dict[int, int] = {}
    model: JavaPriorityQueue[int] = JavaPriorityQueue(key=keys.__getitem__)
    queue: JavaKeyedPriorityQueue[int] = JavaKeyedPriorityQueue(keys.__getitem__)
    out: list[int] = []
    for serial, (offer, key) in enumerate(operations):
        if offer or not len(model):
            element = out.pop() if out and key % 2 else serial  # an element polled earlier
            keys[element] = key
            model.offer(element)
            queue.offer(element)
        else:
            polled = model.poll()
            assert polled is not None
            assert queue.poll() == polled
            out.append(polled)
        assert len(queue) == len(model)
    assert [queue.poll() for _ in range(len(queue))] == [model.poll() for _ in range(len(model))]
    assert queue.poll() is None


@given(st.lists(st.integers(0, 3), min_size=1, max_size=70), st.integers(1, 4))
def test_poll_rounds_polls_as_the_heap_does_step_by_step(
    start_keys: list[int], rounds: int
) -> None:
    """Keys made equal by arbitrary moves (each element under the highest key polled and offered
    back with it): whole rounds at once give the same polls and leave the same heap as polling
    each element and offering it back with the next round's key, one by one."""
    keys = dict(enumerate(start_keys))
    model: JavaPriorityQueue[int] = JavaPriorityQueue(key=keys.__getitem__)
    for element in keys:
        model.offer(element)
    while keys[next(iter(model))] < 4:
        head = model.poll()
        assert head is not None
        keys[head] = 4
        model.offer(head)
    queue: JavaKeyedPriorityQueue[int] = JavaKeyedPriorityQueue(keys.__getitem__)
    for element in model:  # the model's array: an offered equal key stays where it lands
        queue.offer(element)
    expected = []
    for round_key in range(5, 5 + rounds):
        for _ in range(len(keys)):
            polled = model.poll()
            assert polled is not None
            expected.append(polled)
            keys[polled] = round_key
            model.offer(polled)
    assert queue.poll_rounds(rounds, 4 + rounds) == expected
    assert [queue.poll() for _ in keys] == [model.poll() for _ in keys]
