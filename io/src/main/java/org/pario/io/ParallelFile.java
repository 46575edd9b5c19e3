package org.pario.io;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Request;
import org.pario.comm.Status;
import org.pario.datatypes.BufferTypes;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.io.storage.Storage;
import org.pario.io.storage.Storages;

/**
 * A file opened by every rank of a communicator ({@code MPI_File}), seen by each rank through its
 * {@link FileView}. Open, close, {@link #setView}, {@link #setSize}, {@link #sync} and the {@code ...All}
 * accesses are collective: every rank calls them, and they complete on every rank or fail on every rank with the
 * same error. Offsets and counts are in etypes of the view; all are {@code long}.
 *
 * <p>Independent accesses move data between memory and the file through the view in chunks: the memory side is
 * packed (or unpacked) a chunk at a time with the memory datatype, and the file side is walked with the filetype's
 * cursor, one positional storage access per contiguous file run (or one per sieve window, see {@link Hints}).
 * Collective accesses go through two-phase I/O ({@link TwoPhase}): aggregators gather the ranks' pieces of each
 * round window and access the storage in large runs, unless the ranks' accesses do not interleave or their runs
 * are long, when they run as coordinated independent accesses. Reads past the end of the file return short counts.
 * A buffer whose Java type cannot hold the access's datatype (an {@code int[]} for {@code double}) is refused.
 *
 * <p>One thread per rank uses a file at a time, apart from the nonblocking independent accesses in flight.
 */
public final class ParallelFile implements AutoCloseable {
    /** Packed bytes moved per step between memory and the file. */
    private static final int CHUNK = 4 << 20;

    private final Communicator comm;
    /** Where the file lives: a path or a URI. */
    private final String path;
    private final Set<Mode> modes;
    private final Storage storage;
    private final Hints hints;
    /** Packing buffers for independent accesses. */
    private final Chunks chunks;
    /** The collective engine; also holds every rank's view. */
    private TwoPhase twoPhase;
    private FileView view = FileView.DEFAULT;
    /** The individual file pointer, in etypes of the current view. */
    private long pointer;
    /** The shared file pointer, in etypes, held by rank 0 (no lock file). */
    private SharedPointer shared;
    private boolean atomic;
    private boolean closed;
    /** Threads for the nonblocking independent accesses. */
    private final FileWorkers workers = new FileWorkers();

    private ParallelFile(final Communicator comm, final String path, final Set<Mode> modes, final Storage storage,
                         final Hints hints) {
        this.hints = hints;
        this.comm = comm;
        this.path = path;
        this.modes = modes;
        this.storage = storage;
        this.chunks = new Chunks(CHUNK, storage.preferredBlockSize(), storage.prefersDirectBuffers());
    }

    /**
     * {@code MPI_File_open}, collective: every rank opens the file or every rank fails with the same error.
     *
     * @param comm     the ranks that open it
     * @param location a local path, a {@code file:} URI, or a URI a storage backend on the class path handles
     *                 ({@code hdfs://namenode:port/path} with pario-hdfs)
     * @param modes    exactly one of RDONLY, WRONLY, RDWR, plus any others
     * @return the open file, with the default view (bytes from offset 0)
     */
    public static ParallelFile open(final Communicator comm, final String location, final Set<Mode> modes) {
        return open(comm, location, modes, Hints.DEFAULT);
    }

    /**
     * {@code MPI_File_open} with hints ({@code MPI_Info}).
     *
     * @param comm     the ranks that open it
     * @param location a local path
     * @param modes    exactly one of RDONLY, WRONLY, RDWR, plus any others
     * @param hints    tuning hints; unknown keys are kept and ignored, as MPI does
     * @return the open file
     */
    public static ParallelFile open(final Communicator comm, final String location, final Set<Mode> modes,
                                    final Hints hints) {
        return open(comm, location, modes, hints, null);
    }

