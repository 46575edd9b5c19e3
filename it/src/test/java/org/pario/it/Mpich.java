package org.pario.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds MPICH's tools; a missing MPICH fails the test with the command that installs it. */
final class Mpich {
    private Mpich() {
    }

    static String mpicc() {
        for (final String candidate : new String[] {"/usr/bin/mpicc.mpich", "/usr/bin/mpicc"}) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        fail("MPICH is not installed; the README's test command (bin/test) installs it, "
            + "or run: apt-get install -y mpich libmpich-dev");
        return null;
    }

    static String mpiexec() {
        for (final String candidate : new String[] {"/usr/bin/mpiexec.mpich", "/usr/bin/mpiexec.hydra"}) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        fail("MPICH's mpiexec is not installed; the README's test command (bin/test) installs it");
        return null;
    }
}
