package org.pario.io.array;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.io.Agreement;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

/**
 * Collects the arrays and attributes of one checkpoint, then writes it collectively with {@link #write()}: every
 * rank of the arrays' communicator calls the same methods with the same names, arrays and attributes, each with
 * its own buffers. Not thread-safe; one writer per checkpoint.
 *
 * <pre>{@code
 * Checkpoint.at(dir.resolve("step-1000.ckpt")).writer()
 *     .attribute("step", 1000).attribute("time", 12.5)
 *     .array("temperature", field, t)
 *     .array("pressure", field, p, Attributes.of("units", "Pa"))
 *     .write();
 * }</pre>
 */
public final class CheckpointWriter {
    /** Bytes per checksum chunk. */
    static final long CHUNK = 1 << 20;
    /** Fixed-width stand-in for the time, so the planned header has the length of the final one. */
    private static final Instant PLANNED = Instant.EPOCH;

    private final Checkpoint target;
    private final Attributes.Builder attributes = Attributes.builder();
    private final List<Entry> entries = new ArrayList<>();

    /** One array to write, with this rank's buffer. */
    private record Entry(String name, DistributedArray<?> array, Object buffer, Attributes attributes) {
    }

    CheckpointWriter(final Checkpoint target) {
        this.target = target;
    }

    /**
     * @param key   the attribute's name
     * @param value its value
     * @return this writer
     */
    public CheckpointWriter attribute(final String key, final long value) {
        attributes.put(key, value);
        return this;
    }

    /**
     * @param key   the attribute's name
     * @param value its value, finite
     * @return this writer
     */
    public CheckpointWriter attribute(final String key, final double value) {
        attributes.put(key, value);
        return this;
    }

    /**
     * @param key   the attribute's name
     * @param value its value
     * @return this writer
     */
    public CheckpointWriter attribute(final String key, final boolean value) {
        attributes.put(key, value);
        return this;
    }

    /**
     * @param key   the attribute's name
     * @param value its value
     * @return this writer
     */
    public CheckpointWriter attribute(final String key, final String value) {
        attributes.put(key, value);
        return this;
    }

    /**
     * @param key    the attribute's name
     * @param values its values
     * @return this writer
     */
    public CheckpointWriter attribute(final String key, final long[] values) {
        attributes.put(key, values);
        return this;
    }

    /**
     * @param key    the attribute's name
     * @param values its values, finite
     * @return this writer
     */
    public CheckpointWriter attribute(final String key, final double[] values) {
        attributes.put(key, values);
        return this;
    }

    /**
     * @param key    the attribute's name
     * @param values its values
     * @return this writer
     */
    public CheckpointWriter attribute(final String key, final String[] values) {
        attributes.put(key, values);
        return this;
    }

    /**
     * Every attribute of a set.
     *
     * @param more attributes of the checkpoint
     * @return this writer
     */
    public CheckpointWriter attributes(final Attributes more) {
        attributes.putAll(more);
        return this;
    }

    /**
     * An array to write.
     *
     * @param name   its name, unique in the checkpoint
     * @param array  the array, bound to the communicator that writes it (the same for every array)
     * @param buffer this rank's elements in local order, exactly {@code array.local().count()} of them
     * @param <T>    the buffer class
     * @return this writer
     */
    public <T> CheckpointWriter array(final String name, final DistributedArray<T> array, final T buffer) {
        return array(name, array, buffer, Attributes.NONE);
    }

    /**
     * An array to write, with attributes of its own.
     *
     * @param name       its name, unique in the checkpoint
     * @param array      the array, bound to the communicator that writes it (the same for every array)
     * @param buffer     this rank's elements in local order
     * @param attributes the array's attributes
     * @param <T>        the buffer class
     * @return this writer
     */
    public <T> CheckpointWriter array(final String name, final DistributedArray<T> array, final T buffer,
                                      final Attributes attributes) {
        if (array == null) {
            throw ParioException.argument("checkpoint " + target.location() + ": array '" + name + "' is null");
        }
        entries.add(new Entry(name, array, buffer, attributes == null ? Attributes.NONE : attributes));
        return this;
    }