    /**
     * {@code MPI_File_open} over a decorated storage: every access this rank makes to the file goes through
     * {@code decorate}'s storage (to checksum the bytes as they pass, trace or count the accesses, inject faults).
     *
     * @param comm     the ranks that open it
     * @param location a local path or a URI a storage backend handles
     * @param modes    exactly one of RDONLY, WRONLY, RDWR, plus any others
     * @param hints    tuning hints
     * @param decorate given the storage this rank opened, returns the one the file uses; null for none. Every
     *                 rank calls it at the same point, after the open's first agreed step and before the file's
     *                 own collective steps, so it may run collectives on {@code comm} itself; a rank whose own
     *                 open failed is given null (the open then fails on every rank, whatever it returns). It may
     *                 throw (a {@link ParioException} says best what is wrong): the open then fails on every rank
     *                 with the first failing rank's error, the storage closed
     * @return the open file
     */
    public static ParallelFile open(final Communicator comm, final String location, final Set<Mode> modes,
                             final Hints hints, final UnaryOperator<Storage> decorate) {
        final FileOpening.Opened opened = FileOpening.open(comm, location, modes, hints);
        Storage storage = opened.storage();
        RuntimeException failure = opened.failure();
        if (decorate != null) {
            try {
                final Storage decorated = decorate.apply(storage);
                if (storage != null) {
                    storage = Objects.requireNonNull(decorated, "the storage decorator returned null");
                }
            } catch (RuntimeException e) {
                // agreed with the open's own outcome below: a rank alone leaving here would leave the others
                // waiting; the decorator's error says more than the open's (a checkpoint's own, about its file)
                failure = e;
            }
        }
        final ParallelFile f = onStorage(comm, location, opened.modes(), storage, hints, failure);
        if (opened.modes().contains(Mode.APPEND)) {
            // every rank starts at the same end of file: measured once, after every rank has opened it
            f.pointer = FileOpening.endOfFile(comm, storage, location);
        }
        return f;
    }

    /**
     * Opens, collectively, a file on a storage every rank has opened: its shared pointer and its two-phase engine,
     * each over a duplicate of {@code comm}, or the same error on every rank. Nothing is looked up or created: a
     * warm-up runs the collective paths this way on a storage that keeps nothing ({@link ExchangeWarmup}).
     */
    static ParallelFile onStorage(final Communicator comm, final String name, final Set<Mode> modes,
                                  final Storage storage, final Hints hints) {
        return onStorage(comm, name, modes, storage, hints, null);
    }

    /**
     * As above, with this rank's failure so far ({@code earlier}, or null) agreed with the rest; {@code storage} is
     * null where this rank could not open the file ({@code earlier} says why).
     */
    private static ParallelFile onStorage(final Communicator comm, final String name, final Set<Mode> modes,
                                          final Storage storage, final Hints hints, final RuntimeException earlier) {
        RuntimeException failure = earlier;
        ParallelFile f = null;
        Communicator[] own = null;
        try {
            // the pointer's and the engine's communicators agreed in one step: an open's cost is its collectives.
            // Both steps are collective (the hosts the first time a communicator asks), so every rank takes them,
            // whatever it holds
            own = comm.dup(2);
            final List<String> hosts = Aggregators.hosts(comm);
            if (storage != null) {
                f = new ParallelFile(comm, name, modes, storage, hints);
                f.shared = new SharedPointer(own[0]);
                f.twoPhase = new TwoPhase(own[1], storage, hints, hosts);
            }
        } catch (ParioException e) {
            failure = failure == null ? e : failure;
        }
        final ParallelFile made = f;
        final Communicator[] dups = own;
        FileOpening.agreeOrClose(comm, failure, () -> releaseFailedOpen(made, dups, storage));
        return f;
    }

    /** What an open that failed on some rank left on this one, released here without collectives. */
    private static void releaseFailedOpen(final ParallelFile f, final Communicator[] own, final Storage storage)
        throws IOException {
        if (f != null) {
            f.releaseLocally();
        } else if (storage != null) {
            storage.close();
        }
        if (own != null) {
            // closing is idempotent: those the file took are closed already
            for (final Communicator c : own) {
                c.close();
            }
        }
    }

    // ------------------------------------------------------------------ view and pointers

    /**
     * {@code MPI_File_set_view}, collective. Checks, each an error on every rank: disp {@code >= 0}; a filetype made
     * of whole etypes; filetype displacements non-negative and non-decreasing, and not overlapping when the file
     * is open for writing; the same data representation and etype extent on every rank. Resets the individual
     * file pointer to 0.
     */
    public void setView(final long disp, final Datatype etype, final Datatype filetype, final DataRepresentation datarep) {
        checkOpen();
        Throwable failure = null;
        final FileView v;
        FileView candidate = null;
        boolean monotone = false;
        try {
            candidate = new FileView(disp, etype, filetype, datarep);
            monotone = Views.check(candidate, !modes.contains(Mode.RDONLY));
        } catch (RuntimeException e) {
            failure = e;
        }
        v = candidate;
        // agrees on every rank's failure, learns every rank's view, and fails on every rank alike unless they share
        // datarep and etype extent
        twoPhase.setViews(v, monotone, failure);
        shared.viewTaken();
        view = v;
        pointer = 0;
    }

