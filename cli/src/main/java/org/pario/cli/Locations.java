package org.pario.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import org.pario.io.storage.Storages;

/** File locations as the commands take them: local paths or URIs of a storage backend ({@code hdfs://...}). */
final class Locations {
    private Locations() {
    }

    /** @return a local path made absolute (launched ranks may run elsewhere), or the URI as given */
    static String absolute(final String location) {
        return Storages.isLocal(location) && !location.startsWith("file:") ? Path.of(location).toAbsolutePath()
            .toString() : location;
    }

    /** Deletes a file if it exists, wherever it lives. */
    static void deleteIfExists(final String location) {
        try {
            Storages.delete(location);
        } catch (NoSuchFileException e) {
            // nothing to delete
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + location + ": " + e.getMessage(), e);
        }
    }
}
