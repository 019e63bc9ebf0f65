package oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The oracle's timing mode (benchmark-only): Kafka's assignors timed in a warmed JVM.
 *
 * <p>Stdin: JSON lines {"id", "strategy", "scenario", "warmup": W, "runs": R[, "answer": true]}.
 * Each request runs W + R times; every run builds Kafka's inputs afresh from the same parsed
 * scenario with a fresh assignor ({@link Assignor#prepare}, untimed), collects garbage, then times
 * Kafka's {@code assign} call alone. Stdout, one flushed line per request: {"id", "warmup_ns":
 * [...], "java_ns": [...], "cpu_ns": [...], "thread_cpu_ns": [...]} (the timed runs in order:
 * wall clock; CPU time of the whole JVM, garbage collector and compiler threads included; CPU
 * time of the calling thread alone) plus "assignment" (the last run's answer, as the oracle
 * gives it) when "answer" is true; or {"id", "error"} if Kafka threw.
 *
 * <p>Invariant: every run sees the same input as {@link Oracle} would for that request, so the
 * answer equals the oracle's.
 */
public final class Bench {
    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 20);
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        String line;
        while ((line = in.readLine()) != null) {
            ObjectNode answer;
            try {
                answer = time(Oracle.JSON.readTree(line));
            } catch (Exception | StackOverflowError | AssertionError | OutOfMemoryError error) {
                answer = Assignor.object();
                answer.put("error", error.getClass().getSimpleName() + ": " + error.getMessage());
            }
            out.println(Oracle.JSON.writeValueAsString(answer));
            out.flush();
        }
    }

    static ObjectNode time(JsonNode request) throws Exception {
        ObjectNode answer = Assignor.object();
        answer.set("id", request.get("id"));
        String strategy = request.path("strategy").asText("");
        Supplier<Assignor> assignor = Oracle.ASSIGNORS.get(strategy);
        if (assignor == null) {
            answer.put("error", "unknown strategy \"" + strategy + "\"");
            return answer;
        }
        int warmup = request.path("warmup").asInt(2);
        int runs = request.path("runs").asInt(3);
        JsonNode scenario = request.path("scenario");
        ArrayNode warmupNs = answer.putArray("warmup_ns");
        ArrayNode timedNs = answer.putArray("java_ns");
        ArrayNode cpuNs = answer.putArray("cpu_ns");
        ArrayNode threadCpuNs = answer.putArray("thread_cpu_ns");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean system =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Assignor.Call call = null;
        for (int run = 0; run < warmup + runs; run++) {
            call = null;
            System.gc();
            call = assignor.get().prepare(scenario);
            System.gc();
            long cpuStarted = system.getProcessCpuTime();
            long threadStarted = threads.getCurrentThreadCpuTime();
            long started = System.nanoTime();
            call.assign();
            long elapsed = System.nanoTime() - started;
            long threadCpu = threads.getCurrentThreadCpuTime() - threadStarted;
            long cpu = system.getProcessCpuTime() - cpuStarted;
            if (run < warmup) {
                warmupNs.add(elapsed);
            } else {
                timedNs.add(elapsed);
                cpuNs.add(cpu);
                threadCpuNs.add(threadCpu);
            }
        }
        if (request.path("answer").asBoolean(false) && call != null) {
            answer.set("assignment", call.answer());
        }
        return answer;
    }
}
