"""Real rolling restarts and scale steps on the suite's Apache Kafka, next to the deploy planner's
prediction for the same plan and timings (issue 38 part 4; docs/prediction-accuracy.md).

A :class:`RealPlan` names a group of kafka-python consumers (client ids ``m0``, ``m1``, ...; the
classic protocol, our adapter of ``range`` or ``cooperative-sticky``, static with
``group_instance_id`` = the client id or dynamic) and what the deploy does: restart every member
in batches of ``batch_size``, each batch down ``restart_s`` (closed, then new consumers with the
same client ids), or scale out by ``scale`` members (``new-1``, ``new-2``, ...: the planner's
names). :func:`run_plan` forms the group, waits until it is settled (below), plays the deploy one
step at a time (the next step starts once the previous one settled, as a rollout waiting for
readiness would) and returns what the group did (:class:`Observed`), read only from the group:

* **rebalances**: generations. Each consumer's rebalance callbacks record the generation it
  joined (kafka-python's coordinator state, read in the callback); the group's generation at the
  end minus the one at the start is the number of rebalance rounds Kafka ran.
* **moved**: owner changes, by client id: a partition handed to a client other than the one that
  held it last. A restarted client keeps its client id (Kafka gives it a new member id; the
  planner keeps the member id, so client ids are what both sides name the same way).
* **pause** per partition: the time within each step during which no consumer holds it, from the
  callbacks (``on_partitions_revoked``, also called on close, and ``on_partitions_assigned``).
* **duration**: per step, from its first action (a close or a consumer start) to its last
  callback; the deploy's duration is the sum.

Settled: the broker (DescribeGroups) reports a Stable group of exactly the live consumers, each
consumer holds what the broker reports, every partition is held and every consumer is at the same
generation. Never imported by the application; tests and ``benchmarks/deploy_accuracy.py`` use it.

Invariants: a plan runs on topics of its own (fresh names); every consumer it starts is closed
when :func:`run_plan` returns, whether it succeeded or not.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer

from adapters import kafka_python as adapters
from assignors.model import Assignment, Member, Scenario, Topic, TopicPartition
from assignors.simulate.deploy import DeployOutcome, plan_deploy
from assignors.simulate.deploy_plan import DeployPlan, DeploySettings
from tests.kafka_broker import BrokerClientHelpers, PolledConsumer, unique_name

#: The consumers' timings, given to the planner as they are (DeploySettings).
SESSION_TIMEOUT_S = 6.0  # the broker's group.min.session.timeout.ms: the smallest allowed
HEARTBEAT_S = 0.5
MAX_POLL_S = 30.0
#: The cluster's group.initial.rebalance.delay.ms (tests/kafka_cluster/cluster.py).
INITIAL_REBALANCE_DELAY_S = 0.0
#: The listeners do no work: revoking and starting to read take no time of the application's.
REVOKE_S = 0.0
WARMUP_S = 0.0
#: How long a step may take to settle before the run fails.
SETTLE_TIMEOUT_S = 60.0
POLL_S = 0.05


@dataclass(frozen=True, slots=True)
class RealPlan:
    """A deploy to run for real and to predict (see the module docstring)."""

    name: str
    strategy: str
    members: int = 3
    batch_size: int = 1
    static: bool = False
    scale: int = 0
    restart_s: float = 2.0
    topics: int = 2
    partitions: int = 6

    @property
    def consumer_protocol(self) -> bool:
        """``uniform`` is the broker's assignor: Java consumers, ``group.protocol=consumer``."""
        return self.strategy == "uniform"

    def settings(self) -> DeploySettings:
        """The group's settings as the consumers and the cluster have them."""
        from tests.kafka_cluster import rolling_deploy_java as java

        kip848 = self.consumer_protocol
        return DeploySettings(
            static_membership=self.static,
            session_timeout_s=java.CONSUMER_SESSION_TIMEOUT_S if kip848 else SESSION_TIMEOUT_S,
            max_poll_interval_s=MAX_POLL_S,
            heartbeat_interval_s=java.CONSUMER_HEARTBEAT_S if kip848 else HEARTBEAT_S,
            group_initial_rebalance_delay_s=INITIAL_REBALANCE_DELAY_S,
            revoke_s=REVOKE_S,
            warmup_s=WARMUP_S,
        )

    def deploy_plan(self) -> DeployPlan:
        """The planner's plan: a scale step alone, or every member restarted in batches."""
        return DeployPlan(
            members=() if self.scale else None,
            batch_size=self.batch_size,
            restart_s=self.restart_s,
            scale=self.scale,
            settings=self.settings(),
        )

    @property
    def exact_moves(self) -> bool:
        """Whether the real moves are deterministic: not when KIP-848 members join or leave
        together (each is its own epoch, and a member may skip a target the next one replaced
        before it got there: the planner's figure is then an upper bound)."""
        return not (self.consumer_protocol and (self.batch_size > 1 or self.scale > 1))

    def client_ids(self) -> list[str]:
        return [f"m{i}" for i in range(self.members)]

    def steps(self) -> list[tuple[str, list[str]]]:
        """``("restart", batch)`` per batch, or one ``("scale out", newcomers)``."""
        if self.scale:
            return [("scale out", [f"new-{i}" for i in range(1, self.scale + 1)])]
        ids = self.client_ids()
        size = self.batch_size
        return [("restart", ids[i : i + size]) for i in range(0, len(ids), size)]


