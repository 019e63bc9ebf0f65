import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Members of one share group (KIP-932): real {@code KafkaShareConsumer}s, for the tests.
 *
 * <p>Usage: {@code ShareMembers BOOTSTRAP GROUP TOPIC[,TOPIC] MEMBER...} where MEMBER is {@code
 * clientId[:rack]}. Each member is polled in its own thread. A producer in this JVM writes one
 * record to every partition of the topics every 100 ms, so every member keeps receiving records
 * from each partition it holds (a share consumer does not expose its assignment; what it
 * receives shows it). Commands on stdin: {@code join MEMBER}, {@code leave CLIENT_ID}, {@code
 * quit} or the end of input closes all. Prints {@code holds CLIENT_ID t-p,...} whenever the set
 * of partitions a member received records from in the last 2 seconds changes.
 */
public final class ShareMembers {
    private static final Map<String, Member> MEMBERS = new ConcurrentHashMap<>();
    private static final long WINDOW_MS = 2_000;
    private static volatile boolean producing = true;

    private static final class Member implements Runnable {
        final String clientId;
        final Properties props = new Properties();
        final List<String> topics;
        final Thread thread;
        final Map<String, Long> lastSeen = new HashMap<>();
        String reported = null;
        volatile boolean stop;

        Member(String spec, String bootstrap, String group, List<String> topics) {
            String[] parts = spec.split(":", -1);
            clientId = parts[0];
            this.topics = topics;
            props.put("bootstrap.servers", bootstrap);
            props.put("group.id", group);
            props.put("client.id", clientId);
            props.put("key.deserializer", ByteArrayDeserializer.class.getName());
            props.put("value.deserializer", ByteArrayDeserializer.class.getName());
            if (parts.length > 1 && !parts[1].isEmpty()) {
                props.put("client.rack", parts[1]);
            }
            thread = new Thread(this, "member-" + clientId);
        }

        @Override
        public void run() {
            try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(props)) {
                consumer.subscribe(topics);
                while (!stop) {
                    long now = System.currentTimeMillis();
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                        lastSeen.put(record.topic() + "-" + record.partition(), now);
                    }
                    TreeSet<String> holds = new TreeSet<>();
                    for (Map.Entry<String, Long> seen : lastSeen.entrySet()) {
                        if (now - seen.getValue() <= WINDOW_MS) {
                            holds.add(seen.getKey());
                        }
                    }
                    String line = "holds " + clientId + " " + String.join(",", holds);
                    if (!line.equals(reported)) {
                        reported = line;
                        System.out.println(line);
                    }
                }
            } catch (RuntimeException error) {
                System.out.println("error " + clientId + " " + error);
            }
            System.out.println("left " + clientId);
        }
    }

    private static void produce(String bootstrap, List<String> topics) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        props.put("linger.ms", "5");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            while (producing) {
                for (String topic : topics) {
                    for (PartitionInfo partition : producer.partitionsFor(topic)) {
                        producer.send(new ProducerRecord<>(topic, partition.partition(), null,
                                "r".getBytes(StandardCharsets.UTF_8)));
                    }
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String group = args[1];
        List<String> topics = Arrays.asList(args[2].split(","));
        Thread producer = new Thread(() -> produce(bootstrap, topics), "producer");
        producer.setDaemon(true);
        producer.start();
        for (int i = 3; i < args.length; i++) {
            start(new Member(args[i], bootstrap, group, topics));
        }
        BufferedReader input =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = input.readLine()) != null && !line.equals("quit")) {
            String[] command = line.trim().split(" ", 2);
            if (command[0].equals("join")) {
                start(new Member(command[1], bootstrap, group, topics));
            } else if (command[0].equals("leave")) {
                stop(List.of(MEMBERS.remove(command[1])));
            }
        }
        stop(new ArrayList<>(MEMBERS.values()));
        producing = false;
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
