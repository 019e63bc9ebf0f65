package oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.coordinator.group.streams.assignor.AssignmentMemberSpec;
import org.apache.kafka.coordinator.group.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.apache.kafka.coordinator.group.streams.assignor.TopologyDescriber;
import org.apache.kafka.streams.processor.TaskId;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@link StreamsGroupStickyAssignor} for Kafka 4.1 to 4.3, whose group coordinator has the
 * Streams-group assignor interface of those lines (package
 * {@code org.apache.kafka.coordinator.group.streams.assignor}: a member map of
 * {@code AssignmentMemberSpec}, the configs as a string map with "num.standby.replicas"). The
 * group is built from the scenario exactly as there (member map in scenario order, processes,
 * previous tasks, reported offset sums). Compiled only for Kafka 4.1 to 4.3 (tests/oracle.py,
 * {@code LINE_RANGE_CLASSES}); 4.4 moved the interface to the group-coordinator API.
 */
final class EarlyStreamsGroupAssignor implements Assignor {

    @Override
    public Call prepare(JsonNode json) {
        Map<String, Integer> partitions = new TreeMap<>();
        Set<String> stateful = new HashSet<>();
        for (JsonNode task : json.path("tasks")) {
            TaskId id = TaskId.parse(task.path("id").asText());
            String subtopology = Integer.toString(id.subtopology());
            partitions.merge(subtopology, 1, Integer::sum);
            if (task.path("stateful").asBoolean(false)) {
                stateful.add(subtopology);
            }
        }
        Map<String, AssignmentMemberSpec> members = new HashMap<>();
        List<String> order = new ArrayList<>();
        for (JsonNode client : json.path("clients")) {
            String processId = client.path("process_id").asText();
            for (JsonNode member : members(client)) {
                String memberId = member.path("member_id").asText();
                order.add(memberId);
                members.put(memberId, new AssignmentMemberSpec(Optional.empty(), Optional.empty(),
                    tasks(member.path("prev_active")), tasks(member.path("prev_standby")), Map.of(), processId,
                    Map.of(), offsets(member.path("task_offsets")), Map.of()));
            }
        }
        int standbys = json.path("config").path("num_standby_replicas").asInt(0);
        GroupSpecImpl spec = new GroupSpecImpl(members, Map.of("num.standby.replicas", Integer.toString(standbys)));
        TopologyDescriber topology = new TopologyDescriber() {
            @Override
            public List<String> subtopologies() {
                return new ArrayList<>(partitions.keySet());
            }

            @Override
            public int maxNumInputPartitions(String subtopology) {
                Integer count = partitions.get(subtopology);
                if (count == null) {
                    throw new NoSuchElementException(subtopology);
                }
                return count;
            }

            @Override
            public boolean isStateful(String subtopology) {
                return stateful.contains(subtopology);
            }
        };
        return new Call() {
            private GroupAssignment assignment;

            @Override
            public void assign() {
                assignment = new StickyTaskAssignor().assign(spec, topology);
            }

            @Override
            public JsonNode answer() {
                ObjectNode byMember = Assignor.object();
                for (String memberId : order) {
                    MemberAssignment tasks = assignment.members().get(memberId);
                    ObjectNode entry = byMember.putObject(memberId);
                    entry.put("process_id", members.get(memberId).processId());
                    entry.set("active", taskList(tasks.activeTasks()));
                    entry.set("standby", taskList(tasks.standbyTasks()));
                }
                ObjectNode answer = Assignor.object();
                answer.set("members", byMember);
                return answer;
            }
        };
    }

    /** The client's members, or the ones a client without members stands for. */
    private static List<JsonNode> members(JsonNode client) {
        List<JsonNode> listed = new ArrayList<>();
        client.path("members").forEach(listed::add);
        if (!listed.isEmpty()) {
            return listed;
        }
        int capacity = client.path("capacity").asInt(1);
        String processId = client.path("process_id").asText();
        for (int n = 1; n <= capacity; n++) {
            ObjectNode member = Assignor.object();
            member.put("member_id", processId + "-StreamThread-" + n);
            member.putArray("prev_active");
            member.putArray("prev_standby");
            listed.add(member);
        }
        for (String kind : List.of("prev_active", "prev_standby")) {
            TreeSet<TaskId> sorted = new TreeSet<>();
            client.path(kind).forEach(id -> sorted.add(TaskId.parse(id.asText())));
            int index = 0;
            for (TaskId task : sorted) {
                ((ArrayNode) listed.get(index++ % capacity).path(kind)).add(task.toString());
            }
        }
        return listed;
    }

    private static Map<String, Set<Integer>> tasks(JsonNode ids) {
        Map<String, Set<Integer>> tasks = new HashMap<>();
        for (JsonNode id : ids) {
            TaskId task = TaskId.parse(id.asText());
            tasks.computeIfAbsent(Integer.toString(task.subtopology()), k -> new HashSet<>()).add(task.partition());
        }
        return tasks;
    }

    private static Map<org.apache.kafka.coordinator.group.streams.assignor.TaskId, Long> offsets(JsonNode offsets) {
        Map<org.apache.kafka.coordinator.group.streams.assignor.TaskId, Long> byTask = new HashMap<>();
        offsets.fields().forEachRemaining(entry -> {
            TaskId task = TaskId.parse(entry.getKey());
            byTask.put(new org.apache.kafka.coordinator.group.streams.assignor.TaskId(
                Integer.toString(task.subtopology()), task.partition()), entry.getValue().asLong());
        });
        return byTask;
    }

    private static ArrayNode taskList(Map<String, Set<Integer>> tasks) {
        TreeSet<TaskId> sorted = new TreeSet<>();
        tasks.forEach((subtopology, partitions) -> partitions.forEach(
            partition -> sorted.add(new TaskId(Integer.parseInt(subtopology), partition))));
        ArrayNode list = Oracle.JSON.createArrayNode();
        sorted.forEach(task -> list.add(task.toString()));
        return list;
    }
}
