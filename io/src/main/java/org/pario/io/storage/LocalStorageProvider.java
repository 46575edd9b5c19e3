package org.pario.io.storage;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

/**
 * The local file system as a provider, for plain paths and {@code file:} URIs: files opened as
 * {@link LocalStorage}, and a replace that is one atomic rename followed by a sync of the directory, so a file
 * published under its name survives a crash whole or not at all.
 */
public final class LocalStorageProvider implements StorageProvider {
    /** The one instance; it holds nothing. */
    public static final LocalStorageProvider INSTANCE = new LocalStorageProvider();

    private LocalStorageProvider() {
    }

    @Override
    public String scheme() {
        return "file";
    }

    /** A local file has nothing to repair on opening: the ranks of a job open one they do not create at once. */
    @Override
    public boolean repairsOnFirstOpen() {
        return false;
    }

    @Override
    public Set<Storage.Capability> capabilities() {
        // files join by the provider's concat, a copy; a local file offers no concat of its own parts
        return EnumSet.of(Storage.Capability.POSITIONAL_WRITE, Storage.Capability.POSITIONAL_READ,
            Storage.Capability.TRUNCATE, Storage.Capability.LOCK);
    }

    static Path path(final String location) {
        return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
    }

    @Override
    public Storage open(final String location, final Request request) throws IOException {
        final Set<OpenOption> o = new HashSet<>();
        if (request.read()) {
            o.add(StandardOpenOption.READ);
        }
        if (request.write()) {
            o.add(StandardOpenOption.WRITE);
        }
        if (request.create()) {
            o.add(request.exclusive() ? StandardOpenOption.CREATE_NEW : StandardOpenOption.CREATE);
        }
        return new LocalStorage(path(location), o, Storages.directIo(request.hints()));
    }

    @Override
    public java.util.List<Listed> list(final String directory) throws IOException {
        final java.util.List<Listed> out = new java.util.ArrayList<>();
        final Path dir = path(directory);
        final String prefix = directory.endsWith("/") ? directory : directory + "/";
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            for (final Path f : (Iterable<Path>) files::iterator) {
                final java.nio.file.attribute.BasicFileAttributes a;
                try {
                    a = Files.readAttributes(f, java.nio.file.attribute.BasicFileAttributes.class);
                } catch (java.nio.file.NoSuchFileException gone) {
                    continue; // removed while the directory was listed
                }
                if (a.isRegularFile()) {
                    out.add(new Listed(prefix + f.getFileName(), a.size(), a.lastModifiedTime().toInstant()));
                }
            }
        }
        return out;
    }

    @Override
    public void delete(final String location) throws IOException {
        Files.delete(path(location));
    }

    @Override
    public void create(final String location, final ByteBuffer content) throws IOException {
        try (FileChannel ch = FileChannel.open(path(location), StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE)) {
            final ByteBuffer b = content.duplicate();
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
    }

    /** Appends by copying (the local file system has no concat), then removes the sources. */
    @Override
    public void concat(final String target, final String... sources) throws IOException {
        try (FileChannel out = FileChannel.open(path(target), StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            for (final String s : sources) {
                try (FileChannel in = FileChannel.open(path(s), StandardOpenOption.READ)) {
                    long at = 0;
                    final long size = in.size();
                    while (at < size) {
                        at += in.transferTo(at, size - at, out);
                    }
                }
            }
            out.force(true);
        }
        for (final String s : sources) {
            Files.delete(path(s));
        }
    }

    /**
     * Renames {@code from} over {@code to} in one step where the file system can, then syncs the directory.
     *
     * @throws IOException also when {@code to} is a directory or another file that is not a regular one, which a
     *                     rename would replace
     */
    @Override
    public void replace(final String from, final String to) throws IOException {
        final Path target = path(to).toAbsolutePath();
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(to + " is not a regular file; only a file is replaced");
        }
        // the replaced file's blocks are freed when its last reference goes: held open across the rename and let go
        // on a thread of its own, the freeing of a large file's extents (tenths of a second per GiB) leaves the
        // commit's critical path
        FileChannel replaced = null;
        try {
            replaced = FileChannel.open(target, StandardOpenOption.READ);
        } catch (IOException absentOrUnreadable) {
            // nothing to hold: the rename frees what it replaces, if anything
        }
        try {
            try {
                Files.move(path(from), target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(path(from), target, StandardCopyOption.REPLACE_EXISTING);
            }
            try (FileChannel dir = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
                dir.force(true);
            } catch (IOException ignored) {
                // some file systems cannot sync a directory; the rename itself is done
            }
        } finally {
            if (replaced != null) {
                letGo(replaced);
            }
        }
    }

    private static void letGo(final FileChannel replaced) {
        final Thread t = new Thread(() -> {
            try {
                replaced.close();
            } catch (IOException ignored) {
                // the file is gone from the directory either way
            }
        }, "pario-free-replaced");
        t.setDaemon(true);
        t.start();
    }
}
