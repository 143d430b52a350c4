package dev.gregor.interop;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Share-group crash test worker (tests/integration/test_share_crash.sh).
 *
 * <pre>
 * ShareCrashWorker setup    BOOTSTRAP TOPIC PARTITIONS GROUP LOCK_MS
 *     create TOPIC (PARTITIONS, RF 1) and set the group configs share.auto.offset.reset=earliest and
 *     share.record.lock.duration.ms=LOCK_MS (IncrementalAlterConfigs on GROUP), read them back.
 * ShareCrashWorker consume  BOOTSTRAP TOPIC GROUP CONSUMERS OUTDIR RATE DEADLINE_S RELEASE_EVERY
 *     CONSUMERS KafkaShareConsumer threads (explicit mode). Per poll: log the deliveries, "process" them
 *     (sleep count/RATE s, at most 2 s, holding the acquisition locks; RATE = records/s per consumer, 0 = no
 *     sleep), acknowledge every record - ACCEPT, except RELEASE for the first delivery of a record whose
 *     key is a multiple of RELEASE_EVERY (0 = never) - then commitSync.
 *     Each thread writes OUTDIR/w&lt;i&gt;.log with one line per event (us = wall clock, microseconds):
 *       D us partition offset deliveryCount key      a delivery (poll returned the record)
 *       C us partition offset                        ACCEPTed; commitSync returned no exception for the partition
 *       R us partition offset                        RELEASEd; commitSync returned no exception for the partition
 *       A us partition offset ok|ExceptionName       acknowledgement commit callback result
 *       X us partition ExceptionName                 commitSync returned an exception for the partition
 *       E us ExceptionName message                   poll/commitSync threw
 *     OUTDIR/progress is rewritten every 0.5 s with "deliveries confirmedDistinct errors". Stops when
 *     OUTDIR/stop exists, when OUTDIR/check exists and the group's offsets show everything delivery-complete
 *     (lag 0 on every partition), or after DEADLINE_S. Then prints "stopped: ..."
 *     and, read by a fresh admin client after the consumers closed, "partition P start S end E lag L" per
 *     partition. Exit 0 when drained (or stop file).
 * ShareCrashWorker offsets  BOOTSTRAP TOPIC GROUP
 *     print "partition P start S end E lag L" per partition (DescribeShareGroupOffsets + ListOffsets LATEST).
 * </pre>
 */
public final class ShareCrashWorker {
    private static final PrintStream OUT = System.out;

