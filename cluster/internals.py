"""kafka-python's private parts the cluster reader (and :mod:`adapters.kafka_python`) use, each
with the versions it was checked on and a probe; listed with every other one in
:data:`dashboard.runtime.internals.REGISTRY`.

A use asks :func:`applies` first; the first ask probes (once per process) and, when the
internal is not as expected, logs one line on the ``assignment_explorer`` logger, and the use
raises a :class:`~cluster.errors.ClusterError` that says what is off (:func:`require`) or takes
its plain path.

:data:`USES` holds them (a :class:`guarded.Uses`); :func:`reason_off` and :func:`applies` are its
methods.
"""

from __future__ import annotations

import inspect

from cluster.errors import ClusterError
from guarded import Internal, Uses


def _parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def probe_admin_manager() -> str | None:
    """``KafkaAdminClient`` keeps its connection manager as ``_manager`` (``send(request,
    node_id=)``, ``run(coro)``, ``cluster``) and finds coordinators with
    ``_find_coordinator_ids(keys)``."""
    from kafka.admin import KafkaAdminClient
    from kafka.net.manager import KafkaConnectionManager

    if "_manager" not in KafkaAdminClient.__init__.__code__.co_names:
        return "KafkaAdminClient.__init__ no longer sets _manager"
    find = getattr(KafkaAdminClient, "_find_coordinator_ids", None)
    if not callable(find):
        return "KafkaAdminClient._find_coordinator_ids is gone"
    if _parameters(find)[:2] != ["self", "keys"]:
        return f"KafkaAdminClient._find_coordinator_ids takes {_parameters(find)}, not (self, keys)"
    send = getattr(KafkaConnectionManager, "send", None)
    if not callable(send) or "node_id" not in _parameters(send):
        return "KafkaConnectionManager.send(request, node_id=) is gone"
    if not callable(getattr(KafkaConnectionManager, "run", None)):
        return "KafkaConnectionManager.run is gone"
    if "cluster" not in KafkaConnectionManager.__init__.__code__.co_names:
        return "KafkaConnectionManager.__init__ no longer sets cluster"
    return None


def probe_describe_configs() -> str | None:
    """``kafka.protocol.admin.DescribeConfigsRequest`` takes ``resources`` and
    ``include_synonyms``."""
    from kafka.protocol.admin import DescribeConfigsRequest

    DescribeConfigsRequest(resources=[], include_synonyms=False)
    return None


def probe_api_message() -> str | None:
    """``kafka.protocol.api_message.ApiMessage`` still builds a request class from one of our
    JSON schemas (``load_json=``)."""
    from kafka.protocol.api_message import ApiMessage

    built = type(ApiMessage)(
        "ConsumerGroupDescribeRequest",
        (ApiMessage,),
        {"__module__": __name__},
        load_json="cluster.protocol",
    )
    if getattr(built, "API_KEY", None) != 69:
        return f"ApiMessage(load_json=) built API key {getattr(built, 'API_KEY', None)}, not 69"
    built(group_ids=["probe"], include_authorized_operations=False).encode(version=0)
    return None


def probe_consumer_protocol() -> str | None:
    """The consumer protocol's subscription and assignment classes are where the adapters import
    them, and the same ones kafka-python's assignor interface uses."""
    from kafka.coordinator.assignors import abstract
    from kafka.protocol.consumer import metadata

    for name in ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment"):
        ours = getattr(metadata, name, None)
        if ours is None:
            return f"kafka.protocol.consumer.metadata.{name} is gone"
        if getattr(abstract, name, ours) is not ours:
            return f"kafka-python's assignors use another {name}"
    return None


_SCRAM_METHODS = (
    "first_message",
    "process_server_first_message",
    "final_message",
    "process_server_final_message",
)


def probe_scram_client() -> str | None:
    """``kafka.net.sasl.scram.ScramClient(user, password, mechanism)`` with its four steps."""
    from kafka.net.sasl.scram import ScramClient

    if _parameters(ScramClient)[:3] != ["user", "password", "mechanism"]:
        return f"ScramClient takes {_parameters(ScramClient)}, not (user, password, mechanism)"
    missing = [m for m in _SCRAM_METHODS if not callable(getattr(ScramClient, m, None))]
    if missing:
        return f"ScramClient has no {', '.join(missing)}"
    return None


INTERNALS: tuple[Internal, ...] = (
    Internal(
        name="reader.admin_manager",
        where=(
            "cluster.reader:ClusterReader._describe_new_group,"
            " cluster.reader:ClusterReader.group_configs, cluster.reader:ClusterReader.broker_racks"
        ),
        what=(
            "Sends requests kafka-python's admin client has no method for (KIP-848, Streams and"
            " share group descriptions, a group's configs) through its _manager, to the"
            " coordinator _find_coordinator_ids names, and reads brokers' racks from"
            " _manager.cluster."
        ),
        library="kafka-python",
        checked="kafka-python>=3.0.12,<3.1",
        loses="KIP-848 consumer, Streams and share groups and group settings cannot be read",
        probe=probe_admin_manager,
    ),
    Internal(
        name="reader.describe_configs_request",
        where="cluster.reader:ClusterReader.group_configs",
        what=(
            "Builds kafka-python's own DescribeConfigsRequest (kafka.protocol.admin) for a"
            " GROUP resource without synonyms, which its admin client's describe_configs does"
            " not offer."
        ),
        library="kafka-python",
        checked="kafka-python>=3.0.12,<3.1",
        loses="a group's settings (session timeout, heartbeat interval, assignors) cannot be read",
        probe=probe_describe_configs,
    ),
    Internal(
        name="protocol.api_message",
        where="cluster.protocol, cluster.reader:ClusterReader._describe_new_group",
        what=(
            "Defines the requests kafka-python lacks (ConsumerGroupDescribe, StreamsGroupDescribe,"
            " ShareGroupDescribe, DescribeShareGroupOffsets) on its ApiMessage class from JSON"
            " schemas."
        ),
        library="kafka-python",
        checked="kafka-python>=3.0.12,<3.1",
        loses="KIP-848 consumer, Streams and share groups cannot be read",
        probe=probe_api_message,
    ),
    Internal(
        name="adapters.consumer_protocol",
        where="adapters.kafka_python",
        what=(
            "Imports ConsumerProtocolSubscription and ConsumerProtocolAssignment from"
            " kafka.protocol.consumer.metadata: the types kafka-python's assignor interface"
            " passes and expects, exported nowhere public."
        ),
        library="kafka-python",
        checked="kafka-python>=3.0.12,<3.1",
        loses=(
            "the adapters cannot be imported: our strategies cannot run inside"
            " kafka-python consumers"
        ),
        probe=probe_consumer_protocol,
    ),
    Internal(
        name="preflight.scram_client",
        where="cluster.preflight:_scram_client, cluster.preflight:_check_sasl_login",
        what=(
            "Computes the SCRAM login's messages with kafka-python's ScramClient"
            " (kafka.net.sasl.scram), so the preflight can log in itself and report a refusal"
            " at once."
        ),
        library="kafka-python",
        checked="kafka-python>=3.0.12,<3.1",
        loses=(
            "a refused SCRAM login is reported by kafka-python, after its bootstrap timeout,"
            " not at once"
        ),
        probe=probe_scram_client,
    ),
)

USES = Uses(INTERNALS)
reason_off = USES.reason_off
applies = USES.applies


def require(name: str) -> None:
    """Raise a :class:`ClusterError` naming what is off unless the use ``name`` applies."""
    reason = reason_off(name)
    if reason is not None:
        raise ClusterError(USES.entry(name).off_line(reason))