    /**
     * Writes the checkpoint, collectively over the arrays' communicator, atomically: the data goes to a hidden
     * file beside the target, is synced and checksummed, and only then published under the target's name (which
     * it replaces); a failed write removes the hidden file and leaves any previous checkpoint untouched. Before
     * anything is written, every rank checks its buffers and that it describes the same arrays, layouts and
     * attributes as rank 0.
     *
     * @return the header written
     * @throws ParioException the same on every rank, naming what is wrong
     */
    public CheckpointHeader write() {
        final Communicator comm = communicator();
        final Phases phases = new Phases(target, comm);
        phases.begin(CheckpointListener.Phase.AGREE, 0);
        final Plan plan = agreedPlan(comm);
        phases.end();
        final List<Source> sources = new ArrayList<>();
        for (final Entry e : entries) {
            sources.add(new Source(e.buffer(), e.array().local().count(), null, 0));
        }
        final CheckpointHeader written = writePlanned(comm, plan, phases, sources, false, () -> { });
        target.retain(comm);
        phases.rethrowListenerFailure();
        return written;
    }

    /**
     * Writes the checkpoint in the background, collectively: every rank gets a future of the header written (or of
     * the same error). Once the call returns the arrays' buffers may change: the checkpoint holds their values at
     * the time of the call. The rank's data is copied into staging memory first, up to the
     * {@code pario_async_staging_bytes} hint (default: a quarter of the JVM's largest heap, at most 1 GiB); a rank
     * holding more writes the rest from its own buffers before the call returns, and never waits longer.
     *
     * <p>The write runs on a thread of its own and a duplicate of the arrays' communicator, so the job's own
     * messages and collectives go on meanwhile and never mix with it. It is as atomic as {@link #write()}: the
     * previous checkpoint under the name stays until the new one is published, and a crash at any moment leaves the
     * last published one restorable. Checkpoints written asynchronously on a communicator are written one at a
     * time, in the order of the calls: a call made while the previous checkpoint is still being written first
     * waits for it (staging holds one checkpoint at a time). Closing the communicator waits for the checkpoint in
     * flight; so does the JVM's exit, the writing thread being a user thread. The listener is told of the
     * background phases on the writing thread. Before anything is copied, every rank checks what {@link #write()}
     * checks; an error there is thrown by the call itself, on every rank.
     *
     * <pre>{@code
     * CompletableFuture<CheckpointHeader> saved = Checkpoint.at(path).writer().array("field", field, mine)
     *     .writeAsync();
     * compute(mine);                         // the checkpoint holds mine as it was at the call
     * saved.join();                          // or check it before the next one
     * }</pre>
     *
     * @return the header written, or the error, the same on every rank
     * @throws ParioException the same on every rank, naming what is wrong with the arrays or attributes
     */
    public CompletableFuture<CheckpointHeader> writeAsync() {
        final Communicator comm = communicator();
        final AsyncCheckpoints async = comm.attribute(AsyncCheckpoints.KEY, () -> new AsyncCheckpoints(comm));
        async.awaitPrevious();
        final Phases agree = new Phases(target, comm);
        agree.begin(CheckpointListener.Phase.AGREE, 0);
        final Plan plan = agreedPlan(comm);
        final CheckpointHeader planned = plan.header();
        agree.end();
        // before one file offset agreed by all ranks from the buffers, after it from a staged copy (StagingSplit)
        final List<DistributedArray<?>> arrays = entries.stream().<DistributedArray<?>>map(Entry::array).toList();
        final long split = comm.allreduce(StagingSplit.wanted(arrays, planned, target.hints().asyncStagingBytes()),
            Op.MAX);
        final List<Source> sources = new ArrayList<>();
        long staged = 0;
        for (int i = 0; i < entries.size(); i++) {
            final Entry e = entries.get(i);
            final long count = e.array().local().count();
            final long head = StagingSplit.elementsBefore(e.array(), planned.arrays().get(i), split);
            staged += (count - head) * e.array().elementType().extent();
            sources.add(new Source(e.buffer(), head, copyOf(async, i, e, head, count - head), count - head));
        }
        final boolean fromBuffers = sources.stream().anyMatch(x -> x.headCount() > 0);
        return async.submit(staged, fromBuffers, (background, drained) -> {
            final Phases phases = new Phases(target, background);
            final CheckpointHeader written = writePlanned(background, plan, phases, sources, true, drained);
            target.retain(background);
            // after the collective calls: a listener's failure is this rank's alone
            agree.rethrowListenerFailure();
            phases.rethrowListenerFailure();
            return written;
        });
    }

