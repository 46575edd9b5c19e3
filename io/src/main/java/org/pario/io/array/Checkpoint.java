package org.pario.io.array;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;

import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.Agreement;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;
import org.pario.io.storage.Storage;

/**
 * A checkpoint of distributed arrays: one self-describing file (format: {@code docs/checkpoint-format.md}) holding
 * a checksummed header (the arrays' shapes, element types, orders, the layout they were written with, typed
 * attributes, and CRC-32C checksums of the data in fixed-size chunks), then each array in global order at a
 * 4096-byte aligned offset, so the data is also a plain raw array any MPI-IO program or {@code numpy.memmap} can
 * read. Writing is atomic; restoring works on any number of ranks and any distribution of the same array, and
 * verifies the checksums first. Every call that takes arrays is collective over their communicator and completes
 * or fails on every rank with the same error.
 *
 * <p>A value naming the checkpoint's location with its hints and listener; immutable and cheap.
 *
 * <pre>{@code
 * DistributedArray<double[]> field = DistributedArray.of(world, Element.DOUBLE, new long[] {256, 256, 512},
 *     Dist.block(), Dist.block(), Dist.cyclic(2));
 * Checkpoint.at(Path.of("step-1000.ckpt")).write("field", field, mine);
 * double[] back = Checkpoint.at(Path.of("step-1000.ckpt")).restore("field", field);
 * }</pre>
 */
public final class Checkpoint {
    private final String location;
    private final Hints hints;
    private final CheckpointListener listener;
    private final int keep;

    private Checkpoint(final String location, final Hints hints, final CheckpointListener listener, final int keep) {
        this.location = location;
        this.hints = hints;
        this.listener = listener;
        this.keep = keep;
    }

    /**
     * @param path a local file
     * @return the checkpoint there
     */
    public static Checkpoint at(final Path path) {
        return at(Objects.requireNonNull(path, "path").toString());
    }

    /**
     * @param uri a {@code file:} or {@code hdfs://} location
     * @return the checkpoint there
     */
    public static Checkpoint at(final URI uri) {
        Objects.requireNonNull(uri, "uri");
        if (uri.getScheme() == null) {
            return at(uri.getPath());
        }
        return uri.getScheme().equals("file") ? at(Path.of(uri)) : at(uri.toString());
    }

    /**
     * @param location a local path or an {@code hdfs://} URI
     * @return the checkpoint there
     */
    public static Checkpoint at(final String location) {
        if (location == null || location.isBlank()) {
            throw ParioException.argument("a checkpoint's location must not be empty, got '" + location + "'");
        }
        return new Checkpoint(location, Hints.DEFAULT, CheckpointListener.NONE, 0);
    }

    /**
     * @param h hints for the checkpoint's file ({@code cb_buffer_size}, {@code direct_write}, ...)
     * @return the same checkpoint with these hints
     */
    public Checkpoint hints(final Hints h) {
        return new Checkpoint(location, Objects.requireNonNull(h, "hints"), listener, keep);
    }

    /**
     * @param l told of every phase's progress
     * @return the same checkpoint reporting to this listener
     */
    public Checkpoint listener(final CheckpointListener l) {
        return new Checkpoint(location, hints, Objects.requireNonNull(l, "listener"), keep);
    }

    /**
     * Retention: once a write of this checkpoint has committed, the {@code n} newest whole checkpoints of its
     * directory are kept and older ones deleted ({@link #prune}). Deleting only after the commit means a crash at
     * any moment leaves at least as many good checkpoints as before; a crash between the commit and the pruning
     * leaves one more, which the next write's pruning deletes.
     *
     * @param n how many checkpoints to keep, at least 1
     * @return the same checkpoint with retention
     */
    public Checkpoint keep(final int n) {
        if (n < 1) {
            throw ParioException.argument("checkpoint " + location + ": retention must keep at least 1 checkpoint, got "
                + n);
        }
        return new Checkpoint(location, hints, listener, n);
    }

    /** @return how many checkpoints a write keeps in its directory, or 0 when it deletes none */
    public int keep() {
        return keep;
    }

