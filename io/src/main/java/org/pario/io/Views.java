package org.pario.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.datatypes.Cursor;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;
import org.pario.io.storage.Storage;

/** The rules of file views, and moving data between memory and a file through one. */
final class Views {
    /** Filetype runs examined by the ordering check; beyond this the check trusts the type's construction. */
    private static final long CHECKED_RUNS = 10_000_000;

    private Views() {
    }

    /**
     * Checks a view as {@code MPI_File_set_view} requires.
     *
     * @return whether the view maps its stream to strictly increasing, non-overlapping file bytes (always true of
     *     a writable view that passes; two-phase collective reads need it)
     */
    static boolean check(final FileView v, final boolean writable) {
        if (v.disp() < 0) {
            throw ParioException.argument("setView: disp must be >= 0, got " + v.disp());
        }
        if (v.datarep() == DataRepresentation.EXTERNAL32) {
            for (final Datatype t : new Datatype[] {v.etype(), v.filetype()}) {
                if (t.size(DataRepresentation.EXTERNAL32) != t.size()) {
                    throw ParioException.argument("setView: an external32 view needs an etype and filetype whose "
                        + "basic types keep their size in external32, so that the filetype's layout holds in both; "
                        + t + " has " + t.size() + " bytes here and " + t.size(DataRepresentation.EXTERNAL32)
                        + " in external32 (long, unsigned_long and wchar shrink; use long_long, int64_t or int)");
                }
            }
        }
        final long esize = v.etype().size();
        if (esize <= 0) {
            throw ParioException.argument("setView: etype " + v.etype() + " holds no data");
        }
        if (v.filetype().size() % esize != 0) {
            throw ParioException.argument("setView: filetype " + v.filetype() + " (" + v.filetype().size()
                + " bytes) is not made of whole etypes of " + esize + " bytes");
        }
        final String e = v.etype().homogeneousBasicType().map(Datatype::toString).orElse(null);
        final String f = v.filetype().homogeneousBasicType().map(Datatype::toString).orElse(null);
        if (e != null && f != null && !e.equals(f) && !e.equals("byte") && v.filetype().size() > 0) {
            throw ParioException.argument("setView: filetype " + v.filetype() + " is made of " + f
                + ", not of the etype " + e);
        }
        final Cursor c = v.filetype().cursor(1);
        long previousEnd = Long.MIN_VALUE;
        long first = Long.MIN_VALUE;
        long runs = 0;
        boolean overlap = false;
        while (c.next() && runs++ < CHECKED_RUNS) {
            if (c.offset() < 0) {
                throw ParioException.argument("setView: filetype " + v.filetype() + " has data at negative "
                    + "displacement " + c.offset());
            }
            if (first == Long.MIN_VALUE) {
                first = c.offset();
            }
            if (previousEnd != Long.MIN_VALUE) {
                overlap |= c.offset() < previousEnd;
                if (c.offset() < previousEnd && (writable || c.offset() + c.length() <= previousEnd)) {
                    throw ParioException.argument("setView: filetype " + v.filetype() + " displacements "
                        + (c.offset() + c.length() <= previousEnd ? "decrease" : "overlap") + " at byte " + c.offset()
                        + (writable ? " (a file open for writing needs non-overlapping, increasing runs)" : ""));
                }
            }
            previousEnd = Math.max(previousEnd, c.offset() + c.length());
            // a regular stretch of runs that each start at or after the previous one's end is increasing and
            // apart by construction: one step for all of it (a CYCLIC(1) filetype is millions of such runs)
            final long stretch = c.repeats();
            if (stretch > 0 && c.repeatStride() >= c.length()) {
                c.skipRepeats(stretch);
                runs += stretch;
                previousEnd = c.offset() + c.length();
            }
        }
        final boolean tilesOverlap = first != Long.MIN_VALUE && previousEnd > first + v.filetype().extent();
        if (writable && tilesOverlap) {
            throw ParioException.argument("setView: filetype " + v.filetype() + " reaches byte " + previousEnd
                + " but repeats every " + v.filetype().extent() + " bytes, so its copies overlap");
        }
        // beyond CHECKED_RUNS the check trusts the type's construction, for this answer as for writable views
        return writable || !overlap && !tilesOverlap;
    }

