package org.pario.io.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A fresh directory under the build directory, on the disk the project is checked out on: the system's temporary
 * directory may be a file system that refuses {@code O_DIRECT}, which tests of direct I/O must not run on.
 */
public final class DiskDirectory {
    private DiskDirectory() {
    }

    /** @return a new empty directory under {@code target/direct-io} whose name starts with {@code prefix} */
    public static Path create(final String prefix) throws IOException {
        return Files.createTempDirectory(Files.createDirectories(Path.of("target", "direct-io")), prefix);
    }

    /** Deletes a directory made by {@link #create} with the files in it. */
    public static void delete(final Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            for (final Path p : files.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }
}
