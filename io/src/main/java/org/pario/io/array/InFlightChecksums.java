package org.pario.io.array;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Request;
import org.pario.datatypes.Datatype;
import org.pario.io.storage.Storage;

/**
 * The CRC-32C of every checksum chunk of a checkpoint's arrays, computed from the bytes as they pass between memory
 * and storage, on whichever rank moves them: a storage decorator sees each write (or read) of this rank, and the
 * ranks' shares are joined with one allreduce ({@link Crc32c}: a chunk's checksum is the XOR of what its pieces
 * contribute, whoever moved them and in whatever order).
 *
 * <p>Only bytes moved exactly once can be summed so. A chunk is <em>unsure</em>, and left to be read from the file,
 * when a restore did not read each of its bytes exactly once, or when the ranks together wrote more bytes of it than
 * it has (a byte moved twice: a retried write, overlapping reads of
 * data sieving) or, while writing, when a rank read from it (a read-modify-write: holes filled from the file, an
 * aligned direct write's edges) or truncated into it. Bytes nobody wrote are zeros in a new file, which is what the
 * sum takes them for.
 */
final class InFlightChecksums {
    /** Added to a chunk's byte count to mark it unsure; far above any chunk, far below overflow with many ranks. */
    private static final long UNSURE = 1L << 40;

