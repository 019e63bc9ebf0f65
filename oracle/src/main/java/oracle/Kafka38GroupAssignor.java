package oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.consumer.Assignment;
import org.apache.kafka.coordinator.group.consumer.GroupSpecImpl;
import org.apache.kafka.coordinator.group.consumer.MemberSubscriptionAndAssignmentImpl;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.UUID;

/**
 * {@link ServerAssignor} for Kafka 3.8, whose group coordinator builds the same group spec from
 * classes of its {@code consumer} package (a member spec without the static member's instance id)
 * and whose assignors implement {@code ConsumerGroupPartitionAssignor}. Everything else (member
 * map, topic ids, the TopicIds view, current claims, subscription type) is built as there.
 * Compiled only for Kafka 3.8 (tests/oracle.py, {@code LINE_RANGE_CLASSES}).
 */
class Kafka38GroupAssignor implements Assignor {
    /** The namespace of {@code assignors.broker.uniform.TOPIC_ID_NAMESPACE}. */
    private static final UUID TOPIC_ID_NAMESPACE = UUID.fromString("6f1c2a5e-3b7d-5e4a-9c1f-8d2b4a6e0c3f");
    private final ConsumerGroupPartitionAssignor assignor;
    private final boolean sharedClaims;

    Kafka38GroupAssignor(ConsumerGroupPartitionAssignor assignor) {
        this.assignor = assignor;
        this.sharedClaims = false;
    }

    @Override
    public Call prepare(JsonNode json) throws Exception {
        Scenario scenario = Scenario.parse(json);
        Map<String, Uuid> ids = new HashMap<>();
        Map<Uuid, Scenario.Topic> byId = new HashMap<>();
        for (Scenario.Topic topic : scenario.topics().values()) {
            Uuid id = topic.id().isPresent() ? Uuid.fromString(topic.id().get()) : nameBasedId(topic.name());
            ids.put(topic.name(), id);
            byId.put(id, topic);
        }
        Map<String, Scenario.Member> members = new HashMap<>();
        for (Scenario.Member member : scenario.members()) {
            members.put(member.memberId(), member);
        }
        // Last claimant in member-map order keeps a doubly claimed partition.
        Map<Uuid, Map<Integer, String>> owners = new HashMap<>();
        for (Scenario.Member member : members.values()) {
            for (Scenario.Claim claim : member.owned()) {
                if (scenario.exists(claim)) {
                    owners.computeIfAbsent(ids.get(claim.topic()), k -> new HashMap<>())
                        .put(claim.partition(), member.memberId());
                }
            }
        }
        Map<String, Integer> subscribers = new HashMap<>();
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
        for (Scenario.Member member : scenario.members()) {
            Set<String> names = new HashSet<>(member.topics());
            names.forEach(name -> subscribers.merge(name, 1, Integer::sum));
            // As Assignment.fromRecord builds it: topics in first-claim order (putIfAbsent), each
            // topic's partitions copied into a HashSet from the claimed list.
            Map<Uuid, List<Integer>> claimed = new LinkedHashMap<>();
            for (Scenario.Claim claim : member.owned()) {
                Uuid id = ids.get(claim.topic());
                if (scenario.exists(claim)) {
                    List<Integer> partitions = claimed.computeIfAbsent(id, k -> new ArrayList<>());
                    if (sharedClaims || member.memberId().equals(owners.get(id).get(claim.partition()))) {
                        partitions.add(claim.partition());
                    }
                }
            }
            Map<Uuid, Set<Integer>> current = new HashMap<>();
            claimed.forEach((id, partitions) -> {
                if (!partitions.isEmpty()) {
                    current.putIfAbsent(id, new HashSet<>(partitions));
                }
            });
            specs.put(member.memberId(), new MemberSubscriptionAndAssignmentImpl(
                member.rack(), new TopicIds(names, ids), new Assignment(current)));
        }
        SubscriptionType type = SubscriptionType.HOMOGENEOUS;
        for (int count : subscribers.values()) {
            if (count != specs.size()) {
                type = SubscriptionType.HETEROGENEOUS;
            }
        }
        GroupSpecImpl group = new GroupSpecImpl(Collections.unmodifiableMap(specs), type, owners);
        SubscribedTopicDescriber describer = new Describer(byId);
        return new Call() {
            private GroupAssignment result;

            @Override
            public void assign() {
                result = assignor.assign(group, describer);
            }

            @Override
            public JsonNode answer() {
                ObjectNode answer = Assignor.object();
                for (Scenario.Member member : scenario.members()) {
                    MemberAssignment assignment = result.members().get(member.memberId());
                    List<Scenario.Claim> claims = new ArrayList<>();
                    if (assignment != null) {
                        assignment.partitions().forEach((id, numbers) -> {
                            for (int p : numbers) {
                                claims.add(new Scenario.Claim(byId.get(id).name(), p));
                            }
                        });
                    }
                    answer.set(member.memberId(), Scenario.pairs(claims));
                }
                return answer;
            }
        };
    }

    private static Uuid nameBasedId(String name) throws Exception {
        ByteBuffer input = ByteBuffer.allocate(16 + name.getBytes(StandardCharsets.UTF_8).length);
        input.putLong(TOPIC_ID_NAMESPACE.getMostSignificantBits());
        input.putLong(TOPIC_ID_NAMESPACE.getLeastSignificantBits());
        input.put(name.getBytes(StandardCharsets.UTF_8));
        byte[] hash = MessageDigest.getInstance("SHA-1").digest(input.array());
        hash[6] = (byte) ((hash[6] & 0x0f) | 0x50);
        hash[8] = (byte) ((hash[8] & 0x3f) | 0x80);
        ByteBuffer bits = ByteBuffer.wrap(hash, 0, 16);
        return new Uuid(bits.getLong(), bits.getLong());
    }

    /** Kafka's TopicIds: topic names seen as the ids of the topics that exist. */
    private static final class TopicIds extends AbstractSet<Uuid> {
        private final Set<String> names;
        private final Map<String, Uuid> ids;

        TopicIds(Set<String> names, Map<String, Uuid> ids) {
            this.names = names;
            this.ids = ids;
        }

        @Override
        public int size() {
            return names.size();
        }

        @Override
        public boolean isEmpty() {
            return names.isEmpty();
        }

        @Override
        public boolean contains(Object o) {
            for (String name : names) {
                if (o.equals(ids.get(name))) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public Iterator<Uuid> iterator() {
            Iterator<String> source = names.iterator();
            return new Iterator<>() {
                private Uuid next;

                @Override
                public boolean hasNext() {
                    while (next == null && source.hasNext()) {
                        next = ids.get(source.next());
                    }
                    return next != null;
                }

                @Override
                public Uuid next() {
                    if (!hasNext()) {
                        throw new NoSuchElementException();
                    }
                    Uuid result = next;
                    next = null;
                    return result;
                }
            };
        }
    }

    /** Partition counts and replica racks by topic id; -1 / no racks for an unknown id. */
    private record Describer(Map<Uuid, Scenario.Topic> topics) implements SubscribedTopicDescriber {
        @Override
        public int numPartitions(Uuid topicId) {
            Scenario.Topic topic = topics.get(topicId);
            return topic == null ? -1 : topic.partitions();
        }

        @Override
        public Set<String> racksForPartition(Uuid topicId, int partition) {
            Scenario.Topic topic = topics.get(topicId);
            if (topic == null || topic.replicaRacks().isEmpty()) {
                return Collections.emptySet();
            }
            return new HashSet<>(topic.replicaRacks().get(partition));
        }
    }
}