    @SuppressWarnings("unchecked")
    private static <T> Object copyOf(final AsyncCheckpoints async, final int index, final Entry e, final long from,
                                     final long count) {
        return async.stage(index, (Element<T>) e.array().element(), (T) e.buffer(), from, count);
    }

    private Communicator communicator() {
        if (entries.isEmpty()) {
            throw ParioException.argument("checkpoint " + target.location() + ": a checkpoint needs at least one "
                + "array");
        }
        return entries.get(0).array().comm();
    }

    /**
     * Where one array's data is written from: its first {@code headCount} elements from {@code head} (the rank's
     * buffer), the other {@code tailCount} from {@code tail} (a staged copy; null when there is none).
     */
    private record Source(Object head, long headCount, Object tail, long tailCount) {
    }

    /**
     * Writes a planned checkpoint: in place and renamed where files take positional writes, staged and joined where
     * they only append (HDFS). With {@code split}, every array is written in two collective writes (head, then
     * tail), on every rank alike; {@code drained} runs once nothing more is read from the ranks' own buffers.
     */
    private CheckpointHeader writePlanned(final Communicator comm, final Plan plan, final Phases phases,
                                          final List<Source> sources, final boolean split, final Runnable drained) {
        final StorageProvider provider = Storages.providerOf(target.location());
        final Writing w = new Writing(sources, split, drained);
        return provider.capabilities().contains(Storage.Capability.POSITIONAL_WRITE)
            ? writeInPlace(comm, plan, phases, provider, w) : writeStaged(comm, plan, phases, provider, w);
    }

    /**
     * A checkpoint's layout as every rank agreed it, and rank 0's random tag for its hidden files (unique among
     * writers of the same target), which came with it.
     */
    private record Plan(CheckpointHeader header, String tag) {
    }

    /** The sources of one write and what to tell once the ranks' buffers are no longer read. */
    private record Writing(List<Source> sources, boolean split, Runnable drained) {
    }

    /**
     * Writing where files take positional writes: the arrays go collectively into a hidden file beside the target,
     * synced and checksummed, rank 0 writes and syncs the header into it and renames it over the target.
     */
    private CheckpointHeader writeInPlace(final Communicator comm, final Plan plan, final Phases phases,
                                          final StorageProvider provider, final Writing w) {
        final String location = target.location();
        final CheckpointHeader planned = plan.header();
        final String hidden = Storages.sibling(location, "." + Storages.fileName(location) + ".pario-" + plan.tag()
            + ".tmp");
        Throwable failure;
        CheckpointHeader done = null;
        try {
            final InFlightChecksums sums = InFlightChecksums.ofWrites(planned.arrays(), planned.chunkBytes(), 0);
            writeArrays(comm, hidden, planned, 0, phases, sums, w);
            done = withChecksums(comm, hidden, planned, 0, phases, sums);
            phases.begin(CheckpointListener.Phase.COMMIT, HeaderCodec.PREFIX);
            if (comm.rank() == 0) {
                done = done.createdAt(Instant.now().truncatedTo(ChronoUnit.MILLIS));
                try (Storage file = Storages.open(hidden, new StorageProvider.Request(false, true, false, false))) {
                    file.write(0, HeaderCodec.encode(done));
                    file.sync();
                }
                provider.replace(hidden, location);
            }
            failure = null;
        } catch (IOException | RuntimeException e) {
            failure = e instanceof IOException io ? io(io) : e;
        }
        final long created;
        try {
            created = createdAgreed(comm, failure, done);
        } catch (ParioException e) {
            if (comm.rank() == 0) {
                try {
                    Storages.delete(hidden);
                } catch (IOException ignored) {
                    // not there, or already gone
                }
            }
            throw e;
        }
        phases.end();
        return done.createdAt(Instant.ofEpochMilli(created));
    }

    /**
     * Collective: agrees on the commit's outcome and, in the same reduction, gives every rank rank 0's time, as
     * written in the header.
     *
     * @return the header's time, in milliseconds since the epoch
     */
    private static long createdAgreed(final Communicator comm, final Throwable failure, final CheckpointHeader done) {
        // the largest of rank 0's time and the others' zeros, travelling as its complement
        final long millis = comm.rank() == 0 && done != null ? done.created().toEpochMilli() : 0;
        return ~Agreement.agreeWithMinima(comm, failure, ~millis)[0];
    }

