package oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Kafka's own assignors behind the batch contract of {@code python -m assignors batch}: JSON lines
 * {"id", "strategy", "scenario"[, "time": true]} on stdin, one flushed JSON line per input line on
 * stdout: {"id", "assignment"} (plus "java_ns" when asked: the assign call alone, warm JVM) or
 * {"id", "error"}. One JVM serves a whole session. Test-time only.
 */
public final class Oracle {
    static final ObjectMapper JSON = new ObjectMapper();

    /** Strategy name -> a fresh assignor per request (Kafka's assignors keep state). */
    static final Map<String, Supplier<Assignor>> ASSIGNORS = new TreeMap<>(Map.of(
        "range", () -> new ClientAssignor(new org.apache.kafka.clients.consumer.RangeAssignor()),
        "roundrobin", () -> new ClientAssignor(new org.apache.kafka.clients.consumer.RoundRobinAssignor()),
        "sticky", () -> new ClientAssignor(new org.apache.kafka.clients.consumer.StickyAssignor()),
        "cooperative-sticky", () -> new ClientAssignor(new org.apache.kafka.clients.consumer.CooperativeStickyAssignor()),
        "uniform", () -> since("consumer-group assignors (KIP-848, Kafka 3.8 jars and later)",
            "oracle.UniformServerAssignor", "oracle.Kafka38UniformAssignor"),
        "server-range", () -> since("consumer-group assignors (KIP-848, Kafka 3.8 jars and later)",
            "oracle.RangeServerAssignor", "oracle.Kafka38RangeAssignor"),
        "share-simple", () -> since("oracle.ShareAssignor", "share-group assignors (KIP-932)"),
        "streams-ha", () -> since("oracle.StreamsHaAssignor", "task assignor API this oracle drives (KIP-924, Kafka 3.8+)"),
        "streams-sticky", () -> since("oracle.StreamsStickyAssignor", "task assignor API this oracle drives (KIP-924, Kafka 3.8+)"),
        "streams-group-sticky", () -> since("Streams groups (KIP-1071, Kafka 4.1+)",
            "oracle.StreamsGroupStickyAssignor", "oracle.EarlyStreamsGroupAssignor")
    ));

    private Oracle() {
    }

    /**
     * An assignor class compiled only for the Kafka versions that have its Kafka classes (the
     * build leaves it out of older lines: {@code oracle.exclude}, computed per line by
     * tests/oracle.py); in an older build every request gets an error answer.
     */
    static Assignor since(String className, String what) {
        return since(what, new String[] {className});
    }

    /** The first of {@code classNames} this build has (one per interface a line's Kafka has). */
    static Assignor since(String what, String... classNames) {
        for (String className : classNames) {
            try {
                return (Assignor) Class.forName(className).getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException missing) {
                // not compiled for this Kafka version: try the next
            }
        }
        return scenario -> {
            throw new Assignor.BadScenario("this Kafka version has no " + what);
        };
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 20);
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        // Kafka's classes must not write into the answer stream.
        System.setOut(System.err);
        String line;
        while ((line = in.readLine()) != null) {
            out.println(JSON.writeValueAsString(answer(line)));
            out.flush();
        }
    }

    static ObjectNode answer(String line) {
        ObjectNode answer = JSON.createObjectNode();
        JsonNode request;
        try {
            request = JSON.readTree(line);
        } catch (Exception error) {
            answer.putNull("id");
            answer.put("error", "not valid JSON: " + error.getMessage());
            return answer;
        }
        if (request == null || !request.isObject()) {
            answer.putNull("id");
            answer.put("error", "expected a JSON object");
            return answer;
        }
        answer.set("id", request.get("id"));
        String strategy = request.path("strategy").asText("");
        Supplier<Assignor> assignor = ASSIGNORS.get(strategy);
        if (assignor == null) {
            answer.put("error", "unknown strategy \"" + strategy + "\"; the oracle knows " + ASSIGNORS.keySet());
            return answer;
        }
        Assignor.Call call;
        try {
            call = assignor.get().prepare(request.path("scenario"));
        } catch (Exception error) {
            answer.put("error", "oracle: " + describe(error));
            return answer;
        }
        long started = System.nanoTime();
        try {
            call.assign();
        } catch (Exception | StackOverflowError | AssertionError error) {
            answer.put("error", describe(error));
            return answer;
        }
        long elapsed = System.nanoTime() - started;
        try {
            answer.set("assignment", call.answer());
        } catch (Exception error) {
            answer.put("error", "oracle: " + describe(error));
            return answer;
        }
        if (request.path("time").asBoolean(false)) {
            answer.put("java_ns", elapsed);
        }
        return answer;
    }

    private static String describe(Throwable error) {
        String message = error.getMessage();
        return error.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
