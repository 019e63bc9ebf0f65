"""Why reading a cluster failed, as exceptions whose message a person can act on.

Every failure of the reader ends as one of these (the CLI prints ``str(error)`` and exits 2).
None of them ever carries a password: messages are built from the settings' safe fields only.
"""

from __future__ import annotations

import difflib

from assignors import AssignmentExplorerError


class ClusterError(AssignmentExplorerError):
    """Base class: reading the cluster failed."""


class ConnectionSettingsError(ClusterError, ValueError):
    """The connection settings are incomplete or contradict each other (nothing was sent)."""


class BootstrapUnreachableError(ClusterError):
    """No bootstrap server could be reached (the subclasses say why)."""


class NameNotResolvedError(BootstrapUnreachableError):
    """A bootstrap server's host name does not resolve (DNS); raised at once."""


class RefusedConnectionError(BootstrapUnreachableError):
    """Nothing listens at a bootstrap server's port (connection refused); raised at once."""


class NotKafkaError(BootstrapUnreachableError):
    """The server answered, but not in Kafka's protocol (or hung up at the first request)."""


class AuthenticationFailedError(ClusterError):
    """The brokers refused the credentials or the SASL mechanism."""


class TlsHandshakeError(AuthenticationFailedError):
    """The TLS handshake failed: untrusted certificate, wrong host name, or no TLS there."""


class RequestTimeoutError(ClusterError):
    """No answer in time; the message names the step (connecting, TLS, a request)."""


class GroupNotFoundError(ClusterError, LookupError):
    """The group does not exist (or has no members and no committed offsets)."""

    def __init__(self, group_id: str, known: list[str] | None = None) -> None:
        self.group_id = group_id
        listing = ""
        if known is not None:
            # The names closest to the one asked for come first: a typo finds its group even
            # on a cluster with hundreds of groups.
            close = difflib.get_close_matches(group_id, known, n=5, cutoff=0.6)
            ordered = close + sorted(set(known) - set(close))
            shown = ", ".join(ordered[:20]) or "none"
            listing = f"; groups on this cluster: {shown}"
            if len(known) > 20:
                listing += f" and {len(known) - 20} more"
        super().__init__(f"group {group_id!r} not found{listing}")


class NotAuthorizedError(ClusterError, PermissionError):
    """An ACL forbids this principal to describe the group, a topic or the cluster."""


class UnsupportedGroupError(ClusterError):
    """The group exists but cannot be read as a consumer-group scenario."""


class ConsumerProtocolGroupError(UnsupportedGroupError):
    """A KIP-848 (``group.protocol=consumer``) group: DescribeGroups cannot describe it.

    :func:`cluster.snapshot.snapshot_group` catches it and reads the group through
    ConsumerGroupDescribe instead (:meth:`cluster.reader.ClusterReader.describe_consumer_group`).
    """

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        super().__init__(
            f"group {group_id!r} uses the KIP-848 consumer rebalance protocol"
            " (group.protocol=consumer): DescribeGroups cannot describe it; read it with"
            " ConsumerGroupDescribe (python -m cluster snapshot does)."
        )


class StreamsGroupError(UnsupportedGroupError):
    """A Kafka Streams group (``group.protocol=streams``, KIP-1071): DescribeGroups cannot
    describe it and it is not a consumer-group scenario.

    :func:`cluster.snapshot.read_group` catches it and reads the group through
    StreamsGroupDescribe as a Streams scenario (tasks per instance) instead.
    """

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        super().__init__(
            f"group {group_id!r} is a Kafka Streams group (group.protocol=streams): it has tasks,"
            " not partitions per consumer; read it as a Streams scenario (python -m cluster"
            " snapshot does, and the dashboard opens it in the Kafka Streams view)."
        )


class ShareGroupError(UnsupportedGroupError):
    """A share group (KIP-932): DescribeGroups cannot describe it.

    :func:`cluster.snapshot.snapshot_group` catches it and reads the group through
    ShareGroupDescribe instead (:meth:`cluster.reader.ClusterReader.describe_share_group`).
    """

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        super().__init__(
            f"group {group_id!r} is a share group (KIP-932): DescribeGroups cannot describe it;"
            " read it with ShareGroupDescribe (python -m cluster snapshot does)."
        )
