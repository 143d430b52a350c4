package dev.gregor.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The KafkaShareConsumer usage examples (KIP-932, docs/share-groups.md), run against a broker
 * with the outcome the documents describe:
 * <ul>
 * <li>implicit_poll: implicit mode, every record delivered once (deliveryCount 1); the next poll
 *     accepts the previous batch: nothing comes back to another member after the lock duration,
 *     start offset = log end, lag 0.</li>
 * <li>implicit_commit: implicit mode with commitSync after each poll: per-partition result map
 *     covering the delivered partitions, every value Optional.empty().</li>
 * <li>explicit_accept_reject: explicit ACCEPT / REJECT + commitSync: no errors; neither accepted nor
 *     rejected records are delivered again (another member, after the lock duration); lag 0.</li>
 * <li>explicit_release: RELEASE one record: redelivered promptly (before the lock would expire) with
 *     deliveryCount 2; accepted records are not.</li>
 * <li>renew: acquisitionLockTimeoutMs() reports the group lock duration; processing for several lock
 *     durations while renewing (RENEW + commitSync) keeps the record from a second member that polls
 *     all along; after ACCEPT it is never delivered again.</li>
 * <li>wakeup: the seed's KafkaShareConsumerRunner: wakeup() from another thread ends a 10 s poll()
 *     promptly with WakeupException; close() in finally.</li>
 * <li>close_release_explicit / close_release_implicit: close() with records not acknowledged releases
 *     them: another member gets them with deliveryCount 2 well before the (30 s) lock would expire.</li>
 * </ul>
 * usage: JavaShare BOOTSTRAP LOCK_MS [scenario ...]. Prints "ok   - ..." / "FAIL - ..." lines and
 * "done" at the end.
 */
public final class JavaShare {
    private static int failures = 0;
    private static String boot;
    private static int lockMs;
    private static Admin admin;
    private static final String RUN = UUID.randomUUID().toString().substring(0, 6);

    private static void check(boolean cond, String what) {
        System.out.println((cond ? "ok   - " : "FAIL - ") + what);
        System.out.flush();
        if (!cond) failures++;
    }

    private static void info(String s) {
        System.err.println("[JavaShare] " + s);
    }

    private static String topic(String name) { return "js-" + name + "-" + RUN; }
    private static String group(String name) { return "jsg-" + name + "-" + RUN; }

    private static void setup(String name, int parts, int lock) throws Exception {
        ShareTool.createTopic(admin, topic(name), parts);
        Map<String, String> cfg = new LinkedHashMap<>();
        cfg.put("share.auto.offset.reset", "earliest");
        cfg.put("share.record.lock.duration.ms", Integer.toString(lock));
        ShareTool.groupConfig(admin, group(name), cfg);
    }

    private static KafkaShareConsumer<String, String> consumer(String name, boolean explicit, String cid) {
        KafkaShareConsumer<String, String> c = ShareTool.consumer(boot, group(name), explicit, cid);
        c.subscribe(List.of(topic(name)));
        return c;
    }

