package dev.gregor.interop;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The Java side of the share-drain benchmark (bench/clients.sh), the same workload as
 * bench/gregor_bench_client.c share-drain: one KafkaShareConsumer in share group GROUP,
 * implicit acknowledgement (each poll accepts the previous batch), byte-array
 * deserializers, every other setting at the client's default; polls until N records were
 * received, then commitSync (accepts the last batch) and close.
 *
 * <pre>BenchShareDrain BOOTSTRAP GROUP TOPIC N [name=value ...]</pre>
 *
 * Prints one JSON line: seconds from subscribe to the last record, first_s (subscribe to
 * the first record), jvm_s (JVM start to main, from the RuntimeMXBean), msgs/s, MB/s.
 * Exit status 0 only if all N records arrived with delivery count 1.
 */
public final class BenchShareDrain {
    private BenchShareDrain() {}

    public static void main(String[] args) {
        if (args.length < 4) {
            System.err.println("usage: BenchShareDrain BOOTSTRAP GROUP TOPIC N [name=value ...]");
            System.exit(2);
        }
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        double jvmS = (System.currentTimeMillis() - jvmStart) / 1000.0;
        long n = Long.parseLong(args[3]);
        Properties cp = new Properties();
        cp.put("bootstrap.servers", args[0]);
        cp.put("group.id", args[1]);
        cp.put("client.id", "bench-share-drain");
        cp.put("key.deserializer", ByteArrayDeserializer.class.getName());
        cp.put("value.deserializer", ByteArrayDeserializer.class.getName());
        cp.put("share.acknowledgement.mode", "implicit");
        for (int i = 4; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq < 0) {
                System.err.println("expected name=value: " + args[i]);
                System.exit(2);
            }
            cp.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        long count = 0, bad = 0, bytes = 0;
        long t0, first = -1, last;
        try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(cp)) {
            t0 = System.nanoTime();
            last = t0;
            c.subscribe(List.of(args[2]));
            long idleSince = t0;
            while (count < n) {
                ConsumerRecords<byte[], byte[]> recs = c.poll(Duration.ofMillis(500));
                long t = System.nanoTime();
                if (recs.isEmpty()) {
                    if (t - idleSince > 30_000_000_000L) {
                        System.err.println("no records for 30 s after " + count);
                        break;
                    }
                    continue;
                }
                idleSince = t;
                if (first < 0) first = t;
                for (ConsumerRecord<byte[], byte[]> r : recs) {
                    byte[] v = r.value();
                    if (v == null || r.deliveryCount().orElse((short) 1) != 1) bad++;
                    else bytes += v.length;
                    count++;
                }
                last = t;
            }
            c.commitSync();
        }
        double secs = (last - t0) / 1e9;
        System.out.printf(java.util.Locale.ROOT,
                "{\"client\":\"java\",\"mode\":\"share-drain\",\"messages\":%d,\"done\":%d,\"failed\":%d,"
                        + "\"bytes\":%d,\"seconds\":%.3f,\"first_s\":%.3f,\"jvm_s\":%.3f,\"msgs_per_s\":%.1f,"
                        + "\"mb_per_s\":%.2f}%n",
                n, count, bad, bytes, secs, first >= 0 ? (first - t0) / 1e9 : -1.0, jvmS,
                secs > 0 ? count / secs : 0.0, secs > 0 ? bytes / 1e6 / secs : 0.0);
        System.exit(count >= n && bad == 0 ? 0 : 1);
    }
}
