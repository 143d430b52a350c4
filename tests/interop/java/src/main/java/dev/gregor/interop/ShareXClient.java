package dev.gregor.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java KafkaShareConsumer driver of tests/interop/test_share_crossclient.sh: the scenarios of
 * tests/integration/client_share_xclient.c (libgregor) and tests/interop/node/share_xclient.mjs
 * (@kafkats/client), printing the same normalized lines (offsets, delivery counts, error names).
 * <pre>
 * ShareXClient BOOTSTRAP PREFIX [drain|acks|refusal|close|expiry|limit|renew ...]
 * </pre>
 * Scenario S uses topic PREFIX-S (1 partition) and group PREFIX-S-g, created and configured by the
 * test; the records are produced here, after the consumers exist. See the test for the scenarios.
 */
public final class ShareXClient {
    private static String boot;
    private static String prefix;
    private static KafkaProducer<String, String> producer;

    private ShareXClient() {}

    private static String topic(String s) { return prefix + "-" + s; }

    private static KafkaShareConsumer<String, String> make(String s, boolean explicit) {
        Properties cp = new Properties();
        cp.put("bootstrap.servers", boot);
        cp.put("group.id", prefix + "-" + s + "-g");
        cp.put("key.deserializer", StringDeserializer.class.getName());
        cp.put("value.deserializer", StringDeserializer.class.getName());
        cp.put("share.acknowledgement.mode", explicit ? "explicit" : "implicit");
        KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(cp);
        c.subscribe(List.of(topic(s)));
        return c;
    }

