"""One question, one function: what happens to this group if this changes, under these strategies?

:func:`evaluate` is the core's front door. The dashboard, the CLI's ``compare``, the pipeline's
what-if and replay and the walkthroughs all ask it, and none of them calls the simulator, the
metrics or the drain projection on its own.

Steps (each after the first two runs only when a caller asks for its answer, once):

1. The before: the scenario's current assignment
   (:func:`assignors.simulate.changes.current_assignment`, or ``previous`` when given).
2. The after: the changes applied in order as one change to the group
   (:func:`assignors.simulate.changes.apply_changes`); a change that does not fit raises
   :class:`~assignors.simulate.changes.ChangeError` from :func:`evaluate` itself.
3. Per strategy, its :class:`StrategyEvaluation`:

   a. ``target``: where the strategy takes the group (:func:`assignors.simulate.rebalance.settle`,
      a cooperative strategy round after round);
   b. ``movement``: what changes owner between the current assignment and the target;
   c. ``simulation``: the rebalance played under the strategy's own protocol, and
      ``protocol_run(p)`` the same target played under protocol ``p`` (eager, cooperative,
      consumer);
   d. ``metrics``: :func:`assignors.simulate.metrics.assignment_metrics` of the target against
      the current assignment;
   e. ``drain(horizon_s, step_s)``: the lag-drain projection after the rebalance; ``capacity``:
      whether the group keeps up with its producers once the target holds
      (:func:`assignors.simulate.capacity.capacity`);
   f. ``explanation``: why each partition is where it is (:mod:`assignors.trace`): the
      strategy run again on the after with a recorder; for a cooperative strategy its first
      round, whose withheld partitions name the owner the follow-up rebalance gives them; with
      no rebalance (static members restarting), the one decision that everyone keeps what it
      holds. Never computed unless asked for, so the normal answers pay nothing for it.

   f. ``deploy`` (when :func:`evaluate` is given ``deploy=``): the deploy plan played on the
      after, the strategy being the group's assignor
      (:func:`assignors.simulate.deploy.plan_deploy`), and ``deploy_ranking`` the plan's
      alternatives ranked on every cost (:func:`assignors.simulate.deploy_rank.rank_deploys`),
      and ``deploy_scale_options`` its scale step at other sizes and with a strategy change
      (:func:`assignors.simulate.deploy_scale.scale_options`; a scale step alone is played
      once for both answers).

4. The before's own figures: ``current_metrics``, ``current_drain(...)`` and
   ``current_capacity`` (no rebalance).

Invariants: an :class:`Evaluation` and its :class:`StrategyEvaluation` objects never change what
they answer (each answer is computed at most once per object and kept; the objects are frozen
apart from that private memo); ``strategies`` lists each requested strategy once, in the order
first requested; a strategy that cannot run (unknown, a Streams task strategy, a strategy that
refuses the scenario) carries its message in ``error`` and raises
:class:`~assignors.errors.AssignmentExplorerError` only when one of its answers is asked for,
never from :func:`evaluate`; every answer equals the function named in step 3 called by hand with
the same inputs. Pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from assignors.errors import AssignmentExplorerError
from assignors.kafka_versions import parse_kafka_version
from assignors.model import Assignment, Scenario, TopicPartition
from assignors.simulate import capacity as capacity_ops
from assignors.simulate import changes as change_ops
from assignors.simulate import deploy as deploy_ops
from assignors.simulate import deploy_rank, deploy_scale, rebalance
from assignors.simulate import drain as drain_ops
from assignors.simulate import metrics as metric_ops
from assignors.simulate.deploy_plan import DeployError, DeployPlan
from assignors.strategy import PartitionStrategy, RebalanceProtocol
from assignors.trace import DecisionTrace, Explanation

T = TypeVar("T")

#: The protocols a target can be played under (:func:`assignors.simulate.rebalance.plan_rebalance`).
PROTOCOLS: tuple[RebalanceProtocol, ...] = ("eager", "cooperative", "consumer")
#: Seconds the drain is projected over when the caller names no horizon.
DEFAULT_HORIZON_S = 3600.0


def default_step(horizon_s: float) -> float:
    """The drain's grid step when none is given: 240 steps over the horizon, at least 1 s."""
    return max(1.0, horizon_s / 240)


def _memo(memo: dict[Any, Any], key: Any, build: Callable[[], T]) -> T:
    """``memo[key]``, built once with ``build()``."""
    if key not in memo:
        memo[key] = build()
    result: T = memo[key]
    return result