    /** @return every hint in effect, defaults included ({@code MPI_File_get_info}) */
    public Hints hints() {
        return twoPhase.hints();
    }

    /** @return this rank's view */
    public FileView view() {
        return view;
    }

    /** @return the individual file pointer, in etypes ({@code MPI_File_get_position}) */
    public long position() {
        return pointer;
    }

    /**
     * {@code MPI_File_seek} with {@code MPI_SEEK_SET}.
     *
     * @param offset the new individual pointer, in etypes, {@code >= 0}
     */
    public void seek(final long offset) {
        notSequential("seek");
        if (offset < 0) {
            throw ParioException.argument("seek: offset must be >= 0, got " + offset);
        }
        pointer = offset;
    }

    /**
     * {@code MPI_File_get_byte_offset}.
     *
     * @param offset a view offset, in etypes
     * @return the absolute byte offset in the file where that etype lies
     */
    public long byteOffset(final long offset) {
        return view.byteOffset(offset);
    }

    // ------------------------------------------------------------------ data access

    /** {@code MPI_File_write_at}: writes {@code count x type} from {@code buf} at view offset {@code offset}. */
    public Status writeAt(final long offset, final Object buf, final long count, final Datatype type) {
        notSequential("writeAt");
        return view.status(move(true, offset, buf, count, type), type);
    }

    /** {@code MPI_File_read_at}: reads {@code count x type} into {@code buf}; short at the end of the file. */
    public Status readAt(final long offset, final Object buf, final long count, final Datatype type) {
        notSequential("readAt");
        return view.status(move(false, offset, buf, count, type), type);
    }

    /** {@code MPI_File_write}: at the individual pointer, which advances by the etypes written. */
    public Status write(final Object buf, final long count, final Datatype type) {
        notSequential("write");
        final long fileBytes = move(true, pointer, buf, count, type);
        pointer += fileBytes / view.etype().size();
        return view.status(fileBytes, type);
    }

    /** {@code MPI_File_read}: at the individual pointer, which advances by the etypes read. */
    public Status read(final Object buf, final long count, final Datatype type) {
        notSequential("read");
        final long fileBytes = move(false, pointer, buf, count, type);
        pointer += fileBytes / view.etype().size();
        return view.status(fileBytes, type);
    }

    /**
     * {@code MPI_File_write_shared}: writes at the shared file pointer, which every rank's shared-pointer accesses
     * move atomically; ranks writing at once each get their own range, in an order the calls' arrival decides.
     * Every rank must have the same view.
     */
    public Status writeShared(final Object buf, final long count, final Datatype type) {
        return view.status(move(true, shared.fetchAdd(etypes(count, type)), buf, count, type), type);
    }

    /** {@code MPI_File_read_shared}: reads at the shared file pointer, which moves by the etypes asked for. */
    public Status readShared(final Object buf, final long count, final Datatype type) {
        return view.status(move(false, shared.fetchAdd(etypes(count, type)), buf, count, type), type);
    }

    /** @return the bytes moved as the file holds them */
    private long move(final boolean write, final long offset, final Object buf, final long count,
                      final Datatype type) {
        return move(write, offset, buf, count, type, null);
    }

    private long move(final boolean write, final long offset, final Object buf, final long count,
                      final Datatype type, final LongConsumer moved) {
        checkOpen();
        if (write) {
            checkWritable();
            if (!storage.capabilities().contains(Storage.Capability.POSITIONAL_WRITE)) {
                throw ParioException.argument(storage.describe() + " cannot be written at an offset by one rank (an "
                    + "append-only store such as HDFS): write it with collective calls (writeAll, writeAtAll, "
                    + "writeOrdered), which add data past its end");
            }
        } else {
            checkReadable();
        }
        BufferTypes.require(buf, type, "the buffer");
        return Views.transfer(storage, view, write, Memory.ofObject(buf), count, type, offset,
            new Views.Access(chunks, hints.readSieveBytes(), hints.writeSieveBytes(), hints.directRunBytes(write),
                atomic, moved, workers.executor()));
    }

