package oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The project's partition scenario (docs/scenario-format.md), the fields Kafka's assignors read:
 * topics (name, partition count, optional id and replica racks) and members in listed order
 * (id, subscription, rack, static id, owned partitions, generation). No validation beyond what
 * the oracle needs: the differential test only sends scenarios our loader accepts.
 */
record Scenario(Map<String, Topic> topics, List<Member> members) {

    record Topic(String name, int partitions, Optional<String> id, List<List<String>> replicaRacks) {
    }

    record Claim(String topic, int partition) {
    }

    record Member(String memberId, List<String> topics, Optional<String> rack,
                  Optional<String> instanceId, List<Claim> owned, Optional<Integer> generation) {
    }

    static Scenario parse(JsonNode json) {
        Map<String, Topic> topics = new LinkedHashMap<>();
        for (JsonNode topic : json.path("topics")) {
            List<List<String>> racks = new ArrayList<>();
            JsonNode replicaRacks = topic.get("replica_racks");
            if (replicaRacks != null && !replicaRacks.isNull()) {
                for (JsonNode partition : replicaRacks) {
                    racks.add(strings(partition));
                }
            }
            String name = topic.path("name").asText();
            topics.put(name, new Topic(name, topic.path("partitions").asInt(), text(topic, "id"), racks));
        }
        List<Member> members = new ArrayList<>();
        for (JsonNode member : json.path("members")) {
            List<Claim> owned = new ArrayList<>();
            for (JsonNode pair : member.path("owned_partitions")) {
                owned.add(new Claim(pair.get(0).asText(), pair.get(1).asInt()));
            }
            JsonNode generation = member.get("generation");
            members.add(new Member(
                member.path("member_id").asText(),
                strings(member.path("topics")),
                text(member, "rack"),
                text(member, "group_instance_id"),
                owned,
                generation == null || generation.isNull() ? Optional.empty() : Optional.of(generation.asInt())));
        }
        return new Scenario(topics, members);
    }

    /** True when the claim names an existing topic and partition. */
    boolean exists(Claim claim) {
        Topic topic = topics.get(claim.topic());
        return topic != null && claim.partition() >= 0 && claim.partition() < topic.partitions();
    }

    static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        for (JsonNode value : array) {
            values.add(value.asText());
        }
        return values;
    }

    static Optional<String> text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
    }

    /** [[topic, partition], ...] */
    static ArrayNode pairs(Iterable<Claim> claims) {
        ArrayNode list = Oracle.JSON.createArrayNode();
        for (Claim claim : claims) {
            list.addArray().add(claim.topic()).add(claim.partition());
        }
        return list;
    }
}
