package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code pario} command on the newest JDK 22+ of the machine (Temurin 25 on a machine of this kind), whatever JVM
 * the suite runs on: {@code type}, {@code demo} (a write and a restore by JVM ranks it launches) and {@code checkpoint
 * write} print no JVM warning, neither the command's JVM nor its ranks'. The jar's datatypes copy through the foreign
 * memory API there, never {@code sun.misc.Unsafe}, and Netty's native transport has native access (the jar's
 * manifest, and the option the launcher gives its ranks).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class NewerJavaTest {
    private static final Pattern JAVA_VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");
    private static Path java;

    @TempDir
    Path dir;

    @BeforeAll
    static void findJava() throws IOException {
        final String given = System.getProperty("pario.jdk22");
        Path best = given == null || given.isBlank() ? null : Path.of(given);
        int bestFeature = best == null ? 0 : feature(best);
        try (Stream<Path> homes = Files.list(Path.of("/usr/lib/jvm"))) {
            for (final Path home : homes.toList()) {
                final int f = feature(home);
                if (f >= 22 && f > bestFeature && Files.isExecutable(home.resolve("bin/java"))) {
                    best = home;
                    bestFeature = f;
                }
            }
        }
        assertNotNull(best, "a JDK 22 or newer, which the suite runs the command on (Temurin 25 on this kind of machine)");
        assertTrue(bestFeature >= 22, best + " is Java " + bestFeature);
        java = best.resolve("bin/java");
    }

    private static int feature(final Path home) {
        try {
            final Matcher m = JAVA_VERSION.matcher(Files.readString(home.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** @return {exit code, standard output, standard error} of the command on the newer Java */
    private String[] pario(final String... args) throws Exception {
        final Path jar = Path.of("").toAbsolutePath().getParent().resolve("cli/target/pario.jar");
        final List<String> command = new ArrayList<>(List.of(java.toString(), "-jar", jar.toString()));
        command.addAll(List.of(args));
        final Process p = new ProcessBuilder(command).directory(dir.toFile()).start();
        final CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(unreadable: " + e + ")";
            }
        });
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(3, TimeUnit.MINUTES), String.join(" ", command) + " ended");
        return new String[] {Integer.toString(p.exitValue()), out, err.get(30, TimeUnit.SECONDS)};
    }

    private static void noWarning(final String what, final String[] r) {
        assertEquals("0", r[0], what + ":\n" + r[1] + r[2]);
        // the launcher passes its ranks' lines on with their rank in front: "[2] WARNING: ..."
        assertFalse(Pattern.compile("(?m)^(\\[\\d+] )?WARNING").matcher(r[1] + r[2]).find(),
            what + " on " + java + " printed a JVM warning:\n" + r[2] + r[1]);
    }

    @Test
    void typeDemoAndALaunchedCheckpointWritePrintNoJvmWarning() throws Exception {
        final String[] type = pario("type", "vector(2, 1, 2, int)");
        noWarning("pario type", type);
        assertTrue(type[1].contains("signature     int x2"), type[1]);
        final String[] demo = pario("demo", "--edge", "32", "--file", dir.resolve("demo.ckpt").toString());
        noWarning("pario demo", demo);
        assertTrue(demo[1].contains("every value checked: all 65536 match"), demo[1]);
        final String[] write = pario("checkpoint", "write", "-n", "3", dir.resolve("w.ckpt").toString());
        noWarning("pario checkpoint write", write);
        assertTrue(Files.size(dir.resolve("w.ckpt")) > 0);
    }
}
