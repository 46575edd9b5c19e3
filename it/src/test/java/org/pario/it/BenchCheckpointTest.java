package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code pario bench checkpoint} runs every phase on a small array, checks the values and leaves no file. */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BenchCheckpointTest {
    @TempDir
    Path dir;

    @Test
    void everyPhaseRunsAndReportsItsRatios() throws Exception {
        final Path root = Path.of("").toAbsolutePath().getParent();
        final Path prefix = dir.resolve("b");
        final Process p = new ProcessBuilder(root.resolve("bin/pario").toString(), "bench", "checkpoint", "-n", "3",
            "--size", "24", "--pattern", "cyclic", "--rounds", "2", "--compute", "0.5", "--file", prefix.toString())
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(3, TimeUnit.MINUTES));
        assertEquals(0, p.exitValue(), out);
        for (final String phase : new String[] {"first-checkpoint", "raw-write", "checkpoint-write", "raw-read",
            "restore", "restore-fewer", "verify"}) {
            assertTrue(out.contains("\n" + phase + " cyclic 3 "), phase + " in:\n" + out);
        }
        assertTrue(out.contains("# checkpoint-write on rank 0: AGREE "), out);
        assertTrue(out.contains("# median checkpoint-write cyclic 3 "), out);
        assertTrue(out.contains("# ratio restore / raw-read "), out);
        assertFalse(Files.exists(dir.resolve("b.raw")) || Files.exists(dir.resolve("b.ckpt")), "files removed");
    }
}
