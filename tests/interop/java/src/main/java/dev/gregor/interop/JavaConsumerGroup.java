package dev.gregor.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java KafkaConsumer on the KIP-848 consumer protocol (group.protocol=consumer) against a
 * broker: two members split a 4-partition topic 2/2 (server-side uniform assignor), one leaves
 * and the other takes all 4 over, every record is consumed once per group, commits are resumed
 * by a new member; a broker-side regex subscription (SubscriptionPattern); a group asking for
 * the range assignor, described with Admin.describeConsumerGroups.
 *
 * usage: JavaConsumerGroup BOOTSTRAP PREFIX. Prints "ok   - ..." / "FAIL - ..." lines; exit 1 on
 * any failure.
 */
public final class JavaConsumerGroup {
    private static int failures = 0;
    private static final int PER_PARTITION = 100;

    private static void check(boolean cond, String what) {
        System.out.println((cond ? "ok   - " : "FAIL - ") + what);
        System.out.flush();
        if (!cond) failures++;
    }

    private static KafkaConsumer<String, String> consumer(String boot, String group, String assignor) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        if (assignor != null) p.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, assignor);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    private static void produce(String boot, String topic, int partitions, int perPartition, String tag)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
            for (int part = 0; part < partitions; part++)
                for (int i = 0; i < perPartition; i++)
                    pr.send(new ProducerRecord<>(topic, part, null, tag + "-" + part + "-" + i));
            pr.flush();
        }
    }

    /** Poll every consumer in turn until cond holds or the time is up; records seen go to seen. */
    private static boolean pollUntil(List<KafkaConsumer<String, String>> cs, Set<String> seen, long ms,
                                     java.util.function.BooleanSupplier cond) {
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            for (KafkaConsumer<String, String> c : cs)
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) seen.add(r.value());
            if (cond.getAsBoolean()) return true;
        }
        return false;
    }

    private static boolean atEnd(KafkaConsumer<String, String> c) {
        for (TopicPartition tp : c.assignment())
            if (c.position(tp) != PER_PARTITION) return false;
        return true;
    }

    private static void splitAndTakeOver(String boot, Admin admin, String topic, String group) throws Exception {
        Set<String> seen = new HashSet<>();
        KafkaConsumer<String, String> a = consumer(boot, group, null), b = consumer(boot, group, null);
        a.subscribe(List.of(topic));
        check(pollUntil(List.of(a), seen, 20000, () -> a.assignment().size() == 4), "the first member gets all 4 partitions");
        b.subscribe(List.of(topic));
        boolean split = pollUntil(List.of(a, b), seen, 30000,
            () -> a.assignment().size() == 2 && b.assignment().size() == 2);
        Set<TopicPartition> union = new HashSet<>(a.assignment());
        union.addAll(b.assignment());
        check(split && union.size() == 4, "two members split 4 partitions 2/2 (" + a.assignment() + " / "
            + b.assignment() + ")");
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
            .get(group);
        check(d.type() == GroupType.CONSUMER && d.members().size() == 2 && "uniform".equals(d.partitionAssignor()),
            "describeConsumerGroups: type " + d.type() + ", " + d.members().size() + " members, assignor "
            + d.partitionAssignor() + ", state " + d.groupState());
        a.commitSync();
        b.commitSync();
        b.close();
        boolean taken = pollUntil(List.of(a), seen, 30000, () -> a.assignment().size() == 4);
        check(taken, "after one member left the other has all 4 partitions");
        /* a consumed partitions of b before the split: it must reach the end of every one. */
        check(pollUntil(List.of(a), seen, 20000, () -> seen.size() == 4 * PER_PARTITION && atEnd(a)),
            "every record consumed (" + seen.size() + " of " + 4 * PER_PARTITION + ")");
        a.commitSync();
        a.close();
        produce(boot, topic, 4, 10, "late");
        KafkaConsumer<String, String> c = consumer(boot, group, null);
        c.subscribe(List.of(topic));
        Set<String> after = new HashSet<>();
        pollUntil(List.of(c), after, 20000, () -> after.size() >= 40);
        Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new HashSet<>(c.assignment()));
        boolean resumed = after.size() == 40 && after.stream().allMatch(v -> v.startsWith("late-"));
        check(resumed, "a new member resumes at the committed offsets (" + after.size() + " records after them)");
        long total = committed.values().stream().mapToLong(o -> o == null ? -1 : o.offset()).sum();
        check(total == 4L * PER_PARTITION, "committed offsets sum to " + total);
        c.close();
    }

    private static void regex(String boot, String prefix) throws Exception {
        KafkaConsumer<String, String> c = consumer(boot, prefix + "-gre", null);
        c.subscribe(new SubscriptionPattern(prefix + "-re-.*"));
        Set<String> seen = new HashSet<>();
        boolean got = pollUntil(List.of(c), seen, 30000, () -> c.assignment().size() == 4 && seen.size() == 20);
        Set<String> topics = new HashSet<>();
        for (TopicPartition tp : c.assignment()) topics.add(tp.topic());
        check(got && topics.equals(Set.of(prefix + "-re-a", prefix + "-re-b")),
            "regex subscription: " + c.assignment().size() + " partitions of " + topics + ", " + seen.size()
            + " records");
        c.close();
    }

    private static void range(String boot, Admin admin, String topic, String group) throws Exception {
        KafkaConsumer<String, String> c = consumer(boot, group, "range");
        c.subscribe(List.of(topic));
        pollUntil(List.of(c), new HashSet<>(), 20000, () -> c.assignment().size() == 4);
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
            .get(group);
        check(c.assignment().size() == 4 && "range".equals(d.partitionAssignor()),
            "group.remote.assignor=range: assignor " + d.partitionAssignor());
        c.close();
    }

    /** A classic-protocol member: cooperative-sticky, static (group.instance.id). */
    private static KafkaConsumer<String, String> classicStatic(String boot, String group, String instance) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
            "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
        p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "45000");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    /* Classic protocol, cooperative-sticky, static members: two split 4 partitions 2/2; the
     * second closes (a static member does not leave the group) and comes back under the same
     * group.instance.id with the same partitions, while the first keeps its own throughout. */
    private static void classicStaticCooperative(String boot, Admin admin, String topic, String group)
            throws Exception {
        Set<String> seen = new HashSet<>();
        KafkaConsumer<String, String> a = classicStatic(boot, group, "inst-a");
        KafkaConsumer<String, String> b = classicStatic(boot, group, "inst-b");
        a.subscribe(List.of(topic));
        pollUntil(List.of(a), seen, 20000, () -> a.assignment().size() == 4);
        b.subscribe(List.of(topic));
        boolean split = pollUntil(List.of(a, b), seen, 30000,
            () -> a.assignment().size() == 2 && b.assignment().size() == 2);
        check(split, "classic cooperative-sticky static members split 2/2 (" + a.assignment() + " / "
            + b.assignment() + ")");
        Set<TopicPartition> ofA = new HashSet<>(a.assignment()), ofB = new HashSet<>(b.assignment());
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
            .get(group);
        Set<String> inst = new HashSet<>();
        d.members().forEach(m -> inst.add(m.groupInstanceId().orElse("-")));
        check(d.type() == GroupType.CLASSIC && "cooperative-sticky".equals(d.partitionAssignor())
            && inst.equals(Set.of("inst-a", "inst-b")),
            "describeConsumerGroups: type " + d.type() + ", assignor " + d.partitionAssignor() + ", instances " + inst);
        b.close();
        KafkaConsumer<String, String> b2 = classicStatic(boot, group, "inst-b");
        b2.subscribe(List.of(topic));
        boolean back = pollUntil(List.of(a, b2), seen, 30000, () -> b2.assignment().size() == 2);
        check(back && b2.assignment().equals(ofB) && a.assignment().equals(ofA),
            "the static member restarted under inst-b gets its partitions back, the other keeps its own ("
            + a.assignment() + " / " + b2.assignment() + ")");
        a.close();
        b2.close();
    }

    public static void main(String[] args) throws Exception {
        String boot = args[0], prefix = args.length > 1 ? args[1] : "j848";
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        try (Admin admin = Admin.create(ap)) {
            String topic = prefix + "-t4";
            Collection<NewTopic> ts = new ArrayList<>();
            ts.add(new NewTopic(topic, 4, (short) 1));
            ts.add(new NewTopic(prefix + "-re-a", 2, (short) 1));
            ts.add(new NewTopic(prefix + "-re-b", 2, (short) 1));
            ts.add(new NewTopic(prefix + "-other", 2, (short) 1));
            admin.createTopics(ts).all().get(30, TimeUnit.SECONDS);
            produce(boot, topic, 4, PER_PARTITION, "v");
            produce(boot, prefix + "-re-a", 2, 5, "a");
            produce(boot, prefix + "-re-b", 2, 5, "b");
            String only = args.length > 2 ? args[2] : "";
            if (only.isEmpty() || only.equals("split")) splitAndTakeOver(boot, admin, topic, prefix + "-g");
            if (only.isEmpty() || only.equals("regex")) regex(boot, prefix);
            if (only.isEmpty() || only.equals("range")) range(boot, admin, topic, prefix + "-grange");
            if (only.isEmpty() || only.equals("classic"))
                classicStaticCooperative(boot, admin, topic, prefix + "-gclassic");
        }
        System.out.println("done");
        System.exit(failures == 0 ? 0 : 1);
    }
}
