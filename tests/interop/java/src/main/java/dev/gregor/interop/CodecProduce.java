package dev.gregor.interop;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Creates topics, then produces records given in the canonical form of
 * tests/integration/client_codec_dump.c with one KafkaProducer per codec
 * (compression.type=CODEC, acks=all, idempotent), each record to the partition given.
 *
 * usage: CodecProduce BOOTSTRAP TOPIC:PARTITIONS[,TOPIC:PARTITIONS...] CODEC=FILE...
 * FILE lines: "TOPIC PARTITION KEY VALUE HEADERS" (KEY/VALUE "null" or "x" + hex,
 * HEADERS "[xNAMEHEX=VALUE,...]"). Prints "ok   - ..." / "FAIL - ..."; exit 1 on a failure.
 */
public final class CodecProduce {
    private static int failures = 0;

    private static void check(boolean cond, String what) {
        System.out.println((cond ? "ok   - " : "FAIL - ") + what);
        System.out.flush();
        if (!cond) failures++;
    }

    /** "null" -> null, "x<hex>" -> bytes. */
    static byte[] unhex(String s) {
        if (s.equals("null")) return null;
        if (!s.startsWith("x") || s.length() % 2 != 1) throw new IllegalArgumentException("bad bytes field: " + s);
        byte[] b = new byte[(s.length() - 1) / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(1 + 2 * i, 3 + 2 * i), 16);
        return b;
    }

    static ProducerRecord<byte[], byte[]> parse(String line) {
        String[] f = line.split(" ");
        if (f.length != 5 || !f[4].startsWith("[") || !f[4].endsWith("]"))
            throw new IllegalArgumentException("bad line: " + line);
        List<org.apache.kafka.common.header.Header> headers = new ArrayList<>();
        String hs = f[4].substring(1, f[4].length() - 1);
        if (!hs.isEmpty()) {
            for (String h : hs.split(",", -1)) {
                int eq = h.indexOf('=');
                byte[] name = unhex(h.substring(0, eq));
                headers.add(new RecordHeader(new String(name, StandardCharsets.UTF_8), unhex(h.substring(eq + 1))));
            }
        }
        return new ProducerRecord<>(f[0], Integer.parseInt(f[1]), null, unhex(f[2]), unhex(f[3]), headers);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: CodecProduce BOOTSTRAP TOPIC:PARTITIONS[,...] CODEC=FILE...");
            System.exit(2);
        }
        String bootstrap = args[0];
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60000);
        List<NewTopic> topics = new ArrayList<>();
        for (String t : args[1].split(",")) {
            int c = t.lastIndexOf(':');
            topics.add(new NewTopic(t.substring(0, c), Integer.parseInt(t.substring(c + 1)), (short) 1));
        }
        try (Admin admin = Admin.create(ap)) {
            admin.createTopics(topics).values().forEach((name, fut) -> {
                try {
                    fut.get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) check(false, "create " + name + ": " + e.getCause());
                } catch (Exception e) {
                    check(false, "create " + name + ": " + e);
                }
            });
        }
        check(failures == 0, "created " + topics.size() + " topics");

        for (int a = 2; a < args.length; a++) {
            String codec = args[a].substring(0, args[a].indexOf('='));
            String file = args[a].substring(args[a].indexOf('=') + 1);
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pp.put(ProducerConfig.ACKS_CONFIG, "all");
            pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            pp.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
            pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            List<Future<RecordMetadata>> futs = new ArrayList<>();
            int errors = 0;
            String firstError = "";
            try (KafkaProducer<byte[], byte[]> prod = new KafkaProducer<>(pp);
                 BufferedReader in = Files.newBufferedReader(Paths.get(file), StandardCharsets.US_ASCII)) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (!line.isEmpty()) futs.add(prod.send(parse(line)));
                }
                prod.flush();
                for (Future<RecordMetadata> f : futs) {
                    try {
                        f.get(60, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        if (errors++ == 0) firstError = ": " + e.getCause();
                    }
                }
            }
            check(errors == 0, "Java KafkaProducer compression.type=" + codec + ": " + (futs.size() - errors) + " of "
                    + futs.size() + " records acknowledged" + firstError);
        }
        System.out.println("done");
        System.exit(failures == 0 ? 0 : 1);
    }
}
