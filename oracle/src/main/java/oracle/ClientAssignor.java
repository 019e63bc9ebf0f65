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
            ? new Subscription(member.topics(), userData, Collections.emptyList(), DEFAULT_GENERATION, member.rack())
            : new Subscription(member.topics(), userData, owned, generation, member.rack());
        subscription.setGroupInstanceId(member.instanceId());
        return subscription;
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
