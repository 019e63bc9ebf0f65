"""librdkafka's mock Kafka cluster, driven through ctypes, for facts noida-db cannot serve.

noida-db is a single broker without a rack. librdkafka (bundled in the ``confluent-kafka``
wheel, a test extra) ships an in-process mock cluster that speaks the Kafka protocol on loopback
with several brokers, each of which can be given a rack. It answers ApiVersions, Metadata,
FindCoordinator, ListOffsets, OffsetFetch and the classic group-join calls, but not ListGroups or
DescribeGroups, so it serves the metadata half of a snapshot (topics, replicas, broker racks,
offsets) and not the group half.

Steps of :func:`mock_cluster`:

1. Load the wheel's ``librdkafka*.so`` with ctypes and declare the few functions used.
2. ``rd_kafka_new`` a producer handle (the mock cluster needs an owning handle), then
   ``rd_kafka_mock_cluster_new(handle, brokers)``.
3. ``rd_kafka_mock_broker_set_rack`` for each broker; ``rd_kafka_mock_topic_create`` topics.
4. Yield ``rd_kafka_mock_cluster_bootstraps`` (``host:port,...``); destroy everything after.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
from collections.abc import Iterator, Mapping

RD_KAFKA_PRODUCER = 0


def _library() -> ctypes.CDLL:
    import confluent_kafka

    site = os.path.dirname(os.path.dirname(confluent_kafka.__file__))
    candidates = sorted(glob.glob(os.path.join(site, "confluent_kafka.libs", "librdkafka*.so*")))
    if not candidates:
        raise RuntimeError(f"no librdkafka shared library in {site}/confluent_kafka.libs")
    lib = ctypes.CDLL(candidates[0])
    lib.rd_kafka_conf_new.restype = ctypes.c_void_p
    lib.rd_kafka_new.restype = ctypes.c_void_p
    lib.rd_kafka_new.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_destroy.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_mock_cluster_new.restype = ctypes.c_void_p
    lib.rd_kafka_mock_cluster_new.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.rd_kafka_mock_cluster_destroy.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_mock_cluster_bootstraps.restype = ctypes.c_char_p
    lib.rd_kafka_mock_cluster_bootstraps.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_mock_broker_set_rack.restype = ctypes.c_int
    lib.rd_kafka_mock_broker_set_rack.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_char_p]
    lib.rd_kafka_mock_topic_create.restype = ctypes.c_int
    lib.rd_kafka_mock_topic_create.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_int,
    ]
    return lib


@contextlib.contextmanager
def mock_cluster(racks: Mapping[int, str], topics: Mapping[str, tuple[int, int]]) -> Iterator[str]:
    """A mock cluster with ``len(racks)`` brokers (ids 1..n) and ``topics`` (name ->
    (partitions, replication factor)); yields its bootstrap servers."""
    lib = _library()
    errors = ctypes.create_string_buffer(512)
    handle = lib.rd_kafka_new(RD_KAFKA_PRODUCER, lib.rd_kafka_conf_new(), errors, len(errors))
    if not handle:
        raise RuntimeError(f"rd_kafka_new failed: {errors.value.decode()}")
    cluster = None
    try:
        cluster = lib.rd_kafka_mock_cluster_new(handle, len(racks))
        if not cluster:
            raise RuntimeError("rd_kafka_mock_cluster_new failed")
        for broker_id, rack in racks.items():
            code = lib.rd_kafka_mock_broker_set_rack(cluster, broker_id, rack.encode())
            if code != 0:
                raise RuntimeError(f"rd_kafka_mock_broker_set_rack({broker_id}) failed: {code}")
        for name, (partitions, replication) in topics.items():
            code = lib.rd_kafka_mock_topic_create(cluster, name.encode(), partitions, replication)
            if code != 0:
                raise RuntimeError(f"rd_kafka_mock_topic_create({name}) failed: {code}")
        yield lib.rd_kafka_mock_cluster_bootstraps(cluster).decode()
    finally:
        if cluster:
            lib.rd_kafka_mock_cluster_destroy(cluster)
        lib.rd_kafka_destroy(handle)