#: The plans the suite runs (tests/assignors/test_deploy_real_kafka.py): cheap and reliable.
CI_PLANS = (
    RealPlan("range, dynamic, batches of 1", "range"),
    RealPlan("range, dynamic, batches of 2", "range", batch_size=2),
    RealPlan("cooperative-sticky, dynamic, batches of 1", "cooperative-sticky"),
    RealPlan(
        "cooperative-sticky, static, batches of 2", "cooperative-sticky", batch_size=2, static=True
    ),
    RealPlan("range, scale out by 2", "range", scale=2),
    RealPlan("uniform (KIP-848, Java), dynamic, batches of 1", "uniform"),
    RealPlan("uniform (KIP-848, Java), scale out by 2", "uniform", scale=2),
)


@dataclass(frozen=True, slots=True)
class Event:
    """One rebalance callback (or a close): when, whose, what, at which generation."""

    at: float
    client: str
    kind: str  # "revoked" or "assigned"
    partitions: frozenset[TopicPartition]
    generation: int


class Recorder:
    """Every callback of every consumer of one run, in arrival order (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.events: list[Event] = []

    def add(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)

    def since(self, start: float) -> list[Event]:
        with self._lock:
            return sorted((e for e in self.events if e.at >= start), key=lambda e: e.at)


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    """Records each callback with the generation the consumer is at when it runs."""

    def __init__(self, client: str, recorder: Recorder) -> None:
        self.client, self.recorder = client, recorder
        self.consumer: Any = None

    def _record(self, kind: str, partitions: Iterable[Any]) -> None:
        self.recorder.add(
            Event(
                time.monotonic(),
                self.client,
                kind,
                frozenset(TopicPartition(tp.topic, tp.partition) for tp in partitions),
                generation_of(self.consumer),
            )
        )

    def on_partitions_revoked(self, revoked: Any) -> None:
        self._record("revoked", revoked)

    def on_partitions_assigned(self, assigned: Any) -> None:
        self._record("assigned", assigned)


def generation_of(consumer: Any) -> int:
    """The generation the consumer last joined (kafka-python keeps it in its coordinator)."""
    if consumer is None:
        return -1
    return int(consumer._coordinator._generation.generation_id)


@dataclass
class LiveGroup:
    """The consumers of one run, by client id."""

    broker: BrokerClientHelpers
    plan: RealPlan
    group_id: str
    topics: tuple[Topic, ...]
    recorder: Recorder = field(default_factory=Recorder)
    consumers: dict[str, PolledConsumer] = field(default_factory=dict)

    def start(self, client_ids: Sequence[str]) -> None:
        """New consumers, built first and subscribed together (they join in one rebalance)."""
        built = {cid: self._consumer(cid) for cid in client_ids}
        for cid, (consumer, listener) in built.items():
            consumer.subscribe([t.name for t in self.topics], listener=listener)
            self.consumers[cid] = PolledConsumer(consumer)

    def _consumer(self, client_id: str) -> tuple[Any, _Listener]:
        consumer = KafkaConsumer(
            bootstrap_servers=self.broker.bootstrap,
            group_id=self.group_id,
            client_id=client_id,
            group_instance_id=client_id if self.plan.static else None,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            fetch_max_wait_ms=100,
            session_timeout_ms=int(SESSION_TIMEOUT_S * 1000),
            heartbeat_interval_ms=int(HEARTBEAT_S * 1000),
            max_poll_interval_ms=int(MAX_POLL_S * 1000),
            request_timeout_ms=int(MAX_POLL_S * 1000) + 1000,
            partition_assignment_strategy=[adapters.ADAPTERS[self.plan.strategy]],
        )
        listener = _Listener(client_id, self.recorder)
        listener.consumer = consumer
        return consumer, listener

    def stop(self, client_ids: Sequence[str]) -> None:
        """Close them all at once, as a rollout stops a batch (dynamic members send
        LeaveGroup; static ones do not). One after the other, a batch's LeaveGroups would
        come in separate rebalances, which is not the plan."""
        closing = [self.consumers.pop(cid) for cid in client_ids]
        threads = [threading.Thread(target=c.close) for c in closing]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def close(self) -> None:
        self.stop(list(self.consumers))

    def everything(self) -> set[TopicPartition]:
        return {tp for t in self.topics for tp in t.topic_partitions()}

    def observe(self) -> tuple[dict[str, set[TopicPartition]], int] | None:
        """The settled state (module docstring) as (holdings by client, generation), or None."""
        description = self.broker.describe_group(self.group_id)
        members = description.get("members", [])
        if description.get("group_state") != "Stable":
            return None
        if sorted(m["client_id"] for m in members) != sorted(self.consumers):
            return None
        reported = {m["client_id"]: _reported(m) for m in members}
        held = {
            cid: {TopicPartition(tp.topic, tp.partition) for tp in c.consumer.assignment()}
            for cid, c in self.consumers.items()
        }
        generations = {generation_of(c.consumer) for c in self.consumers.values()}
        if held != reported or len(generations) != 1:
            return None
        if set().union(*held.values()) != self.everything():
            return None
        return held, generations.pop()

    def settle(self) -> tuple[dict[str, set[TopicPartition]], int]:
        """Wait (bounded by SETTLE_TIMEOUT_S) until the group is settled; its state."""
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while time.monotonic() < deadline:
            state = self.observe()
            if state is not None:
                return state
            time.sleep(POLL_S)
        errors = {cid: [repr(e) for e in c.errors[-3:]] for cid, c in self.consumers.items()}
        raise AssertionError(
            f"{self.plan.name}: not settled within {SETTLE_TIMEOUT_S:.0f} s;"
            f" {self.broker.describe_group(self.group_id)!r}; poll errors {errors}"
        )


def _reported(member: Mapping[str, Any]) -> set[TopicPartition]:
    assignment = member.get("member_assignment") or {}
    return {
        TopicPartition(entry["topic"], number)
        for entry in assignment.get("assigned_partitions", [])
        for number in entry["partitions"]
    }


@dataclass(frozen=True, slots=True)
class StepObserved:
    """One step as the group lived it."""

    action: str
    clients: tuple[str, ...]
    duration_s: float
    rebalances: int
    moved: int
    pause_s: Mapping[TopicPartition, float]


@dataclass(frozen=True, slots=True)
class Observed:
    """What the real deploy did (see the module docstring)."""

    plan: RealPlan
    before: Assignment
    """The settled assignment before the deploy, by client id."""
    steps: tuple[StepObserved, ...]

    @property
    def rebalances(self) -> int:
        return sum(s.rebalances for s in self.steps)

    @property
    def moved(self) -> int:
        return sum(s.moved for s in self.steps)

    @property
    def duration_s(self) -> float:
        return sum(s.duration_s for s in self.steps)

    def pause_s(self) -> dict[TopicPartition, float]:
        """Each partition's unread time over the whole deploy."""
        total: dict[TopicPartition, float] = {}
        for step in self.steps:
            for tp, seconds in step.pause_s.items():
                total[tp] = total.get(tp, 0.0) + seconds
        return total


