package dev.gregor.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Java KafkaShareConsumer (kafka-clients 4.4.0) with a share group whose share.isolation.level is
 * read_committed, fed by Java transactional KafkaProducers, on one partition:
 * txn A commits a0..a2, txn B aborts b0..b1, txn C writes c0..c1 and stays open, then plain
 * (non-transactional) p0..p1 and txn D's committed d0..d1 follow the open transaction.
 * <ul>
 * <li>a read_committed share consumer gets exactly a0..a2 (delivery count 1), nothing at or
 *     beyond the open transaction's first offset while it is open;
 * <li>once C commits, the same consumer gets c0, c1, p0, p1, d0, d1 in offset order; b0, b1 never;
 * <li>every record settled: the group's start offset is past the records (lag 0);
 * <li>a read_uncommitted group gets all 11 data records.
 * </ul>
 * usage: JavaShareRc BOOTSTRAP. Prints "ok   - ..." / "FAIL - ..." lines and "done"; exit 1 on
 * any failure. Run by tests/interop/test_java_share_rc.sh (also --ref).
 */
public final class JavaShareRc {
    private static int failures = 0;
    private static final String RUN = UUID.randomUUID().toString().substring(0, 6);
    private static final String TOPIC = "jsrc-" + RUN;

    private static void check(boolean cond, String what) {
        System.out.println((cond ? "ok   - " : "FAIL - ") + what);
        System.out.flush();
        if (!cond) failures++;
    }

    private static KafkaProducer<String, String> producer(String boot, String txnId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        if (txnId != null) p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        KafkaProducer<String, String> k = new KafkaProducer<>(p);
        if (txnId != null) k.initTransactions();
        return k;
    }

    /** Sends PREFIX0..PREFIX(n-1) to partition 0 and waits for each; returns the first offset. */
    private static long send(KafkaProducer<String, String> k, String prefix, int n) throws Exception {
        long first = -1;
        for (int i = 0; i < n; i++) {
            RecordMetadata md = k.send(new ProducerRecord<>(TOPIC, 0, null, prefix + i)).get(30, TimeUnit.SECONDS);
            if (first < 0) first = md.offset();
        }
        return first;
    }

    /** One transaction of n records: "commit", "abort" or "open" (left open, producer returned). */
    private static KafkaProducer<String, String> txn(String boot, String id, String prefix, int n, String end,
                                                     long[] firstOffset) throws Exception {
        KafkaProducer<String, String> k = producer(boot, "jsrc-" + id + "-" + RUN);
        k.beginTransaction();
        firstOffset[0] = send(k, prefix, n);
        if (end.equals("commit")) k.commitTransaction();
        if (end.equals("abort")) k.abortTransaction();
        if (!end.equals("open")) {
            k.close(Duration.ofSeconds(10));
            return null;
        }
        return k;
    }

    /** What one drain of a consumer delivered: values, offsets, delivery counts. */
    private static final class Got {
        final List<String> values = new ArrayList<>();
        final List<Long> offsets = new ArrayList<>();
        final TreeSet<Integer> counts = new TreeSet<>();

        List<String> sorted() {
            List<String> s = new ArrayList<>(values);
            Collections.sort(s);
            return s;
        }
    }

    /** Polls (explicit ACCEPT + commitSync) until want records or idleMs without any, within maxMs. */
    private static Got drain(KafkaShareConsumer<String, String> c, int want, long idleMs, long maxMs) {
        Got got = new Got();
        long end = System.currentTimeMillis() + maxMs, last = -1;
        while (System.currentTimeMillis() < end && got.values.size() < want) {
            var recs = c.poll(Duration.ofMillis(300));
            for (ConsumerRecord<String, String> r : recs) {
                got.values.add(r.value());
                got.offsets.add(r.offset());
                got.counts.add(r.deliveryCount().map(Short::intValue).orElse(-1));
                c.acknowledge(r, AcknowledgeType.ACCEPT);
            }
            if (!recs.isEmpty()) {
                c.commitSync();
                last = System.currentTimeMillis();
            } else if (last > 0 && System.currentTimeMillis() - last > idleMs) {
                break;
            }
        }
        return got;
    }

    private static boolean ascending(List<Long> l) {
        for (int i = 1; i < l.size(); i++)
            if (l.get(i) <= l.get(i - 1)) return false;
        return true;
    }

    public static void main(String[] args) throws Exception {
        String boot = args[0];
        String grc = "jsrc-rc-" + RUN, gru = "jsrc-ru-" + RUN;
        try (Admin admin = ShareTool.admin(boot)) {
            ShareTool.createTopic(admin, TOPIC, 1);
            ShareTool.groupConfig(admin, grc,
                                  Map.of("share.auto.offset.reset", "earliest", "share.isolation.level", "read_committed"));
            ShareTool.groupConfig(admin, gru, Map.of("share.auto.offset.reset", "earliest"));

            long[] first = new long[1];
            txn(boot, "A", "a", 3, "commit", first);
            txn(boot, "B", "b", 2, "abort", first);
            KafkaProducer<String, String> open = txn(boot, "C", "c", 2, "open", first);
            long openFirst = first[0];
            try (KafkaProducer<String, String> plain = producer(boot, null)) {
                send(plain, "p", 2);
            }
            txn(boot, "D", "d", 2, "commit", first);
            check(true, "transactions written: A committed, B aborted, C open at offset " + openFirst
                        + ", plain records and D committed after it");

            try (KafkaShareConsumer<String, String> c = ShareTool.consumer(boot, grc, true, "jsrc-rc")) {
                c.subscribe(List.of(TOPIC));
                Got g = drain(c, 99, 3000, 15000);
                check(g.sorted().equals(List.of("a0", "a1", "a2")),
                      "read_committed: only the committed records before the open transaction " + g.values);
                check(g.offsets.stream().allMatch(o -> o < openFirst),
                      "read_committed: no offset at or beyond the open transaction's first offset " + openFirst
                          + " " + g.offsets);
                check(g.counts.equals(new TreeSet<>(List.of(1))), "read_committed: delivery count 1 " + g.counts);

                open.commitTransaction();
                open.close(Duration.ofSeconds(10));
                long t0 = System.currentTimeMillis();
                g = drain(c, 6, 3000, 20000);
                check(g.values.equals(List.of("c0", "c1", "p0", "p1", "d0", "d1")) && ascending(g.offsets),
                      "read_committed: after the commit, the records behind it in offset order " + g.values + " ("
                          + (System.currentTimeMillis() - t0) + " ms)");
                check(g.values.stream().noneMatch(v -> v.startsWith("b")), "read_committed: aborted records never");
            }
            Map<TopicPartition, SharePartitionOffsetInfo> offs = ShareTool.offsets(admin, grc);
            SharePartitionOffsetInfo info = offs.get(new TopicPartition(TOPIC, 0));
            check(info != null && info.lag().orElse(-1L) == 0,
                  "read_committed group: every record settled, aborted ones archived (lag "
                      + (info == null ? "none" : info.lag()) + ", start offset "
                      + (info == null ? "none" : info.startOffset()) + ")");

            try (KafkaShareConsumer<String, String> c = ShareTool.consumer(boot, gru, true, "jsrc-ru")) {
                c.subscribe(List.of(TOPIC));
                Got g = drain(c, 11, 3000, 20000);
                check(g.sorted().equals(List.of("a0", "a1", "a2", "b0", "b1", "c0", "c1", "d0", "d1", "p0", "p1")),
                      "read_uncommitted: every record " + g.sorted());
            }
        }
        System.out.println("done");
        System.exit(failures == 0 ? 0 : 1);
    }
}
