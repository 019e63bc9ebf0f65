"""The Apache Kafka cluster the test suite starts (see :mod:`tests.kafka_cluster.cluster`)."""