    /**
     * Prepares the ranks for checkpoints of {@code array}, collective over its communicator; returns at once. In
     * the background, while the job computes, the ranks write and read samples of their data through the array's
     * layout with this checkpoint's hints, over a copy of the communicator and into memory only, so that the code
     * of the exchange between ranks is compiled before the first checkpoint instead of during it: call it where the
     * job starts, before its first computation. The rounds give way as soon as a checkpoint call begins, and end
     * when the communicator is closed. While they run, each rank holds a buffer of at most 32 MiB divided by the
     * rank count, and each aggregator its windows, as in a collective write (docs/guide.md says what it gains). Only the first call on a communicator starts them; later calls
     * do nothing. This checkpoint's location is not touched.
     *
     * <pre>{@code
     * DistributedArray<double[]> field = DistributedArray.of(world, Element.DOUBLE, shape);
     * Checkpoint checkpoints = Checkpoint.at(dir.resolve("step.ckpt"));
     * checkpoints.prepare(field);
     * for (int step = 1; step <= steps; step++) {
     *     compute(field, mine);
     *     if (step % every == 0) {
     *         checkpoints.write("field", field, mine);
     *     }
     * }
     * }</pre>
     *
     * @param array the array to be checkpointed; its communicator is the one the rounds copy
     */
    public void prepare(final DistributedArray<?> array) {
        Objects.requireNonNull(array, "array");
        CheckpointWarmup.startExchange(array, hints);
    }

    /**
     * Lists the checkpoints of a directory, oldest first: whole ones with their time, arrays, attributes and size
     * (the header and the file's length are checked, the data is not read), damaged ones and the hidden files of
     * writes that have not committed, each with why. Other files are left out.
     *
     * @param directory a local directory or an {@code hdfs://} URI
     * @return its checkpoints
     * @throws ParioException if the directory cannot be listed
     */
    public static List<CheckpointEntry> list(final String directory) {
        return Catalog.list(Objects.requireNonNull(directory, "directory"));
    }

    /**
     * @param directory a local directory
     * @return its checkpoints; see {@link #list(String)}
     */
    public static List<CheckpointEntry> list(final Path directory) {
        return list(directory.toString());
    }

    /**
     * Finds the newest checkpoint of a directory whose data verifies, in this process: candidates are tried newest
     * first and each is read whole; damaged and half-written files are passed over and reported.
     *
     * @param directory a local directory or an {@code hdfs://} URI
     * @return the newest good checkpoint, if any, and what was passed over
     */
    public static LatestCheckpoint latest(final String directory) {
        return Catalog.latest(Objects.requireNonNull(directory, "directory"));
    }

    /**
     * @param directory a local directory
     * @return the newest good checkpoint; see {@link #latest(String)}
     */
    public static LatestCheckpoint latest(final Path directory) {
        return latest(directory.toString());
    }

    /**
     * Collectively, for a job restarting: rank 0 finds the newest checkpoint of a directory that verifies, and
     * every rank gets the same answer.
     *
     * <pre>{@code
     * Checkpoint last = Checkpoint.latest(world, "run-42").orElseThrow();
     * double[] field = last.restore("field", array);
     * }</pre>
     *
     * @param comm      the ranks
     * @param directory a local directory or an {@code hdfs://} URI
     * @return the newest good checkpoint, if any, and what was passed over
     */
    public static LatestCheckpoint latest(final Communicator comm, final String directory) {
        return Catalog.latest(Objects.requireNonNull(comm, "comm"), Objects.requireNonNull(directory, "directory"));
    }

    /**
     * Retention, in this process: keeps the {@code keep} newest whole checkpoints of a directory and deletes older
     * ones, and damaged files older than the oldest kept. With fewer whole checkpoints than {@code keep}, no whole
     * one is deleted. Hidden files of uncommitted writes are left alone (one may belong to a write still running).
     *
     * @param directory a local directory or an {@code hdfs://} URI
     * @param keep      how many to keep, at least 1
     * @return the files deleted
     */
    public static List<CheckpointEntry> prune(final String directory, final int keep) {
        return Catalog.prune(Objects.requireNonNull(directory, "directory"), keep);
    }

    /** Runs this checkpoint's retention after a write has committed: rank 0 prunes, every rank learns the outcome. */
    void retain(final Communicator comm) {
        if (keep == 0) {
            return;
        }
        Throwable failure = null;
        if (comm.rank() == 0) {
            try {
                Catalog.prune(Catalog.directoryOf(location), keep);
            } catch (ParioException e) {
                failure = new ParioException(e.category(), "checkpoint " + location + " was written and committed, "
                    + "but deleting older ones failed: " + e.getMessage(), e);
            }
        }
        Agreement.agree(comm, failure);
    }

