"""Kafka requests kafka-python 3.0.12 does not define, on its own protocol classes.

Each request and response is described by a JSON schema in Kafka's message-definition format
(the same format kafka-python loads its own messages from), in this package:

* ``ConsumerGroupDescribe`` (API key 69, version 0): a KIP-848 consumer group's assignor, group
  epoch, target assignment epoch and, per member, its epoch, current and target assignment,
  subscription (names or regex), rack, instance id, client id and host. Read-only: it is on
  :data:`cluster.reader.ALLOWED_API_KEYS`.
* ``StreamsGroupDescribe`` (API key 89, version 0): a KIP-1071 Streams group's epochs, its
  topology (subtopologies with source, repartition and changelog topics) and, per member, its
  process id, epochs, task offsets and current and target active, standby and warm-up tasks.
* ``ShareGroupDescribe`` (API key 77, version 1): a KIP-932 share group's assignor, epochs and,
  per member, its epoch, subscription, rack, client id, host and assignment.
* ``DescribeShareGroupOffsets`` (API key 90, versions 0-1): a share group's share-partition start
  offset per partition and (version 1) its lag as Kafka computes it.
"""

from __future__ import annotations

from kafka.protocol.api_message import ApiMessage


class ConsumerGroupDescribeRequest(ApiMessage, load_json="cluster.protocol"):  # type: ignore[misc,call-arg]
    pass


class ConsumerGroupDescribeResponse(ApiMessage, load_json="cluster.protocol"):  # type: ignore[misc,call-arg]
    pass


class StreamsGroupDescribeRequest(ApiMessage, load_json="cluster.protocol"):  # type: ignore[misc,call-arg]
    pass


class StreamsGroupDescribeResponse(ApiMessage, load_json="cluster.protocol"):  # type: ignore[misc,call-arg]
    pass


class ShareGroupDescribeRequest(ApiMessage, load_json="cluster.protocol"):  # type: ignore[misc,call-arg]
    pass


class ShareGroupDescribeResponse(ApiMessage, load_json="cluster.protocol"):  # type: ignore[misc,call-arg]
    pass


class DescribeShareGroupOffsetsRequest(ApiMessage, load_json="cluster.protocol"):  # type: ignore[misc,call-arg]
    pass


class DescribeShareGroupOffsetsResponse(ApiMessage, load_json="cluster.protocol"):  # type: ignore[misc,call-arg]
    pass


__all__ = [
    "ConsumerGroupDescribeRequest",
    "ConsumerGroupDescribeResponse",
    "DescribeShareGroupOffsetsRequest",
    "DescribeShareGroupOffsetsResponse",
    "ShareGroupDescribeRequest",
    "ShareGroupDescribeResponse",
    "StreamsGroupDescribeRequest",
    "StreamsGroupDescribeResponse",
]
