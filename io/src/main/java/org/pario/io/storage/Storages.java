package org.pario.io.storage;

import java.io.IOException;
import java.util.Locale;
import java.util.ServiceLoader;

import org.pario.ParioException;

/** Finds the backend of a location: the local file system, or a {@link StorageProvider} by URI scheme. */
public final class Storages {
    private Storages() {
    }

    /** @return the URI scheme of a location, or null for a plain path */
    static String scheme(final String location) {
        final int colon = location.indexOf("://");
        if (colon <= 1) {
            return location.startsWith("file:") ? "file" : null;
        }
        return location.substring(0, colon).toLowerCase(Locale.ROOT);
    }

    private static StorageProvider provider(final String scheme) {
        for (final StorageProvider p : ServiceLoader.load(StorageProvider.class)) {
            if (p.scheme().equalsIgnoreCase(scheme)) {
                return p;
            }
        }
        throw ParioException.argument("no storage backend for '" + scheme + "://' locations on the class path"
            + (scheme.equals("hdfs") ? "; add the pario-hdfs module" : ""));
    }

    /**
     * Opens a file wherever it lives.
     *
     * @param location a path, a {@code file:} URI or a URI whose scheme a provider handles
     * @param request  how
     * @return the open file
     * @throws IOException as the backend reports it
     */
    public static Storage open(final String location, final StorageProvider.Request request) throws IOException {
        return providerOf(location).open(location, request);
    }

    /** @return which accesses the hints ask to bypass the page cache */
    static LocalStorage.DirectIo directIo(final java.util.Map<String, String> hints) {
        final String read = hints.getOrDefault("direct_read", "false");
        final String write = hints.getOrDefault("direct_write", "false");
        return new LocalStorage.DirectIo(!read.equals("false"), !write.equals("false"),
            minBytes(read, hints.get("pario_direct_read_threshold")),
            minBytes(write, hints.get("pario_direct_write_threshold")));
    }

    /** @return the shortest direct access for a direct_read or direct_write setting and its threshold hint */
    private static long minBytes(final String setting, final String threshold) {
        return setting.equals("automatic") ? Math.max(1, threshold == null ? 0 : Long.parseLong(threshold)) : 0;
    }

    /** @return whether a location is on the local file system */
    public static boolean isLocal(final String location) {
        final String scheme = scheme(location);
        return scheme == null || scheme.equals("file");
    }

    /** @return the provider of a location: {@link LocalStorageProvider} for paths and {@code file:} URIs */
    public static StorageProvider providerOf(final String location) {
        return isLocal(location) ? LocalStorageProvider.INSTANCE : provider(scheme(location));
    }

    /**
     * @param location a file
     * @param name     a file name
     * @return the location of {@code name} in the same directory as {@code location}
     */
    public static String sibling(final String location, final String name) {
        final int slash = location.lastIndexOf('/');
        if (slash < 0) {
            return name;
        }
        return location.substring(0, slash + 1) + name;
    }

    /** @return the last element of a location's path */
    public static String fileName(final String location) {
        return location.substring(location.lastIndexOf('/') + 1);
    }

    /**
     * Deletes a file wherever it lives.
     *
     * @param location the file
     * @throws IOException as the backend reports it
     */
    public static void delete(final String location) throws IOException {
        providerOf(location).delete(location);
    }
}