def replay(
    events: Sequence[Event], holdings: Mapping[str, set[TopicPartition]], start: float
) -> tuple[int, dict[TopicPartition, float], float]:
    """Owner changes, each partition's unread time from ``start``, and the last event's time.

    ``holdings`` is who holds what at ``start``. A revocation frees a partition; an assignment
    gives it to a client (an owner change when the client is not the last one that held it).
    """
    held = {cid: set(tps) for cid, tps in holdings.items()}
    last_owner = {tp: cid for cid, tps in held.items() for tp in tps}
    free_since: dict[TopicPartition, float] = {}
    pause: dict[TopicPartition, float] = dict.fromkeys(last_owner, 0.0)
    moved = 0
    end = start
    for event in events:
        end = max(end, event.at)
        mine = held.setdefault(event.client, set())
        for tp in sorted(event.partitions):
            if event.kind == "revoked" and tp in mine:
                mine.discard(tp)
                free_since[tp] = event.at
            elif event.kind == "assigned" and tp not in mine:
                mine.add(tp)
                moved += last_owner.get(tp, event.client) != event.client
                last_owner[tp] = event.client
                if tp in free_since:
                    pause[tp] = pause.get(tp, 0.0) + event.at - free_since.pop(tp)
    for tp, since in free_since.items():  # never assigned again within the step
        pause[tp] = pause.get(tp, 0.0) + end - since
    return moved, pause, end