    private ParioException io(final IOException e) {
        return new ParioException(ErrorCategory.IO, "checkpoint " + target.location() + ": " + HeaderCodec.why(e), e);
    }

    /**
     * The layout of the checkpoint, after every rank has checked its own buffers and that it describes the same
     * arrays, layouts and attributes as rank 0 (the header text, which names them all, is compared), and rank 0's
     * tag for the hidden files, sent with its text: a checkpoint's fixed cost is its collectives.
     */
    private Plan agreedPlan(final Communicator comm) {
        CheckpointHeader planned = null;
        Throwable failure = null;
        String text = "";
        try {
            planned = plan(comm);
            text = HeaderCodec.json(planned);
        } catch (RuntimeException e) {
            failure = e;
        }
        final byte[] mine = text.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer tagged = ByteBuffer.allocate(Long.BYTES + mine.length);
        if (comm.rank() == 0) {
            tagged.putLong(new SecureRandom().nextLong() & Long.MAX_VALUE);
        }
        tagged.position(Long.BYTES);
        tagged.put(mine);
        final byte[] root = RootBytes.broadcast(comm, tagged.array());
        final String rootText = new String(root, Long.BYTES, root.length - Long.BYTES, StandardCharsets.UTF_8);
        if (failure == null && !rootText.equals(text)) {
            failure = ParioException.argument("checkpoint " + target.location() + ": rank " + comm.rank()
                + " describes other arrays, layouts or attributes than rank 0: " + difference(rootText, text));
        }
        Agreement.agree(comm, failure);
        return new Plan(planned, Long.toHexString(ByteBuffer.wrap(root).getLong()));
    }

    private static String difference(final String theirs, final String mine) {
        int at = 0;
        while (at < theirs.length() && at < mine.length() && theirs.charAt(at) == mine.charAt(at)) {
            at++;
        }
        final int from = Math.max(0, at - 40);
        return "rank 0 has ..." + theirs.substring(from, Math.min(theirs.length(), at + 40)) + "..., this rank ..."
            + mine.substring(from, Math.min(mine.length(), at + 40)) + "...";
    }

    /** This rank's checks and the layout of the checkpoint, checksums still zero. */
    private CheckpointHeader plan(final Communicator comm) {
        final String where = "checkpoint " + target.location();
        if (comm.rank() == 0 && Storages.isLocal(target.location())) {
            final Path parent = Path.of(target.location()).toAbsolutePath().getParent();
            if (!Files.isDirectory(parent)) {
                throw new ParioException(ErrorCategory.IO, where + ": the directory " + parent + " does not exist");
            }
            final Path path = Path.of(target.location()).toAbsolutePath();
            if (Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(path)) {
                throw ParioException.argument(where + " is " + (Files.isDirectory(path) ? "a directory"
                    : "not a regular file (a device, pipe or socket)") + ": a checkpoint replaces only a file");
            }
        }
        final List<StoredArray> arrays = new ArrayList<>();
        final Set<String> names = new HashSet<>();
        for (final Entry e : entries) {
            if (e.name() == null || e.name().isEmpty() || !names.add(e.name())) {
                throw ParioException.argument(where + ": array names must be non-empty and unique, got '" + e.name()
                    + "'");
            }
            final DistributedArray<?> a = e.array();
            if (a.comm() != comm) {
                throw ParioException.argument(where + ": array '" + e.name() + "' is bound to another communicator "
                    + "than array '" + entries.get(0).name() + "'; every array of a checkpoint must be bound to the "
                    + "communicator that writes it");
            }
            a.element().check(e.buffer(), a.local().count(), where + ": the buffer of array '" + e.name() + "'");
            final long bytes = Math.multiplyExact(a.globalCount(), a.elementType().extent());
            arrays.add(new StoredArray(e.name(), a.shape(), a.elementType(), a.order(), List.of(a.dists()), a.grid(),
                e.attributes(), 0, bytes, new long[(int) ((bytes + CHUNK - 1) / CHUNK)]));
        }
        final CheckpointHeader h = new CheckpointHeader(HeaderCodec.VERSION, CHUNK, PLANNED, comm.size(),
            attributes.build(), arrays);
        // the header's length does not depend on the checksums or the time (fixed width), so offsets come first
        long at = HeaderCodec.firstOffset(HeaderCodec.json(h).getBytes(StandardCharsets.UTF_8).length
            + 64L * arrays.size());
        final List<StoredArray> placed = new ArrayList<>();
        for (final StoredArray a : arrays) {
            placed.add(a.placed(at));
            at = HeaderCodec.align(at + a.bytes());
        }
        return h.withArrays(placed);
    }

