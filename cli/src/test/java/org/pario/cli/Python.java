package org.pario.cli;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** Finds a Python with NumPy for tests that check files the way their users read them. */
final class Python {
    private Python() {
    }

    /**
     * @return a Python interpreter that imports numpy
     * @throws AssertionError naming what to install when there is none: bin/setup-test-deps installs it
     */
    static String withNumpy() {
        for (final String candidate : List.of("python3", "/usr/bin/python3", "python")) {
            try {
                final Process p = new ProcessBuilder(candidate, "-c", "import numpy").redirectErrorStream(true)
                    .start();
                if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return candidate;
                }
                p.destroyForcibly();
            } catch (java.io.IOException notThere) {
                // try the next
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("no Python with NumPy on this machine; bin/setup-test-deps installs python3-numpy");
    }
}
