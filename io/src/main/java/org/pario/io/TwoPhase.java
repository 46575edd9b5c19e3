package org.pario.io;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.datatypes.BufferTypes;
import org.pario.datatypes.Combiner;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
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
    static final int TAG_WRITE = 11;
    static final int TAG_READ = 12;
    /** How long closing waits for this file's background threads before it gives up its buffers for good. */
    private static final long RELEASE_WAIT_SECONDS = 1;
    /**
     * Threads that write and read this file's aggregator windows in the background, and place their upper halves;
     * daemons, made as needed and gone with the file.
     */
    private final ExecutorService storageIo = Executors.newCachedThreadPool(r -> {
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
    private RankViews views;
    /** Leads a rank's text in place of its view when the view does not read back from its text. */
    private static final String UNREADABLE = "\u0000";
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

    /**
     * Chooses the aggregators, the same on every rank given the same hosts and hints.
     *
     * @param own a duplicate of the file's communicator, used by the engine alone and closed with it
     */
    TwoPhase(final Communicator own, final Storage storage, final Hints hints, final List<String> hosts) {
        this.aggregators = Aggregators.choose(hosts, hints);
        this.comm = own;
        this.storage = storage;
        this.myAggregatorIndex = Arrays.binarySearch(aggregators, comm.rank());
        this.roundBuffers = RoundBuffers.forFile(comm.size(), aggregators.length,
            myAggregatorIndex >= 0, storage);
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
        this.views = RankViews.defaults(n);
        this.monotone = new boolean[n];
        Arrays.fill(monotone, true);
    }

    /** @return the hints with the values this file put in effect ({@code cb_nodes}, the aggregator ranks) */
    Hints hints() {
        return hints;
    }

    /**
     * Collective: agrees on every rank's {@code failure} (a view it could not take), learns every rank's view, as
     * text, and checks what every call needs to agree on: the same etype extent and datarep everywhere (an etype is
     * parsed once per distinct text). Where every rank's view is a darray of that rank, the same but for the rank (a
     * distributed array's), the ranks agree on one text instead of sending each their own, in the same reduction
     * as the failures. The filetypes are parsed when a call first needs them ({@link RankViews}).
     *
     * @param mine    this rank's view; null where {@code failure} is not
     * @param failure this rank's failure so far, or null
     */
    void setViews(final FileView mine, final boolean mineMonotone, final Throwable failure) {
        String text = UNREADABLE;
        String[] template = null;
        if (failure == null) {
            // each rank reads its own text back before sending it, so that no other rank can fail to parse it
            // later, inside a call and alone; a text that does not read back fails setView on every rank instead
            text = viewText(mine, mineMonotone);
            try {
                final FileView back = viewOf(text.split("\n"));
                if (!back.equals(mine)) {
                    throw new IllegalStateException("it reads back as " + back);
                }
            } catch (RuntimeException e) {
                text = UNREADABLE + e.getMessage();
            }
            // the usual checkpoint view: a darray of this rank of the communicator, the same expression on every
            // rank but for the rank; then one text serves for all, instead of every rank's text to every rank (an
            // unreadable text is no template, so such a view always goes the long way and fails there)
            template = darrayTemplate(mine, text, comm.size(), comm.rank());
        }
        final String joined = template == null ? "" : template[0] + UNREADABLE + template[1];
        final String rootTemplate = comm.bcast(joined, 0);
        final boolean sameTemplate = template != null && joined.equals(rootTemplate);
        if (Agreement.agreeWithMinima(comm, failure, sameTemplate ? 1 : 0)[0] == 1) {
            final boolean[] m = new boolean[comm.size()];
            Arrays.fill(m, mineMonotone);
            views = RankViews.ofTemplate(template[0], template[1], comm.size(), comm.rank(), mine);
            monotone = m;
            return;
        }
        final List<String> all = Aggregators.allgatherStrings(comm, text);
        for (int r = 0; r < all.size(); r++) {
            if (all.get(r).startsWith(UNREADABLE)) {
                throw new ParioException(ErrorCategory.ARGUMENT, "setView: rank " + r + "'s view cannot be sent to "
                    + "the other ranks as text: " + all.get(r).substring(UNREADABLE.length()), null, true);
            }
        }
        final boolean[] m = new boolean[all.size()];
        final java.util.Map<String, Long> extents = new java.util.HashMap<>();
        extents.put(mine.etype().toString(), mine.etype().extent());
        final String[] first = all.get(0).split("\n");
        final long extent0 = extents.computeIfAbsent(first[1], e -> Datatype.parse(e).extent());
        final DataRepresentation rep0 = DataRepresentation.of(first[3]);
        for (int r = 0; r < m.length; r++) {
            final String[] lines = all.get(r).split("\n");
            m[r] = Boolean.parseBoolean(lines[4]);
            final long extent = extents.computeIfAbsent(lines[1], e -> Datatype.parse(e).extent());
            final DataRepresentation rep = DataRepresentation.of(lines[3]);
            if (extent != extent0 || rep != rep0) {
                throw new ParioException(ErrorCategory.ARGUMENT, "setView: every rank must use the same datarep and "
                    + "etype extent; rank " + r + " has extent " + extent + " and " + rep + ", rank 0 " + extent0
                    + " and " + rep0, null, true);
            }
        }
        views = RankViews.of(all, comm.rank(), mine);
        monotone = m;
    }

    /**
     * @param text the view's text ({@link #viewText})
     * @return rank r's text is {@code [0] + r + [1]} when the view is a darray of {@code size} ranks whose rank is
     *     {@code rank}, this rank's in the file's communicator: the parts of {@code text} before and after the rank;
     *     otherwise null
     */
    static String[] darrayTemplate(final FileView v, final String text, final int size, final int rank) {
        if (v.filetype().combiner() != Combiner.DARRAY) {
            return null;
        }
        final String before = v.disp() + "\n" + v.etype() + "\n" + "darray(" + size + ", ";
        final String withRank = before + rank + ", ";
        return text.startsWith(withRank) ? new String[] {before, text.substring(withRank.length() - 2)} : null;
    }

    /** @return whether the last setView took every rank's view from one text ({@link RankViews#ofTemplate}) */
    boolean viewsFromOneText() {
        return views.fromTemplate();
    }

    /** @return how a rank tells the others its view and whether it is monotone (one line each) */
    static String viewText(final FileView v, final boolean monotone) {
        return v.disp() + "\n" + v.etype() + "\n" + v.filetype() + "\n" + v.datarep().mpiName() + "\n" + monotone;
    }

    /** @return the view of {@link #viewText}'s lines */
    static FileView viewOf(final String[] lines) {
        return new FileView(Long.parseLong(lines[0]), Datatype.parse(lines[1]), Datatype.parse(lines[2]),
            DataRepresentation.of(lines[3]));
    }

    void close() {
        // every background access of a call is waited for within the call, so nothing is left to finish; the
        // buffers go on to a later file only once no thread of this one can touch them
        storageIo.shutdown();
        try {
            if (storageIo.awaitTermination(RELEASE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                roundBuffers.release();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
        final long[] los = new long[n];
        final long[] his = new long[n];
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        final List<long[]> ranges = new ArrayList<>();
        boolean allMonotone = true;
        long shortestRuns = Long.MAX_VALUE;
        for (int r = 0; r < n; r++) {
            starts[r] = all[5 * r];
            ends[r] = all[5 * r + 1];
            los[r] = all[5 * r + 2];
            his[r] = all[5 * r + 3];
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
            final long fileEnd = PartWrites.fileSize(storage);
            if (min < fileEnd) {
                throw new ParioException(ErrorCategory.ARGUMENT, storage.describe() + " can only grow at its end (byte "
                    + fileEnd + "): this collective write reaches byte " + min + ", which an append-only store cannot "
                    + "change", null, true);
            }
            from = fileEnd;
        }
        final TwoPhasePlan plan = new TwoPhasePlan(starts, ends, los, his, domains(from, max, parts),
            hints.number("cb_buffer_size"));
        writing = write;
        roundEvent = beginRound();
        final RoundContext c = new RoundContext(comm, storage, aggregators, myAggregatorIndex, views, roundBuffers,
            (int) hints.number("cb_buffer_size"), this::roundDone, storageIo);
        if (parts) {
            return OptionalLong.of(PartWrites.writeParts(c, plan, m, count, type, rep));
        }
        return OptionalLong.of(write ? WriteRounds.write(c, plan, v, m, count, type, rep)
            : ReadRounds.read(c, plan, v, m, count, type, rep));
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
        final long striping = hints.number("striping_unit");
        final long align = blockAligned || striping <= 0 ? storage.preferredBlockSize() : striping;
        return TwoPhasePlan.domains(min, max, aggregators.length, align, blockAligned);
    }
}
