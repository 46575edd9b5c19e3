package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.cli.Main;

/** {@code pario launch} starting real JVM ranks. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LaunchTest {
    private static String[] launch(final int n, final String mode) {
        final List<String> args = new ArrayList<>(List.of("launch", "-n", Integer.toString(n), "--",
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp",
            System.getProperty("java.class.path"), JobMain.class.getName(), mode));
        return args.toArray(new String[0]);
    }

    @Test
    void launchStartsAJobAndPrefixesOutputWithRanks() {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(new PrintWriter(out), new PrintWriter(err), launch(3, "collectives"));
        assertEquals(0, code, out + "\n" + err);
        for (int r = 0; r < 3; r++) {
            assertTrue(out.toString().contains("[" + r + "] rank " + r + " ok of 3"), out.toString());
        }
    }

    @Test
    void launchExitsWithTheFirstFailureAndStopsTheRest() {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(new PrintWriter(out), new PrintWriter(err), launch(4, "die"));
        assertNotEquals(0, code, out.toString());
        assertTrue(err.toString().contains("exited with status"), err.toString());
    }
}
