package dev.gregor.interop;

import java.io.BufferedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads every partition of the given topics from the beginning up to the end offsets taken
 * at start, with a KafkaConsumer without a group (assign + seekToBeginning), and prints each
 * record in the canonical form of tests/integration/client_codec_dump.c:
 * "TOPIC PARTITION OFFSET KEY VALUE HEADERS".
 *
 * usage: CodecDump BOOTSTRAP WAIT_SECONDS TOPIC... Exit 1 if not everything arrived in time.
 */
public final class CodecDump {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    static String hex(byte[] b) {
        if (b == null) return "null";
        StringBuilder sb = new StringBuilder(1 + 2 * b.length).append('x');
        for (byte x : b) sb.append(HEX[(x >> 4) & 15]).append(HEX[x & 15]);
        return sb.toString();
    }

    static String canonical(ConsumerRecord<byte[], byte[]> r) {
        StringBuilder sb = new StringBuilder();
        sb.append(r.topic()).append(' ').append(r.partition()).append(' ').append(r.offset()).append(' ');
        sb.append(hex(r.key())).append(' ').append(hex(r.value())).append(" [");
        boolean first = true;
        for (Header h : r.headers()) {
            if (!first) sb.append(',');
            first = false;
            sb.append(hex(h.key().getBytes(StandardCharsets.UTF_8))).append('=').append(hex(h.value()));
        }
        return sb.append(']').toString();
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: CodecDump BOOTSTRAP WAIT_SECONDS TOPIC...");
            System.exit(2);
        }
        long deadline = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false, StandardCharsets.US_ASCII);
        int rc = 0;
        try (KafkaConsumer<byte[], byte[]> cons = new KafkaConsumer<>(cp)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 2; i < args.length; i++)
                for (PartitionInfo pi : cons.partitionsFor(args[i], Duration.ofSeconds(60)))
                    tps.add(new TopicPartition(pi.topic(), pi.partition()));
            cons.assign(tps);
            cons.seekToBeginning(tps);
            Map<TopicPartition, Long> end = new HashMap<>(cons.endOffsets(tps, Duration.ofSeconds(60)));
            Map<TopicPartition, Long> next = new HashMap<>();
            for (TopicPartition tp : tps) next.put(tp, cons.position(tp, Duration.ofSeconds(60)));
            for (;;) {
                boolean done = true;
                for (TopicPartition tp : tps) if (next.get(tp) < end.get(tp)) done = false;
                if (done) break;
                if (System.nanoTime() > deadline) {
                    System.err.println("timed out: positions " + next + ", ends " + end);
                    rc = 1;
                    break;
                }
                for (ConsumerRecord<byte[], byte[]> r : cons.poll(Duration.ofMillis(500))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (r.offset() >= end.get(tp)) continue;
                    out.println(canonical(r));
                    next.put(tp, r.offset() + 1);
                }
            }
        }
        out.flush();
        System.exit(rc);
    }
}