    /** From this size on, a write is summed on another thread while the storage takes it. */
    static final int SUMMED_BESIDE_BYTES = 4 << 20;
    /** The threads that sum large writes beside the storage: daemons, made as needed. */
    private static final ExecutorService SUMMING = Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "pario-checksums");
        t.setDaemon(true);
        return t;
    });

    /** A chunk's share: its checksum contribution and the bytes it covers. */
    private static final Datatype SUM_AND_BYTES = Datatype.contiguous(2, Datatype.LONG);
    /** Joins shares: contributions by exclusive or (CRC-32C being linear), byte counts by addition. */
    private static final Op JOIN = Op.create("crc32c-join", true, (in, inout, count, type) -> {
        final ByteBuffer a = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer b = inout.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        for (int at = 0; at < 16 * count; at += 16) {
            b.putLong(at, a.getLong(at) ^ b.getLong(at));
            b.putLong(at + 8, a.getLong(at + 8) + b.getLong(at + 8));
        }
    });

    /** Whether the bytes summed are the ones written (a checkpoint write) rather than read (a restore). */
    private final boolean writing;
    /** Where the arrays and their chunks lie; null until a restore has learnt its array from the header. */
    private volatile Layout layout;

    /** The arrays summed, where they lie, and each chunk's share so far. */
    private static final class Layout {
        private final List<StoredArray> arrays;
        private final long chunk;
        /** How far before its offset in the header each array lies in the file being moved. */
        private final long shift;
        /** Per array, the index of its first chunk among all arrays' chunks. */
        private final int[] firstChunk;
        /**
         * Chunk k's share: its checksum contribution at {@code 2k}, the bytes it covers at {@code 2k + 1};
         * interleaved as the reduction that joins the ranks' shares takes them.
         */
        private final long[] shares;

        Layout(final List<StoredArray> arrays, final long chunk, final long shift) {
            this.arrays = arrays;
            this.chunk = chunk;
            this.shift = shift;
            this.firstChunk = new int[arrays.size() + 1];
            for (int i = 0; i < arrays.size(); i++) {
                firstChunk[i + 1] = firstChunk[i] + arrays.get(i).chunks();
            }
            this.shares = new long[2 * firstChunk[arrays.size()]];
        }
    }

    private InFlightChecksums(final Layout layout, final boolean writing) {
        this.writing = writing;
        this.layout = layout;
    }

    /**
     * The sums of a checkpoint write, which see every write (and any read-modify-write) this rank makes.
     *
     * @param arrays the arrays, placed
     * @param chunk  bytes per checksum chunk
     * @param shift  how far before its offset in the header each array lies in the file written
     */
    static InFlightChecksums ofWrites(final List<StoredArray> arrays, final long chunk, final long shift) {
        return new InFlightChecksums(new Layout(arrays, chunk, shift), true);
    }

    /**
     * The sums of a restore, which see every read this rank makes.
     *
     * @param array the array restored, placed
     * @param chunk bytes per checksum chunk
     */
    static InFlightChecksums ofReads(final StoredArray array, final long chunk) {
        return new InFlightChecksums(new Layout(List.of(array), chunk, 0), false);
    }

    /**
     * The sums of a restore whose array is named by a header not read yet: a file can be opened through
     * {@link #watching} before {@link #bind} says which array its reads are summed for, and nothing may be read
     * through it before that.
     */
    static InFlightChecksums ofReadsToBind() {
        return new InFlightChecksums(null, false);
    }

    /**
     * Says which array a restore's reads are summed for; once, before anything is read.
     *
     * @param array the array restored, placed
     * @param chunk bytes per checksum chunk
     */
    void bind(final StoredArray array, final long chunk) {
        if (layout != null) {
            throw new IllegalStateException("the checksums' array is bound already");
        }
        layout = new Layout(List.of(array), chunk, 0);
    }

    private Layout layout() {
        final Layout l = layout;
        if (l == null) {
            throw new IllegalStateException("a restore read bytes before it knew which array they belong to");
        }
        return l;
    }

    /** @return {@code storage} with the accesses this rank makes through it summed */
    Storage watching(final Storage storage) {
        return new Watched(storage);
    }

    /**
     * Collective: every rank's share joined.
     *
     * @param comm the ranks that moved the bytes
     * @return per array, the CRC-32C of each chunk (as {@link StoredArray#crc32c()} holds them), or -1 where the
     *     chunk is unsure
     */
    long[][] joined(final Communicator comm) {
        final Layout l = layout();
        final long[] all = new long[l.shares.length];
        synchronized (this) {
            comm.allreduce(l.shares, all, l.shares.length / 2, SUM_AND_BYTES, JOIN);
        }
        return sumsOf(l, all);
    }

    /**
     * Collective, begun: every rank's share joined by a nonblocking reduction, so that the ranks' next collective
     * step (closing the file) runs meanwhile and a restore pays one latency for both, not two.
     *
     * @param comm the ranks that moved the bytes; nothing is summed after this call
     * @return the joining, whose {@link Joining#sums()} waits for it
     */
    Joining startJoining(final Communicator comm) {
        final Layout l = layout();
        final long[] mine;
        synchronized (this) {
            mine = l.shares.clone();
        }
        // one reduction of (sum, bytes) pairs, not one of each: a restore's fixed cost is its collectives
        final long[] all = new long[mine.length];
        final Request<Void> reduction = comm.iallreduce(mine, all, mine.length / 2, SUM_AND_BYTES, JOIN);
        return () -> {
            reduction.join();
            return sumsOf(l, all);
        };
    }

    /** The joining of the ranks' shares, begun. */
    interface Joining {
        /**
         * @return per array, the CRC-32C of each chunk (as {@link StoredArray#crc32c()} holds them), or -1 where
         *     the chunk is unsure; waits for the joining to end
         */
        long[][] sums();
    }

    /** @return per array, each chunk's checksum from the joined shares {@code all}, or -1 where unsure */
    private long[][] sumsOf(final Layout l, final long[] all) {
        final long[][] out = new long[l.arrays.size()][];
        for (int a = 0; a < l.arrays.size(); a++) {
            final StoredArray array = l.arrays.get(a);
            out[a] = new long[array.chunks()];
            for (int i = 0; i < out[a].length; i++) {
                final long length = Math.min(l.chunk, array.bytes() - i * l.chunk);
                final int at = l.firstChunk[a] + i;
                // a restore may skip bytes (an element's padding, a path that reads past this decorator), which
                // are not known to be zeros in the file as they are in a new one
                final long bytes = all[2 * at + 1];
                final boolean summed = writing ? bytes <= length : bytes == length;
                out[a][i] = summed ? Integer.toUnsignedLong(Crc32c.zeros(length) ^ (int) all[2 * at]) : -1;
            }
        }
        return out;
    }

    /** Adds the bytes {@code data} holds (its remaining ones) at file position {@code position}. */
    private void add(final long position, final ByteBuffer data) {
        final Layout l = layout();
        final long chunk = l.chunk;
        final long end = position + data.remaining();
        for (int a = 0; a < l.arrays.size(); a++) {
            final StoredArray array = l.arrays.get(a);
            final long start = array.offset() - l.shift;
            final long from = Math.max(position, start);
            final long to = Math.min(end, start + array.bytes());
            for (long at = from; at < to; ) {
                final int i = (int) ((at - start) / chunk);
                final long chunkEnd = Math.min(start + (i + 1) * chunk, start + array.bytes());
                final long pieceEnd = Math.min(to, chunkEnd);
                final ByteBuffer piece = data.duplicate();
                piece.position(data.position() + (int) (at - position)).limit(data.position() + (int) (pieceEnd
                    - position));
                final int contribution = Crc32c.contribution(Crc32c.of(piece), pieceEnd - at, chunkEnd - pieceEnd);
                synchronized (this) {
                    l.shares[2 * (l.firstChunk[a] + i)] ^= Integer.toUnsignedLong(contribution);
                    l.shares[2 * (l.firstChunk[a] + i) + 1] += pieceEnd - at;
                }
                at = pieceEnd;
            }
        }
    }

    /** Marks the chunks that bytes {@code [position, end)} touch as unsure. */
    private synchronized void unsure(final long position, final long end) {
        final Layout l = layout();
        for (int a = 0; a < l.arrays.size(); a++) {
            final StoredArray array = l.arrays.get(a);
            final long start = array.offset() - l.shift;
            final long from = Math.max(position, start);
            final long to = Math.min(end, start + array.bytes());
            if (from < to) {
                for (long i = (from - start) / l.chunk; i <= (to - 1 - start) / l.chunk; i++) {
                    l.shares[2 * (l.firstChunk[a] + (int) i) + 1] += UNSURE;
                }
            }
        }
    }

    /** A storage whose accesses this rank's share sees. */
    private final class Watched implements Storage {
        private final Storage inner;

        Watched(final Storage inner) {
            this.inner = inner;
        }

        @Override
        public long read(final long position, final ByteBuffer dst) throws IOException {
            final int from = dst.position();
            if (writing) {
                final long n = inner.read(position, dst);
                // bytes read while writing are written back with others': a read-modify-write
                unsure(position, position + Math.max(n, dst.position() - from));
                return n;
            }
            // the read whole, then its sum: the storage keeps as much of it in flight as it can, and the sum (a
            // millisecond for a 16 MiB window) follows on the same thread; reads split into slices read at once on
            // other threads, each summed as it came in, cost the ranks' shared cores more than the sum itself
            // (docs/history/benchmarks-2026-12.md)
            final long n = inner.read(position, dst);
            if (n > 0) {
                add(position, dst.duplicate().position(from).limit(from + (int) n));
            }
            return n;
        }

        @Override
        public void write(final long position, final ByteBuffer src) throws IOException {
            if (!writing) {
                unsure(position, position + src.remaining());
                inner.write(position, src);
                return;
            }
            if (src.remaining() < SUMMED_BESIDE_BYTES) {
                add(position, src);
                inner.write(position, src);
                return;
            }
            // summed on another thread while the storage takes the bytes, which stay as they are until both are done
            final ByteBuffer bytes = src.duplicate();
            final CompletableFuture<Void> summed = CompletableFuture.runAsync(() -> add(position, bytes), SUMMING);
            try {
                inner.write(position, src);
            } finally {
                summed.join();
            }
        }

        @Override
        public Part openPart(final int index, final long start) throws IOException {
            final Part part = inner.openPart(index, start);
            return new Part() {
                private long at = start;

                @Override
                public void append(final ByteBuffer data) throws IOException {
                    final long n = data.remaining();
                    add(at, data);
                    part.append(data);
                    at += n;
                }

                @Override
                public void close() throws IOException {
                    part.close();
                }
            };
        }

        @Override
        public void truncate(final long size) throws IOException {
            // bytes cut off are gone; bytes added are zeros, which nobody wrote
            unsure(size, Long.MAX_VALUE);
            inner.truncate(size);
        }

        @Override
        public Set<Capability> capabilities() {
            return inner.capabilities();
        }

        @Override
        public long preferredBlockSize() {
            return inner.preferredBlockSize();
        }

        @Override
        public boolean prefersDirectBuffers() {
            return inner.prefersDirectBuffers();
        }

        @Override
        public Map<String, String> settingsInEffect() {
            return inner.settingsInEffect();
        }

        @Override
        public void concat(final List<String> parts) throws IOException {
            inner.concat(parts);
        }

        @Override
        public long size() throws IOException {
            return inner.size();
        }

        @Override
        public void sync() throws IOException {
            inner.sync();
        }

        @Override
        public AutoCloseable lock(final long position, final long length) throws IOException {
            return inner.lock(position, length);
        }

        @Override
        public void commitParts(final int[] indices) throws IOException {
            inner.commitParts(indices);
        }

        @Override
        public void discardParts(final int[] indices) throws IOException {
            inner.discardParts(indices);
        }

        @Override
        public String describe() {
            return inner.describe();
        }

        @Override
        public void close() throws IOException {
            inner.close();
        }
    }
}