@dataclass(frozen=True)
class StrategyEvaluation:
    """One strategy on the change: target, movement, rebalance, metrics, drain, each on request.

    ``strategy`` is ``None`` (and ``error`` set at once) when the name is unknown or names a
    Kafka Streams task strategy. ``error`` is also set, after the target was asked for, when the
    strategy refuses the scenario.
    """

    name: str
    strategy: PartitionStrategy | None
    evaluation: Evaluation = field(repr=False, compare=False)
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def settlement(self) -> rebalance.Settlement:
        """The target and, for a cooperative strategy, its rounds (step 3a)."""
        return _memo(self._memo, "settlement", self._settle)

    def _settle(self) -> rebalance.Settlement:
        failure = self._memo.get("failure")
        if failure is not None:
            raise failure
        ev = self.evaluation
        try:
            return rebalance.settle(
                ev.before,
                ev.after,
                self.name if self.strategy is None else self.strategy,
                restarted=ev.restarted,
                previous=ev.current,
            )
        except AssignmentExplorerError as error:
            self._memo["failure"] = error
            raise

    @property
    def error(self) -> str | None:
        """Why the strategy cannot run on this change (computes the target), else ``None``."""
        try:
            _ = self.settlement
        except AssignmentExplorerError as error:
            return str(error)
        return None

    @property
    def target(self) -> Assignment:
        """Where the strategy takes the group (step 3a)."""
        return self.settlement.target

    @property
    def movement(self) -> metric_ops.Movement:
        """What changes owner from the current assignment to the target (step 3b)."""
        if "metrics" in self._memo:
            return self.metrics.movement
        return _memo(
            self._memo,
            "movement",
            lambda: metric_ops.movement(self.evaluation.current, self.target),
        )

    @property
    def simulation(self) -> rebalance.RebalanceSimulation:
        """The rebalance under the strategy's own protocol (step 3c)."""
        ev = self.evaluation
        return _memo(
            self._memo,
            "simulation",
            lambda: rebalance.play(self.settlement, timings=ev.timings, restarted=ev.restarted),
        )

    def protocol_run(
        self, protocol: RebalanceProtocol, timings: rebalance.Timings | None = None
    ) -> rebalance.RebalanceSimulation:
        """The same target played under ``protocol`` (step 3c), from the current assignment,
        with the evaluation's timings or ``timings`` (to replay it with other durations; the
        target does not depend on them). The change is the same whatever the protocol: static
        members that left silently are noticed after the session timeout, and a change of
        nothing but static restarts triggers no rebalance under any protocol."""
        ev = self.evaluation
        chosen = ev.timings if timings is None else timings
        settled = self.settlement
        return _memo(
            self._memo,
            ("protocol", protocol) if chosen == ev.timings else ("protocol", protocol, chosen),
            lambda: rebalance.plan_rebalance(
                protocol,
                ev.current,
                self.target,
                timings=chosen,
                restarted=ev.restarted,
                rebalance=settled.rebalances,
                silent_departures=settled.silent_departures,
                epoch=settled.epoch,
            ),
        )

    def protocol_runs(self) -> dict[RebalanceProtocol, rebalance.RebalanceSimulation]:
        """:meth:`protocol_run` for each of the evaluation's ``protocols``, in that order."""
        return {protocol: self.protocol_run(protocol) for protocol in self.evaluation.protocols}

    @property
    def metrics(self) -> metric_ops.AssignmentMetrics:
        """The target measured against the current assignment (step 3d)."""
        ev = self.evaluation
        return _memo(
            self._memo,
            "metrics",
            lambda: metric_ops.assignment_metrics(
                ev.after, self.target, ev.current, topic_lags=ev.topic_lags
            ),
        )

    @property
    def explanation(self) -> Explanation:
        """Why each partition is where it is (step 3f), computed on first request."""
        return _memo(self._memo, "explanation", self._explain)

    def _explain(self) -> Explanation:
        settlement = self.settlement
        if settlement.rebalances:
            return settlement.strategy.explain(self.evaluation.after)
        trace = DecisionTrace()
        trace.note("no rebalance: only static members restart, within the session timeout")
        for member_id, partitions in settlement.target.partitions.items():
            trace.place_all(partitions, member_id, "no rebalance", f"{member_id} keeps it")
        return Explanation(self.name, settlement.target, tuple(trace.notes), tuple(trace.decisions))

    def drain(
        self, horizon_s: float | None = None, step_s: float | None = None
    ) -> drain_ops.DrainProjection:
        """The backlog after the rebalance (step 3e); defaults: the evaluation's horizon/step."""
        ev = self.evaluation
        horizon, step = ev.grid(horizon_s, step_s)
        return _memo(
            self._memo,
            ("drain", horizon, step),
            lambda: drain_ops.project_drain(
                ev.after,
                self.simulation,
                horizon_s=horizon,
                step_s=step,
                default_consume_rate=ev.default_consume_rate,
                lags=ev.lags,
            ),
        )

    def _deploy_plan(self) -> DeployPlan:
        plan = self.evaluation.deploy
        if plan is None:
            raise DeployError("no deploy plan was given to evaluate(..., deploy=...)")
        if self.strategy is None:
            _ = self.settlement  # raises the strategy's own error
        return plan

    @property
    def deploy(self) -> deploy_ops.DeployOutcome:
        """The deploy plan played on the after with this strategy as the group's (step 3f)."""
        ev = self.evaluation
        return _memo(
            self._memo,
            "deploy",
            lambda: deploy_ops.plan_deploy(
                ev.after,
                self.strategy or self.name,
                self._deploy_plan(),
                default_consume_rate=ev.default_consume_rate,
            ),
        )

    @property
    def capacity(self) -> capacity_ops.Capacity:
        """Whether the group keeps up once this strategy's target holds on the after (step 3;
        :func:`assignors.simulate.capacity.capacity`)."""
        ev = self.evaluation
        return _memo(
            self._memo,
            "capacity",
            lambda: capacity_ops.capacity(ev.after, self.target, ev.default_consume_rate),
        )

    @property
    def deploy_scale_options(self) -> tuple[deploy_scale.ScaleOption, ...]:
        """The deploy plan's scale step at other sizes (empty without one; step 3f)."""
        ev = self.evaluation
        return _memo(
            self._memo,
            "deploy_scale_options",
            lambda: deploy_scale.scale_options(
                ev.after,
                self.strategy or self.name,
                self._deploy_plan(),
                default_consume_rate=ev.default_consume_rate,
                known=self._deploy_if_it_runs() if self._deploy_plan().scale else None,
            ),
        )

    def _deploy_if_it_runs(self) -> deploy_ops.DeployOutcome | None:
        """:attr:`deploy`, or None when the plan cannot run (the ranking then says why)."""
        try:
            return self.deploy
        except AssignmentExplorerError:
            return None

    @property
    def deploy_ranking(self) -> deploy_rank.DeployRanking:
        """The deploy plan and its alternatives, ranked (step 3f)."""
        ev = self.evaluation
        return _memo(
            self._memo,
            "deploy_ranking",
            lambda: deploy_rank.rank_deploys(
                ev.after,
                self.strategy or self.name,
                self._deploy_plan(),
                default_consume_rate=ev.default_consume_rate,
                known=self._deploy_if_it_runs(),  # played once for both answers
            ),
        )


