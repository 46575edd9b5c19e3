package org.pario.io.storage;

import java.util.Set;

import java.io.IOException;

/**
 * A kind of storage, found by the location's URI scheme through {@link java.util.ServiceLoader}: a module that
 * adds a backend (HDFS, say) lists its provider in {@code META-INF/services/org.pario.io.storage.StorageProvider}.
 * Plain paths and {@code file:} URIs go to the local file system ({@link LocalStorageProvider}), which needs no
 * registration.
 */
public interface StorageProvider {
    /**
     * How a rank opens a file.
     *
     * @param read      it will read
     * @param write     it will write
     * @param create    create the file if it does not exist (only the creating rank passes true)
     * @param exclusive fail if the file exists (with create)
     * @param hints     the file's hints: a backend may take its own settings from them (the HDFS backend takes
     *                  Hadoop configuration keys)
     * @param first     this is the first of the ranks that open the file together, which opens it before the others
     *                  do: a backend repairs there what an interrupted operation left (the HDFS backend undoes a
     *                  commit its writer died in)
     */
    record Request(boolean read, boolean write, boolean create, boolean exclusive, java.util.Map<String, String> hints,
                   boolean first) {
        /** Checks the fields. */
        public Request {
            hints = java.util.Map.copyOf(hints);
        }

        /** A request of a rank that opens the file alone (so first). */
        public Request(final boolean read, final boolean write, final boolean create, final boolean exclusive,
                       final java.util.Map<String, String> hints) {
            this(read, write, create, exclusive, hints, true);
        }

        /** A request without hints. */
        public Request(final boolean read, final boolean write, final boolean create, final boolean exclusive) {
            this(read, write, create, exclusive, java.util.Map.of());
        }
    }

    /**
     * A file found in a directory.
     *
     * @param location its location, in the form the provider opens
     * @param bytes    its size
     * @param modified when it was last modified
     */
    record Listed(String location, long bytes, java.time.Instant modified) {
    }

    /**
     * Lists the files of a directory (not its subdirectories), in no particular order.
     *
     * @param directory the directory's location, with this provider's scheme
     * @return its files
     * @throws IOException as the backend reports it ({@link java.nio.file.NoSuchFileException} if it is missing)
     */
    java.util.List<Listed> list(String directory) throws IOException;

    /** @return the URI scheme this provider handles ({@code "hdfs"}) */
    String scheme();

    /**
     * @return whether the first rank's open ({@link Request#first()}) may repair the file, so that the other ranks
     *     of a collective open must open it only after that one has: false lets them open a file they do not create
     *     all at once
     */
    default boolean repairsOnFirstOpen() {
        return true;
    }

    /**
     * What this provider's files can do, known before any file is opened: writers choose their route by it (a
     * checkpoint is written in place where files take positional writes, and staged and joined where they only
     * append).
     *
     * @return the capabilities of its files
     */
    Set<Storage.Capability> capabilities();

    /**
     * Opens a file.
     *
     * @param location the file's location, with this provider's scheme
     * @param request  how
     * @return the open file
     * @throws IOException as the backend reports it
     */
    Storage open(String location, Request request) throws IOException;

    /**
     * Deletes a file.
     *
     * @param location the file's location
     * @throws IOException as the backend reports it ({@link java.nio.file.NoSuchFileException} if it is missing)
     */
    void delete(String location) throws IOException;

    /**
     * Creates a new file holding {@code content} (fails if it exists).
     *
     * @param location the file
     * @param content  its bytes
     * @throws IOException as the backend reports it
     */
    void create(String location, java.nio.ByteBuffer content) throws IOException;

    /**
     * Creates a new file holding {@code content} (fails if it exists), made as a file opened with {@code hints} would
     * be (on HDFS, its block size: files joined by {@link #concat} must share it).
     *
     * @param location the file
     * @param content  its bytes
     * @param hints    the hints of the file it belongs with
     * @throws IOException as the backend reports it
     */
    default void create(final String location, final java.nio.ByteBuffer content,
                        final java.util.Map<String, String> hints) throws IOException {
        create(location, content);
    }

    /**
     * Appends the files {@code sources} to {@code target}, in order, in one step where the backend can, and removes
     * them. All must be in the same directory.
     *
     * @param target  the file that grows
     * @param sources the files that end up at its end
     * @throws IOException as the backend reports it
     */
    void concat(String target, String... sources) throws IOException;

    /**
     * Renames {@code from} to {@code to}, replacing {@code to} if it exists, atomically.
     *
     * @param from the file
     * @param to   its new name
     * @throws IOException as the backend reports it
     */
    void replace(String from, String to) throws IOException;
}
