package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binary distribution the build makes ({@code cli/target/pario-VERSION-bin.tar.gz}), unpacked into an empty
 * folder away from the source tree: {@code bin/pario demo}, a checkpoint written and verified, and what the
 * archive must hold beside the command.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DistributionTest {
    @TempDir
    Path dir;

    private static Path archive() throws IOException {
        final Path target = Path.of("..", "cli", "target").toAbsolutePath().normalize();
        try (Stream<Path> s = Files.list(target)) {
            return s.filter(p -> p.getFileName().toString().matches("pario-.*-bin\\.tar\\.gz")).findFirst()
                .orElseThrow(() -> new AssertionError("no pario-*-bin.tar.gz in " + target + ": the cli module's "
                    + "package phase makes it"));
        }
    }

    /** @return {exit code, standard output and error} */
    private String[] run(final Path home, final String... args) throws Exception {
        final List<String> command = new java.util.ArrayList<>(List.of(home.resolve("bin/pario").toString()));
        command.addAll(List.of(args));
        final Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(3, TimeUnit.MINUTES), "pario " + String.join(" ", args) + " still runs");
        return new String[] {Integer.toString(p.exitValue()), out};
    }

    @Test
    void theUnpackedDistributionRunsTheDemoAndVerifiesACheckpoint() throws Exception {
        Processes.run("tar", "xzf", archive().toString(), "-C", dir.toString());
        final Path home;
        try (Stream<Path> s = Files.list(dir)) {
            home = s.filter(p -> p.getFileName().toString().startsWith("pario-")).findFirst().orElseThrow();
        }
        for (final String file : new String[] {"bin/pario", "lib/pario.jar", "NOTICE", "THIRD-PARTY.txt",
            "README.md", "docs/guide.md", "docs/cli.md", "examples/README.md", "examples/heat-diffusion.png",
            "examples/src/main/java/org/pario/examples/HeatDiffusion.java"}) {
            assertTrue(Files.isRegularFile(home.resolve(file)), file + " is in the distribution");
        }
        assertTrue(Files.isExecutable(home.resolve("bin/pario")));
        assertTrue(Files.readString(home.resolve("THIRD-PARTY.txt")).contains("io.netty:netty-transport:jar"));

        final String[] demo = run(home, "demo", "--edge", "32", "--file", dir.resolve("demo.ckpt").toString());
        assertEquals("0", demo[0], demo[1]);
        assertTrue(demo[1].contains("Restored on 6 JVM ranks") && demo[1].contains("every value checked"), demo[1]);

        final String ckpt = dir.resolve("c.ckpt").toString();
        final String[] write = run(home, "checkpoint", "write", ckpt, "-n", "3", "--shape", "40x30");
        assertEquals("0", write[0], write[1]);
        final String[] verify = run(home, "checkpoint", "verify", ckpt);
        assertEquals("0", verify[0], verify[1]);
        assertTrue(verify[1].contains("all match"), verify[1]);
    }
}
