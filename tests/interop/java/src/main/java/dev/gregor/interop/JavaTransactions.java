package dev.gregor.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Transactions with the Java clients 4.4.0 (transaction protocol v2 against a broker that
 * finalizes transaction.version 2): commit, abort, zombie fencing (a second producer with the
 * same transactional.id), the coordinator's timeout abort, and a read_committed KafkaConsumer
 * that reads exactly the committed records; then an exactly-once consume-transform-produce
 * loop with sendOffsetsToTransaction (the group's committed offsets move with the output).
 *
 * usage: JavaTransactions BOOTSTRAP PREFIX. Prints "ok   - ..." / "FAIL - ..." lines and
 * "done"; exit 1 on any failure.
 */
public final class JavaTransactions {
    private static int failures = 0;

    private static void check(boolean cond, String what) {
        System.out.println((cond ? "ok   - " : "FAIL - ") + what);
        System.out.flush();
        if (!cond) failures++;
    }

    private static KafkaProducer<String, String> producer(String boot, String txnId, int timeoutMs) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, timeoutMs);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000);
        return new KafkaProducer<>(p);
    }

    private static KafkaConsumer<String, String> consumer(String boot, String group, String isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        if (group != null) p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    /** Every record of topic (assign, from the start) until no new one came for quietMs. */
    private static List<String> readAll(String boot, String topic, int parts, String isolation, long quietMs) {
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer(boot, null, isolation)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < parts; i++) tps.add(new TopicPartition(topic, i));
            c.assign(tps);
            c.seekToBeginning(tps);
            long last = System.currentTimeMillis(), end = last + 30000;
            while (System.currentTimeMillis() - last < quietMs && System.currentTimeMillis() < end) {
                ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(200));
                for (ConsumerRecord<String, String> r : rs) out.add(r.value());
                if (!rs.isEmpty()) last = System.currentTimeMillis();
            }
        }
        return out;
    }

    /** describeTransactions until the id is in state want (at most 10 s); the last answer. */
    private static TransactionDescription describeUntil(Admin admin, String id, TransactionState want)
        throws Exception {
        long end = System.currentTimeMillis() + 10000;
        while (true) {
            TransactionDescription d = admin.describeTransactions(List.of(id)).all().get(10, TimeUnit.SECONDS).get(id);
            if (d.state() == want || System.currentTimeMillis() > end) return d;
            Thread.sleep(100);
        }
    }

    private static void send(KafkaProducer<String, String> p, String topic, String prefix, int n) throws Exception {
        for (int i = 0; i < n; i++) p.send(new ProducerRecord<>(topic, i % 2, prefix + i, prefix + i));
        p.flush();
    }

    private static boolean fenced(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String n = t.getClass().getSimpleName();
            if (n.contains("Fenced") || n.contains("InvalidProducerEpoch") || n.contains("TransactionAborted"))
                return true;
        }
        return false;
    }

    public static void main(String[] args) throws Exception {
        String boot = args[0], prefix = args[1];
        String topic = prefix + "-in", out = prefix + "-out";
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        try (Admin admin = Admin.create(ap)) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1), new NewTopic(out, 2, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
            Set<String> expected = new TreeSet<>();

            try (KafkaProducer<String, String> p = producer(boot, prefix + "-a", 60000)) {
                p.initTransactions();
                p.beginTransaction();
                send(p, topic, "c1-", 10);
                p.commitTransaction();
                for (int i = 0; i < 10; i++) expected.add("c1-" + i);
                p.beginTransaction();
                send(p, topic, "ab-", 5);
                p.abortTransaction();
                p.beginTransaction();
                send(p, topic, "c2-", 3);
                p.commitTransaction();
                for (int i = 0; i < 3; i++) expected.add("c2-" + i);
                check(true, "commit, abort, commit with one producer");
                /* commitTransaction returns once PREPARE_COMMIT is durable; the markers follow. */
                TransactionDescription d = describeUntil(admin, prefix + "-a", TransactionState.COMPLETE_COMMIT);
                check(d.state() == TransactionState.COMPLETE_COMMIT && d.topicPartitions().isEmpty(),
                      "describeTransactions: COMPLETE_COMMIT (" + d.state() + ")");
            }

            // Zombie fencing: a second producer with the same transactional.id.
            KafkaProducer<String, String> zombie = producer(boot, prefix + "-z", 60000);
            zombie.initTransactions();
            zombie.beginTransaction();
            send(zombie, topic, "z1-", 2);
            try (KafkaProducer<String, String> p2 = producer(boot, prefix + "-z", 60000)) {
                p2.initTransactions(); // aborts the zombie's transaction
                p2.beginTransaction();
                send(p2, topic, "z2-", 2);
                p2.commitTransaction();
                for (int i = 0; i < 2; i++) expected.add("z2-" + i);
            }
            boolean zf = false;
            try {
                zombie.commitTransaction();
            } catch (KafkaException e) {
                zf = fenced(e);
                if (!zf) System.out.println("# zombie commit failed with " + e);
            }
            check(zf, "zombie producer fenced on commit");
            zombie.close(Duration.ofSeconds(5));

            // The coordinator aborts a transaction past its timeout.
            KafkaProducer<String, String> slow = producer(boot, prefix + "-t", 2000);
            slow.initTransactions();
            slow.beginTransaction();
            send(slow, topic, "to-", 2);
            Thread.sleep(5000);
            boolean tf = false;
            try {
                slow.commitTransaction();
            } catch (KafkaException e) {
                /* Kafka 4.4.0 answers INVALID_TXN_STATE here (transaction version 2: the abort
                 * bumped the epoch once, so the commit looks like a retry of an ended one). */
                tf = fenced(e) || e.getClass().getSimpleName().equals("InvalidTxnStateException");
                if (!tf) System.out.println("# timed-out commit failed with " + e);
            }
            check(tf, "timed-out transaction: the commit is refused");
            slow.close(Duration.ofSeconds(5));
            TransactionDescription td = describeUntil(admin, prefix + "-t", TransactionState.COMPLETE_ABORT);
            check(td.state() == TransactionState.COMPLETE_ABORT, "timed-out transaction aborted by the coordinator ("
                  + td.state() + ")");

            List<String> rc = readAll(boot, topic, 2, "read_committed", 2000);
            check(new TreeSet<>(rc).equals(expected) && rc.size() == expected.size(),
                  "read_committed reads exactly the committed records (" + rc.size() + " of " + expected.size() + ")");
            List<String> ru = readAll(boot, topic, 2, "read_uncommitted", 1500);
            check(ru.size() == expected.size() + 5 + 2 + 2,
                  "read_uncommitted also sees the aborted records (" + ru.size() + ")");

            Set<String> ids = new HashSet<>();
            for (TransactionListing l : admin.listTransactions().all().get(10, TimeUnit.SECONDS))
                ids.add(l.transactionalId());
            check(ids.contains(prefix + "-a") && ids.contains(prefix + "-z"), "listTransactions lists the ids");

            eos(boot, admin, topic, out, prefix, expected.size());
        }
        System.out.println("done");
        System.exit(failures == 0 ? 0 : 1);
    }

    /** Consume-transform-produce: input records -> upper-cased output, offsets in the transaction. */
    private static void eos(String boot, Admin admin, String in, String out, String prefix, int n) throws Exception {
        String group = prefix + "-eos";
        int copied = 0;
        try (KafkaConsumer<String, String> c = consumer(boot, group, "read_committed");
             KafkaProducer<String, String> p = producer(boot, prefix + "-eos", 60000)) {
            p.initTransactions();
            c.subscribe(List.of(in));
            long end = System.currentTimeMillis() + 40000;
            boolean abortedOnce = false;
            while (copied < n && System.currentTimeMillis() < end) {
                ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(300));
                if (rs.isEmpty()) continue;
                p.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
                for (ConsumerRecord<String, String> r : rs) {
                    p.send(new ProducerRecord<>(out, r.partition(), r.key(), r.value().toUpperCase()));
                    offs.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                p.sendOffsetsToTransaction(offs, c.groupMetadata());
                if (!abortedOnce) { // the first batch is aborted once: its offsets must not move
                    abortedOnce = true;
                    p.abortTransaction();
                    for (TopicPartition tp : offs.keySet()) {
                        OffsetAndMetadata committed = c.committed(Collections.singleton(tp)).get(tp);
                        c.seek(tp, committed == null ? 0 : committed.offset());
                    }
                    continue;
                }
                p.commitTransaction();
                copied += rs.count();
            }
        }
        check(copied == n, "consume-transform-produce copied every committed input record (" + copied + ")");
        List<String> outRecs = readAll(boot, out, 2, "read_committed", 1500);
        check(outRecs.size() == n && new HashSet<>(outRecs).size() == n,
              "output: exactly once, none lost (" + outRecs.size() + " of " + n + ")");
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        long sum = 0;
        for (OffsetAndMetadata o : committed.values()) sum += o.offset();
        check(committed.size() == 2 && sum > n, "group offsets committed with the transactions (" + committed + ")");
    }
}