    private long etypes(final long count, final Datatype type) {
        checkOpen();
        return view.etypes(count, type);
    }

    /**
     * {@code MPI_File_get_type_extent}: the extent of a type as the file's data representation lays it out.
     *
     * @param type a datatype
     * @return its extent in the file, in bytes
     */
    public long typeExtent(final Datatype type) {
        return view.typeExtent(type);
    }

    /**
     * {@code MPI_File_set_atomicity}, collective: in atomic mode every independent access holds one byte-range lock
     * over the bytes it can touch, so that concurrent accesses to overlapping bytes see each other whole or not
     * at all. Every rank must pass the same value.
     */
    public void setAtomicity(final boolean on) {
        checkOpen();
        final long[] range = Agreement.range(comm, on ? 1 : 0);
        if (range[0] != range[1]) {
            throw new ParioException(ErrorCategory.ARGUMENT, "setAtomicity: every rank must pass the same value",
                null, true);
        }
        atomic = on;
    }

    /** @return whether the file is in atomic mode ({@code MPI_File_get_atomicity}) */
    public boolean atomicity() {
        return atomic;
    }

    // ------------------------------------------------------------------ nonblocking

    /** {@code MPI_File_iwrite_at}: the write runs on Pario's worker threads; do not touch the buffer until done. */
    public Request<Status> iwriteAt(final long offset, final Object buf, final long count, final Datatype type) {
        notSequential("iwriteAt");
        return async(() -> writeAt(offset, buf, count, type));
    }

    /** {@code MPI_File_iread_at}: the read runs on Pario's worker threads. */
    public Request<Status> ireadAt(final long offset, final Object buf, final long count, final Datatype type) {
        notSequential("ireadAt");
        return async(() -> readAt(offset, buf, count, type));
    }

    /** {@code MPI_File_iwrite}: at the individual pointer, which moves at once, as in MPI. */
    public Request<Status> iwrite(final Object buf, final long count, final Datatype type) {
        notSequential("iwrite");
        final long at = advance(count, type);
        return iwriteAt(at, buf, count, type);
    }

    /** {@code MPI_File_iread}: at the individual pointer, which moves at once by the count requested. */
    public Request<Status> iread(final Object buf, final long count, final Datatype type) {
        notSequential("iread");
        final long at = advance(count, type);
        return ireadAt(at, buf, count, type);
    }

    /** {@code MPI_File_iwrite_shared}: the shared pointer is moved at the call, the data written in the background. */
    public Request<Status> iwriteShared(final Object buf, final long count, final Datatype type) {
        final long at = shared.fetchAdd(etypes(count, type));
        return async(() -> view.status(move(true, at, buf, count, type), type));
    }

    /** {@code MPI_File_iread_shared}: the shared pointer is moved at the call, the data read in the background. */
    public Request<Status> ireadShared(final Object buf, final long count, final Datatype type) {
        final long at = shared.fetchAdd(etypes(count, type));
        return async(() -> view.status(move(false, at, buf, count, type), type));
    }

    /** {@code MPI_File_iwrite_all}; completes before it returns, like {@link #iwriteAtAll}. */
    public Request<Status> iwriteAll(final Object buf, final long count, final Datatype type) {
        return done(writeAll(buf, count, type));
    }

    /** {@code MPI_File_iread_all}; completes before it returns, like {@link #iwriteAtAll}. */
    public Request<Status> ireadAll(final Object buf, final long count, final Datatype type) {
        return done(readAll(buf, count, type));
    }

    /**
     * {@code MPI_File_iwrite_at_all}. Completes before it returns: its error agreement is a collective on the
     * file's communicator, which must run in call order on every rank (MPI allows a nonblocking call to complete
     * at once).
     */
    public Request<Status> iwriteAtAll(final long offset, final Object buf, final long count, final Datatype type) {
        return done(writeAtAll(offset, buf, count, type));
    }

    /** {@code MPI_File_iread_at_all}; completes before it returns, like {@link #iwriteAtAll}. */
    public Request<Status> ireadAtAll(final long offset, final Object buf, final long count, final Datatype type) {
        return done(readAtAll(offset, buf, count, type));
    }

