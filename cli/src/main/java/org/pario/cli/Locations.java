package org.pario.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import org.pario.ParioException;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
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

    /**
     * Checks a file a command writes and then deletes (a demo's checkpoint, a benchmark's data) before any work: it
     * must not exist, so that nothing of the user's is overwritten or deleted; its directory must.
     *
     * @param option      the option that named it, for messages
     * @param location    the file
     * @param replaceable true when an existing file that passes it may be replaced (a previous run's result)
     * @return the location made absolute
     * @throws ParioException of category ARGUMENT naming the option and the file
     */
    static String scratch(final String option, final String location,
                          final java.util.function.Predicate<String> replaceable) {
        final String where = absolute(location);
        if (Storages.isLocal(where)) {
            final Path dir = Path.of(where).getParent();
            if (dir == null || !Files.isDirectory(dir)) {
                throw ParioException.argument(option + " " + location + ": the directory " + dir + " does not exist");
            }
        }
        if (exists(where) && !replaceable.test(where)) {
            throw ParioException.argument(option + " " + location + " exists; this command writes and then deletes "
                + "a file there: name one that does not exist");
        }
        return where;
    }

    /** @return whether something is at the location (a file, a directory, a device) */
    static boolean exists(final String where) {
        if (Storages.isLocal(where)) {
            return Files.exists(Path.of(where), LinkOption.NOFOLLOW_LINKS);
        }
        try (Storage st = Storages.open(where, new StorageProvider.Request(true, false, false, false))) {
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
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
