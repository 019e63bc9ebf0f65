import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Members of one KIP-848 consumer group (group.protocol=consumer), or of a classic group, for
 * the tests.
 *
 * <p>Usage: {@code GroupMembers BOOTSTRAP GROUP ASSIGNOR SUBSCRIPTION MEMBER...} where
 * SUBSCRIPTION is {@code topic[,topic]} or {@code re:REGEX} (a broker-side regex) and MEMBER is
 * {@code clientId[:rack[:instanceId]]} (empty fields allowed). ASSIGNOR is the broker-side
 * assignor ({@code uniform}, {@code range}) or {@code classic:NAME} for a classic-protocol member
 * with Java's client assignor of that protocol name (e.g. {@code classic:cooperative-sticky}).
 * Each member is a real
 * KafkaConsumer polled in its own thread. Commands on stdin, one per line: {@code join MEMBER}
 * starts another member, {@code leave CLIENT_ID} closes one (it leaves the group), {@code quit}
 * or the end of input closes all; {@code hold CLIENT_ID} makes that member's next revocation wait
 * (its rebalance listener blocks, so the group stays mid-reconciliation; it prints
 * {@code holding CLIENT_ID t-p,...}) until {@code release CLIENT_ID}. Prints
 * {@code assigned CLIENT_ID t-p,...} after every change of a member's assignment: when partitions
 * are assigned, and when they are revoked or lost (then without them, before the member rejoins,
 * so the line never claims a partition the member has given up). A classic member whose Java
 * assignor runs (it leads the group) prints {@code leads CLIENT_ID} first (for {@code sticky} and
 * {@code cooperative-sticky}, whose assignors are subclassed for that and keep their protocol
 * names).
 */
public final class GroupMembers {
    private static final Map<String, Member> MEMBERS = new ConcurrentHashMap<>();
    /** Classic-protocol assignors by protocol name ({@code classic:NAME} as ASSIGNOR). */
    private static final Map<String, String> CLASSIC = Map.of(
            "range", "org.apache.kafka.clients.consumer.RangeAssignor",
            "roundrobin", "org.apache.kafka.clients.consumer.RoundRobinAssignor",
            "sticky", LeadingSticky.class.getName(),
            "cooperative-sticky", LeadingCooperativeSticky.class.getName());

    /** Kafka's StickyAssignor, printing {@code leads CLIENT_ID} when its member leads. */
    public static final class LeadingSticky extends StickyAssignor {
        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription subscriptions) {
            printLeader();
            return super.assign(metadata, subscriptions);
        }
    }

    /** Kafka's CooperativeStickyAssignor, printing {@code leads CLIENT_ID} when its member leads. */
    public static final class LeadingCooperativeSticky extends CooperativeStickyAssignor {
        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription subscriptions) {
            printLeader();
            return super.assign(metadata, subscriptions);
        }
    }

    /** A classic member's assignor runs in the member's own polling thread, "member-CLIENT_ID". */
    private static void printLeader() {
        System.out.println("leads " + Thread.currentThread().getName().substring("member-".length()));
    }

    private static final class Member implements Runnable {
        final String clientId;
        final Properties props = new Properties();
        final String subscription;
        final Thread thread;
        volatile boolean stop;
        volatile boolean held;

        Member(String spec, String bootstrap, String group, String assignor, String subscription) {
            String[] parts = spec.split(":", -1);
            clientId = parts[0];
            this.subscription = subscription;
            props.put("bootstrap.servers", bootstrap);
            props.put("group.id", group);
            if (assignor.startsWith("classic:")) {
                props.put("group.protocol", "classic");
                props.put("partition.assignment.strategy", CLASSIC.get(assignor.substring(8)));
                props.put("session.timeout.ms", "10000");
                props.put("heartbeat.interval.ms", "500");
            } else {
                props.put("group.protocol", "consumer");
                props.put("group.remote.assignor", assignor);
            }
            props.put("client.id", clientId);
            props.put("enable.auto.commit", "false");
            props.put("auto.offset.reset", "earliest");
            props.put("key.deserializer", ByteArrayDeserializer.class.getName());
            props.put("value.deserializer", ByteArrayDeserializer.class.getName());
            if (parts.length > 1 && !parts[1].isEmpty()) {
                props.put("client.rack", parts[1]);
            }
            if (parts.length > 2 && !parts[2].isEmpty()) {
                props.put("group.instance.id", parts[2]);
            }
            thread = new Thread(this, "member-" + clientId);
        }

        @Override
        public void run() {
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
                ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        if (held && !partitions.isEmpty()) {
                            hold(partitions);
                        }
                        report(consumer, partitions);
                    }

                    private void hold(Collection<TopicPartition> partitions) {
                        TreeSet<String> revoking = new TreeSet<>();
                        for (TopicPartition tp : partitions) {
                            revoking.add(tp.topic() + "-" + tp.partition());
                        }
                        System.out.println("holding " + clientId + " " + String.join(",", revoking));
                        while (held && !stop) {
                            try {
                                Thread.sleep(50);
                            } catch (InterruptedException interrupted) {
                                Thread.currentThread().interrupt();
                                return;
                            }
                        }
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        report(consumer, List.of());
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        report(consumer, partitions);
                    }
                };
                if (subscription.startsWith("re:")) {
                    consumer.subscribe(new SubscriptionPattern(subscription.substring(3)), listener);
                } else {
                    consumer.subscribe(Arrays.asList(subscription.split(",")), listener);
                }
                while (!stop) {
                    consumer.poll(Duration.ofMillis(100));
                }
            } catch (RuntimeException error) {
                System.out.println("error " + clientId + " " + error);
            }
            System.out.println("left " + clientId);
        }

        /** Prints what the member owns: its assignment without the partitions it is giving up. */
        private void report(
                KafkaConsumer<byte[], byte[]> consumer, Collection<TopicPartition> givingUp) {
            TreeSet<String> owned = new TreeSet<>();
            for (TopicPartition tp : consumer.assignment()) {
                if (!givingUp.contains(tp)) {
                    owned.add(tp.topic() + "-" + tp.partition());
                }
            }
            System.out.println("assigned " + clientId + " " + String.join(",", owned));
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String group = args[1];
        String assignor = args[2];
        String subscription = args[3];
        for (int i = 4; i < args.length; i++) {
            start(new Member(args[i], bootstrap, group, assignor, subscription));
        }
        BufferedReader input =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = input.readLine()) != null && !line.equals("quit")) {
            String[] command = line.trim().split(" ", 2);
            if (command[0].equals("join")) {
                start(new Member(command[1], bootstrap, group, assignor, subscription));
            } else if (command[0].equals("leave")) {
                stop(List.of(MEMBERS.remove(command[1])));
            } else if (command[0].equals("hold") || command[0].equals("release")) {
                MEMBERS.get(command[1]).held = command[0].equals("hold");
                System.out.println(command[0] + " " + command[1]);
            }
        }
        stop(new ArrayList<>(MEMBERS.values()));
        System.out.println("done");
    }

    private static void start(Member member) {
        MEMBERS.put(member.clientId, member);
        member.thread.start();
        System.out.println("started " + member.clientId);
    }

    private static void stop(List<Member> members) throws InterruptedException {
        for (Member member : members) {
            member.stop = true;
        }
        for (Member member : members) {
            member.thread.join(30_000);
        }
    }
}
