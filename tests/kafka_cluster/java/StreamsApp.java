import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.kstream.Materialized;

/**
 * Instances of one Kafka Streams application with {@code group.protocol=streams} (KIP-1071), for
 * the tests.
 *
 * <p>Usage: {@code StreamsApp BOOTSTRAP APPLICATION_ID STATE_DIR COUNTED_TOPIC PIPED_TOPIC
 * INSTANCE...}. The topology has two subtopologies: {@code COUNTED_TOPIC} counted per key into a
 * state store (stateful, with a changelog) and {@code PIPED_TOPIC} upper-cased and written on
 * (stateless). Each INSTANCE is a {@code KafkaStreams} of its own (its own state directory,
 * {@code client.id} = INSTANCE), all in this JVM; {@code NAME:THREADS} gives it THREADS stream
 * threads (group members of one process), else one. Commands on stdin: {@code start INSTANCE},
 * {@code stop NAME} (it leaves the group), {@code quit} or the end of input closes all. Whenever an instance's tasks change it prints {@code tasks INSTANCE
 * CONSUMER_CLIENT_ID active=0_0,1_2 standby=0_1} (task ids as Kafka Streams writes them).
 */
public final class StreamsApp {
    private static final Map<String, KafkaStreams> INSTANCES = new ConcurrentHashMap<>();
    private static final Map<String, String> REPORTED = new ConcurrentHashMap<>();

    private static KafkaStreams create(String[] args, String instance, int threads) {
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[2] + "/" + instance);
        props.put(StreamsConfig.CLIENT_ID_CONFIG, instance);
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.String().getClass());
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.String().getClass());
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(args[3])
                .groupByKey()
                .count(Materialized.as("counts"))
                .toStream()
                .mapValues(String::valueOf)
                .to(args[3] + "-counts");
        builder.<String, String>stream(args[4])
                .mapValues(value -> value == null ? null : value.toUpperCase())
                .to(args[4] + "-upper");
        return new KafkaStreams(builder.build(), props);
    }

    private static void report() {
        for (Map.Entry<String, KafkaStreams> entry : INSTANCES.entrySet()) {
            TreeSet<String> active = new TreeSet<>();
            TreeSet<String> standby = new TreeSet<>();
            StringBuilder consumers = new StringBuilder();
            try {
                for (ThreadMetadata thread : entry.getValue().metadataForLocalThreads()) {
                    consumers.append(consumers.length() == 0 ? "" : ",")
                            .append(thread.consumerClientId());
                    for (TaskMetadata task : thread.activeTasks()) {
                        active.add(task.taskId().toString());
                    }
                    for (TaskMetadata task : thread.standbyTasks()) {
                        standby.add(task.taskId().toString());
                    }
                }
            } catch (RuntimeException notRunning) {
                continue;
            }
            String line = "tasks " + entry.getKey() + " " + consumers + " active="
                    + String.join(",", active) + " standby=" + String.join(",", standby);
            if (!line.equals(REPORTED.put(entry.getKey(), line))) {
                System.out.println(line);
            }
        }
    }

    private static void start(String[] args, String spec) {
        String[] parts = spec.split(":", 2);
        String instance = parts[0];
        int threads = parts.length > 1 ? Integer.parseInt(parts[1]) : 1;
        KafkaStreams streams = create(args, instance, threads);
        streams.setStateListener((now, before) ->
                System.out.println("state " + instance + " " + now));
        INSTANCES.put(instance, streams);
        streams.start();
    }

    private static void stop(String instance) {
        KafkaStreams streams = INSTANCES.remove(instance);
        REPORTED.remove(instance);
        if (streams != null) {
            streams.close(Duration.ofSeconds(30));
            System.out.println("stopped " + instance);
        }
    }

    public static void main(String[] args) throws Exception {
        for (int i = 5; i < args.length; i++) {
            start(args, args[i]);
        }
        Thread reporter = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                report();
                try {
                    Thread.sleep(200);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }, "reporter");
        reporter.setDaemon(true);
        reporter.start();
        BufferedReader input =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = input.readLine()) != null && !line.equals("quit")) {
            String[] command = line.trim().split(" ", 2);
            if (command[0].equals("start")) {
                start(args, command[1]);
            } else if (command[0].equals("stop")) {
                stop(command[1]);
            }
        }
        reporter.interrupt();
        for (String instance : new TreeSet<>(INSTANCES.keySet())) {
            stop(instance);
        }
        System.out.println("done");
    }
}
