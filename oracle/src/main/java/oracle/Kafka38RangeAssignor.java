package oracle;

/** Kafka 3.8's group-coordinator {@code RangeAssignor}, asked as {@link Kafka38GroupAssignor} asks it. */
final class Kafka38RangeAssignor extends Kafka38GroupAssignor {
    Kafka38RangeAssignor() {
        super(new org.apache.kafka.coordinator.group.assignor.RangeAssignor());
    }
}
