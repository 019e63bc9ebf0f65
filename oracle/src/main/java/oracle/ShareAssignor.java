package oracle;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;

/**
 * The share-group assignor (KIP-932, {@code SimpleAssignor}) asked as {@link ServerAssignor} asks
 * the consumer-group assignors, except that every claimant of a partition keeps its claim (a share
 * group's target assignment may give one partition to several members). Every partition counts as
 * initialised (the group spec has no assignable-partition map).
 */
final class ShareAssignor implements Assignor {
    private final ServerAssignor server = new ServerAssignor(new SimpleAssignor(), true);

    @Override
    public Call prepare(JsonNode scenario) throws Exception {
        return server.prepare(scenario);
    }
}