    /** @return the location, as a path or URI string */
    public String location() {
        return location;
    }

    /** @return the hints */
    public Hints hints() {
        return hints;
    }

    /** @return the listener */
    public CheckpointListener listener() {
        return listener;
    }

    /**
     * Writes a checkpoint holding one array, collectively over the array's communicator; see
     * {@link CheckpointWriter#write()}.
     *
     * @param name   the array's name in the checkpoint
     * @param array  the array
     * @param buffer this rank's elements, in local order
     * @param <T>    the buffer class
     * @return the header written
     */
    public <T> CheckpointHeader write(final String name, final DistributedArray<T> array, final T buffer) {
        return writer().array(name, array, buffer).write();
    }

    /**
     * Writes a checkpoint holding one array in the background, collectively; see
     * {@link CheckpointWriter#writeAsync()}. Once the call returns, {@code buffer} may change.
     *
     * @param name   the array's name in the checkpoint
     * @param array  the array
     * @param buffer this rank's elements, in local order
     * @param <T>    the buffer class
     * @return the header written, or the error, the same on every rank
     */
    public <T> java.util.concurrent.CompletableFuture<CheckpointHeader> writeAsync(final String name,
                                                                              final DistributedArray<T> array,
                                                                              final T buffer) {
        return writer().array(name, array, buffer).writeAsync();
    }

    /** @return a writer for a checkpoint of several arrays and attributes */
    public CheckpointWriter writer() {
        return new CheckpointWriter(this);
    }

    /**
     * Restores one array into a new buffer, collectively over the array's communicator; see
     * {@link #restore(String, DistributedArray, Object)}.
     *
     * @param name  the array's name in the checkpoint
     * @param array the array as this job distributes it
     * @param <T>   the buffer class
     * @return this rank's elements, in local order
     */
    public <T> T restore(final String name, final DistributedArray<T> array) {
        final T buffer = array.allocate();
        restore(name, array, buffer);
        return buffer;
    }

    /**
     * Restores one array onto any number of ranks and any distribution, collectively over the array's
     * communicator, verifying its checksums: the bytes are summed as they are read, and a chunk whose sum differs
     * from the header's (or that could not be summed so) is read again; a damaged chunk fails the call on every
     * rank, and the buffer's contents are then undefined. The stored array must have the same shape, order and
     * element typemap as {@code array}; anything else fails on every rank naming both.
     *
     * @param name   the array's name in the checkpoint
     * @param array  the array as this job distributes it
     * @param buffer where this rank's elements go, in local order
     * @param <T>    the buffer class
     * @throws ParioException naming the array and byte range of any damage, or what does not match
     */
    public <T> void restore(final String name, final DistributedArray<T> array, final T buffer) {
        final Communicator comm = array.comm();
        final Phases phases = new Phases(this, comm);
        phases.begin(CheckpointListener.Phase.AGREE, 0);
        // rank 0 reads the header while every rank opens the file; the header reaches the others, and each checks
        // it against its array, inside the open, whose own agreement then carries any rank's objection: a restore's
        // fixed cost is its collectives, and a check agreed on its own was one more
        final CompletableFuture<HeaderCodec.Read> onRoot = comm.rank() == 0 ? readInBackground() : null;
        final RestoreOpening<T> opening = new RestoreOpening<>(comm, onRoot, name, array, buffer);
        final ParallelFile opened;
        try {
            opened = ParallelFile.open(comm, location, EnumSet.of(Mode.RDONLY), hints, opening);
        } catch (ParioException e) {
            if (opening.called) {
                throw e;
            }
            // the open failed on every rank before the header was shared: the checkpoint's own error (no such
            // file, not a checkpoint) when there is one says more
            shared(comm, onRoot);
            throw e;
        }
        final CheckpointHeader h = opening.header;
        final StoredArray a = opening.target;
        final InFlightChecksums.Joining joining;
        try (ParallelFile f = opened) {
            phases.end();
            phases.begin(CheckpointListener.Phase.READ, a.bytes());
            final Datatype el = array.elementType();
            final DistributedArray<T>.Local part = array.local();
            f.setView(a.offset(), el, part.filetype(), DataRepresentation.NATIVE);
            f.setProgress((done, total) -> phases.progress(done));
            f.readAll(buffer, part.count(), el);
            // the ranks' sums are joined while the file closes
            joining = opening.sums.startJoining(comm);
        }
        phases.end();
        // the chunks whose bytes were summed as they were read are checked already; the others are read again
        phases.begin(CheckpointListener.Phase.VERIFY, a.bytes());
        Checksums.verify(comm, location, h, a, joining.sums()[0], hints);
        phases.end();
        phases.rethrowListenerFailure();
    }