    /** Polls (implicit mode) for ms and returns what was delivered. */
    private static List<ConsumerRecord<String, String>> pollFor(KafkaShareConsumer<String, String> c, long ms,
                                                                boolean explicit) {
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
            for (ConsumerRecord<String, String> r : recs) {
                got.add(r);
                if (explicit) c.acknowledge(r, AcknowledgeType.ACCEPT);
            }
            if (explicit && !recs.isEmpty()) c.commitSync();
        }
        return got;
    }

    /** A second member of the group polls for longer than the lock duration: must receive nothing. */
    private static void nothingRedelivered(String name, String what) {
        List<ConsumerRecord<String, String>> got;
        try (KafkaShareConsumer<String, String> c2 = consumer(name, false, "js-" + name + "-verify")) {
            got = pollFor(c2, lockMs + 3000L, false);
        }
        List<String> keys = new ArrayList<>();
        for (var r : got) keys.add(ShareTool.key(r) + "#" + r.deliveryCount().orElse((short) -1));
        check(got.isEmpty(), name + ": " + what + " (another member polling " + (lockMs + 3000)
                + " ms got " + keys + ")");
    }

    private static void lagZero(String name, Map<Integer, Long> endOffsets) throws Exception {
        Map<TopicPartition, SharePartitionOffsetInfo> offs = ShareTool.offsets(admin, group(name));
        boolean good = true;
        StringBuilder sb = new StringBuilder();
        for (var e : endOffsets.entrySet()) {
            SharePartitionOffsetInfo i = offs.get(new TopicPartition(topic(name), e.getKey()));
            sb.append(" p").append(e.getKey()).append(":")
              .append(i == null ? "none" : i.startOffset() + "/lag=" + i.lag().map(String::valueOf).orElse("-"));
            // Kafka 4.4.0 may report an older persisted start offset (0 here) with lag 0: lag is what counts
            if (i == null || i.startOffset() < 0 || i.startOffset() > e.getValue() || !i.lag().equals(Optional.of(0L)))
                good = false;
        }
        check(good, name + ": listShareGroupOffsets lag 0 for every partition (start/lag:" + sb + ")");
    }

    // ---------------------------------------------------------------- scenarios

    static void implicitPoll() throws Exception {
        String n = "implicit_poll";
        setup(n, 1, lockMs);
        ShareTool.produce(boot, topic(n), 20, 0, "v");
        Map<Long, Integer> seen = new HashMap<>();
        boolean dc1 = true;
        try (KafkaShareConsumer<String, String> c = consumer(n, false, "js-implicit-poll")) {
            long deadline = System.currentTimeMillis() + 30000;
            while (seen.size() < 20 && System.currentTimeMillis() < deadline) {
                // seed: poll() implicitly acknowledges the previous batch
                ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, String> r : records) {
                    seen.merge(r.offset(), 1, Integer::sum);
                    if (!r.deliveryCount().equals(Optional.of((short) 1))) dc1 = false;
                    if (!r.value().equals("v-" + r.offset())) dc1 = false;
                }
            }
            check(seen.size() == 20 && seen.values().stream().allMatch(v -> v == 1),
                  n + ": 20 records delivered, each once (" + seen.size() + " distinct)");
            check(dc1, n + ": deliveryCount 1 and values intact");
            ConsumerRecords<String, String> more = c.poll(Duration.ofMillis(1000)); // accepts the last batch
            check(more.isEmpty(), n + ": the next poll returns nothing (" + more.count() + ")");
        }
        nothingRedelivered(n, "accepted by the next poll: nothing redelivered");
        lagZero(n, Map.of(0, 20L));
    }

    static void implicitCommit() throws Exception {
        String n = "implicit_commit";
        setup(n, 2, lockMs);
        ShareTool.produce(boot, topic(n), 10, 0, "a");
        ShareTool.produce(boot, topic(n), 10, 1, "b");
        Set<String> seen = new HashSet<>();
        int dups = 0, commits = 0, commitErrors = 0;
        Set<Integer> resultParts = new HashSet<>();
        boolean keysMatch = true;
        try (KafkaShareConsumer<String, String> c = consumer(n, false, "js-implicit-commit")) {
            long deadline = System.currentTimeMillis() + 30000;
            while (seen.size() < 20 && System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(100));
                Set<Integer> batchParts = new HashSet<>();
                for (ConsumerRecord<String, String> r : records) {
                    if (!seen.add(ShareTool.key(r))) dups++;
                    batchParts.add(r.partition());
                }
                if (records.isEmpty()) continue;
                // seed: commitSync() implicitly acknowledges all delivered records
                Map<TopicIdPartition, Optional<KafkaException>> res = c.commitSync();
                commits++;
                Set<Integer> rp = new HashSet<>();
                for (var e : res.entrySet()) {
                    if (!e.getKey().topic().equals(topic(n))) keysMatch = false;
                    rp.add(e.getKey().partition());
                    if (e.getValue().isPresent()) {
                        commitErrors++;
                        info(n + " commitSync " + e.getKey() + ": " + e.getValue().get());
                    }
                }
                if (!rp.equals(batchParts)) keysMatch = false;
                resultParts.addAll(rp);
            }
        }
        check(seen.size() == 20 && dups == 0, n + ": 20 records from 2 partitions, each once ("
                + seen.size() + " distinct, " + dups + " duplicates)");
        check(commits > 0 && commitErrors == 0, n + ": commitSync results: " + commits
                + " commits, every per-partition value empty (" + commitErrors + " errors)");
        check(keysMatch && resultParts.equals(Set.of(0, 1)),
              n + ": commitSync map keyed by the delivered TopicIdPartitions (" + resultParts + ")");
        nothingRedelivered(n, "committed records not redelivered");
        lagZero(n, Map.of(0, 10L, 1, 10L));
    }

    static void explicitAcceptReject() throws Exception {
        String n = "explicit_accept_reject";
        setup(n, 1, lockMs);
        ShareTool.produce(boot, topic(n), 20, 0, "v");
        Map<Long, Integer> seen = new HashMap<>();
        int accepted = 0, rejected = 0, commitErrors = 0;
        try (KafkaShareConsumer<String, String> c = consumer(n, true, "js-explicit")) {
            long deadline = System.currentTimeMillis() + 30000;
            while (seen.size() < 20 && System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, String> r : records) {
                    seen.merge(r.offset(), 1, Integer::sum);
                    try {
                        doProcessing(r); // every third record is "unprocessable"
                        c.acknowledge(r, AcknowledgeType.ACCEPT);
                        accepted++;
                    } catch (Exception e) {
                        c.acknowledge(r, AcknowledgeType.REJECT);
                        rejected++;
                    }
                }
                if (records.isEmpty()) continue;
                for (var e : c.commitSync().entrySet())
                    if (e.getValue().isPresent()) {
                        commitErrors++;
                        info(n + " commitSync " + e.getKey() + ": " + e.getValue().get());
                    }
            }
        }
        check(seen.size() == 20 && seen.values().stream().allMatch(v -> v == 1),
              n + ": 20 records delivered, each once");
        check(accepted == 13 && rejected == 7 && commitErrors == 0,
              n + ": 13 ACCEPT + 7 REJECT committed without errors (" + accepted + "/" + rejected + "/"
                      + commitErrors + " errors)");
        nothingRedelivered(n, "neither rejected nor accepted records redelivered");
        lagZero(n, Map.of(0, 20L));
    }

    private static void doProcessing(ConsumerRecord<String, String> r) {
        if (r.offset() % 3 == 0) throw new IllegalArgumentException("unprocessable " + r.value());
    }

    static void explicitRelease() throws Exception {
        String n = "explicit_release";
        setup(n, 1, lockMs);
        ShareTool.produce(boot, topic(n), 5, 0, "v");
        Map<Long, List<Short>> deliveries = new HashMap<>();
        long releasedAt = 0, redeliveredAfter = -1;
        int commitErrors = 0;
        try (KafkaShareConsumer<String, String> c = consumer(n, true, "js-release")) {
            long deadline = System.currentTimeMillis() + 30000;
            boolean done = false;
            while (!done && System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, String> r : records) {
                    short dc = r.deliveryCount().orElse((short) -1);
                    deliveries.computeIfAbsent(r.offset(), k -> new ArrayList<>()).add(dc);
                    if (r.offset() == 2 && dc == 1) {
                        c.acknowledge(r, AcknowledgeType.RELEASE);
                        releasedAt = System.currentTimeMillis();
                    } else {
                        c.acknowledge(r, AcknowledgeType.ACCEPT);
                        if (r.offset() == 2) {
                            redeliveredAfter = System.currentTimeMillis() - releasedAt;
                        }
                    }
                }
                if (!records.isEmpty())
                    for (var e : c.commitSync().entrySet())
                        if (e.getValue().isPresent()) {
                            commitErrors++;
                            info(n + " commitSync " + e.getKey() + ": " + e.getValue().get());
                        }
                done = deliveries.size() == 5 && deliveries.get(2L).size() >= 2;
            }
            // anything else coming back during one more lock duration would be wrong
            for (var r : pollFor(c, lockMs + 1000L, true))
                deliveries.computeIfAbsent(r.offset(), k -> new ArrayList<>()).add(r.deliveryCount().orElse((short) -1));
        }
        check(commitErrors == 0, n + ": commitSync without errors");
        check(List.of((short) 1, (short) 2).equals(deliveries.get(2L)),
              n + ": released record redelivered with deliveryCount 2 (deliveries of offset 2: "
                      + deliveries.get(2L) + ")");
        check(redeliveredAfter >= 0 && redeliveredAfter < lockMs,
              n + ": redelivered after the RELEASE, not after lock expiry (" + redeliveredAfter + " ms < "
                      + lockMs + " ms)");
        boolean othersOnce = true;
        for (long o : new long[] {0, 1, 3, 4})
            if (!List.of((short) 1).equals(deliveries.get(o))) othersOnce = false;
        check(othersOnce, n + ": accepted records delivered once (" + deliveries + ")");
        nothingRedelivered(n, "nothing redelivered after ACCEPT");
    }

    static void renew() throws Exception {
        String n = "renew";
        setup(n, 1, lockMs);
        ShareTool.produce(boot, topic(n), 1, 0, "long-task");
        List<String> otherGot = new CopyOnWriteArrayList<>();
        AtomicBoolean stopOther = new AtomicBoolean(false);
        AtomicReference<Throwable> otherErr = new AtomicReference<>();
        Thread other = null;
        int renewErrors = 0, renews = 0, commitErrors = 0;
        Optional<Integer> lockTimeout = Optional.empty();
        long held = 0;
        boolean gotAgain = true, returned = true, sameCount = true;
        try (KafkaShareConsumer<String, String> c = consumer(n, true, "js-renew")) {
            ConsumerRecord<String, String> rec = null;
            long deadline = System.currentTimeMillis() + 30000;
            while (rec == null && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) rec = r;
            }
            check(rec != null, n + ": the long-running record was delivered");
            if (rec == null) return;
            long acquired = System.currentTimeMillis();
            lockTimeout = c.acquisitionLockTimeoutMs();
            check(lockTimeout.isPresent() && lockTimeout.get() == lockMs,
                  n + ": acquisitionLockTimeoutMs() = " + lockTimeout + " (group share.record.lock.duration.ms "
                          + lockMs + ")");
            // a second member polls all along: it must never get the record being renewed
            other = new Thread(() -> {
                try (KafkaShareConsumer<String, String> c2 = consumer(n, true, "js-renew-other")) {
                    while (!stopOther.get()) {
                        for (ConsumerRecord<String, String> r : c2.poll(Duration.ofMillis(200))) {
                            otherGot.add(ShareTool.key(r) + "#" + r.deliveryCount().orElse((short) -1)
                                    + "@" + (System.currentTimeMillis() - acquired) + "ms");
                            c2.acknowledge(r, AcknowledgeType.RELEASE);
                        }
                        c2.commitSync();
                    }
                } catch (Throwable t) {
                    otherErr.set(t);
                }
            });
            other.start();
            // The seed's RENEW example: acknowledge(RENEW), commitSync(), then acknowledge(ACCEPT) on the
            // same ConsumerRecord. With kafka-clients 4.4.0 a renewed record leaves the current batch at the
            // commit and comes back through the next poll(); acknowledging it before that throws
            // IllegalStateException ("The record cannot be acknowledged.") -- as on Apache Kafka 4.4.0.
            c.acknowledge(rec, AcknowledgeType.RENEW);
            renews++;
            renewErrors += errors(n + " RENEW", c.commitSync());
            String seedAccept;
            try {
                c.acknowledge(rec, AcknowledgeType.ACCEPT);
                seedAccept = "accepted";
            } catch (IllegalStateException e) {
                seedAccept = "IllegalStateException";
            }
            check(seedAccept.equals("IllegalStateException"), n + ": seed pattern (ACCEPT right after RENEW + "
                    + "commitSync) behaves as on Kafka 4.4.0: " + seedAccept);
            // The working pattern (KIP-1222, seed 001): RENEW on each renewal iteration; the record returns
            // through poll() with the same deliveryCount; processing lasts several lock durations.
            long processFor = 4L * lockMs + 1000;
            while (true) {
                ConsumerRecord<String, String> again = null;
                long until = System.currentTimeMillis() + 5000;
                while (again == null && System.currentTimeMillis() < until) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                        if (r.offset() == rec.offset()) again = r;
                        else c.acknowledge(r, AcknowledgeType.RELEASE);
                    }
                }
                if (again == null) { returned = false; break; }
                if (!again.deliveryCount().equals(rec.deliveryCount())) sameCount = false;
                rec = again;
                if (System.currentTimeMillis() - acquired >= processFor) break;
                Thread.sleep(Math.max(200, lockTimeout.orElse(lockMs) / 3)); // doLongRunningProcessing, a slice
                c.acknowledge(rec, AcknowledgeType.RENEW);
                renews++;
                renewErrors += errors(n + " RENEW", c.commitSync());
            }
            held = System.currentTimeMillis() - acquired;
            c.acknowledge(rec, AcknowledgeType.ACCEPT);
            commitErrors += errors(n + " ACCEPT", c.commitSync());
            // after ACCEPT the record must not come back to this member either
            for (var r : pollFor(c, 1000, true)) {
                gotAgain = false;
                info(n + " got again after ACCEPT: " + ShareTool.key(r));
            }
            // the other member keeps polling for another lock duration
            Thread.sleep(lockMs + 2000L);
        } finally {
            stopOther.set(true);
            if (other != null) other.join(30000);
        }
        check(renews >= 4 && renewErrors == 0,
              n + ": " + renews + " RENEW + commitSync over " + held + " ms (" + (held / Math.max(1, lockMs))
                      + " lock durations) without errors (" + renewErrors + ")");
        check(returned && sameCount, n + ": the renewed record came back through poll() each time with its "
                + "deliveryCount unchanged");
        check(commitErrors == 0 && gotAgain, n + ": final ACCEPT committed, record not delivered again");
        check(otherErr.get() == null, n + ": the second member ran without errors ("
                + otherErr.get() + ")");
        check(otherGot.isEmpty(), n + ": the second member never got the renewed record (" + otherGot + ")");
    }

    private static int errors(String what, Map<TopicIdPartition, Optional<KafkaException>> res) {
        int n = 0;
        for (var e : res.entrySet())
            if (e.getValue().isPresent()) {
                n++;
                info(what + " commitSync " + e.getKey() + ": " + e.getValue().get());
            }
        return n;
    }

    static void wakeup() throws Exception {
        String n = "wakeup";
        setup(n, 1, lockMs);
        KafkaShareConsumer<String, String> consumer = ShareTool.consumer(boot, group(n), false, "js-wakeup");
        AtomicBoolean closed = new AtomicBoolean(false);
        AtomicBoolean sawWakeup = new AtomicBoolean(false);
        AtomicBoolean closedOk = new AtomicBoolean(false);
        AtomicReference<Throwable> err = new AtomicReference<>();
        AtomicReference<Long> polls = new AtomicReference<>(0L);
        // the seed's KafkaShareConsumerRunner
        Runnable runner = () -> {
            try {
                consumer.subscribe(List.of(topic(n)));
                while (!closed.get()) {
                    consumer.poll(Duration.ofMillis(10000));
                    polls.set(polls.get() + 1);
                }
            } catch (WakeupException e) {
                if (!closed.get()) err.set(e);
                sawWakeup.set(true);
            } catch (Throwable t) {
                err.set(t);
            } finally {
                try {
                    consumer.close();
                    closedOk.set(true);
                } catch (Throwable t) {
                    err.compareAndSet(null, t);
                }
            }
        };
        Thread t = new Thread(runner, "share-runner");
        t.start();
        Thread.sleep(3000); // joined, blocked in the 10 s poll on an empty topic
        long t0 = System.currentTimeMillis();
        closed.set(true);
        consumer.wakeup();
        t.join(20000);
        long took = System.currentTimeMillis() - t0;
        check(!t.isAlive(), n + ": runner thread ended after wakeup() (" + took + " ms)");
        check(sawWakeup.get(), n + ": poll() ended with WakeupException (polls completed before: " + polls.get() + ")");
        check(closedOk.get() && err.get() == null, n + ": close() in finally without error (" + err.get() + ")");
        check(took < 8000, n + ": wakeup interrupted the 10 s poll (thread done in " + took + " ms)");
    }

    static void closeRelease(boolean explicit) throws Exception {
        String n = explicit ? "close_release_explicit" : "close_release_implicit";
        int lock = 30000; // the broker default: a release by lock expiry would take 30 s
        setup(n, 1, lock);
        ShareTool.produce(boot, topic(n), 5, 0, "v");
        Set<Long> first = new HashSet<>();
        try (KafkaShareConsumer<String, String> c = consumer(n, explicit, "js-close-a")) {
            long deadline = System.currentTimeMillis() + 30000;
            while (first.size() < 5 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) first.add(r.offset());
            }
            check(first.size() == 5, n + ": first member got the 5 records (" + first.size() + ")");
            // close() without acknowledging (explicit) / without another poll or commit (implicit)
        }
        long t0 = System.currentTimeMillis();
        Map<Long, Short> second = new HashMap<>();
        long tookMs = -1;
        try (KafkaShareConsumer<String, String> c = consumer(n, true, "js-close-b")) {
            long deadline = System.currentTimeMillis() + 25000;
            while (second.size() < 5 && System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, String> r : recs) {
                    second.put(r.offset(), r.deliveryCount().orElse((short) -1));
                    c.acknowledge(r, AcknowledgeType.ACCEPT);
                }
                if (!recs.isEmpty()) c.commitSync();
            }
            tookMs = System.currentTimeMillis() - t0;
        }
        check(second.size() == 5, n + ": another member got the 5 released records (" + second.keySet() + ")");
        // close() sends ShareAcknowledge epoch -1 without acks; Apache Kafka 4.4.0 then redelivers with
        // deliveryCount 2 (the session-end release does not decrement the count there)
        check(second.size() == 5 && second.values().stream().allMatch(d -> d == 2),
              n + ": redelivered with deliveryCount 2, as Apache Kafka 4.4.0 does (" + second + ")");
        check(second.size() == 5 && tookMs < lock - 5000,
              n + ": released by close(), not by lock expiry (after " + tookMs + " ms; lock " + lock + " ms)");
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: JavaShare BOOTSTRAP LOCK_MS [scenario ...]");
            System.exit(2);
        }
        boot = args[0];
        lockMs = Integer.parseInt(args[1]);
        List<String> scen = new ArrayList<>();
        for (int i = 2; i < args.length; i++) scen.add(args[i]);
        if (scen.isEmpty())
            scen = List.of("implicit_poll", "implicit_commit", "explicit_accept_reject", "explicit_release",
                           "renew", "wakeup", "close_release_explicit", "close_release_implicit");
        admin = ShareTool.admin(boot);
        try {
            for (String s : scen) {
                long t0 = System.currentTimeMillis();
                info("scenario " + s);
                try {
                    switch (s) {
                        case "implicit_poll": implicitPoll(); break;
                        case "implicit_commit": implicitCommit(); break;
                        case "explicit_accept_reject": explicitAcceptReject(); break;
                        case "explicit_release": explicitRelease(); break;
                        case "renew": renew(); break;
                        case "wakeup": wakeup(); break;
                        case "close_release_explicit": closeRelease(true); break;
                        case "close_release_implicit": closeRelease(false); break;
                        default: check(false, "unknown scenario " + s);
                    }
                } catch (Throwable t) {
                    check(false, s + ": threw " + t);
                    t.printStackTrace();
                }
                info("scenario " + s + " took " + (System.currentTimeMillis() - t0) + " ms");
            }
        } finally {
            admin.close(Duration.ofSeconds(5));
        }
        System.out.println("done");
        System.exit(failures == 0 ? 0 : 1);
    }
}
