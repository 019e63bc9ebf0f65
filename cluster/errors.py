"""Why reading a cluster failed, as exceptions whose message a person can act on.

Every failure of the reader ends as one of these (the CLI prints ``str(error)`` and exits 2).
None of them ever carries a password: messages are built from the settings' safe fields only.
"""

from __future__ import annotations

from assignors import AssignmentExplorerError


class ClusterError(AssignmentExplorerError):
    """Base class: reading the cluster failed."""


class ConnectionSettingsError(ClusterError, ValueError):
    """The connection settings are incomplete or contradict each other (nothing was sent)."""


class BootstrapUnreachableError(ClusterError):
    """No bootstrap server answered within the timeout."""

    def __init__(self, bootstrap_servers: str, timeout_s: float, security_protocol: str) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.timeout_s = timeout_s
        hint = (
            " If the cluster needs TLS or SASL, set --security-protocol (it is"
            f" {security_protocol} now); a TLS listener does not answer a PLAINTEXT client."
        )
        super().__init__(
            f"cannot reach the bootstrap servers {bootstrap_servers} within {timeout_s:g} s:"
            f" no broker answered.{hint}"
        )


class AuthenticationFailedError(ClusterError):
    """The brokers refused the credentials, the TLS handshake or the SASL mechanism."""


class RequestTimeoutError(ClusterError):
    """A broker accepted the connection but did not answer one request in time."""


class GroupNotFoundError(ClusterError, LookupError):
    """The group does not exist (or has no members and no committed offsets)."""

    def __init__(self, group_id: str, known: list[str] | None = None) -> None:
        self.group_id = group_id
        listing = ""
        if known is not None:
            shown = ", ".join(sorted(known)[:20]) or "none"
            listing = f"; groups on this cluster: {shown}"
            if len(known) > 20:
                listing += f" and {len(known) - 20} more"
        super().__init__(f"group {group_id!r} not found{listing}")


class NotAuthorizedError(ClusterError, PermissionError):
    """An ACL forbids this principal to describe the group, a topic or the cluster."""


class UnsupportedGroupError(ClusterError):
    """The group exists but cannot be read as a consumer-group scenario."""


class ConsumerProtocolGroupError(UnsupportedGroupError):
    """A KIP-848 (``group.protocol=consumer``) group, which kafka-python cannot describe."""

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        super().__init__(
            f"group {group_id!r} uses the KIP-848 consumer rebalance protocol"
            " (group.protocol=consumer): its members are described by ConsumerGroupDescribe,"
            " which the kafka-python client this tool uses cannot send. Its committed offsets"
            " can be read, its members and their assignment cannot; describe it with"
            " kafka-consumer-groups.sh --describe --members --verbose, or read a classic group."
        )