    /**
     * The storage decorator of a restore's open, which every rank calls at the same point of it: gets the header
     * from rank 0, checks that the array can be restored as this rank's {@code array} into its buffer, and sums
     * the reads. A failure here fails the open on every rank ({@link ParallelFile#open(Communicator, String,
     * java.util.Set, Hints, UnaryOperator)}).
     */
    private final class RestoreOpening<T> implements UnaryOperator<Storage> {
        private final Communicator comm;
        private final CompletableFuture<HeaderCodec.Read> onRoot;
        private final String name;
        private final DistributedArray<T> array;
        private final T buffer;
        private final InFlightChecksums sums = InFlightChecksums.ofReadsToBind();
        /** Whether the open called this, as it does on every rank or on none. */
        private boolean called;
        /** The header, once shared; null before. */
        private CheckpointHeader header;
        /** The array restored, once checked; null before. */
        private StoredArray target;

        RestoreOpening(final Communicator comm, final CompletableFuture<HeaderCodec.Read> onRoot, final String name,
                       final DistributedArray<T> array, final T buffer) {
            this.comm = comm;
            this.onRoot = onRoot;
            this.name = name;
            this.array = array;
            this.buffer = buffer;
        }

        @Override
        public Storage apply(final Storage storage) {
            called = true;
            header = shared(comm, onRoot);
            target = checkedTarget(header, name, "array '" + name + "'", array, buffer, stored -> mismatch(stored,
                array));
            sums.bind(target, header.chunkBytes());
            return sums.watching(storage);
        }
    }

    /**
     * Restores a region of an array into a new buffer, collectively; see
     * {@link #restore(String, Region, DistributedArray, Object)}.
     *
     * @param name   the array's name in the checkpoint
     * @param region the box of the stored array to read
     * @param array  the region as this job distributes it: an array of shape {@code region.count()}
     * @param <T>    the buffer class
     * @return this rank's elements of the region, in local order
     */
    public <T> T restore(final String name, final Region region, final DistributedArray<T> array) {
        final T buffer = array.allocate();
        restore(name, region, array, buffer);
        return buffer;
    }

    /**
     * Restores a region of an array (a box, optionally strided) onto any number of ranks and any distribution of
     * the region, collectively over the array's communicator. Only the checksum chunks holding some of the
     * region's bytes are read, each once, whole, and checked as it arrives: a damaged chunk the region does not
     * touch does not fail the call, one it touches fails it on every rank naming the chunk and array.
     *
     * @param name   the array's name in the checkpoint
     * @param region the box of the stored array to read; it must lie inside the stored array
     * @param array  the region as this job distributes it: an array of shape {@code region.count()}, in the stored
     *               array's order, with the stored element typemap
     * @param buffer where this rank's elements go, in local order
     * @param <T>    the buffer class
     * @throws ParioException on every rank naming what does not fit, or the damage found
     */
    public <T> void restore(final String name, final Region region, final DistributedArray<T> array,
                            final T buffer) {
        Objects.requireNonNull(region, "region");
        final Communicator comm = array.comm();
        final Phases phases = new Phases(this, comm);
        phases.begin(CheckpointListener.Phase.AGREE, 0);
        final CheckpointHeader h = header(comm);
        final StoredArray a = agreedTarget(comm, h, name, "region " + region + " of array '" + name + "'", array,
            buffer, stored -> regionMismatch(stored, region, array.shape(), array.order(), array.elementType()));
        phases.end();
        new RegionReader(location, a, h.chunkBytes(), region, RegionOwners.distributed(array))
            .read(comm, hints.asMap(), windowBytes(), buffer, array.local().count(), phases);
        phases.rethrowListenerFailure();
    }

