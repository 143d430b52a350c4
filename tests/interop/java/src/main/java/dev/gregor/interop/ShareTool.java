package dev.gregor.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Small share-group helpers for the interop shell tests (Java clients 4.4.0), and the shared
 * code of {@link JavaShare}.
 *
 * <pre>
 * ShareTool topic BOOTSTRAP TOPIC PARTITIONS            create a topic (existing is fine)
 * ShareTool produce BOOTSTRAP TOPIC N [PARTITION] [PREFIX]
 *                                                       N records key k-i value PREFIX-i (acks=all)
 * ShareTool group-config BOOTSTRAP GROUP k=v [k=v ...]  IncrementalAlterConfigs SET on GROUP GROUP
 * ShareTool consume-accept BOOTSTRAP GROUP TOPIC BELOW COUNT
 *        explicit share consumer: waits for COUNT distinct records (60 s max), ACCEPTs those with
 *        offset &lt; BELOW, RELEASEs the others, commitSync, close. Prints "consumed N".
 * ShareTool hold BOOTSTRAP GROUP TOPIC SECONDS [STOPFILE]
 *        implicit share consumer polling for SECONDS or until STOPFILE exists, then close() (a live
 *        member for --describe --members/--state); prints "polling" after its first poll.
 * ShareTool offsets BOOTSTRAP GROUP                     "TOPIC PARTITION START LAG" lines (sorted)
 * </pre>
 */
public final class ShareTool {
    private ShareTool() {}