@dataclass(frozen=True)
class Evaluation:
    """A change to a group and what each strategy makes of it (see the module docstring).

    ``before`` is the scenario as given, ``current`` what it consumes now, ``after`` the scenario
    after the changes with every member owning its part of ``current``; ``restarted`` the static
    members that restart (no rebalance by themselves). ``strategies`` holds one
    :class:`StrategyEvaluation` per distinct requested strategy.
    """

    before: Scenario
    after: Scenario
    changes: tuple[change_ops.Change, ...]
    restarted: tuple[str, ...]
    current: Assignment
    requested: tuple[str | PartitionStrategy, ...]
    protocols: tuple[RebalanceProtocol, ...] = PROTOCOLS
    timings: rebalance.Timings = field(default_factory=rebalance.Timings)
    horizon_s: float = DEFAULT_HORIZON_S
    step_s: float | None = None
    default_consume_rate: float = drain_ops.DEFAULT_CONSUME_RATE
    deploy: DeployPlan | None = None
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def changed(self) -> bool:
        """Whether the change does anything to membership, subscriptions or topics."""
        return bool(self.changes)

    @property
    def strategies(self) -> tuple[StrategyEvaluation, ...]:
        """One per distinct requested strategy, in the order first requested."""
        return _memo(self._memo, "strategies", self._strategies)

    def _strategies(self) -> tuple[StrategyEvaluation, ...]:
        result: dict[str, StrategyEvaluation] = {}
        for wanted in self.requested:
            name = wanted if isinstance(wanted, str) else wanted.name
            if name in result:
                continue
            item = StrategyEvaluation(name, None, self)
            try:
                item = StrategyEvaluation(name, rebalance.partition_strategy(wanted), self)
            except AssignmentExplorerError as error:
                item._memo["failure"] = error
            result[name] = item
        return tuple(result.values())

    def strategy(self, name: str) -> StrategyEvaluation:
        """The evaluation of strategy ``name`` (``KeyError`` when it was not requested)."""
        for item in self.strategies:
            if item.name == name:
                return item
        raise KeyError(name)

    @property
    def lags(self) -> Mapping[TopicPartition, int]:
        """Lag per partition of the after (the metrics and the drain share it)."""
        return _memo(self._memo, "lags", lambda: metric_ops.lag_by_partition(self.after))

    @property
    def topic_lags(self) -> Mapping[str, list[int]]:
        """Lag per partition of the after, per topic by partition number (the metrics' form of
        :attr:`lags`: the same figures without a key per partition)."""
        return _memo(self._memo, "topic_lags", lambda: metric_ops.lags_by_topic(self.after))

    def grid(self, horizon_s: float | None, step_s: float | None) -> tuple[float, float]:
        """The drain's horizon and step: as given, else the evaluation's, else the defaults."""
        horizon = self.horizon_s if horizon_s is None else horizon_s
        step = step_s if step_s is not None else self.step_s
        return horizon, default_step(horizon) if step is None else step

    @property
    def current_metrics(self) -> metric_ops.AssignmentMetrics:
        """The current assignment measured on the before, against itself (step 4)."""
        return _memo(
            self._memo,
            "current_metrics",
            lambda: metric_ops.assignment_metrics(self.before, self.current, self.current),
        )

    @property
    def current_capacity(self) -> capacity_ops.Capacity:
        """Whether the group keeps up with its producers on its current assignment (step 4;
        :func:`assignors.simulate.capacity.capacity`)."""
        return _memo(
            self._memo,
            "current_capacity",
            lambda: capacity_ops.capacity(self.before, self.current, self.default_consume_rate),
        )

    def current_drain(
        self, horizon_s: float | None = None, step_s: float | None = None
    ) -> drain_ops.DrainProjection:
        """The backlog if the group keeps its current assignment, from ``t = 0`` (step 4)."""
        horizon, step = self.grid(horizon_s, step_s)
        return _memo(
            self._memo,
            ("current_drain", horizon, step),
            lambda: drain_ops.project_drain(
                self.before,
                None,
                assignment=self.current,
                horizon_s=horizon,
                step_s=step,
                default_consume_rate=self.default_consume_rate,
                lags=metric_ops.lag_by_partition(self.before),
            ),
        )