def _play_step(group: LiveGroup, action: str, clients: Sequence[str], restart_s: float) -> None:
    if action == "scale out":
        group.start(clients)
        return
    group.stop(clients)
    time.sleep(restart_s)
    group.start(clients)


def _group(broker: BrokerClientHelpers, plan: RealPlan, topics: tuple[Topic, ...]) -> Any:
    """kafka-python consumers, or Java ones for the consumer protocol (same methods)."""
    group_id = unique_name(f"ae-deploy-{plan.strategy}")
    if plan.consumer_protocol:
        from tests.kafka_cluster.cluster import KafkaCluster
        from tests.kafka_cluster.rolling_deploy_java import JavaLiveGroup

        assert isinstance(broker, KafkaCluster)
        return JavaLiveGroup(broker, plan, group_id, topics)
    return LiveGroup(broker, plan, group_id, topics)


def run_plan(broker: BrokerClientHelpers, plan: RealPlan) -> Observed:
    """Form the group, play ``plan`` on it step by step, and say what the group did."""
    names = [unique_name(f"deploy{i}") for i in range(plan.topics)]
    broker.create_topics(dict.fromkeys(names, plan.partitions))
    topics = tuple(Topic(name, plan.partitions) for name in names)
    group = _group(broker, plan, topics)
    try:
        group.start(plan.client_ids())
        holdings, generation = group.settle()
        before = Assignment.of(sorted(holdings), holdings)
        steps = []
        for action, clients in plan.steps():
            start = time.monotonic()
            _play_step(group, action, clients, plan.restart_s)
            after, now = group.settle()
            moved, pause, end = replay(group.recorder.since(start), holdings, start)
            steps.append(
                StepObserved(action, tuple(clients), end - start, now - generation, moved, pause)
            )
            holdings, generation = after, now
        return Observed(plan, before, tuple(steps))
    finally:
        group.close()


# --- the planner's side -------------------------------------------------------------------------


def predict(observed: Observed) -> DeployOutcome:
    """The planner's outcome for the same group, assignment, plan and timings."""
    plan = observed.plan
    topics = tuple(
        Topic(tp_topic, plan.partitions)
        for tp_topic in sorted(
            {tp.topic for tps in observed.before.partitions.values() for tp in tps}
        )
    )
    names = tuple(t.name for t in topics)
    scenario = Scenario(topics, tuple(Member(cid, names) for cid in plan.client_ids()))
    return plan_deploy(scenario, plan.strategy, plan.deploy_plan(), previous=observed.before)


def predicted_pause_s(outcome: DeployOutcome) -> dict[TopicPartition, float]:
    """Each partition's unread time over the predicted deploy (sum of its paused phases)."""
    total = dict.fromkeys(outcome.partitions, 0.0)
    for phase in outcome.timeline.phases:
        for tp in phase.paused:
            total[tp] = total.get(tp, 0.0) + phase.duration_s
    return total


