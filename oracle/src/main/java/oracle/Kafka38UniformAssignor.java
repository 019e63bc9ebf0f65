package oracle;

/** Kafka 3.8's {@code UniformAssignor}, asked as {@link Kafka38GroupAssignor} asks it. */
final class Kafka38UniformAssignor extends Kafka38GroupAssignor {
    Kafka38UniformAssignor() {
        super(new org.apache.kafka.coordinator.group.assignor.UniformAssignor());
    }
}