    /**
     * Writing on a store that only appends (HDFS): the arrays go collectively into a hidden data file, are read
     * back for their checksums, rank 0 writes the header into a second hidden file of exactly the header region's
     * size, appends the data file to it in one step, and renames the result over the target, in one step too.
     */
    private CheckpointHeader writeStaged(final Communicator comm, final Plan plan, final Phases phases,
                                         final StorageProvider p, final Writing w) {
        final String location = target.location();
        final String name = Storages.fileName(location);
        final CheckpointHeader planned = plan.header();
        final String tag = plan.tag();
        final String data = Storages.sibling(location, "." + name + ".pario-" + tag + ".data");
        final String head = Storages.sibling(location, "." + name + ".pario-" + tag + ".tmp");
        final long first = planned.arrays().get(0).offset();
        Throwable failure = null;
        CheckpointHeader done = null;
        try {
            final InFlightChecksums sums = InFlightChecksums.ofWrites(planned.arrays(), planned.chunkBytes(), first);
            writeArrays(comm, data, planned, first, phases, sums, w);
            padStaged(comm, data, planned, first, target.hints());
            done = withChecksums(comm, data, planned, first, phases, sums);
            phases.begin(CheckpointListener.Phase.COMMIT, HeaderCodec.PREFIX);
            if (comm.rank() == 0) {
                done = done.createdAt(Instant.now().truncatedTo(ChronoUnit.MILLIS));
                final ByteBuffer header = ByteBuffer.allocate((int) first);
                header.put(HeaderCodec.encode(done)).clear();
                p.create(head, header, target.hints().asMap());
                p.concat(head, data);
                p.replace(head, location);
            }
        } catch (IOException | RuntimeException e) {
            failure = e instanceof IOException io ? io(io) : e;
        }
        final long created;
        try {
            created = createdAgreed(comm, failure, done);
        } catch (ParioException e) {
            if (comm.rank() == 0) {
                for (final String hidden : new String[] {data, data + ".tail", head}) {
                    try {
                        Storages.delete(hidden);
                    } catch (IOException ignored) {
                        // not there, or already gone
                    }
                }
            }
            throw e;
        }
        phases.end();
        return done.createdAt(Instant.ofEpochMilli(created));
    }

    /**
     * The last element's trailing padding is no data, so the collective write leaves the staged file short of the
     * last array's end; rank 0 appends the missing zeros (a small file joined by concat) before the checksums are
     * taken, so the published file holds every array whole.
     */
    private static void padStaged(final Communicator comm, final String data, final CheckpointHeader planned,
                                  final long first, final Hints hints) {
        Throwable failure = null;
        if (comm.rank() == 0) {
            final StoredArray last = planned.arrays().get(planned.arrays().size() - 1);
            final long want = last.offset() + last.bytes() - first;
            final String tail = data + ".tail";
            try (Storage st = Storages.open(data, new StorageProvider.Request(true, false, false, false))) {
                final long missing = want - st.size();
                if (missing > 0) {
                    final StorageProvider p = Storages.providerOf(data);
                    p.create(tail, ByteBuffer.allocate((int) missing), hints.asMap());
                    p.concat(data, tail);
                }
            } catch (IOException | RuntimeException e) {
                failure = e;
            }
        }
        Agreement.agree(comm, failure);
    }

