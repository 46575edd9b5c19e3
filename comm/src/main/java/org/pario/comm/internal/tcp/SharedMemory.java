package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.BitSet;
import java.util.Comparator;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.netty.util.internal.PlatformDependent;
import org.pario.comm.settings.CommSettings;

/**
 * Large messages between ranks of one host through files in shared memory ({@code /dev/shm}): the sender takes
 * space in an arena file it shares with the receiver, announces the path and offset in place of an RTS, and packs
 * the data there in chunks, publishing after each how many bytes are packed; the receiver unpacks straight from its
 * own mapping of the file into the receive buffer as the chunks are published, so the two copies (pack, unpack)
 * overlap instead of following each other, and no event loop touches the data. A receiver that cannot open the
 * file asks for the data over the connection as usual, so the path is an optimisation, never a requirement.
 *
 * <p>A message's space starts with a {@link #HEADER} of one cache line whose first long counts the bytes packed so
 * far ({@link #PACKING_FAILED} when packing failed); its data follows. The sender writes the count with release
 * semantics after each chunk, the receiver reads it with acquire semantics, so the bytes below the count are
 * complete when the receiver sees it. A receiver that waits for the count watches the sender's process, whose id
 * the file's directory names: a sender that dies while packing fails the receive at once, not after a timeout.
 *
 * <p>Files live in a directory per rank, {@code pario-PID-N}, created owner-only; the sender reuses a message's space
 * once its receiver is done with it or has left, and deletes the directory when the rank leaves. A process killed
 * outright cannot clean up: every rank that starts removes the directories of processes that no longer run.
 * {@code -Dpario.sharedMemory=false} turns the path off; {@code -Dpario.shmDir} moves it. It is not used when the
 * job runs over TLS.
 */
