package dev.gregor.interop;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.common.utils.internals.Exit; // moved from common.utils in 4.4.0

/**
 * Runs a Kafka group tool (a main class of the kafka-tools jar, e.g. ConsumerGroupCommand; loaded by
 * name: put tests/ref/target/lib/* on the class path) many times in one JVM, so a test
 * does not pay a JVM start per command.
 *
 * <pre>usage: GroupToolRunner CLASS BOOTSTRAP OUTDIR</pre>
 * reads lines "STEP\targ\targ..." on stdin; for each runs the tool with "--bootstrap-server BOOTSTRAP
 * args...", writing its stdout to OUTDIR/STEP.out, its stderr to OUTDIR/STEP.err and its exit status
 * (Exit.exit code, 0 when main returns, 99 when it throws) to OUTDIR/STEP.rc, then prints "DONE STEP".
 */
public final class GroupToolRunner {
    private GroupToolRunner() {}

    private static final class ExitCalled extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int code;

        ExitCalled(int code) {
            super("exit " + code, null, false, false);
            this.code = code;
        }
    }

    private static final Integer[] exitCode = new Integer[1];

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: GroupToolRunner CLASS BOOTSTRAP OUTDIR");
            System.exit(2);
        }
        String boot = args[1];
        Path dir = Path.of(args[2]);
        Files.createDirectories(dir);
        Method main = Class.forName(args[0])
                .getMethod("main", String[].class);
        // The tool's run() catches Throwable: remember the first exit code, and drop what the tool prints
        // after it (the real tool would already have exited).
        Exit.setExitProcedure((code, msg) -> {
            if (exitCode[0] == null) exitCode[0] = code;
            throw new ExitCalled(code);
        });
        PrintStream realOut = System.out, realErr = System.err;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            String[] f = line.split("\t");
            String step = f[0];
            List<String> a = new ArrayList<>(List.of("--bootstrap-server", boot));
            a.addAll(Arrays.asList(f).subList(1, f.length));
            int rc = 0;
            exitCode[0] = null;
            try (PrintStream o = new PrintStream(new FileOutputStream(dir.resolve(step + ".out").toFile()), true,
                                                 StandardCharsets.UTF_8);
                 PrintStream e = new PrintStream(new FileOutputStream(dir.resolve(step + ".err").toFile()), true,
                                                 StandardCharsets.UTF_8)) {
                System.setOut(o);
                System.setErr(e);
                try {
                    main.invoke(null, (Object) a.toArray(new String[0]));
                } catch (InvocationTargetException ite) {
                    Throwable t = ite.getCause();
                    if (t instanceof ExitCalled) {
                        rc = ((ExitCalled) t).code;
                    } else {
                        rc = 99;
                        t.printStackTrace(e);
                    }
                } finally {
                    System.out.flush();
                    System.err.flush();
                    System.setOut(realOut);
                    System.setErr(realErr);
                }
            }
            if (exitCode[0] != null) {
                rc = exitCode[0];
                for (String ext : new String[] {".out", ".err"}) {
                    Path file = dir.resolve(step + ext);
                    List<String> keep = new ArrayList<>();
                    boolean skipTrace = false;
                    for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                        if (l.contains("failed due to exit ") || l.contains("ExitCalled")) { skipTrace = true; continue; }
                        if (skipTrace && l.startsWith("\tat ")) continue;
                        skipTrace = false;
                        keep.add(l);
                    }
                    Files.write(file, keep, StandardCharsets.UTF_8);
                }
            }
            Files.writeString(dir.resolve(step + ".rc"), rc + "\n");
            realOut.println("DONE " + step);
            realOut.flush();
        }
    }
}
