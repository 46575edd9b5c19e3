package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.netty.util.internal.PlatformDependent;

/**
 * Large messages between ranks of one host through files in shared memory ({@code /dev/shm}): the sender packs
 * the data into an arena file it shares with the receiver, announces the path and offset in place of an RTS, and
 * the receiver unpacks straight from its own mapping of the file into the receive buffer. Each byte is copied twice (pack, unpack) instead of four times
 * through the sockets, and no event loop touches it. A receiver that cannot open the file asks for the data over
 * the connection as usual, so the path is an optimisation, never a requirement.
 *
 * <p>Files live in a directory per rank, {@code pario-PID-N}, created owner-only; the sender reuses a message's space
 * once its receiver is done with it or has left, and deletes the directory when the rank leaves. A process killed
 * outright cannot clean up: every rank that starts removes the directories of processes that no longer run.
 * {@code -Dpario.sharedMemory=false} turns the path off; {@code -Dpario.shmDir} moves it. It is not used when the
 * job runs over TLS.
 */
final class SharedMemory implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SharedMemory.class.getName());
    /** Size of each arena ({@code -Dpario.shmArenaBytes}); only the pages messages touch take memory. */
    static final int ARENA_BYTES = (int) Math.min(Integer.MAX_VALUE,
        Long.getLong("pario.shmArenaBytes", 256L << 20));
    private static final Pattern OWNED = Pattern.compile("pario-(\\d+)-[0-9]+");

    private final Path dir;

    private SharedMemory(final Path dir) {
        this.dir = dir;
    }

    /** @return the directory shared-memory files are made in and looked for */
    static Path base() {
        return Path.of(System.getProperty("pario.shmDir", "/dev/shm")).toAbsolutePath().normalize();
    }

    /** @return this process's shared-memory area, or null when the path is off or the directory is unusable */
    static SharedMemory open() {
        if (!Boolean.parseBoolean(System.getProperty("pario.sharedMemory", "true"))) {
            return null;
        }
        final Path base = base();
        if (!Files.isDirectory(base) || !Files.isWritable(base)) {
            return null;
        }
        sweepStale(base);
        try {
            // one directory per rank (ranks may be threads of one process), named after the process for the sweep
            final Path dir = Files.createTempDirectory(base, "pario-" + ProcessHandle.current().pid() + "-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            return new SharedMemory(dir);
        } catch (IOException | UnsupportedOperationException e) {
            LOG.log(System.Logger.Level.DEBUG, "no shared-memory path: " + e);
            return null;
        }
    }

    /** Removes the directories of processes that no longer run (killed before they could clean up). */
    static void sweepStale(final Path base) {
        try (Stream<Path> entries = Files.list(base)) {
            entries.forEach(p -> {
                final java.util.regex.Matcher m = OWNED.matcher(p.getFileName().toString());
                if (m.matches() && Files.isDirectory(p) && Files.isWritable(p)
                    && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    deleteTree(p);
                }
            });
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "could not sweep " + base + ": " + e);
        }
    }

    /**
     * A file of fixed size shared with one peer, mapped once by each side, in which messages to that peer are
     * staged: pages stay mapped and warm, so a message costs its two copies and no page faults after the first
     * use. Space is taken first fit and given back when the receiver is done.
     */
    final class Arena {
        private final Path file;
        private final MappedByteBuffer buffer;
        /** Free ranges, offset to length, merged with their neighbours when freed. */
        private final java.util.TreeMap<Long, Long> free = new java.util.TreeMap<>();

        private Arena(final Path file, final MappedByteBuffer buffer) {
            this.file = file;
            this.buffer = buffer;
            free.put(0L, (long) buffer.capacity());
        }

        /** @return a segment of {@code bytes} bytes, or null when none is free */
        synchronized Segment take(final int bytes) {
            for (final java.util.Map.Entry<Long, Long> e : free.entrySet()) {
                if (e.getValue() >= bytes) {
                    final long at = e.getKey();
                    free.remove(at);
                    if (e.getValue() > bytes) {
                        free.put(at + bytes, e.getValue() - bytes);
                    }
                    return new Segment(this, at, bytes);
                }
            }
            return null;
        }

        synchronized void give(final long at, final long bytes) {
            long start = at;
            long length = bytes;
            final java.util.Map.Entry<Long, Long> before = free.floorEntry(at);
            if (before != null && before.getKey() + before.getValue() == at) {
                start = before.getKey();
                length += before.getValue();
                free.remove(before.getKey());
            }
            final Long after = free.containsKey(at + bytes) ? free.remove(at + bytes) : null;
            if (after != null) {
                length += after;
            }
            free.put(start, length);
        }

        /** @return this arena's file, which the receiver maps */
        Path file() {
            return file;
        }
    }

    /** A message's data: {@code length} bytes at {@code offset} of an arena. */
    record Segment(Arena arena, long offset, int length) {
        /** @return the segment's bytes, position 0, for writing or reading */
        ByteBuffer buffer() {
            return arena.buffer.slice((int) offset, length);
        }

        /** Gives the segment's space back to its arena. */
        void release() {
            arena.give(offset, length);
        }
    }

    /**
     * Touches one byte of every page of a segment, so that a full shared-memory file system shows here (the JVM
     * turns the fault into an error) instead of in the middle of packing a message.
     *
     * @return false when the pages cannot be had
     */
    static boolean touch(final Segment s) {
        final ByteBuffer b = s.buffer();
        try {
            for (int i = 0; i < b.capacity(); i += 4096) {
                b.put(i, b.get(i));
            }
            return true;
        } catch (InternalError e) {
            LOG.log(System.Logger.Level.WARNING, "shared memory is full; a message waits in the sender's memory: " + e);
            return false;
        }
    }

    /** Arenas for messages to each peer, made on first use. */
    private final java.util.Map<Integer, Arena> arenas = new java.util.concurrent.ConcurrentHashMap<>();
    /** Peers' arenas this rank has mapped, by path. */
    private final java.util.Map<String, MappedByteBuffer> mappedPeers = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @return space for a message of {@code bytes} bytes to {@code dest}, or null when its arena is full or
     *     cannot be made (the message then waits in this rank's own memory)
     */
    Segment take(final int dest, final int bytes) {
        final Arena arena;
        try {
            arena = arenas.computeIfAbsent(dest, d -> {
                final Path file = dir.resolve("to-" + d);
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                    return new Arena(file, ch.map(FileChannel.MapMode.READ_WRITE, 0, ARENA_BYTES));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        } catch (java.io.UncheckedIOException e) {
            LOG.log(System.Logger.Level.DEBUG, "no shared-memory arena for rank " + dest + ": " + e.getCause());
            return null;
        }
        return arena.take(bytes);
    }

    /**
     * The bytes a peer announced at {@code offset} of its arena file {@code path}, read-only. The file is mapped
     * once and kept until this rank leaves.
     *
     * @throws IOException if the path is not a Pario arena under {@link #base()}, cannot be opened here (another
     *                     host, another user), or does not hold the range
     */
    ByteBuffer announced(final String path, final long offset, final long bytes) throws IOException {
        MappedByteBuffer m = mappedPeers.get(path);
        if (m == null) {
            final Path p = Path.of(path).toAbsolutePath().normalize();
            final Path parent = p.getParent();
            if (parent == null || !base().equals(parent.getParent())
                || !OWNED.matcher(parent.getFileName().toString()).matches()
                || !p.getFileName().toString().startsWith("to-")) {
                throw new IOException("not a Pario shared-memory arena: " + path);
            }
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                m = ch.map(FileChannel.MapMode.READ_ONLY, 0, Math.min(ch.size(), Integer.MAX_VALUE));
            }
            final MappedByteBuffer raced = mappedPeers.putIfAbsent(path, m);
            if (raced != null) {
                unmap(m);
                m = raced;
            }
        }
        if (offset < 0 || bytes < 0 || offset + bytes > m.capacity()) {
            throw new IOException("bytes " + offset + "+" + bytes + " lie outside " + path);
        }
        return m.slice((int) offset, (int) bytes);
    }

    /** Releases a mapping now rather than when the collector finds it, so shared memory is returned at once. */
    static void unmap(final ByteBuffer mapped) {
        try {
            PlatformDependent.freeDirectBuffer(mapped);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "mapping left to the collector: " + e);
        }
    }

    /**
     * Unmaps every arena and peer arena and deletes this rank's directory. Called once no transfer can touch
     * them any more (the event loops have stopped).
     */
    @Override
    public void close() {
        arenas.values().forEach(a -> unmap(a.buffer));
        arenas.clear();
        mappedPeers.values().forEach(SharedMemory::unmap);
        mappedPeers.clear();
        deleteTree(dir);
    }

    /** @return this process's directory */
    Path directory() {
        return dir;
    }

    private static void deleteTree(final Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.DEBUG, "could not delete " + p + ": " + e);
                }
            });
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "could not delete " + root + ": " + e);
        }
    }
}