    private static long nowUs() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }

    private static Admin admin(String bootstrap) {
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30000);
        ap.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000);
        return Admin.create(ap);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) usage();
        switch (args[0]) {
            case "setup":
                if (args.length != 6) usage();
                System.exit(setup(args[1], args[2], Integer.parseInt(args[3]), args[4], args[5]));
                break;
            case "consume":
                if (args.length != 9) usage();
                System.exit(consume(args[1], args[2], args[3], Integer.parseInt(args[4]), Paths.get(args[5]),
                        Double.parseDouble(args[6]), Integer.parseInt(args[7]), Integer.parseInt(args[8])));
                break;
            case "offsets":
                if (args.length != 4) usage();
                try (Admin a = admin(args[1])) {
                    Map<Integer, long[]> m = offsets(a, args[2], args[3], 30);
                    for (Map.Entry<Integer, long[]> e : m.entrySet()) {
                        long[] v = e.getValue();
                        OUT.printf("partition %d start %d end %d lag %d%n", e.getKey(), v[0], v[1], v[2]);
                    }
                }
                System.exit(0);
                break;
            default:
                usage();
        }
    }

    private static void usage() {
        System.err.println("usage: ShareCrashWorker setup BOOTSTRAP TOPIC PARTITIONS GROUP LOCK_MS\n"
                + "       ShareCrashWorker consume BOOTSTRAP TOPIC GROUP CONSUMERS OUTDIR RATE DEADLINE_S RELEASE_EVERY\n"
                + "       ShareCrashWorker offsets BOOTSTRAP TOPIC GROUP");
        System.exit(2);
    }

    // ------------------------------------------------------------------ setup
    private static int setup(String bootstrap, String topic, int parts, String group, String lockMs) throws Exception {
        try (Admin a = admin(bootstrap)) {
            a.createTopics(List.of(new NewTopic(topic, parts, (short) 1))).all().get(30, TimeUnit.SECONDS);
            ConfigResource gr = new ConfigResource(ConfigResource.Type.GROUP, group);
            List<AlterConfigOp> ops = List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", lockMs), AlterConfigOp.OpType.SET));
            a.incrementalAlterConfigs(Map.of(gr, ops)).all().get(30, TimeUnit.SECONDS);
            // read back (Apache Kafka applies group configs asynchronously through its metadata log: retry)
            String reset = null, lock = null;
            for (int i = 0; i < 100; i++) {
                Config c = a.describeConfigs(List.of(gr)).all().get(30, TimeUnit.SECONDS).get(gr);
                reset = c.get("share.auto.offset.reset") == null ? null : c.get("share.auto.offset.reset").value();
                lock = c.get("share.record.lock.duration.ms") == null ? null
                        : c.get("share.record.lock.duration.ms").value();
                if ("earliest".equals(reset) && lockMs.equals(lock)) break;
                Thread.sleep(100);
            }
            OUT.println("group configs: share.auto.offset.reset=" + reset + " share.record.lock.duration.ms=" + lock);
            if (!"earliest".equals(reset) || !lockMs.equals(lock)) {
                System.err.println("group configs not applied");
                return 1;
            }
        }
        return 0;
    }

    // ------------------------------------------------------------------ offsets
    /** partition -> {startOffset, endOffset, lag}; -1 where unknown. */
    private static Map<Integer, long[]> offsets(Admin a, String topic, String group, int timeoutS) throws Exception {
        var desc = a.describeTopics(List.of(topic)).allTopicNames().get(timeoutS, TimeUnit.SECONDS).get(topic);
        List<TopicPartition> tps = new ArrayList<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (var p : desc.partitions()) {
            TopicPartition tp = new TopicPartition(topic, p.partition());
            tps.add(tp);
            latest.put(tp, OffsetSpec.latest());
        }
        var ends = a.listOffsets(latest).all().get(timeoutS, TimeUnit.SECONDS);
        Map<TopicPartition, SharePartitionOffsetInfo> so = a
                .listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec().topicPartitions(tps)))
                .partitionsToOffsetInfo(group).get(timeoutS, TimeUnit.SECONDS);
        Map<Integer, long[]> out = new TreeMap<>();
        for (TopicPartition tp : tps) {
            SharePartitionOffsetInfo i = so.get(tp);
            long start = i == null ? -1 : i.startOffset();
            long lag = i == null ? -1 : i.lag().orElse(-1L);
            out.put(tp.partition(), new long[] {start, ends.get(tp).offset(), lag});
        }
        return out;
    }

    // ------------------------------------------------------------------ consume
    private static final AtomicLong DELIVERIES = new AtomicLong();
    private static final AtomicLong ERRORS = new AtomicLong();
    private static final Set<Long> CONFIRMED = ConcurrentHashMap.newKeySet();
    private static volatile boolean stop = false;

    private static int consume(String bootstrap, String topic, String group, int n, Path outDir, double rate,
                               int deadlineS, int releaseEvery) throws Exception {
        Files.createDirectories(outDir);
        List<Thread> threads = new ArrayList<>();
        List<KafkaShareConsumer<String, String>> consumers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap);
            p.put("group.id", group);
            p.put("client.id", "share-crash-" + i);
            p.put("share.acknowledgement.mode", "explicit");
            p.put("key.deserializer", StringDeserializer.class.getName());
            p.put("value.deserializer", StringDeserializer.class.getName());
            p.put("request.timeout.ms", "10000");
            p.put("reconnect.backoff.max.ms", "500");
            p.put("retry.backoff.max.ms", "500");
            KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p);
            consumers.add(c);
            final int idx = i;
            BufferedWriter w = Files.newBufferedWriter(outDir.resolve("w" + i + ".log"), StandardCharsets.UTF_8);
            Thread t = new Thread(() -> runConsumer(c, topic, w, rate, releaseEvery), "share-crash-" + idx);
            threads.add(t);
            t.start();
        }
        long t0 = System.nanoTime();
        long deadline = t0 + TimeUnit.SECONDS.toNanos(deadlineS);
        long nextCheck = 0;
        String why = "deadline " + deadlineS + " s reached";
        try (Admin a = admin(bootstrap)) {
            while (true) {
                writeProgress(outDir);
                if (Files.exists(outDir.resolve("stop"))) { why = "stop file"; break; }
                if (System.nanoTime() > deadline) break;
                if (Files.exists(outDir.resolve("check")) && System.nanoTime() > nextCheck) {
                    nextCheck = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
                    try {
                        Map<Integer, long[]> m = offsets(a, topic, group, 5);
                        boolean done = !m.isEmpty();
                        StringBuilder sb = new StringBuilder();
                        for (Map.Entry<Integer, long[]> e : m.entrySet()) {
                            long[] v = e.getValue();
                            sb.append(String.format(" p%d:start=%d,end=%d,lag=%d", e.getKey(), v[0], v[1], v[2]));
                            // lag (KIP-1226) = end - start - deliveryCompleteCount: 0 once every record is
                            // ACKNOWLEDGED or ARCHIVED. (Apache Kafka persists the advanced start offset lazily,
                            // spec §1.7, so start = end is not required here.)
                            if (v[0] < 0 || v[2] != 0) done = false;
                        }
                        System.err.println("[worker] offsets" + sb);
                        if (done) { why = "drained"; break; }
                    } catch (Exception e) {
                        System.err.println("[worker] offsets check failed: " + e);
                    }
                }
                Thread.sleep(500);
            }
        }
        stop = true;
        for (KafkaShareConsumer<String, String> c : consumers) c.wakeup();
        for (Thread t : threads) t.join(30000);
        writeProgress(outDir);
        OUT.printf("stopped: %s after %.1f s; deliveries %d, confirmed distinct %d, errors %d%n", why,
                (System.nanoTime() - t0) / 1e9, DELIVERIES.get(), CONFIRMED.size(), ERRORS.get());
        // the final state, read by a fresh admin client after the consumers have left the group
        try (Admin a = admin(bootstrap)) {
            for (Map.Entry<Integer, long[]> e : offsets(a, topic, group, 30).entrySet()) {
                long[] v = e.getValue();
                OUT.printf("partition %d start %d end %d lag %d%n", e.getKey(), v[0], v[1], v[2]);
            }
        } catch (Exception e) {
            OUT.println("final offsets failed: " + e);
            return 4;
        }
        return "drained".equals(why) || "stop file".equals(why) ? 0 : 3;
    }

    private static void writeProgress(Path outDir) throws IOException {
        Path tmp = outDir.resolve("progress.tmp");
        Files.writeString(tmp, DELIVERIES.get() + " " + CONFIRMED.size() + " " + ERRORS.get() + "\n");
        Files.move(tmp, outDir.resolve("progress"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void line(BufferedWriter w, String s) {
        try {
            w.write(s);
            w.write('\n');
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    private static void runConsumer(KafkaShareConsumer<String, String> c, String topic, BufferedWriter w, double rate,
                                    int releaseEvery) {
        c.setAcknowledgementCommitCallback((Map<TopicIdPartition, Set<Long>> offs, Exception ex) -> {
            long us = nowUs();
            for (Map.Entry<TopicIdPartition, Set<Long>> e : offs.entrySet())
                for (Long o : e.getValue())
                    line(w, "A " + us + " " + e.getKey().partition() + " " + o + " "
                            + (ex == null ? "ok" : ex.getClass().getSimpleName()));
        });
        try {
            c.subscribe(List.of(topic));
            while (!stop) {
                try {
                    ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(500));
                    if (recs.isEmpty()) { w.flush(); continue; }
                    for (ConsumerRecord<String, String> r : recs) {
                        line(w, "D " + nowUs() + " " + r.partition() + " " + r.offset() + " "
                                + r.deliveryCount().orElse((short) -1) + " " + r.key());
                        DELIVERIES.incrementAndGet();
                    }
                    w.flush();
                    // "processing": the records stay ACQUIRED meanwhile (well under the 5 s lock)
                    if (rate > 0) Thread.sleep(Math.min(2000L, (long) (recs.count() * 1000.0 / rate)));
                    Map<Integer, List<Long>> accepted = new HashMap<>();
                    Map<Integer, List<Long>> released = new HashMap<>();
                    for (ConsumerRecord<String, String> r : recs) {
                        boolean release = releaseEvery > 0 && r.deliveryCount().orElse((short) 0) == 1
                                && Long.parseLong(r.key()) % releaseEvery == 0;
                        c.acknowledge(r, release ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
                        (release ? released : accepted).computeIfAbsent(r.partition(), k -> new ArrayList<>())
                                .add(r.offset());
                    }
                    Map<TopicIdPartition, Optional<KafkaException>> res = c.commitSync(Duration.ofSeconds(10));
                    long us = nowUs();
                    for (Map.Entry<TopicIdPartition, Optional<KafkaException>> e : res.entrySet()) {
                        int part = e.getKey().partition();
                        if (e.getValue().isEmpty()) {
                            for (Long o : accepted.getOrDefault(part, List.of())) {
                                line(w, "C " + us + " " + part + " " + o);
                                CONFIRMED.add(((long) part << 40) | o);
                            }
                            for (Long o : released.getOrDefault(part, List.of()))
                                line(w, "R " + us + " " + part + " " + o);
                        } else {
                            ERRORS.incrementAndGet();
                            line(w, "X " + us + " " + part + " " + e.getValue().get().getClass().getSimpleName());
                        }
                    }
                    w.flush();
                } catch (WakeupException e) {
                    break;
                } catch (InterruptedException e) {
                    break;
                } catch (Exception e) {
                    ERRORS.incrementAndGet();
                    line(w, "E " + nowUs() + " " + e.getClass().getSimpleName() + " "
                            + String.valueOf(e.getMessage()).replace('\n', ' '));
                    try { Thread.sleep(100); } catch (InterruptedException ie) { break; }
                }
            }
        } finally {
            try {
                c.close(Duration.ofSeconds(10));
            } catch (Exception e) {
                line(w, "E " + nowUs() + " close " + e);
            }
            try { w.close(); } catch (IOException e) { /* ignore */ }
        }
    }
}