    /**
     * How one rank's independent access moves its data.
     *
     * @param chunks     the buffers packed bytes move through between memory and the file, a buffer per step
     * @param readSieve  the read sieve window in bytes, or 0 for one storage read per run
     * @param writeSieve the write sieve window in bytes, or 0 for one storage write per run and no locks
     * @param directRun  runs at least this long are read or written on their own, not sieved: for them a storage
     *                   call costs little, and sieving would move their neighbours' bytes too
     * @param atomic     the whole access holds one byte-range lock over the bytes it can touch (atomic mode)
     * @param moved      told the bytes of this access moved so far, a chunk at a time; or null
     * @param reads      where the runs that share a chunk are read together ({@link RunReads}); null to read them one
     *                   after another
     */
    record Access(Chunks chunks, int readSieve, int writeSieve, int directRun, boolean atomic,
                  java.util.function.LongConsumer moved, Executor reads) {
    }

    /** @return the representation data is packed in for a view (internal is native in Pario) */
    static DataRepresentation packing(final FileView v) {
        return v.datarep() == DataRepresentation.EXTERNAL32 ? DataRepresentation.EXTERNAL32 : DataRepresentation.NATIVE;
    }

    /**
     * Moves {@code count x type} between memory and the file through the view, starting at view offset
     * {@code offset} (in etypes).
     *
     * @return the bytes moved, as the file holds them; fewer than asked only for reads that reach the end of the file
     */
    static long transfer(final Storage storage, final FileView v, final boolean write, final Memory m,
                         final long count, final Datatype type, final long offset, final Access access) {
        if (count < 0) {
            throw ParioException.argument("count must be >= 0, got " + count);
        }
        if (offset < 0) {
            throw ParioException.argument("offset must be >= 0, got " + offset);
        }
        final DataRepresentation rep = packing(v);
        final long bytes = Math.multiplyExact(count, type.size(rep));
        final long esize = v.etype().size();
        if (bytes % esize != 0) {
            throw ParioException.argument(count + " x " + type + " = " + bytes + " bytes is not a whole number of "
                + "etypes of " + esize + " bytes");
        }
        if (bytes == 0) {
            return 0;
        }
        final long fsize = v.filetype().size();
        if (fsize == 0) {
            throw ParioException.argument("the view's filetype " + v.filetype() + " holds no data");
        }
        final long start = Math.multiplyExact(offset, esize);
        final long end = Math.addExact(start, bytes);
        final Cursor file = v.filetype().cursor((end + fsize - 1) / fsize).seek(start).limit(end);
        final ByteBuffer chunk = access.chunks().take();
        final boolean canLock = storage.capabilities().contains(Storage.Capability.LOCK);
        AutoCloseable whole = null;
        try {
            if (access.atomic() && canLock) {
                final Datatype f = v.filetype();
                final long first = v.disp() + Math.multiplyExact(start / fsize, f.extent()) + f.trueLb();
                final long last = v.disp() + Math.multiplyExact((end - 1) / fsize, f.extent()) + f.trueLb()
                    + f.trueExtent();
                whole = storage.lock(first, last - first);
            }
            final int writeSieve = storage.capabilities().contains(Storage.Capability.POSITIONAL_READ)
                ? access.writeSieve() : 0;
            final boolean lockEach = whole == null && writeSieve > 0 && canLock;
            final Memory stream = streamMemory(m, type, rep, bytes);
            final Object array = stream == null ? null : stream.heapArray();
            final long arrayFrom = stream == null ? 0 : stream.origin();
            final Memory directStream = stream != null && array == null
                && stream.directRegion(arrayFrom, 0, false) != null ? stream : null;
            return write ? write(storage, v, file, new Source(chunk, m, count, type, rep, bytes, access.moved(), array,
                directStream, arrayFrom), writeSieve, Math.min(writeSieve, access.directRun()), lockEach)
                : read(storage, v, file, new Sink(chunk, m, count, type, rep, access.moved(),
                new RunReads(storage, chunk, access.reads()), storage, array, arrayFrom), access.readSieve(),
                Math.min(access.readSieve(), access.directRun()));
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, (write ? "write" : "read") + " failed: " + e, e);
        } finally {
            access.chunks().give(chunk);
            if (whole != null) {
                try {
                    whole.close();
                } catch (Exception e) {
                    throw new ParioException(ErrorCategory.IO, "releasing the atomic-mode lock failed: " + e, e);
                }
            }
        }
    }

    /**
     * The memory whose bytes are, from its origin on, the packed stream of {@code count x type} in {@code m} itself:
     * a type whose elements follow one another without gaps, no conversion, and all of it inside the memory. Stream
     * bytes {@code [a, b)} are then {@code stream.at(a)}'s first {@code b - a} bytes, and can move between memory and
     * the file ({@link Storage#takesArrays}) or another rank (a two-phase piece) with no packing on the way.
     *
     * @param bytes the stream's length, {@code count x type}'s size
     * @return {@code m} moved to the stream's first byte, or null when the stream is not the memory's bytes
     */
    static Memory streamMemory(final Memory m, final Datatype type, final DataRepresentation rep,
                               final long bytes) {
        if (rep != DataRepresentation.NATIVE || !type.isContiguous()) {
            return null;
        }
        final long from = m.origin() + type.lb();
        return from >= 0 && from <= m.byteSize() - bytes ? m.at(type.lb()) : null;
    }

    /**
     * Writes through the view with data sieving: consecutive runs whose span fits the window become one
     * read-modify-write of the window (one storage read and one write instead of one write per run), under a
     * byte-range lock so that ranks writing interleaved views never write back stale copies of each other's bytes
     * (ROMIO's {@code ind_wr_buffer_size}). Gapless windows skip the read. With locking on, every write takes the
     * lock of its range, not only the sieved ones, for the same reason.
     */
    private static long write(final Storage storage, final FileView v, final Cursor file, final Source src,
                              final int sieveBytes, final int directRun, final boolean lockEach) throws IOException {
        final ByteBuffer window = sieveBytes > 0 ? ByteBuffer.allocate(sieveBytes) : null;
        final Batch batch = new Batch();
        while (file.next()) {
            final long at = v.disp() + file.offset();
            final long len = file.length();
            if (window == null || len >= directRun) {
                if (!batch.isEmpty()) {
                    flushWrite(storage, window, batch, src, lockEach);
                }
                try (AutoCloseable lock = lockEach ? storage.lock(at, len) : null) {
                    src.writeDirect(storage, at, len);
                } catch (IOException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    // only the lock's close() throws checked exceptions other than IOException
                    throw new IOException("releasing a byte-range lock failed", e);
                }
                continue;
            }
            if (!batch.fits(at, len, window.capacity())) {
                flushWrite(storage, window, batch, src, lockEach);
            }
            batch.add(at, len);
        }
        if (!batch.isEmpty()) {
            flushWrite(storage, window, batch, src, lockEach);
        }
        return src.bytes;
    }

    /**
     * Consecutive file runs gathered for one sieve window. Runs arrive in non-decreasing order (views guarantee
     * it), so a window only grows forward.
     */
    private static final class Batch {
        long[] offsets = new long[64];
        long[] lengths = new long[64];
        int runs;
        /** The largest run end: runs of a read-only view may overlap, so the last run need not end last. */
        private long end;

        boolean isEmpty() {
            return runs == 0;
        }

        long start() {
            return offsets[0];
        }

        long end() {
            return end;
        }

        /** @return whether a run can join without the window's span exceeding {@code capacity} */
        boolean fits(final long at, final long len, final int capacity) {
            return runs == 0 || Math.max(end, at + len) - start() <= capacity;
        }

        void add(final long at, final long len) {
            if (runs == offsets.length) {
                offsets = java.util.Arrays.copyOf(offsets, runs * 2);
                lengths = java.util.Arrays.copyOf(lengths, runs * 2);
            }
            offsets[runs] = at;
            lengths[runs] = len;
            end = runs == 0 ? at + len : Math.max(end, at + len);
            runs++;
        }
    }

    /** Writes a batch's window and empties the batch. */
    private static void flushWrite(final Storage storage, final ByteBuffer window, final Batch batch, final Source src,
                                   final boolean lockEach) throws IOException {
        final long start = batch.start();
        final int span = (int) (batch.end() - start);
        final long[] offsets = batch.offsets;
        final long[] lengths = batch.lengths;
        final int runs = batch.runs;
        batch.runs = 0;
        boolean gaps = false;
        for (int i = 1; i < runs && !gaps; i++) {
            gaps = offsets[i] != offsets[i - 1] + lengths[i - 1];
        }
        try (AutoCloseable lock = lockEach ? storage.lock(start, span) : null) {
            window.clear().limit(span);
            if (gaps) {
                final long got = storage.read(start, window);
                // past the end of the file the holes read as zeros, which is what the file would hold there
                for (int i = (int) got; i < span; i++) {
                    window.put(i, (byte) 0);
                }
            }
            for (int i = 0; i < runs; i++) {
                src.copyTo(window, (int) (offsets[i] - start), (int) lengths[i]);
            }
            storage.write(start, window.clear().limit(span));
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // only the lock's close() throws checked exceptions other than IOException
            throw new IOException("releasing a byte-range lock failed", e);
        }
    }

    /**
     * Packs memory into the file's stream order a chunk at a time and hands it out run by run; a run of memory that is
     * its own stream (a Java array the storage takes, a direct buffer) is written from there.
     */
    private static final class Source {
        /** The most bytes of a direct buffer handed to the storage in one call: its writes take an int length. */
        private static final int DIRECT_PIECE = 1 << 30;

        private final ByteBuffer chunk;
        private final Memory memory;
        private final long count;
        private final Datatype type;
        private final DataRepresentation rep;
        final long bytes;
        private final java.util.function.LongConsumer moved;
        /** The array whose bytes from {@link #arrayFrom} are the stream ({@link #streamMemory}), or null. */
        private final Object array;
        /** The direct buffer's memory whose bytes from {@link #arrayFrom} are the stream, or null. */
        private final Memory directStream;
        private final long arrayFrom;
        private long memPos;
        private int filled;
        private int used;

        Source(final ByteBuffer chunk, final Memory memory, final long count, final Datatype type,
               final DataRepresentation rep, final long bytes, final java.util.function.LongConsumer moved,
               final Object array, final Memory directStream, final long arrayFrom) {
            this.moved = moved;
            this.array = array;
            this.directStream = directStream;
            this.arrayFrom = arrayFrom;
            this.chunk = chunk;
            this.memory = memory;
            this.count = count;
            this.type = type;
            this.rep = rep;
            this.bytes = bytes;
        }

        private void refill() {
            if (used == filled) {
                if (moved != null && memPos > 0) {
                    moved.accept(memPos);
                }
                filled = (int) Math.min(chunk.capacity(), bytes - memPos);
                Packer.pack(memory, memory.origin(), type, count, rep, memPos, chunk, 0, filled);
                memPos += filled;
                used = 0;
            }
        }

        void copyTo(final ByteBuffer dst, final int index, final int length) {
            int done = 0;
            while (done < length) {
                refill();
                final int take = Math.min(length - done, filled - used);
                dst.put(index + done, chunk, used, take);
                done += take;
                used += take;
            }
        }

        void writeDirect(final Storage storage, final long at, final long length) throws IOException {
            long done = 0;
            while (done < length) {
                if (used == filled && directStream != null) {
                    // nothing packed is waiting: the run's bytes are already in native memory, which the storage
                    // writes as it is (with direct I/O, straight to the disk where the memory is aligned)
                    final int n = (int) Math.min(length - done, DIRECT_PIECE);
                    storage.write(at + done, directStream.directRegion(arrayFrom + memPos, n, false));
                    memPos += n;
                    done += n;
                    if (moved != null) {
                        moved.accept(memPos);
                    }
                    continue;
                }
                if (used == filled && array != null && storage.takesArrays(at + done, length - done, true)) {
                    // nothing packed is waiting: the rest of the run leaves from the array, which is the stream
                    storage.write(at + done, array, arrayFrom + memPos, length - done);
                    memPos += length - done;
                    if (moved != null) {
                        moved.accept(memPos);
                    }
                    return;
                }
                refill();
                final int take = (int) Math.min(length - done, filled - used);
                storage.write(at + done, chunk.slice(used, take));
                done += take;
                used += take;
            }
        }
    }

    /**
     * Reads through the view with data sieving: consecutive file runs whose span fits the sieve buffer are read
     * with one storage call, and their pieces copied out, instead of one call per run (ROMIO's
     * {@code ind_rd_buffer_size}). Runs are non-decreasing (the view guarantees it), so a window only grows forward.
     */
    private static long read(final Storage storage, final FileView v, final Cursor file, final Sink sink,
                             final int sieveBytes, final int directRun) throws IOException {
        final ByteBuffer window = sieveBytes > 0 ? ByteBuffer.allocate(sieveBytes) : null;
        final Batch batch = new Batch();
        while (file.next()) {
            final long at = v.disp() + file.offset();
            final long len = file.length();
            if (window == null || len >= directRun) {
                // a large run, or sieving off: one read straight from the file
                if (!batch.isEmpty() && !flush(storage, window, batch, sink) || !sink.readDirect(at, len)) {
                    return sink.finish();
                }
                continue;
            }
            if (!batch.fits(at, len, window.capacity()) && !flush(storage, window, batch, sink)) {
                return sink.finish();
            }
            batch.add(at, len);
        }
        if (!batch.isEmpty()) {
            flush(storage, window, batch, sink);
        }
        return sink.finish();
    }

    /**
     * Reads a batch's window, hands its runs to the sink and empties the batch; false once the end of the file cut
     * a run short.
     */
    private static boolean flush(final Storage storage, final ByteBuffer window, final Batch batch, final Sink sink)
        throws IOException {
        final long start = batch.start();
        final long[] offsets = batch.offsets;
        final long[] lengths = batch.lengths;
        final int runs = batch.runs;
        batch.runs = 0;
        final long got = storage.read(start, window.clear().limit((int) (batch.end() - start)));
        for (int i = 0; i < runs; i++) {
            final long from = offsets[i] - start;
            final long available = Math.max(0, Math.min(lengths[i], got - from));
            if (!sink.take(window, (int) from, (int) available) || available < lengths[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Collects read bytes in stream order and unpacks them into memory a chunk at a time; runs read straight from the
     * file are queued and read together when the chunk is full or other bytes follow them ({@link RunReads}).
     */
    private static final class Sink {
        private final ByteBuffer chunk;
        private final Memory memory;
        private final long count;
        private final Datatype type;
        private final DataRepresentation rep;
        private final java.util.function.LongConsumer moved;
        private final RunReads queued;
        private final Storage storage;
        /** The array whose bytes from {@link #arrayFrom} are the stream ({@link #streamMemory}), or null. */
        private final Object array;
        private final long arrayFrom;
        /** Bytes of the chunk that hold data; runs queued for the chunk land after them. */
        private int filled;
        private long memPos;
        long got;

        Sink(final ByteBuffer chunk, final Memory memory, final long count, final Datatype type,
             final DataRepresentation rep, final java.util.function.LongConsumer moved, final RunReads queued,
             final Storage storage, final Object array, final long arrayFrom) {
            this.moved = moved;
            this.storage = storage;
            this.array = array;
            this.arrayFrom = arrayFrom;
            this.chunk = chunk;
            this.memory = memory;
            this.count = count;
            this.type = type;
            this.rep = rep;
            this.queued = queued;
        }

        /** Takes bytes read with others (a sieve window); false if a run queued before them met the end of the file. */
        boolean take(final ByteBuffer from, final int index, final int length) throws IOException {
            if (!target(false) || !readQueued()) {
                return false;
            }
            int done = 0;
            while (done < length) {
                if (filled == chunk.capacity()) {
                    drain();
                }
                final int n = Math.min(length - done, chunk.capacity() - filled);
                chunk.put(filled, from, index + done, n);
                filled += n;
                done += n;
                got += n;
            }
            return true;
        }

        /** Queues a run to be read straight into the chunk; false if a run read meanwhile met the end of the file. */
        boolean readDirect(final long at, final long len) throws IOException {
            if (array != null && storage.takesArrays(at, len, false)) {
                return readIntoArray(at, len);
            }
            if (!target(false)) {
                return false;
            }
            long done = 0;
            while (done < len) {
                if (filled + queued.bytes() == chunk.capacity() || queued.full()) {
                    if (!readQueued()) {
                        return false;
                    }
                    if (filled == chunk.capacity()) {
                        drain();
                    }
                }
                final int take = (int) Math.min(len - done, chunk.capacity() - filled - queued.bytes());
                queued.add(at + done, filled + queued.bytes(), take);
                done += take;
            }
            return true;
        }

        /** Queues a run to be read straight into the array; false if a run read meanwhile met the end of the file. */
        private boolean readIntoArray(final long at, final long len) throws IOException {
            if (!target(true)) {
                return false;
            }
            long done = 0;
            while (done < len) {
                if (queued.bytes() == chunk.capacity() || queued.full()) {
                    if (!readQueued()) {
                        return false;
                    }
                }
                final int take = (int) Math.min(len - done, chunk.capacity() - queued.bytes());
                queued.add(at + done, arrayFrom + memPos + queued.bytes(), take);
                done += take;
            }
            return true;
        }

        /**
         * Has the runs queued from now on land in the array or in the chunk. What is queued for the other lands
         * first, and before runs go to the array the chunk's bytes are unpacked, so that every run's bytes follow
         * those before it in the stream.
         *
         * @return false if a run read meanwhile met the end of the file
         */
        private boolean target(final boolean intoArray) throws IOException {
            if (queued.intoArray() == intoArray) {
                return true;
            }
            if (!readQueued()) {
                return false;
            }
            if (filled > 0) {
                drain();
            }
            queued.target(intoArray ? array : null);
            return true;
        }

        /** Reads the runs queued; false if one met the end of the file (the bytes after it then do not count). */
        private boolean readQueued() throws IOException {
            final int want = queued.bytes();
            final boolean intoArray = queued.intoArray();
            final long n = queued.read();
            got += n;
            if (intoArray) {
                memPos += n;
                if (moved != null && n > 0) {
                    moved.accept(memPos);
                }
            } else {
                filled += (int) n;
            }
            return n == want;
        }

        private void drain() {
            Packer.unpack(chunk, 0, filled, memory, memory.origin(), type, count, rep, memPos);
            memPos += filled;
            filled = 0;
            if (moved != null) {
                moved.accept(memPos);
            }
        }

        long finish() throws IOException {
            readQueued();
            if (filled > 0) {
                drain();
            }
            return got;
        }
    }
}
