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

/** The README's main command, {@code bin/pario demo}, as a user runs it (smaller array). */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DemoTest {
    @TempDir
    Path dir;

    @Test
    void binParioDemoWritesRestoresAndChecksEveryValue() throws Exception {
        final Path root = Path.of("").toAbsolutePath().getParent();
        final Path file = dir.resolve("demo.ckpt");
        final Process p = new ProcessBuilder(root.resolve("bin/pario").toString(), "demo", "--edge", "32", "--file",
            file.toString()).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(3, TimeUnit.MINUTES));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("Wrote on 4 JVM ranks"), out);
        assertTrue(out.contains("Restored on 6 JVM ranks"), out);
        assertTrue(out.contains("every value checked: all 65536 match"), out);
        assertTrue(out.contains("hints in effect: {cb_buffer_size="), out);
        assertFalse(Files.exists(file), "the demo removes its checkpoint");
    }
}
