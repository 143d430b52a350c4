package dev.gregor.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java KafkaProducer's transactions (transaction protocol 2 when the broker finalizes
 * transaction.version 2: partitions added by Produce itself) against a broker, read back by
 * KafkaConsumers: committed and aborted transactions over 2 partitions (read_committed gets
 * exactly the committed records, read_uncommitted all of them), an open transaction of a
 * second producer holding back a later commit on its partition until it is aborted, and a
 * zombie fenced by a new instance with the same transactional id (its commit fails, its
 * records are never read_committed).
 *
 * usage: JavaTxn BOOTSTRAP TOPIC. Prints "ok   - ..." / "FAIL - ..." lines and "done"; exit 1
 * on any failure.
 */
public final class JavaTxn {
    private static int failures = 0;

    private static void check(boolean cond, String what) {
        System.out.println((cond ? "ok   - " : "FAIL - ") + what);
        System.out.flush();
        if (!cond) failures++;
    }

    private static KafkaProducer<String, String> producer(String boot, String txnId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        KafkaProducer<String, String> k = new KafkaProducer<>(p);
        k.initTransactions();
        return k;
    }

    /** Values per partition, until want records arrived (then 500 ms more) or timeoutMs. */
    private static Map<Integer, List<String>> read(String boot, String topic, String isolation, int want,
                                                   long timeoutMs) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        Map<Integer, List<String>> got = new HashMap<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            c.assign(tps);
            c.seekToBeginning(tps);
            int n = 0;
            long end = System.currentTimeMillis() + timeoutMs, quiet = -1;
            while (System.currentTimeMillis() < end && (quiet < 0 || System.currentTimeMillis() < quiet)) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    got.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.value());
                    n++;
                }
                if (n >= want && quiet < 0) quiet = System.currentTimeMillis() + 500;
            }
        }
        return got;
    }

    private static void txn(KafkaProducer<String, String> k, String topic, String prefix, boolean commit,
                            Map<Integer, List<String>> all, Map<Integer, List<String>> committed) throws Exception {
        k.beginTransaction();
        for (int i = 0; i < 10; i++) {
            String v = prefix + "-" + i;
            k.send(new ProducerRecord<>(topic, i % 2, null, v)).get(30, TimeUnit.SECONDS);
            all.computeIfAbsent(i % 2, x -> new ArrayList<>()).add(v);
            if (commit) committed.computeIfAbsent(i % 2, x -> new ArrayList<>()).add(v);
        }
        if (commit)
            k.commitTransaction();
        else
            k.abortTransaction();
    }

    public static void main(String[] args) throws Exception {
        String boot = args[0], topic = args[1];
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        try (Admin admin = Admin.create(ap)) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Thread.sleep(500);
        Map<Integer, List<String>> all = new HashMap<>(), committed = new HashMap<>();
        KafkaProducer<String, String> a = producer(boot, "jtx-a-" + topic);
        txn(a, topic, "c1", true, all, committed);
        txn(a, topic, "x1", false, all, committed);
        txn(a, topic, "c2", true, all, committed);
        txn(a, topic, "x2", false, all, committed);
        check(true, "4 transactions sent (2 committed, 2 aborted)");
        check(read(boot, topic, "read_committed", 20, 15000).equals(committed),
              "read_committed: exactly the committed records, in order per partition");
        check(read(boot, topic, "read_uncommitted", 40, 15000).equals(all),
              "read_uncommitted: every record, in order per partition");

        KafkaProducer<String, String> b = producer(boot, "jtx-b-" + topic);
        b.beginTransaction();
        b.send(new ProducerRecord<>(topic, 0, null, "open")).get(30, TimeUnit.SECONDS);
        txn(a, topic, "late", true, all, committed);
        Map<Integer, List<String>> held = read(boot, topic, "read_committed", 25, 4000);
        List<String> p0 = held.getOrDefault(0, List.of()), p1 = held.getOrDefault(1, List.of());
        check(p0.equals(committed.get(0).subList(0, 10)) && p1.equals(committed.get(1)),
              "read_committed: partition 0 held at the open transaction, partition 1 delivers the later commit");
        b.abortTransaction();
        check(read(boot, topic, "read_committed", 30, 15000).equals(committed),
              "read_committed after the abort: the later commit delivered, the open record never");

        KafkaProducer<String, String> zombie = producer(boot, "jtx-z-" + topic);
        zombie.beginTransaction();
        zombie.send(new ProducerRecord<>(topic, 1, null, "zombie")).get(30, TimeUnit.SECONDS);
        KafkaProducer<String, String> fresh = producer(boot, "jtx-z-" + topic); // fences the zombie
        boolean fenced = false;
        try {
            zombie.commitTransaction();
        } catch (ProducerFencedException e) {
            fenced = true;
        } catch (Exception e) {
            fenced = e.getCause() instanceof ProducerFencedException
                     || String.valueOf(e.getMessage()).contains("fenced");
        }
        check(fenced, "the zombie's commit fails: fenced by a new instance");
        txn(fresh, topic, "fresh", true, all, committed);
        check(read(boot, topic, "read_committed", 35, 15000).equals(committed),
              "read_committed: the fresh instance's commit, never the zombie's record");
        zombie.close(Duration.ofSeconds(5));
        for (KafkaProducer<String, String> k : List.of(a, b, fresh)) k.close(Duration.ofSeconds(10));
        System.out.println("done");
        System.exit(failures == 0 ? 0 : 1);
    }
}
