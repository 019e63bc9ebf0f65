package oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;
import org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor;
import org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor.ClientMetadata;
import org.apache.kafka.streams.processor.internals.assignment.ClientState;
import org.apache.kafka.streams.processor.internals.assignment.DefaultApplicationState;
import org.apache.kafka.streams.processor.internals.assignment.DefaultTaskTopicPartition;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Kafka Streams' KIP-924 {@code StickyTaskAssignor} (client side, rack awareness off) on the
 * project's Streams scenario. Clients: a HashMap of ClientMetadata filled in scenario order, each
 * holding a ClientState with the previous active / standby tasks, the lags and the capacity (set
 * through reflection: ClientMetadata's constructor is package-private). Tasks: a HashMap filled in
 * task order; a stateful task reads one source and one changelog partition, a stateless one a
 * source partition. Kafka's own DefaultTaskInfo hashes by identity, which makes the order of its
 * standby step arbitrary; the oracle's task infos hash by task id instead, so answers repeat.
 */
final class StreamsStickyAssignor implements Assignor {

    @Override
    public Call prepare(JsonNode json) throws Exception {
        Map<TaskId, TaskInfo> tasks = new HashMap<>();
        TreeMap<TaskId, Boolean> sorted = new TreeMap<>();
        for (JsonNode task : json.path("tasks")) {
            sorted.put(TaskId.parse(task.path("id").asText()), task.path("stateful").asBoolean(false));
        }
        sorted.forEach((id, stateful) -> tasks.put(id, new Info(id, stateful)));
        JsonNode config = json.path("config");
        AssignmentConfigs configs = new AssignmentConfigs(
            config.path("acceptable_recovery_lag").asLong(10_000L),
            config.path("max_warmup_replicas").asInt(2),
            config.path("num_standby_replicas").asInt(0),
            config.path("probing_rebalance_interval_ms").asLong(600_000L),
            Collections.emptyList());
        Map<ProcessId, ClientMetadata> clients = new HashMap<>();
        Constructor<ClientMetadata> metadata = ClientMetadata.class.getDeclaredConstructor(
            ProcessId.class, String.class, Map.class, Optional.class);
        metadata.setAccessible(true);
        Field stateField = ClientMetadata.class.getDeclaredField("state");
        stateField.setAccessible(true);
        for (JsonNode client : json.path("clients")) {
            ProcessId processId = new ProcessId(UUID.fromString(client.path("process_id").asText()));
            Map<TaskId, Long> lags = new HashMap<>();
            client.path("task_lags").fields().forEachRemaining(
                lag -> lags.put(TaskId.parse(lag.getKey()), lag.getValue().asLong()));
            ClientState state = new ClientState(tasks(client.path("prev_active")), tasks(client.path("prev_standby")),
                lags, Collections.emptyMap(), client.path("capacity").asInt(1), processId);
            ClientMetadata entry = metadata.newInstance(processId, null, Map.of(), Optional.empty());
            stateField.set(entry, state);
            clients.put(processId, entry);
        }
        DefaultApplicationState application = new DefaultApplicationState(configs, tasks, clients);
        return new Call() {
            private TaskAssignor.TaskAssignment assignment;

            @Override
            public void assign() {
                assignment = new StickyTaskAssignor().assign(application);
            }

            @Override
            public JsonNode answer() {
                ObjectNode byClient = Assignor.object();
                Map<String, KafkaStreamsAssignment> byId = new TreeMap<>();
                for (KafkaStreamsAssignment client : assignment.assignment()) {
                    byId.put(client.processId().id().toString(), client);
                }
                for (JsonNode client : json.path("clients")) {
                    String id = client.path("process_id").asText();
                    ObjectNode entry = byClient.putObject(id);
                    TreeSet<TaskId> active = new TreeSet<>();
                    TreeSet<TaskId> standby = new TreeSet<>();
                    KafkaStreamsAssignment got = byId.get(id);
                    if (got != null) {
                        got.tasks().values().forEach(task -> (task.type() == KafkaStreamsAssignment.AssignedTask.Type.ACTIVE
                            ? active : standby).add(task.id()));
                    }
                    entry.set("active", list(active));
                    entry.set("standby", list(standby));
                    entry.putArray("warmup");
                }
                ObjectNode answer = Assignor.object();
                answer.set("clients", byClient);
                answer.put("probing_rebalance_needed", false);
                answer.put("warmup_count", 0);
                return answer;
            }
        };
    }

    private static Set<TaskId> tasks(JsonNode ids) {
        Set<TaskId> tasks = new HashSet<>();
        ids.forEach(id -> tasks.add(TaskId.parse(id.asText())));
        return tasks;
    }

    private static ArrayNode list(Set<TaskId> tasks) {
        ArrayNode list = Oracle.JSON.createArrayNode();
        tasks.forEach(task -> list.add(task.toString()));
        return list;
    }

    /** A task's info that hashes by task id (Kafka's DefaultTaskInfo hashes by identity). */
    private static final class Info implements TaskInfo {
        private final TaskId id;
        private final boolean stateful;
        private final Set<TaskTopicPartition> partitions = new HashSet<>();

        Info(TaskId id, boolean stateful) {
            this.id = id;
            this.stateful = stateful;
            partitions.add(new DefaultTaskTopicPartition(
                new TopicPartition("source-" + id.subtopology(), id.partition()), true, false, () -> { }));
            if (stateful) {
                partitions.add(new DefaultTaskTopicPartition(
                    new TopicPartition("changelog-" + id.subtopology(), id.partition()), false, true, () -> { }));
            }
        }

        @Override
        public TaskId id() {
            return id;
        }

        @Override
        public boolean isStateful() {
            return stateful;
        }

        @Override
        public Set<String> stateStoreNames() {
            return stateful ? Set.of("store-" + id.subtopology()) : Set.of();
        }

        @Override
        public Set<TaskTopicPartition> topicPartitions() {
            return partitions;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Info info && info.id.equals(id);
        }

        @Override
        public int hashCode() {
            return Objects.hashCode(id);
        }
    }
}
