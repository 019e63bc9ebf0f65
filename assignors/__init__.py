"""Kafka's partition assignment strategies (and Kafka Streams' task assignment) as pure Python.

Standard library only: importing this package, or any module in it, imports nothing outside
Python's standard library (a test blocks every third-party import and imports the whole core).

Layout (each sub-package's docstring says what it holds and what it may import):

* top level: :mod:`.model` (the frozen data), :mod:`.strategy` (what a strategy is),
  :mod:`.registry` (strategies by name), :mod:`.errors`, :mod:`.java_order` (Java's hash and
  heap orders where Kafka's answers depend on them), :mod:`.gc_pause`;
* :mod:`.client`: Kafka's client-side assignors; :mod:`.broker`: the broker-side (KIP-848) ones;
  :mod:`.streams`: Kafka Streams task assignment; :mod:`.seeds`: the design documents' strategies;
* :mod:`.simulate`: changes, lag, metrics, rebalance, drain, and :func:`.evaluate` on top;
* :mod:`.io`: the scenario format and walkthrough files; :mod:`.cli`: ``python -m assignors``.

Shells (the dashboard, the pipeline, the cluster reader, the adapters) import the names listed in
``__all__`` below and nothing deeper.

Importing the package is cheap: each public name's module is imported the first time the name is
read (PEP 562 ``__getattr__``), so ``python -m assignors assign --strategy range`` loads the
range assignor and the scenario reader, not the simulator, the deploy planner or Kafka Streams.
The names are listed three times, each checked against the others by
``tests/assignors/test_lazy_package.py``: the ``TYPE_CHECKING`` imports (what type checkers and
readers see), the tables :data:`_DEFINED_IN` and :data:`_RENAMED` (what is imported at run time),
and ``__all__``.

May import: :mod:`assignors` (its top-level modules; each sub-package states its own rule).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assignors import registry
    from assignors.errors import (
        AssignmentExplorerError,
        ScenarioError,
        StrategyNotApplicableError,
        UnknownStrategyError,
    )
    from assignors.io.changes import (
        MAX_CHANGES,
        TEXT_FORMS,
        ChangeFormatError,
        change_from_text,
        change_to_json,
        parse_change,
        parse_change_text,
        parse_changes,
    )
    from assignors.io.from_describe import parse_partition_counts, scenario_from_describe
    from assignors.io.json_safe import JsonInputError, check_json_value, decode_json
    from assignors.io.scenario import (
        MAX_FILE_BYTES,
        decode_scenario_text,
        dumps_scenario,
        load_scenario_file,
        member_to_json,
        parse_scenario,
        parse_scenario_text,
        read_json_file,
        scenario_to_json,
    )
    from assignors.io.walkthrough import WalkthroughStep, apply_step, parse_walkthrough
    from assignors.kafka_versions import (
        KAFKA_VERSIONS,
        NEWEST_KAFKA_VERSION,
        parse_kafka_version,
        release_line,
    )
    from assignors.limits import (
        MAX_MEMBERS,
        MAX_NAME_LENGTH,
        MAX_PARTITIONS_PER_TOPIC,
        MAX_TOPICS,
        MAX_TOTAL_PARTITIONS,
    )
    from assignors.model import (
        LOWEST_PRIORITY,
        Assignment,
        AutoOffsetReset,
        Member,
        MemberReconciliation,
        PartitionRuns,
        Reconciliation,
        Scenario,
        Topic,
        TopicPartition,
    )
    from assignors.seeds.stream_join_sticky import next_epoch
    from assignors.simulate.capacity import Capacity
    from assignors.simulate.changes import (
        DEFAULT_ASSIGNOR,
        SKEW_FACTOR,
        SKEW_FLOOR,
        AddMember,
        AddMembers,
        Change,
        ChangeError,
        RemoveMember,
        SetLags,
        SetPartitions,
        SetProduceRates,
        SkewLag,
        Subscribe,
        apply_in_order,
        apply_one,
        current_assignment,
        with_current_ownership,
    )
    from assignors.simulate.changes import describe as describe_change
    from assignors.simulate.deploy import DeployFrame, DeployOutcome, DeployStep
    from assignors.simulate.deploy_costs import COSTS as DEPLOY_COSTS
    from assignors.simulate.deploy_costs import DEFAULT_WEIGHTS as DEFAULT_DEPLOY_WEIGHTS
    from assignors.simulate.deploy_costs import Cost as DeployCost
    from assignors.simulate.deploy_costs import WeightsError as DeployWeightsError
    from assignors.simulate.deploy_costs import check_weights as check_deploy_weights
    from assignors.simulate.deploy_plan import UPGRADES, DeployError, DeployPlan, DeploySettings
    from assignors.simulate.deploy_rank import (
        DeployAlternative,
        DeployRanking,
        short_count,
        short_seconds,
    )
    from assignors.simulate.deploy_scale import ScaleOption
    from assignors.simulate.drain import (
        DEFAULT_CONSUME_RATE,
        DrainProjection,
        MemberDrain,
        exact_sum,
        produce_rate_by_partition,
    )
    from assignors.simulate.evaluate import (
        DEFAULT_HORIZON_S,
        PROTOCOLS,
        Evaluation,
        StrategyEvaluation,
        default_step,
        evaluate,
    )
    from assignors.simulate.lag import partition_lag, partition_lags
    from assignors.simulate.metrics import (
        AssignmentMetrics,
        Movement,
        PartitionMove,
        lag_by_partition,
    )
    from assignors.simulate.rebalance import Phase, RebalanceSimulation, Timings
    from assignors.simulate.reconciliation import (
        TASK_KINDS,
        MemberProgress,
        ReadingChanges,
        StreamsMemberProgress,
        StreamsReadingChanges,
        current_partitions,
        reading_changes,
        reconciliation_progress,
        streams_reading_changes,
        streams_reconciliation_progress,
    )
    from assignors.strategy import PartitionStrategy, RebalanceProtocol, Strategy, TaskStrategy
    from assignors.streams.client_sticky import assign_streams_sticky
    from assignors.streams.compare import TaskComparison, compare_task_strategies
    from assignors.streams.convergence import Convergence, simulate_convergence
    from assignors.streams.group_sticky import (
        MemberTasks,
        StreamsGroupAssignment,
        assign_streams_group_sticky,
        streams_group_assignment_to_json,
    )
    from assignors.streams.model import (
        LATEST_OFFSET,
        MIN_PROBING_REBALANCE_INTERVAL_MS,
        UNKNOWN_OFFSET,
        ClientAssignment,
        StreamsAssignment,
        StreamsMember,
        StreamsMemberReconciliation,
        StreamsReconciliation,
        StreamsScenario,
        parse_streams_scenario,
        streams_assignment_to_json,
        streams_scenario_to_json,
    )
    from assignors.trace import Decision, DecisionTrace, Explanation, Note, PartitionTrace

#: Module -> the public names it defines, exported under the same name.
_DEFINED_IN: dict[str, tuple[str, ...]] = {
    "assignors.errors": (
        "AssignmentExplorerError",
        "ScenarioError",
        "StrategyNotApplicableError",
        "UnknownStrategyError",
    ),
    "assignors.io.changes": (
        "MAX_CHANGES",
        "TEXT_FORMS",
        "ChangeFormatError",
        "change_from_text",
        "change_to_json",
        "parse_change",
        "parse_change_text",
        "parse_changes",
    ),
    "assignors.io.from_describe": (
        "parse_partition_counts",
        "scenario_from_describe",
    ),
    "assignors.io.json_safe": (
        "JsonInputError",
        "check_json_value",
        "decode_json",
    ),
    "assignors.io.scenario": (
        "MAX_FILE_BYTES",
        "decode_scenario_text",
        "dumps_scenario",
        "load_scenario_file",
        "member_to_json",
        "parse_scenario",
        "parse_scenario_text",
        "read_json_file",
        "scenario_to_json",
    ),
    "assignors.io.walkthrough": (
        "WalkthroughStep",
        "apply_step",
        "parse_walkthrough",
    ),
    "assignors.kafka_versions": (
        "KAFKA_VERSIONS",
        "NEWEST_KAFKA_VERSION",
        "parse_kafka_version",
        "release_line",
    ),
    "assignors.limits": (
        "MAX_MEMBERS",
        "MAX_NAME_LENGTH",
        "MAX_PARTITIONS_PER_TOPIC",
        "MAX_TOPICS",
        "MAX_TOTAL_PARTITIONS",
    ),
    "assignors.model": (
        "LOWEST_PRIORITY",
        "Assignment",
        "AutoOffsetReset",
        "Member",
        "MemberReconciliation",
        "PartitionRuns",
        "Reconciliation",
        "Scenario",
        "Topic",
        "TopicPartition",
    ),
    "assignors.seeds.stream_join_sticky": ("next_epoch",),
    "assignors.simulate.capacity": ("Capacity",),
    "assignors.simulate.changes": (
        "DEFAULT_ASSIGNOR",
        "SKEW_FACTOR",
        "SKEW_FLOOR",
        "AddMember",
        "AddMembers",
        "Change",
        "ChangeError",
        "RemoveMember",
        "SetLags",
        "SetPartitions",
        "SetProduceRates",
        "SkewLag",
        "Subscribe",
        "apply_in_order",
        "apply_one",
        "current_assignment",
        "with_current_ownership",
    ),
    "assignors.simulate.deploy": (
        "DeployFrame",
        "DeployOutcome",
        "DeployStep",
    ),
    "assignors.simulate.deploy_plan": (
        "UPGRADES",
        "DeployError",
        "DeployPlan",
        "DeploySettings",
    ),
    "assignors.simulate.deploy_rank": (
        "DeployAlternative",
        "DeployRanking",
        "short_count",
        "short_seconds",
    ),
    "assignors.simulate.deploy_scale": ("ScaleOption",),
    "assignors.simulate.drain": (
        "DEFAULT_CONSUME_RATE",
        "DrainProjection",
        "MemberDrain",
        "exact_sum",
        "produce_rate_by_partition",
    ),
    "assignors.simulate.evaluate": (
        "DEFAULT_HORIZON_S",
        "PROTOCOLS",
        "Evaluation",
        "StrategyEvaluation",
        "default_step",
        "evaluate",
    ),
    "assignors.simulate.lag": (
        "partition_lag",
        "partition_lags",
    ),
    "assignors.simulate.metrics": (
        "AssignmentMetrics",
        "Movement",
        "PartitionMove",
        "lag_by_partition",
    ),
    "assignors.simulate.rebalance": (
        "Phase",
        "RebalanceSimulation",
        "Timings",
    ),
    "assignors.simulate.reconciliation": (
        "TASK_KINDS",
        "MemberProgress",
        "ReadingChanges",
        "StreamsMemberProgress",
        "StreamsReadingChanges",
        "current_partitions",
        "reading_changes",
        "reconciliation_progress",
        "streams_reading_changes",
        "streams_reconciliation_progress",
    ),
    "assignors.strategy": (
        "PartitionStrategy",
        "RebalanceProtocol",
        "Strategy",
        "TaskStrategy",
    ),
    "assignors.streams.client_sticky": ("assign_streams_sticky",),
    "assignors.streams.compare": (
        "TaskComparison",
        "compare_task_strategies",
    ),
    "assignors.streams.convergence": (
        "Convergence",
        "simulate_convergence",
    ),
    "assignors.streams.group_sticky": (
        "MemberTasks",
        "StreamsGroupAssignment",
        "assign_streams_group_sticky",
        "streams_group_assignment_to_json",
    ),
    "assignors.streams.model": (
        "LATEST_OFFSET",
        "MIN_PROBING_REBALANCE_INTERVAL_MS",
        "UNKNOWN_OFFSET",
        "ClientAssignment",
        "StreamsAssignment",
        "StreamsMember",
        "StreamsMemberReconciliation",
        "StreamsReconciliation",
        "StreamsScenario",
        "parse_streams_scenario",
        "streams_assignment_to_json",
        "streams_scenario_to_json",
    ),
    "assignors.trace": (
        "Decision",
        "DecisionTrace",
        "Explanation",
        "Note",
        "PartitionTrace",
    ),
}
#: Public name -> (module, the name there), for the names exported under another name.
_RENAMED: dict[str, tuple[str, str]] = {
    "describe_change": ("assignors.simulate.changes", "describe"),
    "DEPLOY_COSTS": ("assignors.simulate.deploy_costs", "COSTS"),
    "DEFAULT_DEPLOY_WEIGHTS": ("assignors.simulate.deploy_costs", "DEFAULT_WEIGHTS"),
    "DeployCost": ("assignors.simulate.deploy_costs", "Cost"),
    "DeployWeightsError": ("assignors.simulate.deploy_costs", "WeightsError"),
    "check_deploy_weights": ("assignors.simulate.deploy_costs", "check_weights"),
}

#: Public name -> (module, the name there; "" for the module itself).
_WHERE: dict[str, tuple[str, str]] = {
    "registry": ("assignors.registry", ""),
    **{name: (module, name) for module, names in _DEFINED_IN.items() for name in names},
    **_RENAMED,
}


def _public(name: str) -> object:
    """The public ``name``, its module imported on first use and the value kept in the package
    (so ``__getattr__`` runs once per name); ``AttributeError`` for a name not exported."""
    if name not in _WHERE:
        raise AttributeError(f"module 'assignors' has no attribute {name!r}")
    module_name, attribute = _WHERE[name]
    module = importlib.import_module(module_name)
    value = getattr(module, attribute) if attribute else module
    globals()[name] = value
    return value


def _names() -> list[str]:
    """``dir(assignors)``: what is loaded already and every public name."""
    return sorted(set(globals()) | set(_WHERE))


if not TYPE_CHECKING:  # type checkers see the imports above, and no catch-all __getattr__
    __getattr__ = _public
    __dir__ = _names

__all__ = [
    "DEFAULT_ASSIGNOR",
    "DEFAULT_CONSUME_RATE",
    "DEFAULT_DEPLOY_WEIGHTS",
    "DEFAULT_HORIZON_S",
    "DEPLOY_COSTS",
    "KAFKA_VERSIONS",
    "LATEST_OFFSET",
    "LOWEST_PRIORITY",
    "MAX_CHANGES",
    "MAX_FILE_BYTES",
    "MAX_MEMBERS",
    "MAX_NAME_LENGTH",
    "MAX_PARTITIONS_PER_TOPIC",
    "MAX_TOPICS",
    "MAX_TOTAL_PARTITIONS",
    "MIN_PROBING_REBALANCE_INTERVAL_MS",
    "NEWEST_KAFKA_VERSION",
    "PROTOCOLS",
    "SKEW_FACTOR",
    "SKEW_FLOOR",
    "TASK_KINDS",
    "TEXT_FORMS",
    "UNKNOWN_OFFSET",
    "UPGRADES",
    "AddMember",
    "AddMembers",
    "Assignment",
    "AssignmentExplorerError",
    "AssignmentMetrics",
    "AutoOffsetReset",
    "Capacity",
    "Change",
    "ChangeError",
    "ChangeFormatError",
    "ClientAssignment",
    "Convergence",
    "Decision",
    "DecisionTrace",
    "DeployAlternative",
    "DeployCost",
    "DeployError",
    "DeployFrame",
    "DeployOutcome",
    "DeployPlan",
    "DeployRanking",
    "DeploySettings",
    "DeployStep",
    "DeployWeightsError",
    "DrainProjection",
    "Evaluation",
    "Explanation",
    "JsonInputError",
    "Member",
    "MemberDrain",
    "MemberProgress",
    "MemberReconciliation",
    "MemberTasks",
    "Movement",
    "Note",
    "PartitionMove",
    "PartitionRuns",
    "PartitionStrategy",
    "PartitionTrace",
    "Phase",
    "ReadingChanges",
    "RebalanceProtocol",
    "RebalanceSimulation",
    "Reconciliation",
    "RemoveMember",
    "ScaleOption",
    "Scenario",
    "ScenarioError",
    "SetLags",
    "SetPartitions",
    "SetProduceRates",
    "SkewLag",
    "Strategy",
    "StrategyEvaluation",
    "StrategyNotApplicableError",
    "StreamsAssignment",
    "StreamsGroupAssignment",
    "StreamsMember",
    "StreamsMemberProgress",
    "StreamsMemberReconciliation",
    "StreamsReadingChanges",
    "StreamsReconciliation",
    "StreamsScenario",
    "Subscribe",
    "TaskComparison",
    "TaskStrategy",
    "Timings",
    "Topic",
    "TopicPartition",
    "UnknownStrategyError",
    "WalkthroughStep",
    "apply_in_order",
    "apply_one",
    "apply_step",
    "assign_streams_group_sticky",
    "assign_streams_sticky",
    "change_from_text",
    "change_to_json",
    "check_deploy_weights",
    "check_json_value",
    "compare_task_strategies",
    "current_assignment",
    "current_partitions",
    "decode_json",
    "decode_scenario_text",
    "default_step",
    "describe_change",
    "dumps_scenario",
    "evaluate",
    "exact_sum",
    "lag_by_partition",
    "load_scenario_file",
    "member_to_json",
    "next_epoch",
    "parse_change",
    "parse_change_text",
    "parse_changes",
    "parse_kafka_version",
    "parse_partition_counts",
    "parse_scenario",
    "parse_scenario_text",
    "parse_streams_scenario",
    "parse_walkthrough",
    "partition_lag",
    "partition_lags",
    "produce_rate_by_partition",
    "read_json_file",
    "reading_changes",
    "reconciliation_progress",
    "registry",
    "release_line",
    "scenario_from_describe",
    "scenario_to_json",
    "short_count",
    "short_seconds",
    "simulate_convergence",
    "streams_assignment_to_json",
    "streams_group_assignment_to_json",
    "streams_reading_changes",
    "streams_reconciliation_progress",
    "streams_scenario_to_json",
    "with_current_ownership",
]
