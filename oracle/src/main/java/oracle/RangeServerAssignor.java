package oracle;

import com.fasterxml.jackson.databind.JsonNode;

/** The group coordinator's {@code RangeAssignor} (KIP-848), as {@link ServerAssignor} asks it. */
final class RangeServerAssignor implements Assignor {
    private final ServerAssignor server =
        new ServerAssignor(new org.apache.kafka.coordinator.group.assignor.RangeAssignor());

    @Override
    public Call prepare(JsonNode scenario) throws Exception {
        return server.prepare(scenario);
    }
}
