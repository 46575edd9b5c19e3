package org.pario.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Request;
import org.pario.comm.Status;
import org.pario.datatypes.BufferTypes;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;
import org.pario.io.storage.Storage;

/**
 * Two-phase collective I/O. The ranks' views are exchanged once, when a view is set, as type expressions; a
 * collective call then exchanges four numbers per rank (its stream range and the file bytes it spans). Every rank
 * computes the same plan from them: the accessed file range split into one file domain per aggregator (aligned to
 * {@code striping_unit} or the storage's block size), each processed in rounds of at most {@code cb_buffer_size}
 * bytes. In a round, the bytes of a rank that fall in an aggregator's window are one contiguous range of the rank's
 * stream (views of writable files have increasing runs), so the rank packs that range and sends it in one message,
 * and the aggregator places it with the rank's filetype cursor: no offset lists travel, and nothing grows with the
 * element count. Round i's storage write overlaps round i+1's exchange (for reads, the next window is read ahead
 * while this one is sent). Every round ends with an agreement, so an error on any rank fails the call on all ranks
 * before any further data is written, and every message of a round is sent even by a failing rank, so no rank is
 * left waiting.
 */
final class TwoPhase {
    private static final int TAG_WRITE = 11;
    private static final int TAG_READ = 12;
    /** Threads that write and read aggregators' windows in the background, and place their upper halves; daemons. */
    private static final ExecutorService STORAGE_IO = Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "pario-two-phase-io");
        t.setDaemon(true);
        return t;
    });

    private final Communicator comm;
    private final Storage storage;
    private final int[] aggregators;
    private final int myAggregatorIndex;
    private Hints hints;
    /** Every rank's view, by rank. */
    private FileView[] views;
    /** Whether each rank's view maps its stream to strictly increasing, non-overlapping file bytes. */
    private boolean[] monotone;
    private final RoundBuffers roundBuffers;
    private Progress progress = Progress.NONE;
    /** Whether a recording takes round events; checked once per call, so idle calls allocate none. */
    private static final jdk.jfr.EventType ROUND_EVENTS = jdk.jfr.EventType.getEventType(TwoPhaseRoundEvent.class);
    private TwoPhaseRoundEvent roundEvent;
    private boolean writing;
    /** The bytes all ranks move in the current call. */
    private long callBytes;

    /** Collective over {@code fileComm}: chooses the aggregators. */
    TwoPhase(final Communicator fileComm, final Storage storage, final Hints hints, final String host) {
        this.comm = fileComm.dup();
        this.storage = storage;
        this.aggregators = Aggregators.choose(comm, hints, host);
        this.myAggregatorIndex = Arrays.binarySearch(aggregators, comm.rank());
        this.roundBuffers = new RoundBuffers(comm.size(), aggregators.length, storage);
        final StringBuilder list = new StringBuilder();
        for (final int a : aggregators) {
            list.append(list.length() == 0 ? "" : ",").append(a);
        }
        // a backend that does not report direct I/O has none
        final java.util.Map<String, String> inEffect = new java.util.HashMap<>(java.util.Map.of("direct_read", "false",
            "direct_write", "false"));
        inEffect.putAll(storage.settingsInEffect());
        inEffect.put("cb_nodes", Integer.toString(aggregators.length));
        inEffect.put("pario_cb_aggregators", list.toString());
        this.hints = hints.with(inEffect);
        final int n = comm.size();
        this.views = new FileView[n];
        Arrays.fill(views, FileView.DEFAULT);
        this.monotone = new boolean[n];
        Arrays.fill(monotone, true);
    }

    /** @return the hints with the values this file put in effect ({@code cb_nodes}, the aggregator ranks) */
    Hints hints() {
        return hints;
    }

    /** Collective: learns every rank's view. */
    void setViews(final FileView mine, final boolean mineMonotone) {
        final String text = mine.disp() + "\n" + mine.etype() + "\n" + mine.filetype() + "\n" + mine.datarep().mpiName()
            + "\n" + mineMonotone;
        final List<String> all = Aggregators.allgatherStrings(comm, text);
        final FileView[] v = new FileView[all.size()];
        final boolean[] m = new boolean[all.size()];
        for (int r = 0; r < v.length; r++) {
            if (r == comm.rank()) {
                v[r] = mine;
                m[r] = mineMonotone;
                continue;
            }
            final String[] parts = all.get(r).split("\n");
            v[r] = new FileView(Long.parseLong(parts[0]), Datatype.parse(parts[1]), Datatype.parse(parts[2]),
                DataRepresentation.of(parts[3]));
            m[r] = Boolean.parseBoolean(parts[4]);
        }
        views = v;
        monotone = m;
    }

    void close() {
        comm.close();
    }

    void progress(final Progress p) {
        progress = p == null ? Progress.NONE : p;
    }

    Progress progress() {
        return progress;
    }

    /** @return the bytes all ranks moved in the last call */
    long callBytes() {
        return callBytes;
    }

    private void roundDone(final long round, final long rounds) {
        final TwoPhaseRoundEvent e = roundEvent;
        if (e != null && e.shouldCommit()) {
            e.write = writing;
            e.round = round;
            e.rounds = rounds;
            e.callBytes = callBytes;
            e.commit();
        }
        roundEvent = beginRound();
        progress.update(callBytes * (round + 1) / rounds, callBytes);
    }

    /** @return a begun event for the next round, or null when no recording wants it (no allocation then) */
    private static TwoPhaseRoundEvent beginRound() {
        if (!ROUND_EVENTS.isEnabled()) {
            return null;
        }
        final TwoPhaseRoundEvent e = new TwoPhaseRoundEvent();
        e.begin();
        return e;
    }

    // ------------------------------------------------------------------ the collective call

    /**
     * A collective write or read through the views, unless this call should run as independent accesses instead
     * (decided identically on every rank: no interleaving, long runs, or aggregation disabled).
     *
     * @return the bytes moved as the file holds them, or empty when the caller is to run independent accesses
     */
    OptionalLong access(final boolean write, final FileView v, final Object buf, final long count,
                        final Datatype type, final long offset) {
        final DataRepresentation rep = Views.packing(v);
        Throwable failure = null;
        Memory m = null;
        long start = 0;
        long end = 0;
        long lo = 0;
        long hi = 0;
        long meanRun = 0;
        try {
            BufferTypes.require(buf, type, "the buffer");
            m = Memory.ofObject(buf);
            if (count < 0) {
                throw ParioException.argument("count must be >= 0, got " + count);
            }
            if (offset < 0) {
                throw ParioException.argument("offset must be >= 0, got " + offset);
            }
            final long bytes = Math.multiplyExact(count, type.size(rep));
            final long esize = v.etype().size();
            if (bytes % esize != 0) {
                throw ParioException.argument(count + " x " + type + " = " + bytes + " bytes is not a whole number of "
                    + "etypes of " + esize + " bytes");
            }
            if (bytes > 0 && v.filetype().size() == 0) {
                throw ParioException.argument("the view's filetype " + v.filetype() + " holds no data");
            }
            start = Math.multiplyExact(offset, esize);
            end = Math.addExact(start, bytes);
            if (bytes > 0) {
                lo = TwoPhasePlan.fileOffsetOf(v, start);
                hi = TwoPhasePlan.fileOffsetOf(v, end - 1) + 1;
                meanRun = TwoPhasePlan.meanRun(v, start, end);
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        Agreement.agree(comm, failure);
        final int n = comm.size();
        final long[] all = new long[5 * n];
        comm.allgather(new long[] {start, end, lo, hi, meanRun}, 5, Datatype.LONG, all, 5, Datatype.LONG);
        final long[] starts = new long[n];
        final long[] ends = new long[n];
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        final List<long[]> ranges = new ArrayList<>();
        boolean allMonotone = true;
        long shortestRuns = Long.MAX_VALUE;
        for (int r = 0; r < n; r++) {
            starts[r] = all[5 * r];
            ends[r] = all[5 * r + 1];
            if (ends[r] > starts[r]) {
                min = Math.min(min, all[5 * r + 2]);
                max = Math.max(max, all[5 * r + 3]);
                ranges.add(new long[] {all[5 * r + 2], all[5 * r + 3]});
                allMonotone &= monotone[r];
                shortestRuns = Math.min(shortestRuns, all[5 * r + 4]);
            }
        }
        callBytes = 0;
        for (int r = 0; r < n; r++) {
            callBytes += ends[r] - starts[r];
        }
        if (ranges.isEmpty()) {
            return OptionalLong.of(0);
        }
        final boolean parts = write && !storage.capabilities().contains(Storage.Capability.POSITIONAL_WRITE);
        final String mode = hints.get(write ? "romio_cb_write" : "romio_cb_read");
        if (!parts && (mode.equals("disable") || !allMonotone || mode.equals("automatic")
            && (!TwoPhasePlan.interleaved(ranges) || shortestRuns >= runThreshold(write)))) {
            return OptionalLong.empty();
        }
        long from = min;
        if (parts) {
            // an append-only backend: the call must add bytes past the end of the file, and its parts must cover
            // everything from there, so domains start at the end of the file and meet at block boundaries
            final long fileEnd = fileSize();
            if (min < fileEnd) {
                throw new ParioException(ErrorCategory.ARGUMENT, storage.describe() + " can only grow at its end (byte "
                    + fileEnd + "): this collective write reaches byte " + min + ", which an append-only store cannot "
                    + "change", null, true);
            }
            from = fileEnd;
        }
        final TwoPhasePlan plan = new TwoPhasePlan(starts, ends, domains(from, max, parts),
            hints.number("cb_buffer_size"));
        writing = write;
        roundEvent = beginRound();
        if (parts) {
            return OptionalLong.of(writeParts(plan, m, count, type, rep));
        }
        return OptionalLong.of(write ? write(plan, v, m, count, type, rep) : read(plan, v, m, count, type, rep));
    }

    /**
     * @return the run length from which automatic mode leaves a collective access to independent accesses. With
     *     direct writes in effect, runs short enough to be sieved aggregate too: a sieved write's
     *     read-modify-write goes through {@code O_DIRECT} without the page cache's help, while an aggregator's
     *     windows are the large aligned writes direct I/O is good at. The same holds for direct reads: every rank's
     *     direct sieve window fetches the other ranks' bytes from the disk, where the page cache would have read
     *     them once for all
     */
    private long runThreshold(final boolean write) {
        final long threshold = hints.number("pario_cb_run_threshold");
        final int sieve = write ? hints.writeSieveBytes() : hints.readSieveBytes();
        if (!hints.direct(write) || sieve == 0) {
            return threshold;
        }
        return Math.max(threshold, Math.min(sieve, hints.directRunBytes(write)));
    }

    /** Splits {@code [min, max)} evenly among the aggregators, boundaries aligned to the stripe or block size. */
    private long[] domains(final long min, final long max, final boolean blockAligned) {
        final int k = aggregators.length;
        final long striping = hints.number("striping_unit");
        final long align = blockAligned || striping <= 0 ? storage.preferredBlockSize() : striping;
        final long each = (max - min + k - 1) / k;
        final long[] bounds = new long[k + 1];
        bounds[0] = min;
        for (int i = 1; i < k; i++) {
            long b = min + i * each;
            if (blockAligned) {
                // parts of an append-only store meet at block boundaries, so the joined file has whole blocks
                b = (b + align - 1) / align * align;
            } else if (align > 1 && each >= align) {
                b = (b + align / 2) / align * align;
            }
            bounds[i] = Math.max(bounds[i - 1], Math.min(max, b));
        }
        bounds[k] = max;
        return bounds;
    }

    /** @return rank r's stream range {@code [s0, s1)} inside the file window {@code [ws, we)} */
    private long[] piece(final TwoPhasePlan plan, final int r, final long ws, final long we) {
        if (plan.ends[r] <= plan.starts[r] || ws >= we) {
            return new long[] {0, 0};
        }
        final long s0 = TwoPhasePlan.streamAt(views[r], plan.starts[r], plan.ends[r], ws);
        final long s1 = TwoPhasePlan.streamAt(views[r], s0, plan.ends[r], we);
        return new long[] {s0, s1};
    }

    /**
     * Sends this rank's bytes of every aggregator's window of a round, one message each. A rank that has failed
     * still sends (whatever its buffer holds), so that no aggregator waits; the round's agreement then fails
     * everyone before anything of the round is written.
     *
     * @return the first local failure, old or new
     */
    private Throwable sendPieces(final TwoPhasePlan plan, final long round, final Memory m, final long count,
                                 final Datatype type, final DataRepresentation rep, final Throwable failed) {
        final int me = comm.rank();
        Throwable failure = failed;
        for (int a = 0; a < aggregators.length; a++) {
            final long[] p = piece(plan, me, plan.windowStart(a, round), plan.windowEnd(a, round));
            final int len = (int) (p[1] - p[0]);
            if (len == 0) {
                continue;
            }
            // an aggregator's own piece goes straight to where it receives pieces, not through a message to itself
            final boolean own = aggregators[a] == me;
            final byte[] data = own ? roundBuffers.incoming(round, me, len) : roundBuffers.outgoing(len);
            if (failure == null) {
                try {
                    Packer.pack(m, m.origin(), type, count, rep, p[0] - plan.starts[me], ByteBuffer.wrap(data), 0, len);
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            if (!own) {
                comm.send(data, len, Datatype.BYTE, aggregators[a], TAG_WRITE);
            }
        }
        return failure;
    }

    /**
     * The rounds of a collective write, pipelined: every rank sends its pieces of round i + 1 before the agreement
     * that ends round i, and an aggregator posts its receives for round i + 1 before it places round i, so the other
     * ranks pack and send the next round while it assembles this one, and it places each rank's piece as soon as that
     * has arrived (in rank order, so that where views overlap the highest rank still wins). Nothing is written before
     * its round's agreement; after a failed agreement the aggregator still takes in the pieces of the next round,
     * which every rank has sent, so that none is left for a later call to receive.
     */
    private long write(final TwoPhasePlan plan, final FileView v, final Memory m, final long count, final Datatype type,
                       final DataRepresentation rep) {
        final int me = comm.rank();
        final int n = comm.size();
        final CompletableFuture<?>[] pending = new CompletableFuture<?>[2];
        final boolean aggregator = myAggregatorIndex >= 0;
        Throwable failure = null;
        RoundPieces now = null;
        RoundPieces next = null;
        try {
            if (aggregator && plan.rounds > 0) {
                next = postReceives(plan, 0);
            }
            if (plan.rounds > 0) {
                failure = sendPieces(plan, 0, m, count, type, rep, failure);
            }
            for (long round = 0; round < plan.rounds; round++) {
                now = next;
                next = aggregator && round + 1 < plan.rounds ? postReceives(plan, round + 1) : null;
                ByteBuffer window = null;
                long writeFrom = 0;
                int writeLength = 0;
                if (now != null && now.any) {
                    final long ws = plan.windowStart(myAggregatorIndex, round);
                    final long we = plan.windowEnd(myAggregatorIndex, round);
                    final int slot = (int) (round & 1);
                    failure = settle(pending, slot, failure);
                    window = roundBuffers.window(slot, ws, (int) hints.number("cb_buffer_size"));
                    final long[] covered = new long[(int) ((we - ws + 63) >>> 6)];
                    long first = Long.MAX_VALUE;
                    long last = Long.MIN_VALUE;
                    // ranks in increasing order: where views of different ranks overlap, the highest rank wins; the
                    // upper part of the window is placed by a second thread, in the same order, so that each byte
                    // still gets the highest rank's value
                    final long split = Placement.placingSplit(we - ws);
                    // each rank's upper part is chained after the previous rank's, so they are placed in rank order
                    CompletableFuture<Void> upper = CompletableFuture.completedFuture(null);
                    // the second thread must be done with the window before anything else touches it, even on a throw
                    try {
                        for (int r = 0; r < n; r++) {
                            if (now.data[r] == null) {
                                continue;
                            }
                            failure = now.await(r, failure);
                            final FileView view = views[r];
                            final long s0 = now.pieces[r][0];
                            final long s1 = now.pieces[r][1];
                            final long sm = split > 0 ? TwoPhasePlan.streamAt(view, s0, s1, ws + split) : s1;
                            final byte[] data = now.data[r];
                            final ByteBuffer into = window;
                            if (sm < s1) {
                                upper = upper.thenRunAsync(() -> Placement.place(view, sm, s1, data,
                                    (int) (sm - s0), into, ws, true, covered), STORAGE_IO);
                            }
                            Placement.place(view, s0, sm, data, 0, into, ws, true, covered);
                            first = Math.min(first, TwoPhasePlan.fileOffsetOf(view, s0));
                            last = Math.max(last, TwoPhasePlan.fileOffsetOf(view, s1 - 1) + 1);
                        }
                    } finally {
                        failure = Placement.placed(upper, failure);
                    }
                    writeFrom = first;
                    writeLength = (int) (last - first);
                    if (failure == null) {
                        failure = fillHoles(window, covered, (int) (first - ws), (int) (last - ws), ws);
                    }
                }
                if (round + 1 < plan.rounds) {
                    failure = sendPieces(plan, round + 1, m, count, type, rep, failure);
                }
                Agreement.agree(comm, failure);
                roundDone(round, plan.rounds);
                if (window != null) {
                    final ByteBuffer out = window.slice((int) (writeFrom - plan.windowStart(myAggregatorIndex, round)),
                        writeLength);
                    final long at = writeFrom;
                    pending[(int) (round & 1)] = CompletableFuture.runAsync(() -> {
                        try {
                            storage.write(at, out);
                        } catch (IOException e) {
                            throw new CompletionException(e);
                        }
                    }, STORAGE_IO);
                }
            }
            failure = settle(pending, 0, failure);
            failure = settle(pending, 1, failure);
            Agreement.agree(comm, failure);
        } finally {
            for (final RoundPieces a : new RoundPieces[] {now, next}) {
                if (a != null) {
                    a.drain();
                }
            }
            quietly(pending);
        }
        return plan.ends[me] - plan.starts[me];
    }

    /**
     * Posts an aggregator's receives for its window of a round, into the incoming buffers of that round's parity
     * (in a pipelined write, the other set holds the round being placed).
     */
    private RoundPieces postReceives(final TwoPhasePlan plan, final long round) {
        final int n = comm.size();
        final long ws = plan.windowStart(myAggregatorIndex, round);
        final long we = plan.windowEnd(myAggregatorIndex, round);
        final long[][] pieces = new long[n][];
        final byte[][] data = new byte[n][];
        final List<Request<Status>> receives = new ArrayList<>(n);
        boolean any = false;
        for (int r = 0; r < n; r++) {
            pieces[r] = piece(plan, r, ws, we);
            final int len = (int) (pieces[r][1] - pieces[r][0]);
            Request<Status> q = null;
            if (len > 0) {
                any = true;
                data[r] = roundBuffers.incoming(round, r, len);
                if (r != comm.rank()) {
                    q = comm.irecv(data[r], len, Datatype.BYTE, r, TAG_WRITE);
                }
            }
            receives.add(q);
        }
        return new RoundPieces(pieces, data, receives, any);
    }

    private long fileSize() {
        try {
            return storage.size();
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, "size of " + storage.describe() + " failed: " + e, e);
        }
    }

    private static final byte[] ZEROS = new byte[1 << 16];

    /** Appends zeros to a part. */
    private static void zeros(final Storage.Part part, final long count) throws IOException {
        long left = count;
        while (left > 0) {
            final int n = (int) Math.min(ZEROS.length, left);
            part.append(ByteBuffer.wrap(ZEROS, 0, n));
            left -= n;
        }
    }

    /**
     * The collective write for append-only backends: the same exchange and window assembly as {@link #write},
     * but each aggregator appends its windows in order to a part file of its own (zeros where nothing is written),
     * fills its part to the end of its domain, and, once every rank agrees, rank 0 joins the parts to the end of
     * the file in one step. A failure anywhere removes the parts and leaves the file as it was.
     */
    private long writeParts(final TwoPhasePlan plan, final Memory m, final long count, final Datatype type,
                            final DataRepresentation rep) {
        final int me = comm.rank();
        final int n = comm.size();
        final int a = myAggregatorIndex;
        final boolean mine = a >= 0 && plan.bounds[a + 1] > plan.bounds[a];
        final Storage.Part[] part = new Storage.Part[1];
        final long[] partEnd = {a >= 0 ? plan.bounds[a] : 0};
        // appends run in the background, one after the other, while the next round is exchanged
        CompletableFuture<Void> appends = CompletableFuture.completedFuture(null);
        Throwable failure = null;
        final List<Integer> nonEmpty = new ArrayList<>();
        for (int i = 0; i + 1 < plan.bounds.length; i++) {
            if (plan.bounds[i + 1] > plan.bounds[i]) {
                nonEmpty.add(i);
            }
        }
        final int[] indices = nonEmpty.stream().mapToInt(Integer::intValue).toArray();
        try {
            if (mine) {
                try {
                    part[0] = storage.openPart(a, plan.bounds[a]);
                } catch (IOException | RuntimeException e) {
                    failure = new ParioException(ErrorCategory.IO, "starting part " + a + " of " + storage.describe()
                        + " failed: " + e, e);
                }
            }
            for (long round = 0; round < plan.rounds; round++) {
                failure = sendPieces(plan, round, m, count, type, rep, failure);
                ByteBuffer window = null;
                long writeFrom = 0;
                int writeLength = 0;
                long ws = 0;
                if (a >= 0) {
                    ws = plan.windowStart(a, round);
                    final long we = plan.windowEnd(a, round);
                    final RoundPieces arrival = postReceives(plan, round);
                    arrival.join();
                    final long[][] pieces = arrival.pieces;
                    final byte[][] data = arrival.data;
                    if (arrival.any) {
                        // a fresh buffer per round, zeros where no rank writes: the previous one may still be appending
                        window = ByteBuffer.allocate((int) (we - ws)).order(ByteOrder.nativeOrder());
                        long first = Long.MAX_VALUE;
                        long last = Long.MIN_VALUE;
                        for (int r = 0; r < n; r++) {
                            if (data[r] != null) {
                                Placement.place(views[r], pieces[r][0], pieces[r][1], data[r], 0, window, ws, true,
                                    null);
                                first = Math.min(first, TwoPhasePlan.fileOffsetOf(views[r], pieces[r][0]));
                                last = Math.max(last, TwoPhasePlan.fileOffsetOf(views[r], pieces[r][1] - 1) + 1);
                            }
                        }
                        writeFrom = first;
                        writeLength = (int) (last - first);
                    }
                }
                Agreement.agree(comm, failure);
                roundDone(round, plan.rounds);
                if (window != null && part[0] != null) {
                    final ByteBuffer out = window.slice((int) (writeFrom - ws), writeLength);
                    final long at = writeFrom;
                    final int length = writeLength;
                    appends = appends.thenRunAsync(() -> {
                        try {
                            zeros(part[0], at - partEnd[0]);
                            part[0].append(out);
                            partEnd[0] = at + length;
                        } catch (IOException e) {
                            throw new CompletionException(e);
                        }
                    }, STORAGE_IO);
                }
                failure = failed(appends, failure);
            }
            if (mine && part[0] != null) {
                appends = appends.thenRunAsync(() -> {
                    try {
                        zeros(part[0], plan.bounds[a + 1] - partEnd[0]);
                        part[0].close();
                    } catch (IOException e) {
                        throw new CompletionException(e);
                    }
                }, STORAGE_IO);
            }
            try {
                appends.join();
            } catch (CompletionException e) {
                failure = failure != null ? failure : new ParioException(ErrorCategory.IO, "writing part " + a + " of "
                    + storage.describe() + " failed: " + e.getCause(), e.getCause());
            }
            Agreement.agree(comm, failure);
            if (me == 0) {
                try {
                    storage.commitParts(indices);
                } catch (IOException | RuntimeException e) {
                    failure = new ParioException(ErrorCategory.IO, "joining the parts of " + storage.describe()
                        + " failed: " + e, e);
                }
            }
            Agreement.agree(comm, failure);
        } catch (ParioException e) {
            try {
                appends.join();
            } catch (RuntimeException ignored) {
                // already failing
            }
            // each aggregator removes its part; rank 0 also removes every part, those of dead ranks included
            final int[] discard = me == 0 ? indices : mine ? new int[] {a} : new int[0];
            if (discard.length > 0) {
                try {
                    storage.discardParts(discard);
                } catch (IOException | RuntimeException ignored) {
                    e.addSuppressed(ignored);
                }
            }
            throw e;
        }
        return plan.ends[me] - plan.starts[me];
    }

    /** @return the failure of a finished background append, or the one already seen */
    private Throwable failed(final CompletableFuture<Void> appends, final Throwable failure) {
        if (failure != null || !appends.isCompletedExceptionally()) {
            return failure;
        }
        try {
            appends.join();
            return null;
        } catch (CompletionException e) {
            return new ParioException(ErrorCategory.IO, "writing a part of " + storage.describe() + " failed: "
                + e.getCause(), e.getCause());
        }
    }

    /**
     * Gives the bytes of a window no rank wrote their current content from the file (zero beyond its end): the span
     * is read once into a scratch buffer only if it has holes, and only the holes are copied from it.
     */
    private Throwable fillHoles(final ByteBuffer window, final long[] covered, final int first, final int last,
                                final long ws) {
        final List<int[]> gaps = new ArrayList<>();
        Placement.holes(covered, first, last, (a, b) -> gaps.add(new int[] {a, b}));
        if (gaps.isEmpty()) {
            return null;
        }
        try {
            final byte[] old = new byte[last - first];
            storage.read(ws + first, ByteBuffer.wrap(old));
            for (final int[] g : gaps) {
                window.put(g[0], old, g[0] - first, g[1] - g[0]);
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return new ParioException(ErrorCategory.IO, "reading the holes of a collective write window at byte "
                + (ws + first) + " failed: " + e, e);
        }
    }

    /** Waits for a background storage access; returns the first failure seen. */
    private static Throwable settle(final CompletableFuture<?>[] pending, final int slot, final Throwable failure) {
        final CompletableFuture<?> f = pending[slot];
        pending[slot] = null;
        if (f == null) {
            return failure;
        }
        try {
            f.join();
            return failure;
        } catch (CompletionException e) {
            final Throwable cause = e.getCause() == null ? e : e.getCause();
            return failure != null ? failure : new ParioException(ErrorCategory.IO, "collective storage access failed: "
                + cause, cause);
        }
    }

    private static void quietly(final CompletableFuture<?>[] pending) {
        for (final CompletableFuture<?> f : pending) {
            if (f != null) {
                try {
                    f.join();
                } catch (RuntimeException ignored) {
                    // already failing
                }
            }
        }
    }

    /** The bytes of an aggregator's round window a read needs: from its first to its last wanted byte. */
    private long[] readSpan(final long[][] pieces) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int r = 0; r < pieces.length; r++) {
            if (pieces[r][1] > pieces[r][0]) {
                first = Math.min(first, TwoPhasePlan.fileOffsetOf(views[r], pieces[r][0]));
                last = Math.max(last, TwoPhasePlan.fileOffsetOf(views[r], pieces[r][1] - 1) + 1);
            }
        }
        return first == Long.MAX_VALUE ? null : new long[] {first, last};
    }

    private long read(final TwoPhasePlan plan, final FileView v, final Memory m, final long count, final Datatype type,
                      final DataRepresentation rep) {
        final int me = comm.rank();
        final int n = comm.size();
        Throwable failure = null;
        final long fileSize;
        try {
            fileSize = storage.size();
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, "size failed: " + e, e);
        }
        // stream bytes at or past the end of the file are not read, on any rank
        final long[] limits = new long[n];
        for (int r = 0; r < n; r++) {
            limits[r] = plan.ends[r] > plan.starts[r]
                ? TwoPhasePlan.streamAt(views[r], plan.starts[r], plan.ends[r], fileSize) : 0;
        }
        final CompletableFuture<?>[] pending = new CompletableFuture<?>[2];
        try {
            if (myAggregatorIndex >= 0 && plan.rounds > 0) {
                pending[0] = readAhead(plan, 0, limits, fileSize);
            }
            for (long round = 0; round < plan.rounds; round++) {
                // null where this rank is the aggregator: it places its own piece without a message to itself
                final List<Request<Status>> receives = new ArrayList<>();
                final List<long[]> mine = new ArrayList<>();
                final List<byte[]> buffers = new ArrayList<>();
                byte[] own = null;
                for (int a = 0; a < aggregators.length; a++) {
                    final long[] p = clip(piece(plan, me, plan.windowStart(a, round), plan.windowEnd(a, round)),
                        limits[me]);
                    final int len = (int) (p[1] - p[0]);
                    if (len > 0) {
                        final byte[] b = roundBuffers.readBuffer(a, len);
                        final boolean fromMe = aggregators[a] == me;
                        receives.add(fromMe ? null : comm.irecv(b, len, Datatype.BYTE, aggregators[a], TAG_READ));
                        mine.add(p);
                        buffers.add(b);
                        own = fromMe ? b : own;
                    }
                }
                if (myAggregatorIndex >= 0) {
                    final int slot = (int) (round & 1);
                    failure = settle(pending, slot, failure);
                    if (round + 1 < plan.rounds) {
                        pending[1 - slot] = readAhead(plan, round + 1, limits, fileSize);
                    }
                    final long ws = plan.windowStart(myAggregatorIndex, round);
                    final long we = plan.windowEnd(myAggregatorIndex, round);
                    final ByteBuffer window = roundBuffers.window(slot, ws, (int) hints.number("cb_buffer_size"));
                    for (int r = 0; r < n; r++) {
                        final long[] p = clip(piece(plan, r, ws, we), limits[r]);
                        final int len = (int) (p[1] - p[0]);
                        if (len > 0) {
                            final byte[] out = r == me ? own : roundBuffers.outgoing(len);
                            if (failure == null) {
                                Placement.place(views[r], p[0], p[1], out, 0, window, ws, false, null);
                            }
                            if (r != me) {
                                comm.send(out, len, Datatype.BYTE, r, TAG_READ);
                            }
                        }
                    }
                }
                for (int i = 0; i < receives.size(); i++) {
                    if (receives.get(i) != null) {
                        receives.get(i).join();
                    }
                    if (failure == null) {
                        try {
                            final long[] p = mine.get(i);
                            Packer.unpack(ByteBuffer.wrap(buffers.get(i)), 0, (int) (p[1] - p[0]), m, m.origin(), type,
                                count, rep, p[0] - plan.starts[me]);
                        } catch (RuntimeException e) {
                            failure = e;
                        }
                    }
                }
                Agreement.agree(comm, failure);
                roundDone(round, plan.rounds);
            }
        } finally {
            quietly(pending);
        }
        return Math.max(0, limits[me] - plan.starts[me]);
    }

    private static long[] clip(final long[] p, final long limit) {
        return new long[] {p[0], Math.max(p[0], Math.min(p[1], limit))};
    }

    /** Starts reading an aggregator's window of a round into its buffer, in the background. */
    private CompletableFuture<?> readAhead(final TwoPhasePlan plan, final long round, final long[] limits,
                                           final long fileSize) {
        final long ws = plan.windowStart(myAggregatorIndex, round);
        final long we = plan.windowEnd(myAggregatorIndex, round);
        final long[][] pieces = new long[comm.size()][];
        for (int r = 0; r < pieces.length; r++) {
            pieces[r] = clip(piece(plan, r, ws, we), limits[r]);
        }
        final long[] span = readSpan(pieces);
        if (span == null) {
            return null;
        }
        final ByteBuffer window = roundBuffers.window((int) (round & 1), ws, (int) hints.number("cb_buffer_size"));
        final long from = span[0];
        final int length = (int) (Math.min(span[1], fileSize) - from);
        return CompletableFuture.runAsync(() -> {
            try {
                storage.read(from, window.slice((int) (from - ws), Math.max(0, length)));
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, STORAGE_IO);
    }
}