    /** n records key k-i value v-i to partition 0, flushed together (one batch). */
    private static void produce(String s, int n) throws Exception {
        if (producer == null) {
            Properties pp = new Properties();
            pp.put("bootstrap.servers", boot);
            pp.put("acks", "all");
            pp.put("linger.ms", 20);
            pp.put("key.serializer", StringSerializer.class.getName());
            pp.put("value.serializer", StringSerializer.class.getName());
            producer = new KafkaProducer<>(pp);
        }
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) fs.add(producer.send(new ProducerRecord<>(topic(s), 0, "k" + i, "v" + i)));
        producer.flush();
        for (Future<?> f : fs) f.get(30, TimeUnit.SECONDS);
    }

    private static String fmt(Iterable<ConsumerRecord<String, String>> recs) {
        StringBuilder sb = new StringBuilder();
        for (ConsumerRecord<String, String> r : recs)
            sb.append(' ').append(r.offset()).append(':').append(r.deliveryCount().map(String::valueOf).orElse("-"));
        return sb.length() == 0 ? " none" : sb.toString();
    }

    private static void line(String s, String what, String v) {
        System.out.println(s + " " + what + ":" + v);
        System.out.flush();
    }

    /** Polls until a poll returns records (or maxMs); returns them (empty if none). */
    private static ConsumerRecords<String, String> pollSome(KafkaShareConsumer<String, String> c, long maxMs) {
        long end = System.currentTimeMillis() + maxMs;
        ConsumerRecords<String, String> recs = ConsumerRecords.empty();
        while (System.currentTimeMillis() < end) {
            recs = c.poll(Duration.ofMillis(200));
            if (!recs.isEmpty()) return recs;
        }
        return recs;
    }

    /** Explicit mode: polls for ms, ACCEPTing and committing whatever comes; returns the deliveries. */
    private static List<ConsumerRecord<String, String>> pollAcceptFor(KafkaShareConsumer<String, String> c, long ms) {
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
            for (ConsumerRecord<String, String> r : recs) {
                got.add(r);
                c.acknowledge(r, AcknowledgeType.ACCEPT);
            }
            if (!recs.isEmpty()) c.commitSync(Duration.ofSeconds(10));
        }
        return got;
    }

    /** commitSync outcome: NONE when every partition succeeded, else the first error's Kafka name. */
    private static String commit(KafkaShareConsumer<String, String> c) {
        Map<TopicIdPartition, Optional<KafkaException>> res;
        try {
            res = c.commitSync(Duration.ofSeconds(10));
        } catch (KafkaException e) {
            return Errors.forException(e).name();
        }
        for (Optional<KafkaException> e : res.values())
            if (e.isPresent()) return Errors.forException(e.get()).name();
        return "NONE";
    }

    private static void ackAll(KafkaShareConsumer<String, String> c, ConsumerRecords<String, String> recs,
                               AcknowledgeType type) {
        for (ConsumerRecord<String, String> r : recs) c.acknowledge(r, type);
    }

    static void drain() throws Exception {
        String s = "drain";
        try (KafkaShareConsumer<String, String> c = make(s, false)) {
            produce(s, 10);
            List<ConsumerRecord<String, String>> got = new ArrayList<>(), more = new ArrayList<>();
            long end = System.currentTimeMillis() + 20000;
            while (got.size() < 10 && System.currentTimeMillis() < end)
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) got.add(r);
            // the next polls accept the last batch; nothing may come back (lock 1 s)
            end = System.currentTimeMillis() + 2500;
            while (System.currentTimeMillis() < end)
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) more.add(r);
            line(s, "got", fmt(got));
            line(s, "more", fmt(more));
        }
    }

    static void acks() throws Exception {
        String s = "acks";
        try (KafkaShareConsumer<String, String> c = make(s, true)) {
            produce(s, 3);
            ConsumerRecords<String, String> recs = pollSome(c, 20000);
            line(s, "got", fmt(recs));
            for (ConsumerRecord<String, String> r : recs)
                c.acknowledge(r, r.offset() == 0 ? AcknowledgeType.ACCEPT
                        : r.offset() == 1 ? AcknowledgeType.RELEASE : AcknowledgeType.REJECT);
            line(s, "commit", " " + commit(c));
            recs = pollSome(c, 10000);
            line(s, "got", fmt(recs));
            ackAll(c, recs, AcknowledgeType.ACCEPT);
            line(s, "commit", " " + commit(c));
            line(s, "more", fmt(pollAcceptFor(c, 2500)));
        }
    }

    static void refusal() throws Exception {
        String s = "refusal";
        try (KafkaShareConsumer<String, String> c = make(s, true)) {
            produce(s, 3);
            ConsumerRecords<String, String> recs = pollSome(c, 20000);
            line(s, "got", fmt(recs));
            String outcome;
            try {
                ConsumerRecords<String, String> again = c.poll(Duration.ofMillis(100));
                outcome = "not refused (" + again.count() + " records)";
            } catch (IllegalStateException e) {
                outcome = "refused";
                System.err.println("[java] refusal: " + e.getMessage());
            } catch (RuntimeException e) {
                outcome = e.getClass().getSimpleName();
            }
            line(s, "poll with unacknowledged records", " " + outcome);
            ackAll(c, recs, AcknowledgeType.ACCEPT);
            line(s, "commit", " " + commit(c));
            line(s, "more", fmt(pollAcceptFor(c, 2500)));
        }
    }

    /** Two members of one group poll in turn until one of them gets records: the holder (index in h[0]). */
    private static ConsumerRecords<String, String> firstHolder(List<KafkaShareConsumer<String, String>> m, int[] h) {
        long end = System.currentTimeMillis() + 20000;
        while (System.currentTimeMillis() < end)
            for (int i = 0; i < 2; i++) {
                ConsumerRecords<String, String> recs = m.get(i).poll(Duration.ofMillis(100));
                if (!recs.isEmpty()) {
                    h[0] = i;
                    return recs;
                }
            }
        return ConsumerRecords.empty();
    }

    static void close() throws Exception {
        String s = "close";
        List<KafkaShareConsumer<String, String>> m = List.of(make(s, true), make(s, true));
        int[] h = {0};
        try {
            produce(s, 3);
            ConsumerRecords<String, String> recs = firstHolder(m, h);
            line(s, "holder got", fmt(recs));
            String closed = "NONE";
            try {
                m.get(h[0]).close(Duration.ofSeconds(10));
            } catch (KafkaException e) {
                closed = Errors.forException(e).name();
            }
            line(s, "holder close", " " + closed);
            // the lock is 30 s: records that arrive within 15 s were released by the close
            KafkaShareConsumer<String, String> o = m.get(1 - h[0]);
            recs = pollSome(o, 15000);
            line(s, "other got", fmt(recs));
            ackAll(o, recs, AcknowledgeType.ACCEPT);
            line(s, "other commit", " " + commit(o));
        } finally {
            m.get(1 - h[0]).close(Duration.ofSeconds(10));
        }
    }

    static void expiry() throws Exception {
        String s = "expiry";
        List<KafkaShareConsumer<String, String>> m = List.of(make(s, true), make(s, true));
        try {
            produce(s, 3);
            int[] h = {0};
            ConsumerRecords<String, String> held = firstHolder(m, h);
            line(s, "holder got", fmt(held));
            KafkaShareConsumer<String, String> holder = m.get(h[0]), o = m.get(1 - h[0]);
            ConsumerRecords<String, String> recs = pollSome(o, 15000); // after the holder's 1 s lock expired
            line(s, "other got", fmt(recs));
            ackAll(holder, held, AcknowledgeType.ACCEPT);
            line(s, "holder late commit", " " + commit(holder));
            ackAll(o, recs, AcknowledgeType.ACCEPT);
            line(s, "other commit", " " + commit(o));
        } finally {
            for (KafkaShareConsumer<String, String> c : m) c.close(Duration.ofSeconds(10));
        }
    }

    static void limit() throws Exception {
        String s = "limit";
        try (KafkaShareConsumer<String, String> c = make(s, true)) {
            produce(s, 1);
            for (int round = 0; round < 2; round++) {
                ConsumerRecords<String, String> recs = pollSome(c, round == 0 ? 20000 : 10000);
                line(s, "got", fmt(recs));
                ackAll(c, recs, AcknowledgeType.RELEASE);
                line(s, "commit", " " + commit(c));
            }
            line(s, "more", fmt(pollAcceptFor(c, 2500)));
        }
    }

    static void renew() throws Exception {
        String s = "renew";
        List<KafkaShareConsumer<String, String>> m = List.of(make(s, true), make(s, true));
        try {
            produce(s, 1);
            int[] h = {0};
            ConsumerRecords<String, String> held = firstHolder(m, h);
            line(s, "holder got", fmt(held));
            KafkaShareConsumer<String, String> holder = m.get(h[0]), o = m.get(1 - h[0]);
            String renewals = held.isEmpty() ? "no record" : "NONE";
            ConsumerRecord<String, String> rec = held.isEmpty() ? null : held.iterator().next();
            List<ConsumerRecord<String, String>> other = new ArrayList<>();
            for (int round = 0; rec != null && round < 10; round++) {
                holder.acknowledge(rec, AcknowledgeType.RENEW);
                String res = commit(holder);
                if (!res.equals("NONE") && renewals.equals("NONE")) renewals = res;
                other.addAll(pollAcceptFor(o, 300)); // "processing" meanwhile
                held = pollSome(holder, 2000);       // the renewed record comes back
                rec = held.isEmpty() ? null : held.iterator().next();
                if (rec == null && renewals.equals("NONE")) renewals = "record not returned by poll";
            }
            line(s, "renewals", " " + renewals);
            line(s, "holder has after renewals", fmt(held));
            line(s, "other got", fmt(other));
            ackAll(holder, held, AcknowledgeType.ACCEPT);
            line(s, "holder accept", " " + commit(holder));
            line(s, "other more", fmt(pollAcceptFor(o, 2500)));
        } finally {
            for (KafkaShareConsumer<String, String> c : m) c.close(Duration.ofSeconds(10));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: ShareXClient BOOTSTRAP PREFIX [drain|acks|refusal|close|expiry|limit|renew ...]");
            System.exit(2);
        }
        boot = args[0];
        prefix = args[1];
        List<String> scen = new ArrayList<>();
        for (int i = 2; i < args.length; i++) scen.add(args[i]);
        if (scen.isEmpty()) scen = List.of("drain", "acks", "refusal", "close", "expiry", "limit", "renew");
        int status = 0;
        try {
            for (String s : scen) {
                long t0 = System.currentTimeMillis();
                switch (s) {
                    case "drain": drain(); break;
                    case "acks": acks(); break;
                    case "refusal": refusal(); break;
                    case "close": close(); break;
                    case "expiry": expiry(); break;
                    case "limit": limit(); break;
                    case "renew": renew(); break;
                    default:
                        System.err.println("unknown scenario " + s);
                        status = 2;
                }
                System.err.println("[java] scenario " + s + " took " + (System.currentTimeMillis() - t0) + " ms");
            }
        } finally {
            if (producer != null) producer.close(Duration.ofSeconds(10));
        }
        System.exit(status);
    }
}