    /**
     * Writes every array collectively into a new file at its planned offset minus {@code shift}, then syncs it;
     * {@code sums} sees every byte written.
     */
    private void writeArrays(final Communicator comm, final String file, final CheckpointHeader planned,
                             final long shift, final Phases phases, final InFlightChecksums sums, final Writing w) {
        final long all = planned.dataBytes();
        phases.begin(CheckpointListener.Phase.WRITE, all);
        int lastHead = -1;
        for (int i = 0; i < w.sources().size(); i++) {
            lastHead = w.sources().get(i).headCount() > 0 ? i : lastHead;
        }
        if (lastHead < 0) {
            w.drained().run();
        }
        // trailing padding of the last element is no data, so nothing writes it, yet a file written in place must
        // hold the whole last array, for readers that map it as a plain array: rank 0 gives it its length as it
        // opens it, before any rank writes, rather than in a collective step of its own
        final long length = shift == 0 && comm.rank() == 0 ? planned.fileBytes() : -1;
        try (ParallelFile f = ParallelFile.open(comm, file, EnumSet.of(Mode.CREATE, Mode.EXCL, Mode.RDWR),
            target.hints(), storage -> sums.watching(sized(storage, length)))) {
            final long[] before = {0};
            f.setProgress((done, total) -> phases.progress(before[0] + done));
            for (int i = 0; i < entries.size(); i++) {
                final Entry e = entries.get(i);
                final StoredArray a = planned.arrays().get(i);
                final Datatype el = e.array().elementType();
                final DistributedArray<?>.Local part = e.array().local();
                final Source src = w.sources().get(i);
                f.setView(a.offset() - shift, el, part.filetype(), DataRepresentation.NATIVE);
                // both writes on every rank, whatever its counts: they are collective
                f.writeAll(src.head(), src.headCount(), el);
                if (i == lastHead) {
                    w.drained().run();
                }
                if (w.split()) {
                    f.writeAll(src.tail(), src.tailCount(), el);
                }
                before[0] += a.bytes();
            }
            f.sync();
        }
        phases.end();
    }

    /** {@code storage} extended to {@code length} bytes where that is not negative and it holds fewer. */
    private Storage sized(final Storage storage, final long length) {
        if (storage != null && length >= 0) {
            try {
                if (storage.size() < length) {
                    storage.truncate(length);
                }
            } catch (IOException e) {
                throw io(e);
            }
        }
        return storage;
    }

    /**
     * The header with every array's checksums: those computed as the bytes were written, and read back from the
     * file for the chunks that could not be summed so. With the {@code pario_verify_after_write} hint every chunk is
     * read back, and one that differs from what was written fails the checkpoint.
     */
    private CheckpointHeader withChecksums(final Communicator comm, final String file, final CheckpointHeader h,
                                           final long shift, final Phases phases, final InFlightChecksums sums)
        throws IOException {
        final boolean readBack = target.hints().verifyAfterWrite();
        phases.begin(CheckpointListener.Phase.CHECKSUM, readBack ? h.dataBytes() : 0);
        final long[][] written = sums.joined(comm);
        final List<StoredArray> out = new ArrayList<>();
        long done = 0;
        for (int k = 0; k < h.arrays().size(); k++) {
            final StoredArray a = h.arrays().get(k);
            final long[] crc = written[k];
            final boolean[] unsure = new boolean[crc.length];
            boolean anyUnsure = false;
            for (int i = 0; i < crc.length; i++) {
                unsure[i] = crc[i] < 0;
                anyUnsure |= unsure[i];
            }
            if (readBack) {
                final long[] stored = Checksums.of(comm, file, a, h.chunkBytes(), shift, target.hints());
                for (int i = 0; i < crc.length; i++) {
                    if (!unsure[i] && crc[i] != stored[i]) {
                        throw new ParioException(ErrorCategory.IO, "checkpoint " + target.location() + ": array '"
                            + a.name() + "' read back from storage differs from what was written, in chunk " + i
                            + " (bytes " + i * h.chunkBytes() + " to " + Math.min(a.bytes(), (i + 1) * h.chunkBytes())
                            + " of its data)", null, true);
                    }
                }
                System.arraycopy(stored, 0, crc, 0, crc.length);
                done += a.bytes();
                phases.progress(done);
            } else if (anyUnsure) {
                final long[] stored = Checksums.of(comm, file, a, h.chunkBytes(), shift, unsure, target.hints());
                for (int i = 0; i < crc.length; i++) {
                    crc[i] = unsure[i] ? stored[i] : crc[i];
                }
            }
            out.add(a.withChecksums(crc));
        }
        phases.end();
        return h.withArrays(out);
    }
}
