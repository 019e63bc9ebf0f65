package oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One of Kafka's assignors behind the batch contract. {@link #prepare} turns a scenario into
 * Kafka's own input objects (outside the timed region); {@link Call#assign} runs Kafka's
 * {@code assign} alone (the timed region); {@link Call#answer} writes the answer object.
 * Adding an assignor: one class implementing this interface and one line in {@link Oracle#ASSIGNORS}.
 */
public interface Assignor {
    Call prepare(JsonNode scenario) throws Exception;

    interface Call {
        /** Runs Kafka's assign call; may throw (Kafka refusing an input is an answer). */
        void assign() throws Exception;

        /** The answer: an assignment object as `python -m assignors batch` prints it. */
        JsonNode answer();
    }

    /** A scenario Kafka cannot be asked about (not a Kafka error). */
    final class BadScenario extends RuntimeException {
        public BadScenario(String message) {
            super(message);
        }
    }

    static ObjectNode object() {
        return Oracle.JSON.createObjectNode();
    }
}
