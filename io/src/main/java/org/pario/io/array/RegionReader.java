package org.pario.io.array;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Order;
import org.pario.datatypes.Packer;
import org.pario.io.Agreement;
import org.pario.io.storage.DirectBuffers;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

/**
 * Reads a region of a stored array by its checksum chunks: only the chunks that hold some of the region's bytes are
 * read, each exactly once and whole, and each is checked against the header as it arrives. The covering chunks
 * are dealt to the ranks in file order, a contiguous share each; a rank reads its share a window at a time, picks
 * out the region's elements and sends each to the rank that holds it in the region's distribution. Because the
 * shares follow file order and a region's elements are in file order in every rank's local order too, a rank's
 * elements from one sender are one contiguous piece of its buffer: only the counts travel besides the data.
 *
 * <p>Nothing here grows with the element count: the covering chunks are found dimension by dimension, descending
 * only where a gap between the region's rows could hold a whole chunk, and the elements are visited a run at a time.
 */
final class RegionReader {
    /** Reads in flight per rank. */
    private static final int READERS = 4;
    /** The smallest piece read at once. */
    private static final int MIN_PIECE = 1 << 20;
    /** What a window's address, and the file offsets of its pieces, are multiples of: direct reads need it. */
    private static final int ALIGNMENT = 4096;

    private final String location;
    private final StoredArray array;
    private final long chunk;
    private final Datatype element;
    /** Bytes from an element's address to its first byte of data, and from there to after its last. */
    private final long firstByte;
    private final long span;
    /** Storage order, slowest first: the array's dimension at each level. */
    private final int[] dim;
    /** Bytes between consecutive region elements at each level. */
    private final long[] step;
    /** Region elements at each level. */
    private final long[] count;
    /** Bytes from the first data byte of a sub-box at a level to after its last data byte. */
    private final long[] extentFrom;
    /** Whether a gap between two sub-boxes at this level or below can hold a whole chunk. */
    private final boolean[] chunkFitsInGapFrom;
    /** The address of the region's first element, relative to the array's data. */
    private final long origin;
    private final RegionOwners owners;
    /**
     * Bytes read after each piece: an element whose data crosses the end of a piece is picked out there, so a
     * piece reads that far on (none where chunks hold whole elements).
     */
    private final long tail;

    /**
     * @param owners who holds each element of the region, as an array of shape {@code region.count()}
     */
    RegionReader(final String location, final StoredArray array, final long chunk, final Region region,
                 final RegionOwners owners) {
        this.location = location;
        this.array = array;
        this.chunk = chunk;
        this.element = array.element();
        this.owners = owners;
        final long extent = element.extent();
        firstByte = element.trueLb();
        span = element.trueExtent();
        if (extent <= 0 || firstByte < 0 || firstByte + span > extent) {
            throw ParioException.argument("checkpoint " + location + ": array '" + array.name() + "' has elements of "
                + element + " whose data does not lie within their extent; a region of it cannot be read");
        }
        final long[] shape = array.shape();
        final int n = shape.length;
        final long[] storedStride = new long[n];
        dim = new int[n];
        for (int k = 0; k < n; k++) {
            dim[k] = array.order() == Order.C ? k : n - 1 - k;
        }
        long s = extent;
        for (int k = n - 1; k >= 0; k--) {
            storedStride[dim[k]] = s;
            s = Math.multiplyExact(s, shape[dim[k]]);
        }
        final long[] start = region.start();
        final long[] stride = region.stride();
        final long[] c = region.count();
        step = new long[n];
        count = new long[n];
        long at = 0;
        for (int k = 0; k < n; k++) {
            step[k] = stride[dim[k]] * storedStride[dim[k]];
            count[k] = c[dim[k]];
            at += start[dim[k]] * storedStride[dim[k]];
        }
        origin = at;
        tail = chunk % extent == 0 ? 0 : Math.max(0, span - 1);
        extentFrom = new long[n + 1];
        chunkFitsInGapFrom = new boolean[n + 1];
        extentFrom[n] = span;
        for (int k = n - 1; k >= 0; k--) {
            extentFrom[k] = extentFrom[k + 1] + Math.max(0, count[k] - 1) * step[k];
            final boolean gap = count[k] > 1 && step[k] - extentFrom[k + 1] >= chunk;
            chunkFitsInGapFrom[k] = gap || chunkFitsInGapFrom[k + 1];
        }
    }

