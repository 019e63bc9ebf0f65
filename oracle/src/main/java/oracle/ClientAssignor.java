package oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A consumer-side assignor (RangeAssignor, RoundRobinAssignor, StickyAssignor,
 * CooperativeStickyAssignor) asked the way the group leader asks it.
 *
 * <ul>
 *   <li>Members go into a {@code HashMap} in listed order, as the leader's ConsumerCoordinator
 *       fills it from the JoinGroup response.</li>
 *   <li>Each member's subscription: its topics, its rack ({@code client.rack}), its static id, its
 *       owned partitions and generation, and the user data its own assignor instance writes after
 *       {@code onAssignment(owned, generation)}. The eager StickyAssignor carries the claim and
 *       the generation in user data only (owned list empty, subscription generation -1, as the
 *       project's model of an eager consumer); the others carry them in the subscription.</li>
 *   <li>Cluster metadata: every topic with its partitions; a partition's replicas are brokers in
 *       the listed racks (one broker per rack and position), or one broker without a rack when
 *       the topic lists no replica racks.</li>
 * </ul>
 */
final class ClientAssignor implements Assignor {
    private static final String GROUP = "oracle-group";
    private static final int DEFAULT_GENERATION = -1;
    private final ConsumerPartitionAssignor assignor;

    ClientAssignor(ConsumerPartitionAssignor assignor) {
        this.assignor = assignor;
    }

    @Override
    public Call prepare(JsonNode json) throws Exception {
        Scenario scenario = Scenario.parse(json);
        Cluster cluster = cluster(scenario);
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (Scenario.Member member : scenario.members()) {
            subscriptions.put(member.memberId(), subscription(member));
        }
        GroupSubscription group = new GroupSubscription(subscriptions);
        return new Call() {
            private GroupAssignment result;

            @Override
            public void assign() {
                result = assignor.assign(cluster, group);
            }

            @Override
            public JsonNode answer() {
                ObjectNode answer = Assignor.object();
                Map<String, Assignment> assignments = result.groupAssignment();
                for (Scenario.Member member : scenario.members()) {
                    Assignment assignment = assignments.get(member.memberId());
                    List<Scenario.Claim> claims = new ArrayList<>();
                    if (assignment != null) {
                        for (TopicPartition tp : assignment.partitions()) {
                            claims.add(new Scenario.Claim(tp.topic(), tp.partition()));
                        }
                    }
                    answer.set(member.memberId(), Scenario.pairs(claims));
                }
                return answer;
            }
        };
    }

    private Subscription subscription(Scenario.Member member) throws Exception {
        List<TopicPartition> owned = new ArrayList<>();
        for (Scenario.Claim claim : member.owned()) {
            owned.add(new TopicPartition(claim.topic(), claim.partition()));
        }
        int generation = member.generation().orElse(DEFAULT_GENERATION);
        ConsumerPartitionAssignor own = assignor.getClass().getDeclaredConstructor().newInstance();
        boolean eager = own instanceof StickyAssignor;
        if (!eager || !owned.isEmpty() || member.generation().isPresent()) {
            own.onAssignment(new Assignment(owned), new ConsumerGroupMetadata(
                GROUP, generation, member.memberId(), member.instanceId()));
        }
        ByteBuffer userData = own.subscriptionUserData(new HashSet<>(member.topics()));
        Subscription subscription = eager
            ? newSubscription(member.topics(), userData, Collections.emptyList(), DEFAULT_GENERATION, member.rack())
            : newSubscription(member.topics(), userData, owned, generation, member.rack());
        subscription.setGroupInstanceId(member.instanceId());
        return subscription;
    }

    /**
     * A subscription with as many of its fields as this Kafka line's protocol carries: the rack
     * came with KIP-881 (3.5), the generation with KIP-792 (3.1 wire format, 3.x constructor);
     * an older line's constructor simply has no room for them, as its consumers sent none.
     */
    private static Subscription newSubscription(List<String> topics, ByteBuffer userData,
            List<TopicPartition> owned, int generation, Optional<String> rack) throws Exception {
        for (java.lang.reflect.Constructor<?> constructor : Subscription.class.getConstructors()) {
            Class<?>[] types = constructor.getParameterTypes();
            if (types.length == 5 && types[3] == int.class && types[4] == Optional.class) {
                return (Subscription) constructor.newInstance(topics, userData, owned, generation, rack);
            }
        }
        for (java.lang.reflect.Constructor<?> constructor : Subscription.class.getConstructors()) {
            Class<?>[] types = constructor.getParameterTypes();
            if (types.length == 4 && types[3] == int.class) {
                return (Subscription) constructor.newInstance(topics, userData, owned, generation);
            }
        }
        return new Subscription(topics, userData, owned);
    }

    static Cluster cluster(Scenario scenario) {
        Map<String, Node> brokers = new HashMap<>();
        Node noRack = new Node(0, "broker-0", 9092);
        brokers.put("", noRack);
        List<PartitionInfo> partitions = new ArrayList<>();
        for (Scenario.Topic topic : scenario.topics().values()) {
            for (int p = 0; p < topic.partitions(); p++) {
                Node[] replicas;
                if (topic.replicaRacks().isEmpty()) {
                    replicas = new Node[] {noRack};
                } else {
                    List<String> racks = topic.replicaRacks().get(p);
                    replicas = new Node[racks.size()];
                    for (int r = 0; r < racks.size(); r++) {
                        String key = r + "/" + racks.get(r);
                        String rack = racks.get(r);
                        replicas[r] = brokers.computeIfAbsent(key,
                            k -> new Node(brokers.size(), "broker-" + brokers.size(), 9092, rack));
                    }
                }
                Node leader = replicas.length == 0 ? null : replicas[0];
                partitions.add(new PartitionInfo(topic.name(), p, leader, replicas, replicas));
            }
        }
        return new Cluster("oracle", new ArrayList<>(new HashSet<>(brokers.values())), partitions,
            Collections.emptySet(), Collections.emptySet());
    }
}
