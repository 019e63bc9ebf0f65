package oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.assignment.ClientState;
import org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.RackAwareTaskAssignor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Kafka Streams' HighAvailabilityTaskAssignor (KIP-441, rack awareness off) on the project's
 * Streams scenario: one ClientState per client (previous active / standby tasks, the lag of every
 * stateful task as given, -2 and -3 included, its capacity), the four configs, and a
 * RackAwareTaskAssignor that cannot enable itself (strategy "none").
 *
 * <p>Kafka keeps the warm-up replicas it hands out in a local map and returns them as standbys.
 * To label them, the answer replays assign's steps on a copy of the clients through the same
 * Kafka methods (reflection) and records that map; the replay must reproduce assign's answer
 * exactly, or the request gets an error.
 */
final class StreamsHaAssignor implements Assignor {

    @Override
    public Call prepare(JsonNode json) {
        Set<TaskId> all = new HashSet<>();
        Set<TaskId> stateful = new HashSet<>();
        for (JsonNode task : json.path("tasks")) {
            TaskId id = TaskId.parse(task.path("id").asText());
            all.add(id);
            if (task.path("stateful").asBoolean(false)) {
                stateful.add(id);
            }
        }
        JsonNode config = json.path("config");
        AssignmentConfigs configs = new AssignmentConfigs(
            config.path("acceptable_recovery_lag").asLong(10_000L),
            config.path("max_warmup_replicas").asInt(2),
            config.path("num_standby_replicas").asInt(0),
            config.path("probing_rebalance_interval_ms").asLong(600_000L),
            Collections.emptyList());
        Map<ProcessId, ClientState> clients = clients(json, null);
        Probe probe = new Probe();
        Map<ProcessId, ClientState> replayClients = clients(json, probe);
        RackAwareTaskAssignor rackAware = new RackAwareTaskAssignor(Cluster.empty(), Map.of(), Map.of(),
            Map.of(), Map.of(), null, configs, Time.SYSTEM);
        return new Call() {
            private boolean probing;

            @Override
            public void assign() {
                probing = new HighAvailabilityTaskAssignor().assign(clients, all, stateful, rackAware, configs);
            }

            @Override
            public JsonNode answer() {
                Replay replay = replay(replayClients, probe, all, stateful, rackAware, configs);
                ObjectNode byClient = Assignor.object();
                for (Map.Entry<ProcessId, ClientState> entry : new TreeMap<>(clients).entrySet()) {
                    ClientState state = entry.getValue();
                    ClientState replayed = replayClients.get(entry.getKey());
                    if (!state.activeTasks().equals(replayed.activeTasks())
                        || !state.standbyTasks().equals(replayed.standbyTasks()) || probing != replay.probing) {
                        throw new IllegalStateException("the warm-up replay diverged from assign()");
                    }
                    ObjectNode tasks = byClient.putObject(entry.getKey().id().toString());
                    tasks.set("active", taskList(state.activeTasks()));
                    tasks.set("standby", taskList(state.standbyTasks()));
                    tasks.set("warmup", taskList(replay.warmups.getOrDefault(entry.getKey(), Set.of())));
                }
                ObjectNode answer = Assignor.object();
                answer.set("clients", byClient);
                answer.put("probing_rebalance_needed", probing);
                answer.put("warmup_count", configs.maxWarmupReplicas() - replay.remainingWarmups);
                return answer;
            }
        };
    }

    /** Clients as ClientStates; with a probe, ones that tell it which standby they got last. */
    private static Map<ProcessId, ClientState> clients(JsonNode json, Probe probe) {
        Map<ProcessId, ClientState> clients = new HashMap<>();
        for (JsonNode client : json.path("clients")) {
            ProcessId processId = new ProcessId(UUID.fromString(client.path("process_id").asText()));
            Map<TaskId, Long> lags = new HashMap<>();
            client.path("task_lags").fields().forEachRemaining(
                lag -> lags.put(TaskId.parse(lag.getKey()), lag.getValue().asLong()));
            Set<TaskId> active = tasks(client.path("prev_active"));
            Set<TaskId> standby = tasks(client.path("prev_standby"));
            int capacity = client.path("capacity").asInt(1);
            clients.put(processId, probe == null
                ? new ClientState(active, standby, lags, Collections.emptyMap(), capacity, processId)
                : new ProbedClientState(active, standby, lags, capacity, processId, probe));
        }
        return clients;
    }

    private static Set<TaskId> tasks(JsonNode ids) {
        Set<TaskId> tasks = new HashSet<>();
        for (JsonNode id : ids) {
            tasks.add(TaskId.parse(id.asText()));
        }
        return tasks;
    }

    private static ArrayNode taskList(Set<TaskId> tasks) {
        ArrayNode list = Oracle.JSON.createArrayNode();
        for (TaskId task : new TreeSet<>(tasks)) {
            list.add(task.toString());
        }
        return list;
    }