def evaluate(
    scenario: Scenario,
    changes: Sequence[change_ops.Change],
    strategies: Sequence[str | PartitionStrategy],
    *,
    protocols: Collection[RebalanceProtocol] = PROTOCOLS,
    horizon_s: float | None = None,
    step_s: float | None = None,
    previous: Assignment | None = None,
    timings: rebalance.Timings | None = None,
    default_consume_rate: float = drain_ops.DEFAULT_CONSUME_RATE,
    deploy: DeployPlan | None = None,
    kafka_version: str | None = None,
) -> Evaluation:
    """What ``changes`` do to ``scenario`` under each of ``strategies`` (steps 1-2 run now).

    ``kafka_version`` (a release line of :data:`assignors.kafka_versions.KAFKA_VERSIONS`), when
    given, replaces the scenario's own: the Kafka release the version-dependent strategies
    reproduce (:class:`~assignors.errors.ScenarioError` for an unknown one).

    ``previous`` overrides the current assignment (default:
    :func:`assignors.simulate.changes.current_assignment`); ``protocols`` are those
    :meth:`StrategyEvaluation.protocol_runs` plays; ``horizon_s`` and ``step_s`` the drain's
    defaults (:data:`DEFAULT_HORIZON_S`, :func:`default_step`); ``timings`` the rebalance's
    durations; ``deploy`` a deploy plan each strategy's ``deploy`` and ``deploy_ranking``
    play. Raises :class:`~assignors.simulate.changes.ChangeError` when a change does not
    fit and the core's errors when the current assignment cannot be computed; a strategy that
    cannot run reports it in its own ``error``.
    """
    if kafka_version is not None:
        scenario = replace(scenario, kafka_version=parse_kafka_version(kafka_version))
    current = change_ops.current_assignment(scenario) if previous is None else previous
    change_list = tuple(changes)
    after = change_ops.apply_changes(scenario, change_list, current)
    return Evaluation(
        before=scenario,
        after=after,
        changes=change_list,
        restarted=change_ops.restarted_members(change_list),
        current=current,
        requested=tuple(strategies),
        protocols=tuple(p for p in PROTOCOLS if p in protocols),
        timings=rebalance.Timings() if timings is None else timings,
        horizon_s=DEFAULT_HORIZON_S if horizon_s is None else horizon_s,
        step_s=step_s,
        default_consume_rate=default_consume_rate,
        deploy=deploy,
    )
