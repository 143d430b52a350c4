package dev.gregor.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Java clients (4.x) against a broker: Admin (createTopics incl. validateOnly and a refused
 * replication factor, describeTopics, describeConfigs, incrementalAlterConfigs, deleteTopics),
 * an idempotent acks=all KafkaProducer, offsets via listOffsets, read-back via KafkaConsumer.
 *
 * usage: JavaClients BOOTSTRAP [N]. Prints "ok   - ..." / "FAIL - ..." lines; exit 1 on any failure.
 */
public final class JavaClients {
    private static int failures = 0;

    private static void check(boolean cond, String what) {
        System.out.println((cond ? "ok   - " : "FAIL - ") + what);
        System.out.flush();
        if (!cond) failures++;
    }

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: JavaClients BOOTSTRAP [N]");
            System.exit(2);
        }
        String bootstrap = args[0];
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 10000;
        String topic = "java-" + UUID.randomUUID().toString().substring(0, 8);
        int parts = 3;

        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60000);
        try (Admin admin = Admin.create(ap)) {
            // --- createTopics: validate only, then real, then duplicate, then a bad replication factor
            Map<String, String> cfg = new HashMap<>();
            cfg.put("retention.ms", "3600000");
            cfg.put("cleanup.policy", "delete");
            NewTopic nt = new NewTopic(topic, parts, (short) 1).configs(cfg);
            get(admin.createTopics(List.of(nt), new CreateTopicsOptions().validateOnly(true)).all());
            check(!get(admin.listTopics().names()).contains(topic), "createTopics validateOnly creates nothing");
            get(admin.createTopics(List.of(nt)).all());
            check(true, "createTopics " + topic + " (3 partitions, retention.ms=3600000)");
            try {
                get(admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all());
                check(false, "createTopics on an existing topic must fail");
            } catch (ExecutionException e) {
                check(e.getCause() instanceof TopicExistsException, "createTopics twice -> TopicExistsException (" + e.getCause().getClass().getSimpleName() + ")");
            }
            try {
                get(admin.createTopics(List.of(new NewTopic(topic + "-rf3", 1, (short) 3))).all());
                check(false, "replication factor 3 on one broker must be refused");
            } catch (ExecutionException e) {
                check(e.getCause() instanceof InvalidReplicationFactorException, "replication factor 3 -> InvalidReplicationFactorException (" + e.getCause().getClass().getSimpleName() + ")");
            }

            // --- describeTopics
            TopicDescription td = get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
            check(td.partitions().size() == parts, "describeTopics: " + td.partitions().size() + " partitions");
            check(td.topicId() != null && !td.topicId().toString().isEmpty(), "describeTopics: topic id " + td.topicId());
            check(td.partitions().stream().allMatch(p -> p.leader() != null && p.replicas().size() == 1 && p.isr().size() == 1),
                  "describeTopics: every partition has a leader, 1 replica, 1 ISR");

            // --- describeConfigs / incrementalAlterConfigs
            ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config c = get(admin.describeConfigs(List.of(res)).all()).get(res);
            check("3600000".equals(value(c, "retention.ms")), "describeConfigs retention.ms=3600000 (" + value(c, "retention.ms") + ")");
            ConfigEntry seg = c.get("segment.bytes");
            check(seg != null && (seg.source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG
                                  || seg.source() == ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG),
                  "describeConfigs segment.bytes is not a topic override (" + (seg == null ? "missing" : seg.value() + ", " + seg.source()) + ")");
            Map<ConfigResource, Collection<AlterConfigOp>> ops = Map.of(res, List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", "7200000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("max.message.bytes", "2000000"), AlterConfigOp.OpType.SET)));
            get(admin.incrementalAlterConfigs(ops).all());
            // Apache Kafka applies config changes through its metadata log: poll briefly.
            c = describeUntil(admin, res, x -> "7200000".equals(value(x, "retention.ms")));
            check("7200000".equals(value(c, "retention.ms")) && "2000000".equals(value(c, "max.message.bytes")),
                  "incrementalAlterConfigs SET retention.ms, max.message.bytes (" + value(c, "retention.ms") + ", " + value(c, "max.message.bytes") + ")");
            get(admin.incrementalAlterConfigs(Map.of(res, List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE)))).all());
            c = describeUntil(admin, res, x -> x.get("retention.ms") != null
                    && x.get("retention.ms").source() != ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            ConfigEntry rms = c.get("retention.ms");
            check(rms != null && rms.source() != ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG,
                  "incrementalAlterConfigs DELETE retention.ms back to default (" + (rms == null ? "missing" : rms.value() + ", " + rms.source()) + ")");

            // --- idempotent producer, acks=all
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            pp.put(ProducerConfig.ACKS_CONFIG, "all");
            pp.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
            pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            Map<String, String> sent = new HashMap<>();
            long[] perPartition = new long[parts];
            long t0 = System.nanoTime();
            try (KafkaProducer<String, String> p = new KafkaProducer<>(pp)) {
                List<Future<RecordMetadata>> fs = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    String k = String.format("k%07d", i);
                    String v = "v" + i + "-" + "j".repeat(i % 113);
                    sent.put(k, v);
                    fs.add(p.send(new ProducerRecord<>(topic, k, v)));
                }
                p.flush();
                int bad = 0;
                for (Future<RecordMetadata> f : fs) {
                    try {
                        RecordMetadata md = f.get(60, TimeUnit.SECONDS);
                        perPartition[md.partition()]++;
                    } catch (ExecutionException e) {
                        if (bad++ == 0) System.out.println("  first send error: " + e.getCause());
                    }
                }
                check(bad == 0, String.format("idempotent producer: %d sends acknowledged, %d failed (%.1f s)",
                        n - bad, bad, (System.nanoTime() - t0) / 1e9));
            }

            // --- offsets
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            for (int i = 0; i < parts; i++) q.put(new TopicPartition(topic, i), OffsetSpec.latest());
            var latest = get(admin.listOffsets(q).all());
            boolean offsetsOk = true;
            long total = 0;
            for (int i = 0; i < parts; i++) {
                long off = latest.get(new TopicPartition(topic, i)).offset();
                total += off;
                if (off != perPartition[i]) offsetsOk = false;
            }
            check(offsetsOk && total == n, "listOffsets latest per partition = acknowledged counts (total " + total + ")");
            for (int i = 0; i < parts; i++) q.put(new TopicPartition(topic, i), OffsetSpec.earliest());
            var earliest = get(admin.listOffsets(q).all());
            check(earliest.values().stream().allMatch(o -> o.offset() == 0), "listOffsets earliest = 0");

            // --- read back
            Properties cp = new Properties();
            cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            Map<String, String> got = new HashMap<>();
            try (KafkaConsumer<String, String> cons = new KafkaConsumer<>(cp)) {
                List<TopicPartition> tps = new ArrayList<>();
                for (int i = 0; i < parts; i++) tps.add(new TopicPartition(topic, i));
                cons.assign(tps);
                cons.seekToBeginning(tps);
                long deadline = System.currentTimeMillis() + 60000;
                while (got.size() < n && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> r : cons.poll(Duration.ofMillis(500))) got.put(r.key(), r.value());
                }
            }
            check(got.equals(sent), "KafkaConsumer read back " + got.size() + " of " + n + " identical");

            // --- deleteTopics
            get(admin.deleteTopics(List.of(topic)).all());
            long deadline = System.currentTimeMillis() + 30000;
            Set<String> names = get(admin.listTopics().names());
            while (names.contains(topic) && System.currentTimeMillis() < deadline) {
                Thread.sleep(200);
                names = get(admin.listTopics().names());
            }
            check(!names.contains(topic), "deleteTopics: topic gone from listTopics");
            try {
                get(admin.describeTopics(List.of(topic)).allTopicNames());
                check(false, "describeTopics of a deleted topic must fail");
            } catch (ExecutionException e) {
                check(e.getCause() instanceof UnknownTopicOrPartitionException,
                      "describeTopics of a deleted topic -> UnknownTopicOrPartitionException (" + e.getCause().getClass().getSimpleName() + ")");
            }
        }
        System.exit(failures == 0 ? 0 : 1);
    }

    private static Config describeUntil(Admin admin, ConfigResource res, java.util.function.Predicate<Config> done)
            throws Exception {
        long deadline = System.currentTimeMillis() + 10000;
        Config c = get(admin.describeConfigs(List.of(res)).all()).get(res);
        while (!done.test(c) && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            c = get(admin.describeConfigs(List.of(res)).all()).get(res);
        }
        return c;
    }

    private static String value(Config c, String name) {
        ConfigEntry e = c.get(name);
        return e == null ? null : e.value();
    }
}
