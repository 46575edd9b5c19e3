package org.pario.io.storage;

import java.io.IOException;

/**
 * A kind of storage, found by the location's URI scheme through {@link java.util.ServiceLoader}: a module that
 * adds a backend (HDFS, say) lists its provider in {@code META-INF/services/org.pario.io.storage.StorageProvider}.
 * Plain paths and {@code file:} URIs go to the local file system without a provider.
 */
public interface StorageProvider {
    /**
     * How a rank opens a file.
     *
     * @param read      it will read
     * @param write     it will write
     * @param create    create the file if it does not exist (only the creating rank passes true)
     * @param exclusive fail if the file exists (with create)
     */
    record Request(boolean read, boolean write, boolean create, boolean exclusive) {
    }

    /** @return the URI scheme this provider handles ({@code "hdfs"}) */
    String scheme();

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
}