    private long advance(final long count, final Datatype type) {
        final long at = pointer;
        pointer += etypes(count, type);
        return at;
    }

    private Request<Status> async(final Supplier<Status> access) {
        checkOpen();
        return workers.start(access);
    }

    private Request<Status> done(final Status s) {
        return workers.done(s);
    }

    /** {@code MPI_File_write_at_all}, collective (two-phase I/O, see {@link Hints}). */
    public Status writeAtAll(final long offset, final Object buf, final long count, final Datatype type) {
        notSequential("writeAtAll");
        return view.status(collectiveMove(true, offset, buf, count, type), type);
    }

    /** {@code MPI_File_read_at_all}, collective. */
    public Status readAtAll(final long offset, final Object buf, final long count, final Datatype type) {
        notSequential("readAtAll");
        return view.status(collectiveMove(false, offset, buf, count, type), type);
    }

    /** {@code MPI_File_write_all}, collective, at the individual pointer. */
    public Status writeAll(final Object buf, final long count, final Datatype type) {
        notSequential("writeAll");
        final long fileBytes = collectiveMove(true, pointer, buf, count, type);
        pointer += fileBytes / view.etype().size();
        return view.status(fileBytes, type);
    }

    /** {@code MPI_File_read_all}, collective, at the individual pointer. */
    public Status readAll(final Object buf, final long count, final Datatype type) {
        notSequential("readAll");
        final long fileBytes = collectiveMove(false, pointer, buf, count, type);
        pointer += fileBytes / view.etype().size();
        return view.status(fileBytes, type);
    }

    /**
     * A collective access: two-phase when the hints and the ranks' ranges call for it, otherwise independent
     * accesses whose outcome is agreed.
     *
     * @return the bytes moved as the file holds them
     */
    private long collectiveMove(final boolean write, final long offset, final Object buf, final long count,
                                final Datatype type) {
        checkOpen();
        if (write) {
            checkWritable();
        } else {
            checkReadable();
        }
        final OptionalLong aggregated = twoPhase.access(write, view, buf, count, type, offset);
        if (aggregated.isPresent()) {
            return aggregated.getAsLong();
        }
        long independent = 0;
        final Progress progress = twoPhase.progress();
        final long all = twoPhase.callBytes();
        final long mine = Math.max(1, count * type.size(Views.packing(view)));
        // each rank moves its own bytes independently: rank-local progress stands for the whole call's
        final LongConsumer rankMoved = progress == Progress.NONE ? null
            : done -> progress.update(all / mine * done + all % mine * done / mine, all);
        Throwable failure = null;
        try {
            independent = move(write, offset, buf, count, type, rankMoved);
        } catch (RuntimeException e) {
            failure = e;
        }
        Agreement.agree(comm, failure);
        twoPhase.progress().update(twoPhase.callBytes(), twoPhase.callBytes());
        return independent;
    }

    /**
     * Sets what collective accesses report their progress to, on this rank (null for nothing).
     *
     * @param progress told the bytes done and in all after each round
     */
    public void setProgress(final Progress progress) {
        twoPhase.progress(progress);
    }

    /**
     * {@code MPI_File_write_ordered}, collective: the ranks' data is written one after the other in rank order at
     * the shared file pointer, which then moves past all of it. Every rank must have the same view.
     */
    public Status writeOrdered(final Object buf, final long count, final Datatype type) {
        final long at = orderedOffset(count, type);
        return view.status(collectiveMove(true, at, buf, count, type), type);
    }

    /** {@code MPI_File_read_ordered}, collective: reads in rank order at the shared file pointer. */
    public Status readOrdered(final Object buf, final long count, final Datatype type) {
        final long at = orderedOffset(count, type);
        return view.status(collectiveMove(false, at, buf, count, type), type);
    }

    /** This rank's offset for an ordered access: the shared pointer plus the etypes of the ranks before it. */
    private long orderedOffset(final long count, final Datatype type) {
        checkOpen();
        long etypes = -1;
        final long bytes = count < 0 ? -1 : count * type.size(Views.packing(view));
        if (bytes >= 0 && bytes % view.etype().size() == 0) {
            etypes = bytes / view.etype().size();
        }
        return shared.reserveInRankOrder(etypes);
    }