    /**
     * Reads a region of an array in this process alone, with no communicator: for tools and analysis. Reads and
     * checks only the checksum chunks the region touches, as {@link #restore(String, Region, DistributedArray,
     * Object)} does.
     *
     * @param name    the array's name in the checkpoint
     * @param region  the box of the stored array to read
     * @param element the element type, the stored one
     * @param <T>     the buffer class
     * @return the region's elements as an array of shape {@code region.count()} in the stored array's order
     * @throws ParioException naming what does not fit, or the damage found
     */
    public <T> T read(final String name, final Region region, final Element<T> element) {
        Objects.requireNonNull(region, "region");
        return read(header(), name, region, element);
    }

    /** A region read in this process, from a header already read. */
    private <T> T read(final CheckpointHeader h, final String name, final Region region, final Element<T> element) {
        Objects.requireNonNull(element, "element");
        final StoredArray a = h.array(name);
        final String why = regionMismatch(a, region, region.count(), a.order(), element.type());
        if (why != null) {
            throw ParioException.argument("checkpoint " + location + ": region " + region + " of array '" + name
                + "' cannot be read as " + element.type() + ": " + why);
        }
        final T buffer = element.allocate(region.elements());
        final Phases phases = new Phases(this, 0);
        new RegionReader(location, a, h.chunkBytes(), region, RegionOwners.oneProcess(region.dimensions()))
            .read(null, hints.asMap(), windowBytes(), buffer, region.elements(), phases);
        phases.rethrowListenerFailure();
        return buffer;
    }

    /**
     * Reads a whole array in this process alone; see {@link #read(String, Region, Element)}.
     *
     * @param name    the array's name in the checkpoint
     * @param element the element type, the stored one
     * @param <T>     the buffer class
     * @return the array's elements in the stored order
     */
    public <T> T read(final String name, final Element<T> element) {
        final CheckpointHeader h = header();
        return read(h, name, Region.all(h.array(name).shape()), element);
    }

    /**
     * The bytes a read of a region takes from storage, in this process: those of the checksum chunks holding some of
     * the region's bytes, each read once ({@link #restore(String, Region, DistributedArray, Object)} and
     * {@link #read(String, Region, Element)} read exactly these).
     *
     * @param name   the array's name in the checkpoint
     * @param region the box of the stored array
     * @return the bytes of the chunks that cover it
     */
    public long bytesToRead(final String name, final Region region) {
        final CheckpointHeader h = header();
        final StoredArray a = h.array(name);
        region.within(a.shape());
        final RegionReader reader = new RegionReader(location, a, h.chunkBytes(), region,
            RegionOwners.oneProcess(region.dimensions()));
        return reader.bytesOf(reader.coveringChunks());
    }

    private long windowBytes() {
        return Long.parseLong(hints.asMap().get("cb_buffer_size"));
    }

    private static String regionMismatch(final StoredArray a, final Region region, final long[] shape,
                                         final Order order, final Datatype element) {
        try {
            region.within(a.shape());
        } catch (ParioException e) {
            return e.getMessage();
        }
        if (!Arrays.equals(region.count(), shape)) {
            return "the region holds " + Arrays.toString(region.count()) + " elements, the array is "
                + Arrays.toString(shape);
        }
        if (a.order() != order) {
            return "the checkpoint's array is in " + a.order() + " order, this one in " + order;
        }
        final String el = a.elementMismatch(element);
        return el == null ? null : "the checkpoint's elements are " + a.element() + ", these " + element + " (" + el
            + ")";
    }

    /**
     * Collective: the stored array a restore reads, after every rank has checked that it can be restored as
     * {@code array} into {@code buffer}; any rank's problem fails every rank.
     */
    private <T> StoredArray agreedTarget(final Communicator comm, final CheckpointHeader h, final String name,
                                         final String what, final DistributedArray<T> array, final T buffer,
                                         final java.util.function.Function<StoredArray, String> mismatch) {
        Throwable failure = null;
        StoredArray a = null;
        try {
            a = checkedTarget(h, name, what, array, buffer, mismatch);
        } catch (ParioException e) {
            failure = e;
        }
        Agreement.agree(comm, failure);
        return a;
    }