final class SharedMemory implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SharedMemory.class.getName());
    private static final Pattern OWNED = Pattern.compile("pario-(\\d+)-[0-9]+");
    /** Bytes in front of a message's data: the count of bytes packed so far, on a cache line of its own. */
    static final int HEADER = 64;
    /** The count a sender publishes when packing failed: no more data comes. */
    static final long PACKING_FAILED = -1;
    /** What a receiver's wait returns when the sender's process is gone or its rank departed. */
    static final long SENDER_GONE = -2;
    /** What a receiver's wait returns when the count stood still for as long as the caller allows. */
    static final long STALLED = -3;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
        ByteOrder.nativeOrder());
    /** The unit in which shared memory is allocated, and touched. */
    private static final int PAGE = 4096;
    /** Zeros that allocate an arena's new pages through its file (read only: shared by every arena and thread). */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();
    /** How often a waiting receiver looks whether the sender's process still runs. */
    private static final long LIVENESS_NANOS = 1_000_000;

    private final Path dir;
    /** The directory shared-memory files are made in and looked for (setting {@code shmDir}). */
    private final Path base;
    /** Size of each arena (setting {@code shmArenaBytes}); only the pages messages touch take memory. */
    private final int arenaBytes;
    /**
     * Bytes packed between two publications of the count (setting {@code shmChunkBytes}, default 64 KiB): small
     * enough that the receiver starts unpacking soon after the sender starts packing, large enough that the count's
     * cache line does not move between the cores for every few lines of data; 64 KiB measured best through one
     * mapping in plain Java ({@code bench/.../ShmFloor}, docs/history/benchmarks-2026-11.md).
     */
    private final int chunkBytes;

    private SharedMemory(final Path dir, final Path base, final CommSettings settings) {
        this.dir = dir;
        this.base = base;
        this.arenaBytes = settings.shmArenaBytes();
        this.chunkBytes = settings.shmChunkBytes();
    }

    /** @return the directory shared-memory files are made in and looked for */
    static Path base(final CommSettings settings) {
        return Path.of(settings.shmDir()).toAbsolutePath().normalize();
    }

    /** @return the size of each arena, in bytes */
    int arenaBytes() {
        return arenaBytes;
    }

    /** @return the bytes a sender packs between two publications of its count */
    int chunkBytes() {
        return chunkBytes;
    }

    /**
     * @return this process's shared-memory area, or null when the path is off (setting {@code sharedMemory}) or the
     *     directory is unusable
     */
    static SharedMemory open(final CommSettings settings) {
        if (!settings.sharedMemory()) {
            return null;
        }
        final Path base = base(settings);
        if (!Files.isDirectory(base) || !Files.isWritable(base)) {
            return null;
        }
        sweepStale(base);
        try {
            // one directory per rank (ranks may be threads of one process), named after the process for the sweep
            final Path dir = Files.createTempDirectory(base, "pario-" + ProcessHandle.current().pid() + "-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            return new SharedMemory(dir, base, settings);
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
        /** Pages touched once already: their memory stays allocated until the file goes, so they need no touch. */
        private final BitSet touched = new BitSet();

        private Arena(final Path file, final MappedByteBuffer buffer) {
            this.file = file;
            this.buffer = buffer;
            free.put(0L, (long) buffer.capacity());
        }

        /** @return a segment of {@code bytes} bytes, or null when none is free */
        synchronized Segment take(final int bytes) {
            for (final java.util.Map.Entry<Long, Long> e : free.entrySet()) {
                // read before the removal: a TreeMap may move another entry's key and value into the removed one's
                final long at = e.getKey();
                final long length = e.getValue();
                if (length >= bytes) {
                    free.remove(at);
                    if (length > bytes) {
                        free.put(at + bytes, length - bytes);
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

        /**
         * Touches the pages of a range not touched before, so that a full shared-memory file system shows here (as an
         * error of the write that allocates them) instead of in the middle of packing a message, and so that
         * packing finds them mapped.
         *
         * <p>Each run of new pages is first written with zeros through the file, which allocates them in one call,
         * then read through the mapping ({@link MappedByteBuffer#load}), which maps them with few faults. Touching
         * them one by one through the mapping costs a fault a page, and a fault can cost tens of microseconds on a
         * virtual machine that backs its memory lazily: 2.3x the time of this way, measured (docs/comm.md).
         *
         * @return false when the pages cannot be had
         */
        synchronized boolean touch(final long at, final long bytes) {
            final int end = (int) Math.min((at + bytes + PAGE - 1) / PAGE, (buffer.capacity() + PAGE - 1L) / PAGE);
            int page = touched.nextClearBit((int) (at / PAGE));
            if (page >= end) {
                return true;
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                while (page < end) {
                    final int next = touched.nextSetBit(page);
                    final int runEnd = next < 0 || next > end ? end : next;
                    final int from = page * PAGE;
                    final int to = (int) Math.min((long) runEnd * PAGE, buffer.capacity());
                    for (int written = from; written < to; ) {
                        written += ch.write(ZEROS.duplicate().limit(Math.min(ZEROS.capacity(), to - written)),
                            written);
                    }
                    buffer.slice(from, to - from).load();
                    touched.set(page, runEnd);
                    page = touched.nextClearBit(runEnd);
                }
                return true;
            } catch (IOException | InternalError e) {
                LOG.log(System.Logger.Level.WARNING,
                    "shared memory is full; a message waits in the sender's memory: " + e);
                return false;
            }
        }
    }

    /** {@code length} bytes at {@code offset} of an arena. */
    record Segment(Arena arena, long offset, int length) {
        /** @return the data of a message staged here: {@code bytes} bytes after the header */
        ByteBuffer data(final int bytes) {
            return arena.buffer.slice((int) offset + HEADER, bytes);
        }

        /** Tells the receiver that the first {@code bytes} bytes of the data are packed, or that packing failed. */
        void publish(final long bytes) {
            LONGS.setRelease(arena.buffer, (int) offset, bytes);
        }

        /** Gives the segment's space back to its arena. */
        void release() {
            arena.give(offset, length);
        }
    }

    /** @return false when the pages of a segment cannot be had (see {@link Arena#touch}) */
    static boolean touch(final Segment s) {
        return s.arena.touch(s.offset, s.length);
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
                    return new Arena(file, ch.map(FileChannel.MapMode.READ_WRITE, 0, arenaBytes));
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
     * @return space for a message of {@code bytes} bytes of data to {@code dest}, its pages touched and its count of
     *     packed bytes at zero, or null when its arena is full or cannot be made, or its pages cannot be had (the
     *     message then waits in this rank's own memory)
     */
    Segment takeMessage(final int dest, final int bytes) {
        // whole cache lines, so that every message's count is aligned and on a line of its own
        final long spaced = HEADER + ((bytes + 63L) & ~63L);
        if (spaced > arenaBytes) {
            return null;
        }
        final Segment s = take(dest, (int) spaced);
        if (s == null) {
            return null;
        }
        if (!touch(s)) {
            s.release();
            return null;
        }
        s.publish(0);
        return s;
    }

    /**
     * The data of a message a peer staged at {@code offset} of its arena file {@code path} ({@link #HEADER} and
     * {@code bytes} bytes of data), read-only. The file is mapped once and kept until this rank leaves.
     *
     * @throws IOException if the path is not a Pario arena under the base directory, cannot be opened here (another
     *                     host, another user), or does not hold the range
     */
    Staged staged(final String path, final long offset, final long bytes) throws IOException {
        if (offset % 8 != 0) {
            throw new IOException("a message's count at " + offset + " of " + path + " is not aligned");
        }
        final ByteBuffer m = mapped(path, offset, HEADER + bytes);
        final java.util.regex.Matcher owner = OWNED.matcher(Path.of(path).getParent().getFileName().toString());
        if (!owner.matches()) {
            throw new IOException("not a Pario shared-memory arena: " + path);
        }
        return new Staged(m, (int) offset, (int) bytes, Long.parseLong(owner.group(1)));
    }

    /**
     * A message a peer stages in shared memory, as its receiver sees it: the data, and how much of it is packed.
     * Used by one receiving thread.
     */
    static final class Staged {
        private final ByteBuffer mapping;
        private final int at;
        private final int bytes;
        private final long senderPid;
        private ProcessHandle sender;

        private Staged(final ByteBuffer mapping, final int at, final int bytes, final long senderPid) {
            this.mapping = mapping;
            this.at = at;
            this.bytes = bytes;
            this.senderPid = senderPid;
        }

        /** @return the data, position 0 */
        ByteBuffer data() {
            return mapping.slice(at + HEADER, bytes);
        }

        /** @return the bytes packed so far, or {@link #PACKING_FAILED} */
        long packed() {
            return (long) LONGS.getAcquire(mapping, at);
        }

        /**
         * Waits until more than {@code done} bytes are packed or packing failed, yielding the core between polls
         * (where a core is free that costs a system call that returns at once; where threads outnumber cores, the
         * sender or the caller's own rank may need it), and after 1 ms sleeping a little between them. Polling
         * without yielding at first measured slower wherever a rank's event-loop thread fetched while its main thread
         * packed (docs/history/benchmarks-2026-11.md).
         *
         * @param done       the bytes the caller has taken already
         * @param stallNanos how long the count may stand still before the sender counts as hung
         * @param gone       whether the sender's rank is known to have failed or left
         * @return the bytes packed, more than {@code done}; {@link #PACKING_FAILED}; {@link #SENDER_GONE} when the
         *     sender's process is gone or its rank departed; {@link #STALLED} when the count stood still for
         *     {@code stallNanos}
         */
        long awaitMore(final long done, final long stallNanos, final BooleanSupplier gone) {
            final long start = System.nanoTime();
            long checked = start;
            while (true) {
                final long packed = packed();
                if (packed > done || packed == PACKING_FAILED) {
                    return packed;
                }
                final long now = System.nanoTime();
                if (now - checked >= LIVENESS_NANOS) {
                    checked = now;
                    if (!senderRuns() || gone.getAsBoolean()) {
                        return SENDER_GONE;
                    }
                    if (now - start >= stallNanos) {
                        return STALLED;
                    }
                }
                if (now - start < LIVENESS_NANOS) {
                    Thread.yield();
                } else {
                    // a sender this slow is descheduled or paused (a collection): no need to hold a core for it
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                }
            }
        }

        private boolean senderRuns() {
            if (sender == null) {
                sender = ProcessHandle.of(senderPid).orElse(null);
                if (sender == null) {
                    return false;
                }
            }
            return sender.isAlive();
        }
    }

    /** @return the whole mapping of a peer's arena, which holds {@code bytes} bytes at {@code offset} */
    private ByteBuffer mapped(final String path, final long offset, final long bytes) throws IOException {
        MappedByteBuffer m = mappedPeers.get(path);
        if (m == null) {
            final Path p = Path.of(path).toAbsolutePath().normalize();
            final Path parent = p.getParent();
            if (parent == null || !base.equals(parent.getParent())
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
        return m;
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