    /** @return the chunks holding some of the region's bytes, as merged {@code [first, end)} index ranges */
    List<long[]> coveringChunks() {
        final List<long[]> out = new ArrayList<>();
        for (final long c : count) {
            if (c == 0) {
                return out;
            }
        }
        cover(0, origin + firstByte, out);
        return out;
    }

    private void cover(final int k, final long first, final List<long[]> out) {
        if (k == count.length || !chunkFitsInGapFrom[k]) {
            // no gap below here can hold a chunk, so every chunk between the first and the last byte is touched
            add(out, first / chunk, (first + extentFrom[k] - 1) / chunk + 1);
            return;
        }
        for (long i = 0; i < count[k]; i++) {
            cover(k + 1, first + i * step[k], out);
        }
    }

    private static void add(final List<long[]> out, final long from, final long to) {
        final long[] last = out.isEmpty() ? null : out.get(out.size() - 1);
        if (last != null && from <= last[1]) {
            last[1] = Math.max(last[1], to);
        } else {
            out.add(new long[] {from, to});
        }
    }

    /** @return the bytes of the given chunks (the last chunk of the array may be shorter) */
    long bytesOf(final List<long[]> chunks) {
        long b = 0;
        for (final long[] r : chunks) {
            b += Math.min(array.bytes(), r[1] * chunk) - r[0] * chunk;
        }
        return b;
    }

    /** Rank {@code r}'s share of the covering chunks: a contiguous piece of them in file order, by chunk count. */
    static List<long[]> share(final List<long[]> covering, final int r, final int ranks) {
        long total = 0;
        for (final long[] c : covering) {
            total += c[1] - c[0];
        }
        final long from = total * r / ranks;
        final long to = total * (r + 1) / ranks;
        final List<long[]> out = new ArrayList<>();
        long seen = 0;
        for (final long[] c : covering) {
            final long a = Math.max(c[0], c[0] + from - seen);
            final long b = Math.min(c[1], c[0] + to - seen);
            if (a < b) {
                out.add(new long[] {a, b});
            }
            seen += c[1] - c[0];
        }
        return out;
    }

    /**
     * A run of adjacent chunks {@code [first, end)} of a rank's share, read into the window buffer at {@code at}
     * (with the {@link #tail} after it).
     */
    private record Piece(long first, long end, int at) {
    }

    /**
     * A round's reading: pieces of a rank's share, possibly far apart in the file, together at most about
     * {@code windowBytes}, so that a region of many small runs of chunks takes as few rounds as one of one run.
     */
    private record Window(List<Piece> pieces, int bytes) {
    }

