package dev.gregor.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

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
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * An exactly-once consume-transform-produce loop that keeps going while the broker is killed
 * (kill -9) and restarted under it: it copies IN to OUT in small transactions, with the input
 * offsets committed in each transaction (sendOffsetsToTransaction). On an error it aborts (or,
 * when the producer is unusable, makes a new one, whose initTransactions fences the old) and
 * rewinds the input to the group's committed offsets.
 *
 * usage: JavaEosCrash seed BOOTSTRAP IN N      produce N plain records "v-0".."v-(N-1)" to IN (2 partitions)
 *        JavaEosCrash copy BOOTSTRAP IN OUT GROUP TXN_ID   copy until IN is consumed; prints "copied"
 *        JavaEosCrash check BOOTSTRAP OUT N    read OUT read_committed: ok if every v-i (upper-cased) once
 */
public final class JavaEosCrash {
    private static final Duration API = Duration.ofSeconds(10);

    private static KafkaProducer<String, String> producer(String boot, String txnId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        if (txnId != null) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
            p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 10000);
        }
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        return new KafkaProducer<>(p);
    }

    private static KafkaConsumer<String, String> consumer(String boot, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        if (group != null) p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 25);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    private static List<TopicPartition> parts(String topic) {
        return List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
    }

    /** Seek every input partition back to the group's committed offset (retried while the broker is away). */
    private static void rewind(KafkaConsumer<String, String> c, List<TopicPartition> tps, long deadline) {
        while (System.currentTimeMillis() < deadline) {
            try {
                Map<TopicPartition, OffsetAndMetadata> com = c.committed(new HashSet<>(tps), API);
                for (TopicPartition tp : tps) c.seek(tp, com.get(tp) == null ? 0 : com.get(tp).offset());
                return;
            } catch (KafkaException e) {
                System.out.println("# rewind: " + e);
            }
        }
    }

    private static KafkaProducer<String, String> fresh(String boot, String txnId, KafkaProducer<String, String> old,
                                                       long deadline) {
        if (old != null) old.close(Duration.ofSeconds(1));
        while (System.currentTimeMillis() < deadline) {
            KafkaProducer<String, String> p = producer(boot, txnId);
            try {
                p.initTransactions();
                return p;
            } catch (KafkaException e) {
                System.out.println("# initTransactions: " + e);
                p.close(Duration.ofSeconds(1));
            }
        }
        throw new IllegalStateException("no producer before the deadline");
    }

    private static boolean done(KafkaConsumer<String, String> c, List<TopicPartition> tps) {
        try {
            Map<TopicPartition, Long> end = c.endOffsets(tps, API);
            for (TopicPartition tp : tps)
                if (c.position(tp, API) < end.get(tp)) return false;
            return true;
        } catch (KafkaException e) {
            return false;
        }
    }

    private static void copy(String boot, String in, String out, String group, String txnId) {
        long deadline = System.currentTimeMillis() + 90000;
        List<TopicPartition> tps = parts(in);
        int txns = 0, failures = 0;
        try (KafkaConsumer<String, String> c = consumer(boot, group)) {
            c.assign(tps);
            KafkaProducer<String, String> p = fresh(boot, txnId, null, deadline);
            rewind(c, tps, deadline);
            while (System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> rs;
                try {
                    rs = c.poll(Duration.ofMillis(200));
                } catch (KafkaException e) {
                    continue;
                }
                if (rs.isEmpty()) {
                    if (done(c, tps)) break;
                    continue;
                }
                try {
                    p.beginTransaction();
                    Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
                    for (ConsumerRecord<String, String> r : rs) {
                        p.send(new ProducerRecord<>(out, r.partition(), r.key(), r.value().toUpperCase()));
                        offs.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    }
                    p.sendOffsetsToTransaction(offs, c.groupMetadata());
                    p.commitTransaction();
                    txns++;
                    Thread.sleep(40); /* spread the copy over the kills */
                } catch (ProducerFencedException | OutOfOrderSequenceException | IllegalStateException e) {
                    failures++;
                    System.out.println("# producer replaced after " + e);
                    p = fresh(boot, txnId, p, deadline);
                    rewind(c, tps, deadline);
                } catch (KafkaException e) {
                    failures++;
                    System.out.println("# transaction failed: " + e);
                    try {
                        p.abortTransaction();
                    } catch (KafkaException e2) {
                        System.out.println("# abort failed, producer replaced: " + e2);
                        p = fresh(boot, txnId, p, deadline);
                    }
                    rewind(c, tps, deadline);
                } catch (InterruptedException e) {
                    break;
                }
            }
            p.close(Duration.ofSeconds(5));
        }
        System.out.println("# " + txns + " transactions committed, " + failures + " failed");
        System.out.println("copied");
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0], boot = args[1];
        if (mode.equals("seed")) {
            int n = Integer.parseInt(args[3]);
            try (KafkaProducer<String, String> p = producer(boot, null)) {
                for (int i = 0; i < n; i++) p.send(new ProducerRecord<>(args[2], i % 2, "k" + i, "v-" + i));
                p.flush();
            }
            System.out.println("seeded");
        } else if (mode.equals("copy")) {
            copy(boot, args[2], args[3], args[4], args[5]);
        } else {
            int n = Integer.parseInt(args[3]);
            List<String> got = new ArrayList<>();
            try (KafkaConsumer<String, String> c = consumer(boot, null)) {
                List<TopicPartition> tps = parts(args[2]);
                c.assign(tps);
                c.seekToBeginning(tps);
                long last = System.currentTimeMillis(), end = last + 30000;
                while (System.currentTimeMillis() - last < 2000 && System.currentTimeMillis() < end) {
                    ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(200));
                    for (ConsumerRecord<String, String> r : rs) got.add(r.value());
                    if (!rs.isEmpty()) last = System.currentTimeMillis();
                }
            }
            Set<String> want = new HashSet<>();
            for (int i = 0; i < n; i++) want.add("V-" + i);
            Set<String> seen = new HashSet<>(got);
            int dups = got.size() - seen.size();
            Set<String> lost = new HashSet<>(want);
            lost.removeAll(seen);
            System.out.println((dups == 0 && lost.isEmpty() && seen.equals(want) ? "ok   - " : "FAIL - ")
                               + "output after kill -9: " + got.size() + " records, " + dups + " duplicated, "
                               + lost.size() + " lost");
        }
    }
}