    /**
     * {@code MPI_File_seek_shared} with {@code MPI_SEEK_SET}, collective: every rank must pass the same offset.
     *
     * @param offset the new shared pointer, in etypes
     */
    public void seekShared(final long offset) {
        checkOpen();
        final long[] range = Agreement.range(comm, offset);
        if (range[0] != range[1] || offset < 0) {
            throw new ParioException(ErrorCategory.ARGUMENT, "seekShared: every rank must pass the same offset >= 0, "
                + "got " + range[0] + " to " + range[1], null, true);
        }
        shared.seekCollectively(offset);
    }

    /** @return the shared file pointer, in etypes ({@code MPI_File_get_position_shared}); not collective */
    public long positionShared() {
        checkOpen();
        return shared.fetchAdd(0);
    }

    // ------------------------------------------------------------------ file-wide

    /** @return the file's size in bytes ({@code MPI_File_get_size}) */
    public long size() {
        checkOpen();
        try {
            return storage.size();
        } catch (IOException e) {
            throw IoErrors.of("size of " + path, e);
        }
    }

    /** {@code MPI_File_set_size}, collective: truncates or extends the file; every rank must pass the same size. */
    public void setSize(final long size) {
        checkOpen();
        FileSizing.setSize(comm, storage, path, size, this::checkWritable);
    }

    /**
     * {@code MPI_File_preallocate}, collective: makes the file at least {@code size} bytes long; data already
     * written is kept, and a larger file is never shrunk.
     */
    public void preallocate(final long size) {
        checkOpen();
        FileSizing.preallocate(comm, storage, path, size, this::checkWritable);
    }

    /** {@code MPI_File_sync}, collective: written data reaches stable storage on every rank. */
    public void sync() {
        checkOpen();
        Throwable failure = null;
        try {
            storage.sync();
        } catch (IOException e) {
            failure = IoErrors.of("sync of " + path, e);
        }
        Agreement.agree(comm, failure);
    }

    /** What an open that failed on some rank leaves behind on this one: released here, without collectives. */
    private void releaseLocally() throws IOException {
        closed = true;
        workers.shutdown();
        if (twoPhase != null) {
            twoPhase.close();
        }
        if (shared != null) {
            shared.close();
        }
        storage.close();
    }

    /** {@code MPI_File_close}, collective; with DELETE_ON_CLOSE, rank 0 then deletes the file. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Throwable failure = null;
        try {
            storage.close();
        } catch (IOException e) {
            failure = IoErrors.of("close of " + path, e);
        }
        try {
            Agreement.agree(comm, failure);
        } finally {
            if (shared != null) {
                shared.close();
            }
            if (twoPhase != null) {
                twoPhase.close();
            }
            chunks.release();
            workers.shutdown();
        }
        if (!modes.contains(Mode.DELETE_ON_CLOSE)) {
            // every rank opened with the same modes (the open checked), so every rank or none agrees on a delete
            return;
        }
        if (comm.rank() == 0) {
            try {
                Storages.delete(path);
            } catch (NoSuchFileException e) {
                // already gone
            } catch (IOException e) {
                failure = IoErrors.of("delete of " + path, e);
            }
        }
        Agreement.agree(comm, failure);
    }

    /** {@code MPI_File_delete}: deletes a file that no one has open. */
    public static void delete(final String location) {
        try {
            Storages.delete(location);
        } catch (IOException e) {
            throw IoErrors.of("delete " + location, e);
        }
    }

    /** MPI: explicit offsets and individual pointers are erroneous on a file opened SEQUENTIAL. */
    private void notSequential(final String operation) {
        if (modes.contains(Mode.SEQUENTIAL)) {
            throw ParioException.argument(operation + ": the file was opened SEQUENTIAL, which allows only "
                + "shared-pointer and ordered access");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw ParioException.argument("the file is closed");
        }
    }

    private void checkWritable() {
        if (modes.contains(Mode.RDONLY)) {
            throw ParioException.argument("the file was opened RDONLY: it cannot be written");
        }
    }

    private void checkReadable() {
        if (modes.contains(Mode.WRONLY)) {
            throw ParioException.argument("the file was opened WRONLY: it cannot be read");
        }
    }

    /** @return whether the ranks' views of this file came from one text (every rank a darray of itself), for tests */
    boolean viewsFromOneText() {
        return twoPhase != null && twoPhase.viewsFromOneText();
    }
}