# --- predicted against observed -----------------------------------------------------------------

#: Seconds per step, either way, by which a duration or a partition's pause may differ from the
#: prediction. What the planner leaves out: a new consumer's start (bootstrap, FindCoordinator,
#: the JoinGroup that asks for a member id, JoinGroup, SyncGroup; 0.1-1 s measured here), closing
#: a consumer, and when members notice a rebalance (anywhere within a heartbeat interval; the
#: planner takes one whole interval, so a real notice is up to HEARTBEAT_S sooner). Measured gaps
#: are in docs/prediction-accuracy.md: up to 1.5 s a step on the shared 2-core machine, 3.4 s
#: once when its load average was 40.
CLIENT_SLACK_S = 3.0


@dataclass(frozen=True, slots=True)
class Comparison:
    """One plan's predicted and observed figures, and whether they agree."""

    plan: RealPlan
    predicted_rebalances: int
    """What Kafka numbers: generations (one per round, the planner's ``rounds``) under the
    classic protocol, group epochs (one per target, the planner's ``rebalances``) under
    KIP-848's."""
    observed_rebalances: int
    predicted_moved: int
    observed_moved: int
    predicted_duration_s: float
    observed_duration_s: float
    predicted_pause_s: Mapping[TopicPartition, float]
    observed_pause_s: Mapping[TopicPartition, float]

    @property
    def steps(self) -> int:
        return len(self.plan.steps())

    @property
    def tolerance_s(self) -> float:
        """Allowed gap for the duration and for each partition's pause: CLIENT_SLACK_S a step."""
        return CLIENT_SLACK_S * self.steps

    def total_pause(self, observed: bool) -> float:
        """Partition-seconds unread over the deploy."""
        return sum((self.observed_pause_s if observed else self.predicted_pause_s).values())

    def max_pause(self, observed: bool) -> float:
        return max((self.observed_pause_s if observed else self.predicted_pause_s).values())

    def pause_gaps(self) -> dict[TopicPartition, float]:
        """Observed minus predicted unread time, per partition."""
        keys = set(self.predicted_pause_s) | set(self.observed_pause_s)
        return {
            tp: self.observed_pause_s.get(tp, 0.0) - self.predicted_pause_s.get(tp, 0.0)
            for tp in keys
        }

    def problems(self) -> list[str]:
        """What disagrees beyond the tolerance (empty: the prediction holds)."""
        found = []
        if self.observed_rebalances != self.predicted_rebalances:
            found.append(
                f"rebalances: predicted {self.predicted_rebalances},"
                f" observed {self.observed_rebalances}"
            )
        if self.observed_moved != self.predicted_moved and (
            self.plan.exact_moves or self.observed_moved > self.predicted_moved
        ):
            found.append(f"moved: predicted {self.predicted_moved}, observed {self.observed_moved}")
        if abs(self.observed_duration_s - self.predicted_duration_s) > self.tolerance_s:
            found.append(
                f"duration: predicted {self.predicted_duration_s:.2f} s, observed"
                f" {self.observed_duration_s:.2f} s (allowed: {self.tolerance_s:g} s either way)"
            )
        worst = {tp: g for tp, g in self.pause_gaps().items() if abs(g) > self.tolerance_s}
        if worst:
            tp, g = max(worst.items(), key=lambda item: abs(item[1]))
            found.append(
                f"pause of {len(worst)} partition(s) off by more than {self.tolerance_s:g} s,"
                f" e.g. {tp}: {g:+.2f} s"
            )
        return found


def compare(observed: Observed) -> Comparison:
    """The planner's prediction for ``observed``'s plan, next to what happened."""
    outcome = predict(observed)
    return Comparison(
        plan=observed.plan,
        predicted_rebalances=outcome.rebalances
        if observed.plan.consumer_protocol
        else outcome.rounds,
        observed_rebalances=observed.rebalances,
        predicted_moved=outcome.moved,
        observed_moved=observed.moved,
        predicted_duration_s=outcome.deploy_s,
        observed_duration_s=observed.duration_s,
        predicted_pause_s=predicted_pause_s(outcome),
        observed_pause_s=observed.pause_s(),
    )
