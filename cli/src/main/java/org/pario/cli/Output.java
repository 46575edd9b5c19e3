package org.pario.cli;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.io.storage.Storages;

/**
 * A file a command writes, written so that nothing is destroyed: the target is checked before any work (its
 * directory exists; it is not a directory, a device or another file that is not a regular one; it is none of the
 * command's inputs), the data goes to a hidden file beside it, and only a command that succeeded renames that file
 * over the target. A failed command, a full disk or an interrupt leaves the target as it was and removes the hidden
 * file.
 */
final class Output {
    private final String target;
    private final String hidden;

    private Output(final String target, final String hidden) {
        this.target = target;
        this.hidden = hidden;
    }

    /**
     * Checks a target and names its hidden file.
     *
     * @param option the option or parameter that named it ({@code OUT}, {@code --output}), for messages
     * @param target a local path or a URI of a storage backend
     * @param inputs the command's input files, none of which the target may be
     * @return the output
     * @throws ParioException of category ARGUMENT naming the option and the target
     */
    static Output prepare(final String option, final String target, final String... inputs) {
        final String where = Locations.absolute(target);
        final String name = Storages.fileName(where);
        if (name.isEmpty()) {
            throw ParioException.argument(option + " " + target + " names no file");
        }
        if (Storages.isLocal(where)) {
            final Path path = Path.of(where);
            final Path dir = path.getParent();
            if (dir == null || !Files.isDirectory(dir)) {
                throw ParioException.argument(option + " " + target + ": the directory " + dir + " does not exist");
            }
            if (Files.exists(path, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(path)) {
                throw ParioException.argument(option + " " + target + " is " + (Files.isDirectory(path)
                    ? "a directory" : "not a regular file (a device, pipe or socket)") + "; name a file to write");
            }
            for (final String input : inputs) {
                if (input != null && Storages.isLocal(input) && same(path, Path.of(Locations.absolute(input)))) {
                    throw ParioException.argument(option + " " + target + " is the input " + input + "; name "
                        + "another file, so that the input survives");
                }
            }
        } else {
            for (final String input : inputs) {
                if (where.equals(input == null ? null : Locations.absolute(input))) {
                    throw ParioException.argument(option + " " + target + " is the input " + input);
                }
            }
        }
        final String tag = Long.toHexString(new SecureRandom().nextLong() & Long.MAX_VALUE);
        return new Output(where, Storages.sibling(where, "." + name + ".pario-" + tag + ".tmp"));
    }

    private static boolean same(final Path a, final Path b) {
        try {
            return Files.exists(a) && Files.exists(b) ? Files.isSameFile(a, b) : a.normalize().equals(b.normalize());
        } catch (IOException e) {
            return a.normalize().equals(b.normalize());
        }
    }

    /** What writes the hidden file. */
    @FunctionalInterface
    interface Writing<T> {
        /**
         * @param file the hidden file to write
         * @return the command's result
         * @throws Exception any failure, which leaves the target as it was
         */
        T write(String file) throws Exception;
    }

    /**
     * Runs {@code body} on the hidden file and publishes it if the body succeeds; on any failure, or if the JVM is
     * stopped meanwhile (Ctrl-C), the hidden file is removed and the target stays as it was.
     *
     * @param body writes the file; a result it returns that is an {@code Integer} other than 0 counts as failure
     * @return the body's result
     * @throws Exception the body's failure
     */
    <T> T write(final Writing<T> body) throws Exception {
        final Thread onStop = new Thread(this::abandon, "pario-output-cleanup");
        Runtime.getRuntime().addShutdownHook(onStop);
        boolean done = false;
        try {
            final T result = body.write(hidden);
            if (!(result instanceof Integer status) || status == 0) {
                commit();
                done = true;
            }
            return result;
        } finally {
            if (!done) {
                abandon();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(onStop);
            } catch (IllegalStateException stopping) {
                // the JVM is stopping: the hook runs, and abandons what is left
            }
        }
    }

    /**
     * Publishes the written file under the target's name (replacing it), synced, in one rename.
     *
     * @throws ParioException of category IO if that fails; the hidden file is removed then
     */
    void commit() {
        try {
            if (Storages.isLocal(target)) {
                // the data is durable before the rename makes it the target
                try (FileChannel ch = FileChannel.open(Path.of(hidden), StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
            }
            Storages.providerOf(target).replace(hidden, target);
        } catch (IOException e) {
            abandon();
            throw new ParioException(ErrorCategory.IO, "cannot write " + target + ": " + e.getMessage(), e);
        }
    }

    /** Removes the hidden file, if it is there; the target stays as it was. */
    void abandon() {
        try {
            Storages.delete(hidden);
        } catch (NoSuchFileException e) {
            // nothing was written
        } catch (IOException e) {
            // best effort: the hidden name can never be taken for the target
        }
    }
}