    /**
     * On this rank: the stored array a restore reads, once checked that it can be restored as {@code array} into
     * {@code buffer}.
     *
     * @throws ParioException naming what does not fit
     */
    private <T> StoredArray checkedTarget(final CheckpointHeader h, final String name, final String what,
                                          final DistributedArray<T> array, final T buffer,
                                          final java.util.function.Function<StoredArray, String> mismatch) {
        final StoredArray a = h.array(name);
        final String why = mismatch.apply(a);
        if (why != null) {
            throw ParioException.argument("checkpoint " + location + ": " + what + " cannot be restored as " + array
                + ": " + why);
        }
        array.element().check(buffer, array.local().count(), "checkpoint " + location + ": the buffer for '" + name
            + "'");
        return a;
    }

    private static String mismatch(final StoredArray a, final DistributedArray<?> array) {
        if (!Arrays.equals(a.shape(), array.shape())) {
            return "the checkpoint's array is " + Arrays.toString(a.shape()) + ", this one "
                + Arrays.toString(array.shape());
        }
        if (a.order() != array.order()) {
            return "the checkpoint's array is in " + a.order() + " order, this one in " + array.order();
        }
        final String element = a.elementMismatch(array.elementType());
        return element == null ? null : "the checkpoint's elements are " + a.element() + ", these "
            + array.elementType() + " (" + element + ")";
    }

    /**
     * Reads the header, collectively: rank 0 reads and checks it, every rank gets it.
     *
     * @param comm the ranks
     * @return the header
     * @throws ParioException on every rank if the file is missing, damaged or not a checkpoint
     */
    public CheckpointHeader header(final Communicator comm) {
        return shared(comm, comm.rank() == 0 ? readHere() : null);
    }

    /** Rank 0's read of the header, on this thread. */
    private CompletableFuture<HeaderCodec.Read> readHere() {
        try {
            return CompletableFuture.completedFuture(HeaderCodec.readWithText(location));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Rank 0's read of the header, on another thread, so that it overlaps what the ranks do meanwhile. */
    private CompletableFuture<HeaderCodec.Read> readInBackground() {
        return CompletableFuture.supplyAsync(() -> HeaderCodec.readWithText(location), HEADER_READS);
    }

    /** The threads that read headers in the background: daemons, made as needed. */
    private static final ExecutorService HEADER_READS = Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "pario-checkpoint-header");
        t.setDaemon(true);
        return t;
    });

    /**
     * Collective: the header rank 0 reads ({@code onRoot}, there only), on every rank, or rank 0's error on every
     * rank.
     */
    private CheckpointHeader shared(final Communicator comm, final CompletableFuture<HeaderCodec.Read> onRoot) {
        HeaderCodec.Read read = null;
        Throwable failure = null;
        if (comm.rank() == 0) {
            try {
                read = onRoot.join();
            } catch (CompletionException e) {
                failure = e.getCause() == null ? e : e.getCause();
            }
        }
        // the header's text, or none when rank 0 could not read it, whose error the agreement then spreads
        final byte[] text = RootBytes.broadcast(comm, read == null ? null : read.text());
        if (text == null) {
            Agreement.agree(comm, failure);
            throw new IllegalStateException("rank 0 could not read the header but reported no error");
        }
        if (comm.rank() == 0) {
            return read.header();
        }
        return HeaderCodec.parse(new String(text, StandardCharsets.UTF_8), text.length, location);
    }

    /**
     * Reads the header in this process alone, for tools.
     *
     * @return the header
     * @throws ParioException if the file is missing, damaged or not a checkpoint
     */
    public CheckpointHeader header() {
        return HeaderCodec.read(location);
    }

    /**
     * Checks every checksum of every array, collectively: each rank reads a share of the chunks.
     *
     * @param comm the ranks
     * @throws ParioException naming the first damaged array, chunk and byte range, and how many chunks are damaged
     */
    public void verify(final Communicator comm) {
        final Phases phases = new Phases(this, comm);
        final CheckpointHeader h = header(comm);
        phases.begin(CheckpointListener.Phase.VERIFY, h.dataBytes());
        long done = 0;
        for (final StoredArray a : h.arrays()) {
            Checksums.verify(comm, location, h, a, hints);
            done += a.bytes();
            phases.progress(done);
        }
        phases.end();
        phases.rethrowListenerFailure();
    }

    @Override
    public String toString() {
        return "checkpoint " + location;
    }
}