    /**
     * What the replay observes while Kafka moves standbys (TaskMovement.assignStandbyTaskMovements:
     * get(source), get(destination), source.assignStandby(task), then a warm-up slot is taken;
     * 
     * with a slot left the destination keeps its standby as a warm-up).
     */
    private static final class Probe {
        private boolean standbyPhase;
        private ProcessId lastLookedUp;
        private AtomicInteger slots;
        private final Map<ProcessId, Set<TaskId>> standbyWarmups = new TreeMap<>();
    }

    private static final class ProbedClientState extends ClientState {
        private final Probe probe;

        ProbedClientState(Set<TaskId> active, Set<TaskId> standby, Map<TaskId, Long> lags, int capacity,
                          ProcessId processId, Probe probe) {
            super(active, standby, lags, Collections.emptyMap(), capacity, processId);
            this.probe = probe;
        }

        @Override
        public void assignStandby(TaskId task) {
            super.assignStandby(task);
            // During standby movements this is the source's new standby; the slot is taken next.
            if (probe.standbyPhase && probe.slots.get() > 0) {
                probe.standbyWarmups.computeIfAbsent(probe.lastLookedUp, k -> new TreeSet<>()).add(task);
            }
        }
    }

    private static final class ProbedClients extends TreeMap<ProcessId, ClientState> {
        private final transient Probe probe;

        ProbedClients(Map<ProcessId, ClientState> clients, Probe probe) {
            super(clients);
            this.probe = probe;
        }

        @Override
        public ClientState get(Object key) {
            probe.lastLookedUp = (ProcessId) key;
            return super.get(key);
        }
    }

    private record Replay(boolean probing, Map<ProcessId, Set<TaskId>> warmups, int remainingWarmups) {
    }

    /** HighAvailabilityTaskAssignor.assign's steps, in its order, keeping the warm-up map. */
    @SuppressWarnings("unchecked")
    private static Replay replay(Map<ProcessId, ClientState> clients, Probe probe, Set<TaskId> all, Set<TaskId> statefulIds,
                                 RackAwareTaskAssignor rackAware, AssignmentConfigs configs) {
        try {
            Class<?> ha = HighAvailabilityTaskAssignor.class;
            Class<?> movement = Class.forName(ha.getPackageName() + ".TaskMovement");
            HighAvailabilityTaskAssignor assignor = new HighAvailabilityTaskAssignor();
            SortedSet<TaskId> stateful = new TreeSet<>(statefulIds);
            TreeMap<ProcessId, ClientState> states = new ProbedClients(clients, probe);
            call(ha, null, "assignActiveStatefulTasks", new Class<?>[] {SortedMap.class, SortedSet.class,
                RackAwareTaskAssignor.class, AssignmentConfigs.class}, states, stateful, rackAware, configs);
            call(ha, assignor, "assignStandbyReplicaTasks", new Class<?>[] {TreeMap.class, Set.class, Set.class,
                RackAwareTaskAssignor.class, AssignmentConfigs.class}, states, all, stateful, rackAware, configs);
            AtomicInteger remaining = new AtomicInteger(configs.maxWarmupReplicas());
            probe.slots = remaining;
            Object caughtUp = call(ha, null, "tasksToCaughtUpClients", new Class<?>[] {Set.class, Map.class,
                long.class}, stateful, states, configs.acceptableRecoveryLag());
            Object byLag = call(ha, null, "tasksToClientByLag", new Class<?>[] {Set.class, Map.class}, stateful, states);
            Map<ProcessId, Set<TaskId>> warmups = new TreeMap<>();
            int active = (int) call(movement, null, "assignActiveTaskMovements", new Class<?>[] {Map.class,
                Map.class, Map.class, Map.class, AtomicInteger.class}, caughtUp, byLag, states, warmups, remaining);
            probe.standbyPhase = true;
            int standby = (int) call(movement, null, "assignStandbyTaskMovements", new Class<?>[] {Map.class,
                Map.class, Map.class, AtomicInteger.class, Map.class}, caughtUp, byLag, states, remaining, warmups);
            probe.standbyPhase = false;
            probe.standbyWarmups.forEach((client, tasks) -> warmups.computeIfAbsent(client, k -> new TreeSet<>()).addAll(tasks));
            Set<TaskId> stateless = new TreeSet<>(all);
            stateless.removeAll(stateful);
            call(ha, null, "assignStatelessActiveTasks", new Class<?>[] {TreeMap.class, Iterable.class,
                RackAwareTaskAssignor.class}, states, stateless, rackAware);
            return new Replay(active + standby > 0, warmups, remaining.get());
        } catch (ReflectiveOperationException error) {
            throw new IllegalStateException("warm-up replay: " + error, error);
        }
    }

    private static Object call(Class<?> owner, Object target, String name, Class<?>[] types, Object... args)
        throws ReflectiveOperationException {
        Method method = owner.getDeclaredMethod(name, types);
        method.setAccessible(true);
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException error) {
            if (error.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw error;
        }
    }

    static {
        // Referenced so a Kafka without the config fails at start, not mid-session.
        List.of(StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_NONE);
    }
}