    private List<Window> windows(final List<long[]> share, final long windowBytes) {
        final long perWindow = Math.max(1, windowBytes / chunk);
        final List<Window> out = new ArrayList<>();
        List<Piece> pieces = new ArrayList<>();
        long chunks = 0;
        int at = 0;
        for (final long[] r : share) {
            for (long c = r[0]; c < r[1]; ) {
                final long end = Math.min(r[1], c + perWindow - chunks);
                pieces.add(new Piece(c, end, at));
                final long bytes = Math.min(array.bytes(), end * chunk) - c * chunk + tail;
                at = (int) Math.addExact(at, (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT);
                chunks += end - c;
                c = end;
                if (chunks == perWindow) {
                    out.add(new Window(pieces, at));
                    pieces = new ArrayList<>();
                    chunks = 0;
                    at = 0;
                }
            }
        }
        if (!pieces.isEmpty()) {
            out.add(new Window(pieces, at));
        }
        return out;
    }

    /** What a visit of the region's runs does with each: count it, or copy it out. */
    private interface RunVisitor {
        /** @param rank the owner; {@code address} of the run's first element (array-relative); elements */
        void run(int rank, long address, long elements);
    }

    /**
     * Visits, in file order, the runs of region elements whose first data byte lies in {@code [lo, hi)}, each run
     * consecutive along the fastest dimension with one owner.
     */
    private void visit(final long lo, final long hi, final RunVisitor v) {
        for (final long c : count) {
            if (c == 0) {
                return;
            }
        }
        walk(0, origin, 0, lo, hi, v);
    }

    private void walk(final int k, final long address, final long rank, final long lo, final long hi,
                      final RunVisitor v) {
        final long first = address + firstByte;
        // the first data bytes of this level's elements or sub-boxes span [first, first + reach]
        final long reach = extentFrom[k + 1] - span;
        final long from = Math.max(0, ceilDiv(lo - reach - first, step[k]));
        final long to = Math.min(count[k], ceilDiv(hi - first, step[k]));
        long i = from;
        while (i < to) {
            final long owner = owners.ownerRun(k, i);
            final long end = Math.min(to, i + (owner & 0xFFFFFFFFL));
            final long r = rank + (owner >>> 32);
            if (k == count.length - 1) {
                v.run((int) r, address + i * step[k], end - i);
            } else {
                for (long j = i; j < end; j++) {
                    walk(k + 1, address + j * step[k], r, lo, hi, v);
                }
            }
            i = end;
        }
    }

    private static long ceilDiv(final long a, final long b) {
        return -Math.floorDiv(-a, b);
    }

    /** A rank's read of its share: what it sends to each rank, in all and round by round. */
    long[] countsFor(final List<long[]> share, final int ranks) {
        final long[] counts = new long[ranks];
        for (final long[] r : share) {
            visit(r[0] * chunk, Math.min(array.bytes(), r[1] * chunk), (rank, address, n) -> counts[rank] += n);
        }
        return counts;
    }

    /**
     * Collective over {@code comm} (null for one process): reads the region into {@code buffer}, this rank's
     * elements in local order, {@code mine} of them.
     *
     * @param windowBytes the bytes a rank reads at a time
     * @param phases      told of the read (the covering chunks' bytes) and of the agreement on damage
     */
    void read(final Communicator comm, final java.util.Map<String, String> hints, final long windowBytes,
              final Object buffer, final long mine, final Phases phases) {
        final int me = comm == null ? 0 : comm.rank();
        final int ranks = comm == null ? 1 : comm.size();
        final List<long[]> covering = coveringChunks();
        final long coveringBytes = bytesOf(covering);
        phases.begin(CheckpointListener.Phase.READ, coveringBytes);
        final List<long[]> share = share(covering, me, ranks);
        final List<Window> windows = windows(share, windowBytes);
        // where each sender's elements start in this rank's buffer: senders follow file order, so their pieces too
        final long[] toEach = countsFor(share, ranks);
        final long[] fromEach = new long[ranks];
        long rounds = windows.size();
        if (comm != null) {
            comm.alltoall(toEach, 1, Datatype.LONG, fromEach, 1, Datatype.LONG);
            final long[] most = new long[1];
            comm.allreduce(new long[] {rounds}, most, 1, Datatype.LONG, Op.MAX);
            rounds = most[0];
        } else {
            fromEach[0] = toEach[0];
        }
        final long[] next = new long[ranks];
        long total = 0;
        for (int s = 0; s < ranks; s++) {
            next[s] = total;
            total += fromEach[s];
        }
        Throwable failure = total == mine ? null : new IllegalStateException("region read: rank " + me + " holds "
            + mine + " of the region's elements and is sent " + total);
        final long size = element.size();
        final Memory out = Memory.ofObject(buffer);
        final Damage damage = new Damage();
        final int longest = windows.stream().mapToInt(Window::bytes).max().orElse(0);
        final ByteBuffer window = DirectBuffers.allocate(longest, ALIGNMENT);
        final Memory source = Memory.of(window);
        final ExecutorService readers = longest > 0 ? Executors.newFixedThreadPool(READERS, r -> {
            final Thread t = new Thread(r, "pario-region-read");
            t.setDaemon(true);
            return t;
        }) : null;
        try (Storage st = open(hints)) {
            // the exchange buffers of a round, kept for the next while they are large enough
            byte[] send = new byte[0];
            byte[] received = new byte[0];
            for (long round = 0; round < rounds; round++) {
                final long[] sendCounts = new long[ranks];
                if (round < windows.size()) {
                    final Window w = windows.get((int) round);
                    if (failure == null) {
                        try {
                            readInParallel(st, readers, w, window);
                            check(window, w, damage);
                        } catch (IOException | RuntimeException e) {
                            failure = e;
                        }
                    }
                    for (final Piece p : w.pieces()) {
                        visit(p.first * chunk, Math.min(array.bytes(), p.end * chunk),
                            (rank, address, n) -> sendCounts[rank] += n * size);
                    }
                    final long[] at = new long[ranks];
                    long all = 0;
                    for (int r = 0; r < ranks; r++) {
                        at[r] = all;
                        all += sendCounts[r];
                    }
                    send = send.length >= all ? send : new byte[(int) all];
                    final byte[] to = send;
                    for (final Piece p : w.pieces()) {
                        final long lo = p.first * chunk;
                        visit(lo, Math.min(array.bytes(), p.end * chunk), (rank, address, n) -> {
                            copyOut(source, window, address - lo + p.at, n, to, (int) at[rank]);
                            at[rank] += n * size;
                        });
                    }
                }
                final long[] recvCounts = new long[ranks];
                if (comm != null) {
                    comm.alltoall(sendCounts, 1, Datatype.LONG, recvCounts, 1, Datatype.LONG);
                    final long[] sdispls = displacements(sendCounts);
                    final long[] rdispls = displacements(recvCounts);
                    final long incoming = rdispls[ranks - 1] + recvCounts[ranks - 1];
                    received = received.length >= incoming ? received : new byte[(int) incoming];
                    comm.alltoallv(send, sendCounts, sdispls, Datatype.BYTE, received, recvCounts, rdispls,
                        Datatype.BYTE);
                } else {
                    recvCounts[0] = sendCounts[0];
                    received = send;
                }
                int at = 0;
                for (int s = 0; s < ranks; s++) {
                    final int len = (int) recvCounts[s];
                    if (len > 0 && failure == null) {
                        Packer.unpack(ByteBuffer.wrap(received), at, len, out, out.origin(), element, mine,
                            DataRepresentation.NATIVE, next[s] * size);
                    }
                    next[s] += len / size;
                    at += len;
                }
                phases.progress((long) ((double) coveringBytes * (round + 1) / rounds));
            }
        } catch (IOException e) {
            failure = failure == null ? e : failure;
        } finally {
            if (readers != null) {
                readers.shutdownNow();
            }
        }
        phases.end();
        phases.begin(CheckpointListener.Phase.VERIFY, coveringBytes);
        if (comm != null) {
            Agreement.agree(comm, failure == null ? null : ioError(failure));
            final long[] found = new long[1];
            comm.allreduce(new long[] {damage.first < 0 ? Long.MAX_VALUE : damage.first}, found, 1, Datatype.LONG,
                Op.MIN);
            final long[] counted = new long[1];
            comm.allreduce(new long[] {damage.count}, counted, 1, Datatype.LONG, Op.SUM);
            damage.first = found[0] == Long.MAX_VALUE ? -1 : found[0];
            damage.count = counted[0];
        } else if (failure != null) {
            throw ioError(failure);
        }
        if (damage.count > 0) {
            final long from = damage.first * chunk;
            final long to = Math.min(array.bytes(), from + chunk);
            throw new ParioException(ErrorCategory.IO, "checkpoint " + location + ": array '" + array.name()
                + "' is damaged in chunk " + damage.first + ", bytes " + from + " to " + to + " of its data (file bytes "
                + (array.offset() + from) + " to " + (array.offset() + to) + "), which the region holds"
                + (damage.count > 1 ? "; " + (damage.count - 1) + " more of the region's chunks are damaged" : ""),
                null, comm != null);
        }
        phases.end();
    }

    private ParioException ioError(final Throwable t) {
        if (t instanceof ParioException p) {
            return p;
        }
        return new ParioException(ErrorCategory.IO, "checkpoint " + location + ": " + HeaderCodec.why(t instanceof
            IOException io ? io : new IOException(t.toString(), t)), t);
    }

    private static long[] displacements(final long[] counts) {
        final long[] d = new long[counts.length];
        long at = 0;
        for (int i = 0; i < counts.length; i++) {
            d[i] = at;
            at += counts[i];
        }
        return d;
    }

    /** The first damaged chunk a rank found and how many. */
    private static final class Damage {
        long first = -1;
        long count;
    }

    private void check(final ByteBuffer window, final Window w, final Damage damage) {
        final long[] want = array.crc32c();
        final CRC32C crc = new CRC32C();
        for (final Piece p : w.pieces()) {
            for (long c = p.first; c < p.end; c++) {
                final long from = c * chunk;
                final int len = (int) (Math.min(array.bytes(), from + chunk) - from);
                crc.reset();
                crc.update(window.slice((int) (from - p.first * chunk + p.at), len));
                if (crc.getValue() != want[(int) c]) {
                    damage.first = damage.first < 0 ? c : Math.min(damage.first, c);
                    damage.count++;
                }
            }
        }
    }

    private void copyOut(final Memory source, final ByteBuffer from, final long at, final long n, final byte[] to,
                         final int toIndex) {
        final long size = element.size();
        if (element.isContiguous() && step[step.length - 1] == element.extent()) {
            from.get((int) at, to, toIndex, (int) (n * size));
        } else if (step[step.length - 1] == element.extent()) {
            Packer.pack(source, at, element, n, DataRepresentation.NATIVE, 0, ByteBuffer.wrap(to), toIndex,
                (int) (n * size));
        } else {
            final long stepBytes = step[step.length - 1];
            for (long i = 0; i < n; i++) {
                Packer.pack(source, at + i * stepBytes, element, 1, DataRepresentation.NATIVE, 0, ByteBuffer.wrap(to),
                    (int) (toIndex + i * size), (int) size);
            }
        }
    }

    private Storage open(final java.util.Map<String, String> hints) throws IOException {
        return Storages.open(location, new StorageProvider.Request(true, false, false, false, hints, false));
    }

    /**
     * Reads a window's pieces (each with the tail after it) into the buffer, in aligned parts read at once: storage
     * (a virtual disk above all) answers several requests in flight much faster than one after another.
     */
    private void readInParallel(final Storage st, final ExecutorService readers, final Window w,
                                final ByteBuffer window) throws IOException {
        long total = 0;
        for (final Piece p : w.pieces()) {
            total += Math.min(array.bytes(), p.end * chunk + tail) - p.first * chunk;
        }
        final int part = (int) Math.max(MIN_PIECE, (total / READERS + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT);
        final List<Future<?>> pending = new ArrayList<>();
        for (final Piece p : w.pieces()) {
            final long lo = p.first * chunk;
            final int length = (int) (Math.min(array.bytes(), p.end * chunk + tail) - lo);
            for (int from = 0; from < length; from += part) {
                final ByteBuffer into = window.slice(p.at + from, Math.min(part, length - from));
                final long at = array.offset() + lo + from;
                pending.add(readers.submit(() -> {
                    while (into.hasRemaining()) {
                        if (st.read(at + into.position(), into) <= 0) {
                            throw new java.io.EOFException("the file ends at byte " + (at + into.position())
                                + ", before the data its header describes");
                        }
                    }
                    return null;
                }));
            }
        }
        IOException failure = null;
        for (final Future<?> f : pending) {
            try {
                f.get();
            } catch (ExecutionException e) {
                final Throwable t = e.getCause();
                failure = failure != null ? failure : t instanceof IOException io ? io : new IOException(t.toString(), t);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = failure != null ? failure : new java.io.InterruptedIOException("interrupted while reading");
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "region of " + array.name() + " " + Arrays.toString(count);
    }
}