    static <T> T get(org.apache.kafka.common.KafkaFuture<T> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    static Admin admin(String bootstrap) {
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60000);
        ap.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 30000);
        return Admin.create(ap);
    }

    static void createTopic(Admin admin, String topic, int parts) throws Exception {
        try {
            get(admin.createTopics(List.of(new NewTopic(topic, parts, (short) 1))).all());
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) throw e;
        }
        // wait until the topic is visible with all partitions (metadata propagation)
        long deadline = System.currentTimeMillis() + 30000;
        while (true) {
            try {
                var d = get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
                if (d != null && d.partitions().size() == parts
                        && d.partitions().stream().allMatch(p -> p.leader() != null)) return;
            } catch (ExecutionException e) {
                if (System.currentTimeMillis() > deadline) throw e;
            }
            if (System.currentTimeMillis() > deadline) throw new IllegalStateException("topic " + topic + " not ready");
            Thread.sleep(100);
        }
    }

    static void groupConfig(Admin admin, String group, Map<String, String> kv) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        for (var e : kv.entrySet())
            ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET));
        get(admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops)).all());
    }

    /** N records key k-i, value PREFIX-i to one partition (or round-robin over none when partition < 0). */
    static void produce(String bootstrap, String topic, int n, int partition, String prefix) throws Exception {
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> p = new KafkaProducer<>(pp)) {
            List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ProducerRecord<String, String> r = partition >= 0
                        ? new ProducerRecord<>(topic, partition, "k-" + i, prefix + "-" + i)
                        : new ProducerRecord<>(topic, "k-" + i, prefix + "-" + i);
                fs.add(p.send(r));
            }
            p.flush();
            for (var f : fs) f.get(60, TimeUnit.SECONDS);
        }
    }

    static KafkaShareConsumer<String, String> consumer(String bootstrap, String group, boolean explicit,
                                                       String clientId) {
        Properties cp = new Properties();
        cp.put("bootstrap.servers", bootstrap);
        cp.put("group.id", group);
        cp.put("client.id", clientId);
        cp.put("key.deserializer", StringDeserializer.class.getName());
        cp.put("value.deserializer", StringDeserializer.class.getName());
        cp.put("share.acknowledgement.mode", explicit ? "explicit" : "implicit");
        return new KafkaShareConsumer<>(cp);
    }

    static Map<TopicPartition, SharePartitionOffsetInfo> offsets(Admin admin, String group) throws Exception {
        var r = admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()));
        return get(r.partitionsToOffsetInfo(group));
    }

    static String key(ConsumerRecord<?, ?> r) {
        return r.topic() + "-" + r.partition() + "@" + r.offset();
    }

    static int parseInt(String s) { return Integer.parseInt(s); }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: ShareTool topic|produce|group-config|consume-accept|hold|offsets BOOTSTRAP ...");
            System.exit(2);
        }
        String cmd = args[0], boot = args[1];
        switch (cmd) {
            case "topic": {
                try (Admin a = admin(boot)) { createTopic(a, args[2], parseInt(args[3])); }
                break;
            }
            case "produce": {
                produce(boot, args[2], parseInt(args[3]), args.length > 4 ? parseInt(args[4]) : -1,
                        args.length > 5 ? args[5] : "v");
                break;
            }
            case "group-config": {
                Map<String, String> kv = new HashMap<>();
                for (String s : Arrays.copyOfRange(args, 3, args.length)) {
                    int i = s.indexOf('=');
                    kv.put(s.substring(0, i), s.substring(i + 1));
                }
                try (Admin a = admin(boot)) { groupConfig(a, args[2], kv); }
                break;
            }
            case "consume-accept": {
                String group = args[2], topic = args[3];
                long below = Long.parseLong(args[4]);
                int count = parseInt(args[5]);
                Map<String, ConsumerRecord<String, String>> seen = new TreeMap<>();
                try (KafkaShareConsumer<String, String> c = consumer(boot, group, true, "share-tool-consume")) {
                    c.subscribe(List.of(topic));
                    long deadline = System.currentTimeMillis() + 60000;
                    while (seen.size() < count && System.currentTimeMillis() < deadline) {
                        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(500));
                        for (ConsumerRecord<String, String> r : recs) {
                            seen.put(key(r), r);
                            c.acknowledge(r, r.offset() < below ? AcknowledgeType.ACCEPT : AcknowledgeType.RELEASE);
                        }
                        if (!recs.isEmpty()) {
                            Map<TopicIdPartition, java.util.Optional<KafkaException>> res = c.commitSync();
                            for (var e : res.entrySet())
                                if (e.getValue().isPresent())
                                    System.err.println("commitSync " + e.getKey() + ": " + e.getValue().get());
                        }
                    }
                }
                System.out.println("consumed " + seen.size());
                if (seen.size() < count) System.exit(1);
                break;
            }
            case "hold": {
                String group = args[2], topic = args[3];
                long until = System.currentTimeMillis() + 1000L * parseInt(args[4]);
                java.io.File stop = args.length > 5 ? new java.io.File(args[5]) : null;
                try (KafkaShareConsumer<String, String> c = consumer(boot, group, false, "share-tool-hold")) {
                    c.subscribe(List.of(topic));
                    boolean first = true;
                    while (System.currentTimeMillis() < until && (stop == null || !stop.exists())) {
                        c.poll(Duration.ofMillis(200));
                        if (first) { System.out.println("polling"); System.out.flush(); first = false; }
                    }
                }
                break;
            }
            case "offsets": {
                try (Admin a = admin(boot)) {
                    Map<String, String> lines = new TreeMap<>();
                    for (var e : offsets(a, args[2]).entrySet()) {
                        SharePartitionOffsetInfo i = e.getValue();
                        lines.put(e.getKey().topic() + " " + e.getKey().partition(),
                                e.getKey().topic() + " " + e.getKey().partition() + " "
                                        + (i == null ? "-" : i.startOffset()) + " "
                                        + (i == null ? "-" : i.lag().map(String::valueOf).orElse("-")));
                    }
                    lines.values().forEach(System.out::println);
                }
                break;
            }
            default:
                System.err.println("unknown command " + cmd);
                System.exit(2);
        }
    }

    static Collection<String> names(Collection<TopicPartition> tps) {
        List<String> l = new ArrayList<>();
        for (TopicPartition tp : tps) l.add(tp.toString());
        return l;
    }
}
