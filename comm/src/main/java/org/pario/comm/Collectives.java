package org.pario.comm;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.ArrayCombine;
import org.pario.comm.internal.Reductions;
import org.pario.comm.internal.Scratch;
import org.pario.comm.settings.CollectiveTuning;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * The collective algorithms, built on point-to-point messages in the communicator's collective context. Every
 * message carries a tag made of the call's sequence number and the algorithm's step, so concurrent collectives
 * never mix. Algorithms: from 3 up to 4 ranks, small barrier, commutative allreduce and alltoall through rank 0
 * (fewer messages where ranks outnumber cores, see {@link CollectiveTuning}); otherwise dissemination barrier;
 * binomial-tree broadcast and (commutative) reduce; rank-ordered
 * reduce for non-commutative operations; linear gather(v)/scatter(v) at the root; ring allgather(v);
 * alltoall(v/w) with every message in flight at once for blocks up to 32 KiB and by pairwise exchange above;
 * allreduce by recursive doubling (small data) or Rabenseifner's
 * recursive-halving reduce-scatter plus recursive-doubling allgather (large data, see
 * {@link CollectiveTuning}), reduce then broadcast for non-commutative operations, every rank getting bitwise the
 * same result; pairwise-exchange reduce-scatter (reduce then scatter for non-commutative operations); scan as a
 * chain.
 */
final class Collectives {
    private Collectives() {
    }

    /** Names of the collective operation codes, for error messages. */
    static final String[] OPERATIONS = {"?", "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
        "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce", "reduce_scatter",
        "reduce_scatter_block", "scan", "exscan"};

    /** How long a collective receive waits before it looks for signs of a mismatched collective, in ms. */
    private static final long MISMATCH_CHECK_MILLIS = 100;

    /** @return a call id: 19 bits of sequence number, 5 of operation */
    static int call(final int seq, final int operation) {
        return ((seq & 0x7FFFF) << 5) | (operation & 0x1F);
    }

    /** @return the tag of a step of a call: 24 bits of call id, 7 of step */
    static int tag(final int call, final int step) {
        return ((call & 0xFFFFFF) << 7) | (step & 0x7F);
    }

    /** A posted collective receive that knows what it waits for, so it can tell a mismatched collective. */
    static final class Pending {
        private final Communicator c;
        /** A receive's request, or a send's (whose result is null). */
        private final Request<?> request;
        private final int source;
        private final int tag;

        Pending(final Communicator c, final Request<?> request, final int source, final int tag) {
            this.c = c;
            this.request = request;
            this.source = source;
            this.tag = tag;
        }

        /**
         * Waits for the message (or, for a send, until it is written). While it has not come, checks whether the peer
         * sent a message of the same collective call number but another operation: then the ranks called different
         * collectives, and waiting would never end.
         *
         * @return the receive's status; null for a send
         */
        Status join() {
            while (true) {
                try {
                    return (Status) request.join(MISMATCH_CHECK_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (ParioException e) {
                    // also when the peer is gone: it may have left because it saw the mismatch first, and its
                    // message of the other collective (sent before it left) names the real cause
                    final ParioException mismatch = mismatch();
                    if (mismatch != null) {
                        throw mismatch;
                    }
                    if (e.category() != ErrorCategory.TIMEOUT) {
                        throw e;
                    }
                }
            }
        }

        private ParioException mismatch() {
            final int expectedCall = tag >>> 7;
            final int seq = expectedCall >>> 5;
            final org.pario.comm.internal.Message other = c.endpoint.peekWhere(c.collectiveContext, source,
                t -> (t >>> 12) == seq && ((t >>> 7) & 0x1F) != (expectedCall & 0x1F));
            if (other == null) {
                return null;
            }
            final int theirs = (org.pario.comm.internal.MessageAccess.tag(other) >>> 7) & 0x1F;
            return new ParioException(ErrorCategory.MISMATCH, "collective mismatch: this rank called "
                + OPERATIONS[expectedCall & 0x1F] + " where rank " + source + " called " + OPERATIONS[theirs]
                + " (collective call #" + seq + " on this communicator); every rank must call the same "
                + "collectives in the same order");
        }
    }

    static long[] repeat(final long value, final int n) {
        final long[] a = new long[n];
        Arrays.fill(a, value);
        return a;
    }

    static long[] blockDispls(final long count, final int n) {
        final long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = i * count;
        }
        return a;
    }

    private static Memory memory(final String name, final Object buf) {
        if (buf == null) {
            throw ParioException.argument(name + " must not be null");
        }
        return Memory.ofObject(buf);
    }

    /** Block {@code displ} (in extents of type) of a buffer. */
    private static Memory slot(final Memory m, final long displ, final Datatype type) {
        return m.at(Math.multiplyExact(displ, type.extent()));
    }

    private static void send(final Communicator c, final Memory m, final long count, final Datatype type, final int dest,
                             final int tag) {
        c.sendOn(c.collectiveContext, m, count, type, dest, tag);
    }

    /**
     * Sends from memory the collective leaves alone until the send is joined: a transport may then write it from
     * there without packing it first ({@link org.pario.comm.internal.Fabric#sendInPlace}).
     */
    private static Pending sendInPlace(final Communicator c, final Memory m, final long count, final Datatype type,
                                       final int dest, final int tag) {
        return new Pending(c, c.isendInPlaceOn(c.collectiveContext, m, count, type, dest, tag), dest, tag);
    }

    /**
     * Sends in place joined in the order they were made, at most {@link #WINDOW} of them outstanding, so that a
     * collective of any number of sends holds a bounded number of requests.
     */
    private static final class SendWindow {
        private static final int WINDOW = 8;
        private final Pending[] slots = new Pending[WINDOW];
        private long made;
        private long joined;

        void add(final Pending send) {
            if (made - joined == WINDOW) {
                slots[(int) (joined++ % WINDOW)].join();
            }
            slots[(int) (made++ % WINDOW)] = send;
        }

        /** Joins every send still outstanding, all of them even when one fails; then throws the first failure. */
        void joinAll() {
            ParioException first = null;
            while (joined < made) {
                try {
                    slots[(int) (joined++ % WINDOW)].join();
                } catch (ParioException e) {
                    first = first == null ? e : first;
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    private static Status recv(final Communicator c, final Memory m, final long count, final Datatype type,
                               final int source, final int tag) {
        return irecv(c, m, count, type, source, tag).join();
    }

    /**
     * {@link #recv} of a root's message. When the root sends it as soon as it enters the call ({@code rootAtWork}:
     * a linear broadcast's or scatter's root, needing nothing from other ranks first) and it is small, the wait keeps
     * its core for a few microseconds before it hands it on where ranks outnumber cores ({@link Request#sentPromptly}).
     */
    private static Status recvFromRoot(final Communicator c, final Memory m, final long count, final Datatype type,
                                       final int root, final int tag, final boolean rootAtWork) {
        final Request<Status> r = c.irecvOn(c.collectiveContext, m, count, type, root, tag);
        final boolean prompt = rootAtWork
            && (type.size() == 0 || count <= c.state.settings.tuning().promptWaitMaxBytes() / type.size());
        return new Pending(c, prompt ? r.sentPromptly() : r, root, tag).join();
    }

    private static Pending irecv(final Communicator c, final Memory m, final long count, final Datatype type,
                                 final int source, final int tag) {
        return new Pending(c, c.irecvOn(c.collectiveContext, m, count, type, source, tag), source, tag);
    }

    // ------------------------------------------------------------------ barrier and broadcast

    static void barrier(final Communicator c, final int seq) {
        final int n = c.size();
        final byte[] none = new byte[0];
        if (n > 2 && n <= c.state.settings.tuning().barrierLinearMaxRanks()) {
            linearBarrier(c, seq, none);
            return;
        }
        for (int k = 1, step = 0; k < n; k <<= 1, step++) {
            final Pending r = irecv(c, Memory.of(none), 0, Datatype.BYTE, (c.rank - k + n) % n, tag(seq, step));
            send(c, Memory.of(none), 0, Datatype.BYTE, (c.rank + k) % n, tag(seq, step));
            r.join();
        }
    }

    /**
     * Every rank tells rank 0 it has arrived, and rank 0, once all have, tells the odd ranks and the last one to go
     * on, each odd rank passing the word on to the even rank after it: {@code 2(n - 1)} messages where dissemination
     * sends {@code n log2(n)}, and rank 0 leaves first, ready for what follows. Rank 0 sending every release itself
     * kept it at work a send longer, where ranks outnumber cores on the core another rank needed.
     */
    private static void linearBarrier(final Communicator c, final int seq, final byte[] none) {
        final int n = c.size();
        final int me = c.rank;
        if (me == 0) {
            final Pending[] arrived = new Pending[n];
            for (int i = 1; i < n; i++) {
                arrived[i] = irecv(c, Memory.of(none), 0, Datatype.BYTE, i, tag(seq, 0));
            }
            joinAll(arrived);
            for (int i = 1; i < n; i++) {
                if (releaser(i, n) == 0) {
                    send(c, Memory.of(none), 0, Datatype.BYTE, i, tag(seq, 1));
                }
            }
            return;
        }
        final Pending go = irecv(c, Memory.of(none), 0, Datatype.BYTE, releaser(me, n), tag(seq, 1));
        send(c, Memory.of(none), 0, Datatype.BYTE, 0, tag(seq, 0));
        go.join();
        if (me + 1 < n && releaser(me + 1, n) == me) {
            send(c, Memory.of(none), 0, Datatype.BYTE, me + 1, tag(seq, 1));
        }
    }

    /** @return who releases rank {@code r} (not 0) from {@link #linearBarrier}: rank 0, or the odd rank before it */
    private static int releaser(final int r, final int n) {
        return r % 2 == 1 || r == n - 1 ? 0 : r - 1;
    }

    /**
     * Waits for every non-null receive, then throws the first failure, if any, so none is left behind.
     *
     * @return each receive's status, null where there was none
     */
    private static Status[] joinAll(final Pending[] pending) {
        final Status[] statuses = new Status[pending.length];
        ParioException first = null;
        for (int i = 0; i < pending.length; i++) {
            if (pending[i] == null) {
                continue;
            }
            try {
                statuses[i] = pending[i].join();
            } catch (ParioException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
        return statuses;
    }

    /**
     * Broadcast: from the root to every rank directly up to {@link CollectiveTuning#bcastLinearMaxRanks()} ranks
     * and {@link CollectiveTuning#bcastLinearMaxBytes()}, otherwise a binomial tree, or from
     * {@link CollectiveTuning#bcastPipelineMinBytes()} on a pipeline along the ranks in order from the root (with 2
     * ranks, the message in pieces), in segments of
     * {@link CollectiveTuning#bcastSegmentBytes()}, so that every link carries data at once instead of the
     * tree's {@code log2(n)} full-size steps one after another.
     */
    static void bcast(final Communicator c, final int seq, final Object buf, final long count, final Datatype type,
                      final int root) {
        bcast(c, seq, buf, count, type, root, true);
    }

    /**
     * @param rootAtWork whether the root enters the call with its data ready, so that a linear bcast's messages are
     *                   sent as soon as it does; not so for a result the root computes from the others' data first
     */
    private static void bcast(final Communicator c, final int seq, final Object buf, final long count,
                              final Datatype type, final int root, final boolean rootAtWork) {
        Checks.count("count", count);
        final Memory m = memory("buf", buf);
        final int n = c.size();
        final CollectiveTuning tuning = c.state.settings.tuning();
        if (n >= 2 && type.size() > 0 && count * type.size() >= tuning.bcastPipelineMinBytes()) {
            pipelinedBcast(c, seq, m, count, type, root, Math.max(1, tuning.bcastSegmentBytes()));
            return;
        }
        if (n <= tuning.bcastLinearMaxRanks() && count * type.size() <= tuning.bcastLinearMaxBytes()) {
            if (c.rank == root) {
                final SendWindow sends = new SendWindow();
                for (int i = 1; i < n; i++) {
                    sends.add(sendInPlace(c, m, count, type, (root + i) % n, tag(seq, 0)));
                }
                sends.joinAll();
            } else {
                recvFromRoot(c, m, count, type, root, tag(seq, 0), rootAtWork);
            }
            return;
        }
        final int rel = (c.rank - root + n) % n;
        int mask = 1;
        while (mask < n) {
            if ((rel & mask) != 0) {
                recv(c, m, count, type, (rel - mask + root) % n, tag(seq, 0));
                break;
            }
            mask <<= 1;
        }
        mask >>= 1;
        final SendWindow sends = new SendWindow();
        while (mask > 0) {
            if (rel + mask < n) {
                sends.add(sendInPlace(c, m, count, type, (rel + mask + root) % n, tag(seq, 0)));
            }
            mask >>= 1;
        }
        sends.joinAll();
    }

    /** Receives posted ahead by each rank of the pipeline: enough to keep the link busy, bounded whatever the size. */
    private static final int PIPELINE_DEPTH = 4;
    /** Bytes of a reduction worked on at a time: its operand, partner's data and result stay in a core's cache. */
    private static final long COMBINE_CHUNK_BYTES = 128 << 10;

    /**
     * Segment {@code s} holds bytes {@code [s * segmentBytes, (s + 1) * segmentBytes)} of the message's packed
     * stream; every rank but the root receives each from the rank before it and passes it on to the rank after it.
     * Segments are cut in bytes, not in elements, because ranks may describe the same data with different
     * datatypes (MPI asks only for equal type signatures): a rank whose type's size divides the segment size moves
     * whole elements of its buffer, any other packs or unpacks each segment through a buffer of its own and sends it
     * as bytes (which match any type). All segments share one tag: MPI's ordering between two ranks keeps them in
     * sequence.
     */
    private static void pipelinedBcast(final Communicator c, final int seq, final Memory m, final long count,
                                       final Datatype type, final int root, final long segmentBytes) {
        final int n = c.size();
        final int rel = (c.rank - root + n) % n;
        final int previous = (rel - 1 + root + n) % n;
        final int next = (rel + 1 + root) % n;
        final boolean last = rel == n - 1;
        final long total = Math.multiplyExact(count, type.size());
        final long segments = (total + segmentBytes - 1) / segmentBytes;
        final Segments pieces = new Segments(m, count, type, total, segmentBytes);
        final int tag = tag(seq, 1);
        if (rel == 0) {
            for (long s = 0; s < segments; s++) {
                pieces.send(c, s, next, tag);
            }
            return;
        }
        final Pending[] posted = new Pending[PIPELINE_DEPTH];
        for (long s = 0; s < Math.min(segments, PIPELINE_DEPTH); s++) {
            posted[(int) s] = pieces.receive(c, s, (int) s, previous, tag);
        }
        for (long s = 0; s < segments; s++) {
            final int slot = (int) (s % PIPELINE_DEPTH);
            posted[slot].join();
            pieces.landed(s, slot);
            if (!last) {
                pieces.forward(c, s, slot, next, tag);
            }
            if (s + PIPELINE_DEPTH < segments) {
                posted[slot] = pieces.receive(c, s + PIPELINE_DEPTH, slot, previous, tag);
            }
        }
    }

    /** One rank's view of a broadcast's segments: whole elements of its buffer, or packed bytes. */
    private static final class Segments {
        private final Memory m;
        private final long count;
        private final Datatype type;
        private final long total;
        private final long segmentBytes;
        /** Whether a segment is whole elements of {@code type}, moved straight from and into the buffer. */
        private final boolean whole;
        /** For packed segments, one buffer per receive slot (or one for the root's sends). */
        private final byte[][] staged;

        Segments(final Memory m, final long count, final Datatype type, final long total, final long segmentBytes) {
            this.m = m;
            this.count = count;
            this.type = type;
            this.total = total;
            this.segmentBytes = segmentBytes;
            this.whole = segmentBytes % type.size() == 0;
            this.staged = new byte[whole ? 0 : PIPELINE_DEPTH][];
        }

        private long first(final long s) {
            return s * segmentBytes;
        }

        private int length(final long s) {
            return (int) Math.min(segmentBytes, total - first(s));
        }

        private Memory elementsAt(final long s) {
            return m.at(Math.multiplyExact(first(s) / type.size(), type.extent()));
        }

        private byte[] stage(final int slot, final int length) {
            if (staged[slot] == null || staged[slot].length < length) {
                staged[slot] = new byte[length];
            }
            return staged[slot];
        }

        void send(final Communicator c, final long s, final int dest, final int tag) {
            if (whole) {
                // not in place: a root that waited for its segments' writes would hold up the pipeline
                Collectives.send(c, elementsAt(s), length(s) / type.size(), type, dest, tag);
                return;
            }
            final byte[] bytes = stage(0, length(s));
            Packer.pack(m, m.origin(), type, count, DataRepresentation.NATIVE, first(s), ByteBuffer.wrap(bytes), 0,
                length(s));
            Collectives.send(c, Memory.of(bytes), length(s), Datatype.BYTE, dest, tag);
        }

        Pending receive(final Communicator c, final long s, final int slot, final int source, final int tag) {
            if (whole) {
                return irecv(c, elementsAt(s), length(s) / type.size(), type, source, tag);
            }
            return irecv(c, Memory.of(stage(slot, length(s))), length(s), Datatype.BYTE, source, tag);
        }

        /** Segment {@code s} has arrived in {@code slot}: packed bytes go into the buffer. */
        void landed(final long s, final int slot) {
            if (!whole) {
                Packer.unpack(ByteBuffer.wrap(staged[slot]), 0, length(s), m, m.origin(), type, count,
                    DataRepresentation.NATIVE, first(s));
            }
        }

        void forward(final Communicator c, final long s, final int slot, final int dest, final int tag) {
            if (whole) {
                send(c, s, dest, tag);
            } else {
                Collectives.send(c, Memory.of(staged[slot]), length(s), Datatype.BYTE, dest, tag);
            }
        }
    }

    // ------------------------------------------------------------------ gather and scatter

    static void gather(final Communicator c, final int seq, final Object sendbuf, final long sendcount,
                       final Datatype sendtype, final Object recvbuf, final long recvcount, final Datatype recvtype,
                       final int root) {
        final int n = c.size();
        gatherv(c, seq, sendbuf, sendcount, sendtype, recvbuf, c.rank == root ? repeat(recvcount, n) : null,
            c.rank == root ? blockDispls(recvcount, n) : null, recvtype, root);
    }

    static void gatherv(final Communicator c, final int seq, final Object sendbuf, final long sendcount,
                        final Datatype sendtype, final Object recvbuf, final long[] recvcounts, final long[] displs,
                        final Datatype recvtype, final int root) {
        final boolean inPlace = sendbuf == Communicator.IN_PLACE;
        if (c.rank != root) {
            if (inPlace) {
                throw ParioException.argument("gather: IN_PLACE is only allowed as the root's send buffer");
            }
            Checks.count("sendcount", sendcount);
            sendInPlace(c, memory("sendbuf", sendbuf), sendcount, sendtype, root, tag(seq, 0)).join();
            return;
        }
        final int n = c.size();
        Checks.length("recvcounts", recvcounts, n);
        Checks.length("displs", displs, n);
        final Memory out = memory("recvbuf", recvbuf);
        final Pending[] pending = new Pending[n];
        for (int i = 0; i < n; i++) {
            if (i != root) {
                pending[i] = irecv(c, slot(out, displs[i], recvtype), recvcounts[i], recvtype, i, tag(seq, 0));
            }
        }
        // after the receives are posted, so the others' data can flow while the root copies its own block
        if (!inPlace) {
            Packer.copy(memory("sendbuf", sendbuf), sendtype, sendcount, slot(out, displs[root], recvtype), recvtype,
                recvcounts[root]);
        }
        joinAll(pending);
    }

    static void scatter(final Communicator c, final int seq, final Object sendbuf, final long sendcount,
                        final Datatype sendtype, final Object recvbuf, final long recvcount, final Datatype recvtype,
                        final int root) {
        final int n = c.size();
        scatterv(c, seq, sendbuf, c.rank == root ? repeat(sendcount, n) : null,
            c.rank == root ? blockDispls(sendcount, n) : null, sendtype, recvbuf, recvcount, recvtype, root);
    }

    static void scatterv(final Communicator c, final int seq, final Object sendbuf, final long[] sendcounts,
                         final long[] displs, final Datatype sendtype, final Object recvbuf, final long recvcount,
                         final Datatype recvtype, final int root) {
        final boolean inPlace = recvbuf == Communicator.IN_PLACE;
        if (c.rank != root) {
            if (inPlace) {
                throw ParioException.argument("scatter: IN_PLACE is only allowed as the root's receive buffer");
            }
            Checks.count("recvcount", recvcount);
            recvFromRoot(c, memory("recvbuf", recvbuf), recvcount, recvtype, root, tag(seq, 0), true);
            return;
        }
        final int n = c.size();
        Checks.length("sendcounts", sendcounts, n);
        Checks.length("displs", displs, n);
        final Memory in = memory("sendbuf", sendbuf);
        final SendWindow sends = new SendWindow();
        for (int i = 0; i < n; i++) {
            if (i != root) {
                sends.add(sendInPlace(c, slot(in, displs[i], sendtype), sendcounts[i], sendtype, i, tag(seq, 0)));
            }
        }
        // after the sends, so the others need not wait for the root's own copy
        if (!inPlace) {
            Packer.copy(slot(in, displs[root], sendtype), sendtype, sendcounts[root], memory("recvbuf", recvbuf),
                recvtype, recvcount);
        }
        sends.joinAll();
    }

    /** Ring: in step s each rank passes on the block it got in step s - 1 (its own first). */
    static void allgatherv(final Communicator c, final int seq, final Object sendbuf, final long sendcount,
                           final Datatype sendtype, final Object recvbuf, final long[] recvcounts, final long[] displs,
                           final Datatype recvtype) {
        final int n = c.size();
        Checks.length("recvcounts", recvcounts, n);
        Checks.length("displs", displs, n);
        final Memory out = memory("recvbuf", recvbuf);
        final int me = c.rank;
        if (sendbuf != Communicator.IN_PLACE) {
            Packer.copy(memory("sendbuf", sendbuf), sendtype, sendcount, slot(out, displs[me], recvtype), recvtype,
                recvcounts[me]);
        }
        final int right = (me + 1) % n;
        final int left = (me - 1 + n) % n;
        for (int step = 0; step < n - 1; step++) {
            final int sendBlock = (me - step + n) % n;
            final int recvBlock = (me - step - 1 + n) % n;
            final Pending r = irecv(c, slot(out, displs[recvBlock], recvtype), recvcounts[recvBlock], recvtype,
                left, tag(seq, step));
            final Pending sent = sendInPlace(c, slot(out, displs[sendBlock], recvtype), recvcounts[sendBlock], recvtype,
                right, tag(seq, step));
            r.join();
            sent.join();
        }
    }

    static void alltoallv(final Communicator c, final int seq, final Object sendbuf, final long[] sendcounts,
                          final long[] sdispls, final Datatype sendtype, final Object recvbuf, final long[] recvcounts,
                          final long[] rdispls, final Datatype recvtype) {
        final int n = c.size();
        // in place, MPI ignores the send arguments: they may be null
        final boolean inPlace = sendbuf == Communicator.IN_PLACE;
        alltoallw(c, seq, sendbuf, sendcounts, inPlace ? null : byteDispls("sdispls", sdispls, sendtype, n),
            inPlace ? null : sameType(sendtype, n), recvbuf, recvcounts, byteDispls("rdispls", rdispls, recvtype, n),
            sameType(recvtype, n));
    }

    /**
     * Alltoall: through rank 0 from 3 up to {@link CollectiveTuning#alltoallLinearMaxRanks()} ranks while every
     * rank's blocks together stay within {@link CollectiveTuning#alltoallLinearMaxBytes()}, otherwise as
     * {@link #alltoallv}. The choice rests on the size of a block, which MPI requires to be the same on every rank.
     */
    static void alltoall(final Communicator c, final int seq, final Object sendbuf, final long sendcount,
                         final Datatype sendtype, final Object recvbuf, final long recvcount, final Datatype recvtype) {
        final int n = c.size();
        final CollectiveTuning tuning = c.state.settings.tuning();
        Checks.count("recvcount", recvcount);
        final long block = Packer.packedSize(Checks.type(recvtype), recvcount, DataRepresentation.NATIVE);
        if (n > 2 && n <= tuning.alltoallLinearMaxRanks() && block > 0
            && block <= tuning.alltoallLinearMaxBytes() / ((long) n * n)) {
            linearAlltoall(c, seq, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, (int) block);
            return;
        }
        alltoallv(c, seq, sendbuf, repeat(sendcount, n), blockDispls(sendcount, n), sendtype, recvbuf,
            repeat(recvcount, n), blockDispls(recvcount, n), recvtype);
    }

    /**
     * Every rank sends all its blocks to rank 0 in one message, and rank 0 sends every rank the blocks meant for it
     * in one message: {@code 2(n - 1)} messages instead of {@code n(n - 1)}. Each message is typed with the basic type
     * its blocks hold, so mismatched types fail as they do between two ranks. When rank 0 cannot gather every
     * rank's blocks it sends each rank an empty message instead of its blocks, so that none waits forever.
     */
    private static void linearAlltoall(final Communicator c, final int seq, final Object sendbuf, final long sendcount,
                                       final Datatype sendtype, final Object recvbuf, final long recvcount,
                                       final Datatype recvtype, final int block) {
        final int n = c.size();
        final Scratch scratch = c.state.scratch;
        final boolean inPlace = sendbuf == Communicator.IN_PLACE;
        final Datatype ownType = inPlace ? recvtype : Checks.type(sendtype);
        final long ownCount = inPlace ? recvcount : sendcount;
        Checks.count("sendcount", ownCount);
        final byte[] mine = packed(c, "alltoall", inPlace ? recvbuf : sendbuf, Math.multiplyExact(ownCount, n),
            ownType);
        final int all = n * block;
        final Datatype sent = carrier(ownType);
        final Datatype received = carrier(recvtype);
        final Memory out = memory("recvbuf", recvbuf);
        if (c.rank != 0) {
            final byte[] back = scratch.take(all);
            final Pending reply = irecv(c, Memory.of(back), all / received.size(), received, 0, tag(seq, 1));
            send(c, Memory.of(mine), mine.length / sent.size(), sent, 0, tag(seq, 0));
            scratch.give(mine);
            final long got = reply.join().bytes();
            if (got != all) {
                throw new ParioException(ErrorCategory.MISMATCH, "alltoall: rank 0 sent " + got + " bytes of blocks "
                    + "where rank " + c.rank + " expects " + n + " blocks of " + block + " bytes (the ranks' blocks "
                    + "differ, or rank 0 could not gather them all: see its error)");
            }
            Packer.unpack(back, out, recvtype, Math.multiplyExact(recvcount, n));
            scratch.give(back);
            return;
        }
        final byte[][] blocks = new byte[n][];
        final Pending[] pending = new Pending[n];
        blocks[0] = mine;
        for (int i = 1; i < n; i++) {
            blocks[i] = scratch.take(all);
            pending[i] = irecv(c, Memory.of(blocks[i]), all / received.size(), received, i, tag(seq, 0));
        }
        ParioException failure = mine.length == all ? null : new ParioException(ErrorCategory.MISMATCH,
            "alltoall: rank 0 sends blocks of " + mine.length / n + " bytes and receives blocks of " + block);
        try {
            final Status[] statuses = joinAll(pending);
            for (int i = 1; i < n && failure == null; i++) {
                if (statuses[i].bytes() != all) {
                    failure = new ParioException(ErrorCategory.MISMATCH, "alltoall: rank " + i + " sent "
                        + statuses[i].bytes() + " bytes of blocks, rank 0 expects " + n + " blocks of " + block
                        + " bytes");
                }
            }
        } catch (ParioException e) {
            failure = failure == null ? e : failure;
        }
        if (failure != null) {
            for (int r = 1; r < n; r++) {
                try {
                    send(c, Memory.of(mine), 0, received, r, tag(seq, 1));
                } catch (ParioException gone) {
                    // a rank that left cannot wait; the others still get their answer
                }
            }
            throw failure;
        }
        final byte[] outgoing = scratch.take(all);
        for (int r = 1; r < n; r++) {
            for (int j = 0; j < n; j++) {
                System.arraycopy(blocks[j], r * block, outgoing, j * block, block);
            }
            send(c, Memory.of(outgoing), all / received.size(), received, r, tag(seq, 1));
        }
        for (int j = 0; j < n; j++) {
            System.arraycopy(blocks[j], 0, outgoing, j * block, block);
            scratch.give(blocks[j]);
        }
        Packer.unpack(outgoing, out, recvtype, Math.multiplyExact(recvcount, n));
        scratch.give(outgoing);
    }

    /** @return the basic type every entry of {@code type} holds, or byte: how its packed bytes travel typed */
    private static Datatype carrier(final Datatype type) {
        return type.homogeneousBasicType().orElse(Datatype.BYTE);
    }

    /** @return displacements in extents of {@code type}, checked, as alltoallw's byte displacements */
    private static long[] byteDispls(final String name, final long[] displs, final Datatype type, final int n) {
        Checks.length(name, displs, n);
        final long extent = Checks.type(type).extent();
        final long[] bytes = new long[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = Math.multiplyExact(displs[i], extent);
        }
        return bytes;
    }

    /** @return {@code type} once per rank, as alltoallw's types */
    private static Datatype[] sameType(final Datatype type, final int n) {
        final Datatype[] types = new Datatype[n];
        Arrays.fill(types, type);
        return types;
    }

    /** Pairwise exchange: in step s, send to rank + s and receive from rank - s. */
    static void alltoallw(final Communicator c, final int seq, final Object sendbuf, final long[] sendcounts,
                          final long[] sdispls, final Datatype[] sendtypes, final Object recvbuf,
                          final long[] recvcounts, final long[] rdispls, final Datatype[] recvtypes) {
        final int n = c.size();
        final int me = c.rank;
        Checks.length("recvcounts", recvcounts, n);
        Checks.length("rdispls", rdispls, n);
        Checks.types("recvtypes", recvtypes, n);
        final Memory out = memory("recvbuf", recvbuf);
        // where the block for each rank starts, with the send counts and types
        final java.util.function.IntFunction<Memory> source;
        long[] scounts = sendcounts;
        Datatype[] stypes = sendtypes;
        if (sendbuf == Communicator.IN_PLACE) {
            // the data to send is in the receive buffer: take a packed copy of each block before overwriting it, in an
            // array of longs per block, so that neither a block nor the blocks together are held to 2 GiB
            final long[][] blocks = new long[n][];
            scounts = new long[n];
            stypes = new Datatype[n];
            for (int i = 0; i < n; i++) {
                final long bytes = Packer.packedSize(recvtypes[i], recvcounts[i], DataRepresentation.NATIVE);
                blocks[i] = new long[Math.toIntExact((bytes + 7) / 8)];
                Packer.copy(out.at(rdispls[i]), recvtypes[i], recvcounts[i], Memory.of(blocks[i]), Datatype.BYTE,
                    bytes);
                scounts[i] = bytes;
                stypes[i] = Datatype.BYTE;
            }
            source = i -> Memory.of(blocks[i]);
        } else {
            Checks.length("sendcounts", sendcounts, n);
            Checks.length("sdispls", sdispls, n);
            Checks.types("sendtypes", sendtypes, n);
            final Memory in = memory("sendbuf", sendbuf);
            source = i -> in.at(sdispls[i]);
        }
        if (n == 1 || allAtOnce(c, scounts, stypes, recvcounts, recvtypes)) {
            // every receive posted and every block sent before any wait: one round of waiting instead of n - 1
            // (each rank decides alone; the messages are the same either way)
            final Pending[] posted = new Pending[n];
            for (int step = 1; step < n; step++) {
                final int src = (me - step + n) % n;
                posted[step] = irecv(c, out.at(rdispls[src]), recvcounts[src], recvtypes[src], src, tag(seq, 0));
            }
            for (int step = 1; step < n; step++) {
                final int dest = (me + step) % n;
                send(c, source.apply(dest), scounts[dest], stypes[dest], dest, tag(seq, 0));
            }
            Packer.copy(source.apply(me), stypes[me], scounts[me], out.at(rdispls[me]), recvtypes[me],
                recvcounts[me]);
            for (int step = 1; step < n; step++) {
                posted[step].join();
            }
            return;
        }
        for (int step = 1; step < n; step++) {
            final int dest = (me + step) % n;
            final int src = (me - step + n) % n;
            final Pending r = irecv(c, out.at(rdispls[src]), recvcounts[src], recvtypes[src], src,
                tag(seq, 0));
            final Pending sent = sendInPlace(c, source.apply(dest), scounts[dest], stypes[dest], dest, tag(seq, 0));
            if (step == 1) {
                // the rank's own block once its first blocks are on their way, so the exchange does not wait for it
                Packer.copy(source.apply(me), stypes[me], scounts[me], out.at(rdispls[me]), recvtypes[me],
                    recvcounts[me]);
            }
            r.join();
            sent.join();
        }
    }

    /** @return whether every block this rank sends or receives is at most the all-at-once limit */
    private static boolean allAtOnce(final Communicator c, final long[] scounts, final Datatype[] stypes, final long[] rcounts,
                                     final Datatype[] rtypes) {
        final long limit = c.state.settings.tuning().alltoallAllAtOnceMaxBytes();
        for (int i = 0; i < scounts.length; i++) {
            if (scounts[i] * stypes[i].size() > limit || rcounts[i] * rtypes[i].size() > limit) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ reductions

    /**
     * Packs a rank's operand, from sendbuf, or from recvbuf when sendbuf is IN_PLACE, into an array of the rank's
     * scratch, to be given back there when done.
     */
    private static byte[] operand(final Communicator c, final Object sendbuf, final Object recvbuf, final long count,
                                  final Datatype type) {
        return packed(c, "reduction", sendbuf == Communicator.IN_PLACE ? recvbuf : sendbuf, count, type);
    }

    /**
     * Packs {@code count} elements of {@code type} from {@code buf} into an array of the rank's scratch, to be given
     * back there when done.
     *
     * @param what the operation, for the error when the packed bytes do not fit one array
     */
    private static byte[] packed(final Communicator c, final String what, final Object buf, final long count,
                                 final Datatype type) {
        final Memory from = memory("sendbuf", buf);
        final long size = Packer.packedSize(type, count, DataRepresentation.NATIVE);
        if (size > Integer.MAX_VALUE - 8) {
            throw ParioException.argument(what + ": " + size + " packed bytes per rank do not fit one array");
        }
        final byte[] packed = c.state.scratch.take((int) size);
        Packer.pack(from, from.origin(), type, count, DataRepresentation.NATIVE, 0, ByteBuffer.wrap(packed), 0,
            packed.length);
        return packed;
    }

    private static void sendBytes(final Communicator c, final byte[] b, final int dest, final int tag) {
        send(c, Memory.of(b), b.length, Datatype.BYTE, dest, tag);
    }

    /** @return the bytes received, in an array of the rank's scratch */
    private static byte[] recvBytes(final Communicator c, final int length, final int source, final int tag) {
        final byte[] b = c.state.scratch.take(length);
        recv(c, Memory.of(b), length, Datatype.BYTE, source, tag);
        return b;
    }

    /**
     * Reduces every rank's packed operand to the root. Takes {@code own}, which must come from the rank's scratch:
     * every array but the result goes back there.
     *
     * @return at the root, the packed reduction of every rank's operand, in an array of the rank's scratch;
     *     elsewhere null
     */
    static byte[] reduceToRoot(final Communicator c, final int seq, final byte[] own, final Reductions.Element e,
                               final Op op, final int root) {
        final int n = c.size();
        final int len = own.length;
        final Scratch scratch = c.state.scratch;
        if (op.commutative()) {
            final int rel = (c.rank - root + n) % n;
            byte[] acc = own;
            for (int mask = 1; mask < n; mask <<= 1) {
                if ((rel & mask) == 0) {
                    final int src = rel | mask;
                    if (src < n) {
                        final byte[] in = recvBytes(c, len, (src + root) % n, tag(seq, 1));
                        // fold the higher ranks' block into ours, keeping rank order for reproducibility
                        Op.combine(op, ByteBuffer.wrap(acc), ByteBuffer.wrap(in), e);
                        scratch.give(acc);
                        acc = in;
                    }
                } else {
                    sendBytes(c, acc, ((rel & ~mask) + root) % n, tag(seq, 1));
                    scratch.give(acc);
                    return null;
                }
            }
            return acc;
        }
        return linearReduceToRoot(c, seq, own, e, op, root);
    }

    /**
     * Every rank sends its packed operand to the root, which combines them in rank order. Takes {@code own}, which
     * must come from the rank's scratch: every array but the result goes back there.
     *
     * @return at the root, the reduction in an array of the rank's scratch; elsewhere null
     */
    private static byte[] linearReduceToRoot(final Communicator c, final int seq, final byte[] own,
                                             final Reductions.Element e, final Op op, final int root) {
        final int n = c.size();
        final int len = own.length;
        final Scratch scratch = c.state.scratch;
        if (c.rank != root) {
            sendBytes(c, own, root, tag(seq, 1));
            scratch.give(own);
            return null;
        }
        // every receive posted before any wait, so the operands come in whatever order their ranks get to send
        final byte[][] all = new byte[n][];
        final Pending[] pending = new Pending[n];
        for (int i = 0; i < n; i++) {
            if (i == root) {
                all[i] = own;
            } else {
                all[i] = scratch.take(len);
                pending[i] = irecv(c, Memory.of(all[i]), len, Datatype.BYTE, i, tag(seq, 1));
            }
        }
        joinAll(pending);
        final byte[] acc = all[n - 1];
        for (int i = n - 2; i >= 0; i--) {
            Op.combine(op, ByteBuffer.wrap(all[i]), ByteBuffer.wrap(acc), e);
            scratch.give(all[i]);
        }
        return acc;
    }

    /*
     * The largest operand, in packed bytes per rank, that reduce, allreduce, reduce_scatter, scan and exscan combine
     * in one piece is CollectiveTuning.reductionSliceBytes. A larger operand is reduced slice by slice of whole
     * elements, each slice a reduction of its own with the same call number on every rank; operations act element
     * by element (MPI lets user functions be called on parts of the count), so the slices' results make the whole
     * result. Partial results live in Java arrays, so without slices an operand could not pass 2 GiB, and a
     * reduction's own memory would grow with its operand: with them it stays within a few slices whatever the count,
     * and large reductions were no slower in slices.
     */

    /** A reduction over {@code count} elements starting in the buffers given. */
    private interface Slice {
        void reduce(Object sendbuf, Object recvbuf, long count);
    }

    /**
     * Runs a reduction slice by slice when its operand is larger than the slice size.
     *
     * @return false when the operand fits one piece and the caller should reduce it whole
     */
    private static boolean inSlices(final Communicator c, final Object sendbuf, final Object recvbuf, final long count, final Datatype type,
                                    final Slice slice) {
        final long per = sliceElements(c, type, count);
        if (per == 0) {
            return false;
        }
        for (long first = 0; first < count; first += per) {
            final long offset = Math.multiplyExact(first, type.extent());
            slice.reduce(sliceOf(sendbuf, offset), sliceOf(recvbuf, offset), Math.min(per, count - first));
        }
        return true;
    }

    /**
     * @return how many elements of {@code type} go in one slice when {@code count} of them pass
     *     the slice size, else 0: the reduction runs whole (an element larger than the slice size goes
     *     alone, and packing it then names its size)
     */
    private static long sliceElements(final Communicator c, final Datatype type, final long count) {
        final long size = Checks.type(type).size();
        final long limit = c.state.settings.tuning().reductionSliceBytes();
        return size == 0 || count <= limit / size ? 0 : Math.max(1, limit / size);
    }

    /** A buffer from {@code offset} bytes on; IN_PLACE and null (a receive buffer that does not matter) stay so. */
    private static Object sliceOf(final Object buf, final long offset) {
        return buf == null || buf == Communicator.IN_PLACE ? buf : Memory.ofObject(buf).at(offset);
    }

    static void reduce(final Communicator c, final int seq, final Object sendbuf, final Object recvbuf,
                       final long count, final Datatype type, final Op op, final int root) {
        Checks.count("count", count);
        if (sendbuf == Communicator.IN_PLACE && c.rank != root) {
            throw ParioException.argument("reduce: IN_PLACE is only allowed as the root's send buffer");
        }
        if (inSlices(c, sendbuf, recvbuf, count, type, (s, r, k) -> reduce(c, seq, s, r, k, type, op, root))) {
            return;
        }
        final Reductions.Element e = Reductions.element(op, type, count);
        final byte[] result = reduceToRoot(c, seq, operand(c, sendbuf, recvbuf, count, type), e, op, root);
        if (result != null) {
            Packer.unpack(result, memory("recvbuf", recvbuf), type, count);
            c.state.scratch.give(result);
        }
    }

    /**
     * Allreduce. Commutative operations: recursive doubling for small data, Rabenseifner's reduce-scatter plus
     * allgather from {@link CollectiveTuning#allreduceLargeMinBytes()} on. Non-commutative operations: reduce in
     * rank order to rank 0, then broadcast. Every algorithm gives every rank bitwise the same result: partners
     * always combine the lower group's value on the left, and each block of the ring is computed by one rank.
     */
    static void allreduce(final Communicator c, final int seq, final Object sendbuf, final Object recvbuf,
                          final long count, final Datatype type, final Op op) {
        Checks.count("count", count);
        if (inSlices(c, sendbuf, recvbuf, count, type, (s, r, k) -> allreduce(c, seq, s, r, k, type, op))) {
            return;
        }
        final Reductions.Element e = Reductions.element(op, type, count);
        final int n = c.size();
        if (op.commutative() && n > 1 && Integer.bitCount(n) == 1 && isPlainBasic(type)
            && Packer.packedSize(type, count, DataRepresentation.NATIVE)
                >= c.state.settings.tuning().allreduceLargeMinBytes()) {
            directRabenseifner(c, seq, sendbuf, recvbuf, count, type, op);
            return;
        }
        final byte[] own = operand(c, sendbuf, recvbuf, count, type);
        final int length = own.length;
        byte[] result;
        final CollectiveTuning tuning = c.state.settings.tuning();
        final boolean throughRankZero = op.commutative() && n > 2 && n <= tuning.allreduceLinearMaxRanks()
            && length <= tuning.allreduceLinearMaxBytes();
        if (throughRankZero || !op.commutative() || n == 1) {
            result = throughRankZero ? linearReduceToRoot(c, seq, own, e, op, 0) : reduceToRoot(c, seq, own, e, op, 0);
            if (result == null) {
                result = c.state.scratch.take(length);
            }
            bcast(c, seq, result, length, Datatype.BYTE, 0, false);
        } else if (own.length >= c.state.settings.tuning().allreduceLargeMinBytes()) {
            result = rabenseifner(c, seq, own, e, op);
        } else {
            result = recursiveDoubling(c, seq, own, e, op);
        }
        Packer.unpack(result, memory("recvbuf", recvbuf), type, count);
        c.state.scratch.give(result);
    }

    /**
     * One step of recursive halving over blocks {@code [lo, hi)}: the half a rank keeps (the lower one when it is in
     * the lower group of the step) and the half it gives its partner.
     */
    private record Halves(int keepLo, int keepHi, int giveLo, int giveHi) {
        static Halves of(final int lo, final int hi, final boolean lower) {
            final int mid = lo + (hi - lo) / 2;
            return lower ? new Halves(lo, mid, mid, hi) : new Halves(mid, hi, lo, mid);
        }
    }

    /**
     * One step of recursive doubling over blocks {@code [lo, hi)}: the partner's blocks, as many again, beside
     * them (above when the rank is in the lower group of the step).
     */
    private record Theirs(int lo, int hi) {
        static Theirs of(final int lo, final int hi, final boolean lower) {
            final int width = hi - lo;
            return lower ? new Theirs(hi, hi + width) : new Theirs(lo - width, lo);
        }
    }

    /** @return whether {@code type} is one basic value without gaps, so its elements are its packed bytes */
    private static boolean isPlainBasic(final Datatype type) {
        return type.basicKind().isPresent() && type.isContiguous() && type.size() > 0;
    }

    /**
     * Rabenseifner's allreduce of a basic type on a power-of-two number of ranks, moving data straight between the
     * caller's buffers and the transport: the first step sends half the operand from the send buffer itself and
     * packs only the half the rank keeps, the reduce-scatter works in that half, and the allgather sends and
     * receives blocks in the receive buffer, so only the rank's own block is unpacked. Against packing the whole
     * operand and unpacking the whole result, this copies half the operand and all but one block of the result
     * once less. Messages carry {@code type}, and every rank of a call takes this path or none does (it depends
     * on the type, the count and the rank count only). Blocks are cut on whole elements, and each is reduced on
     * one rank and copied from there, so every rank holds the same bits. Up to
     * {@link CollectiveTuning#allreduceSegmentMaxRanks()} ranks, every exchange goes in pieces, each combined as
     * soon as it is in. Blocks sent from a direct buffer go through {@link #sendInPlace}, so the transport may write
     * large ones from there instead of packing them; they are joined before the call returns.
     */
    private static void directRabenseifner(final Communicator c, final int seq, final Object sendbuf,
                                           final Object recvbuf, final long count, final Datatype type, final Op op) {
        final int n = c.size();
        final int me = c.rank;
        final long size = type.size();
        final Memory out = memory("recvbuf", recvbuf);
        final Memory in = sendbuf == Communicator.IN_PLACE ? out : memory("sendbuf", sendbuf);
        final long[] start = new long[n + 1];
        for (int b = 0; b <= n; b++) {
            // count * b / n without the product, which could overflow
            start[b] = count / n * b + count % n * b / n;
        }
        final int half = n / 2;
        final Halves first = Halves.of(0, n, (me & half) == 0);
        int lo = first.keepLo;
        int hi = first.keepHi;
        final long base = start[lo];
        final long kept = start[hi] - start[lo];
        if (kept * size > Integer.MAX_VALUE - 8) {
            throw ParioException.argument("allreduce: " + kept * size + " bytes per rank in the first step do not"
                + " fit one array");
        }
        final Scratch scratch = c.state.scratch;
        final Object ownArray = in.primitiveArray();
        final Object outArray = out.primitiveArray();
        // a predefined operation between primitive arrays combines the partners' values straight into arrays of the
        // caller's kind (partial results in acc, then the receive buffer) in one pass, where packing the rank's own
        // values, combining them as bytes and unpacking the result took three
        final boolean inArrays = op.function() == null && ArrayCombine.handles(op.name(), type, ownArray, outArray)
            && in.origin() % size == 0 && out.origin() % size == 0;
        // element 0 of the operand in the send and receive arrays
        final long inFirst = in.origin() / size;
        final long outFirst = out.origin() / size;
        // with two ranks the arrays' one step goes from the send buffer straight into the receive buffer: no
        // partial results to keep
        final Object acc = !inArrays ? scratch.take((int) (kept * size))
            : half == 1 ? null : scratch.takeArray(ownArray.getClass().getComponentType(), (int) kept);
        final byte[] incoming = scratch.take((int) (kept * size));
        final CollectiveTuning tuning = c.state.settings.tuning();
        // whole blocks are one piece each
        final long segment = n <= tuning.allreduceSegmentMaxRanks()
            ? Math.max(1, tuning.allreduceSegmentBytes() / size) : Math.max(1, count);
        final int firstPartner = me ^ half;
        final Pending[] firstHalf = receivePieces(c, Memory.of(incoming), kept, type, segment, firstPartner,
            tag(seq, 60));
        // the allgather's receives, posted now: a partner that finishes its reduce-scatter first lands its blocks in
        // the receive buffer instead of having them held and copied again (4 ranks on 2 cores: the held messages
        // were 2% of a 1 MiB allreduce's CPU). Early is safe even in place: a partner's result for a block needs
        // this rank's share of it, which is read from the buffer before it is sent
        final Pending[][] gathered = postAllgather(c, seq, out, start, type, segment);
        final Pieces firstGiven = new Pieces(c, in.at(start[first.giveLo] * size),
            start[first.giveHi] - start[first.giveLo], type, segment, firstPartner, tag(seq, 60));
        final List<Pieces> allGiven = new ArrayList<>();
        allGiven.add(firstGiven);
        // the partner's pieces are combined as they come in; as bytes, the kept half is packed a chunk at a time
        // beside them, combined while still in the cache, and with two ranks goes straight on into the receive buffer
        if (inArrays) {
            combineInArrays(firstHalf, incoming, kept, segment, type, op, ownArray, (int) (inFirst + base),
                half == 1 ? outArray : acc, half == 1 ? (int) (outFirst + base) : 0, firstGiven);
        } else {
            combinePieces(firstHalf, incoming, (byte[]) acc, 0, kept, segment, type, op, in.at(base * size),
                half == 1 ? out.at(base * size) : null, firstGiven);
        }
        for (int mask = half >> 1, step = 61; mask > 0; mask >>= 1, step++) {
            final int partner = me ^ mask;
            final Halves h = Halves.of(lo, hi, (me & mask) == 0);
            final long keep = start[h.keepHi] - start[h.keepLo];
            final Pending[] pieces = receivePieces(c, Memory.of(incoming), keep, type, segment, partner,
                tag(seq, step));
            final Pieces given = new Pieces(c, Memory.ofObject(acc).at((start[h.giveLo] - base) * size),
                start[h.giveHi] - start[h.giveLo], type, segment, partner, tag(seq, step));
            allGiven.add(given);
            if (inArrays) {
                final int accFirst = (int) (start[h.keepLo] - base);
                combineInArrays(pieces, incoming, keep, segment, type, op, acc, accFirst, mask == 1 ? outArray : acc,
                    mask == 1 ? (int) (outFirst + start[h.keepLo]) : accFirst, given);
            } else {
                combinePieces(pieces, incoming, (byte[]) acc, start[h.keepLo] - base, keep, segment, type, op, null,
                    mask == 1 ? out.at(start[h.keepLo] * size) : null, given);
            }
            lo = h.keepLo;
            hi = h.keepHi;
        }
        scratch.give(incoming);
        scratch.giveArray(acc);
        for (int mask = 1, step = 92; mask < n; mask <<= 1, step++) {
            final int partner = me ^ mask;
            final Theirs t = Theirs.of(lo, hi, (me & mask) == 0);
            final Pending[] pieces = gathered[step - 92];
            final Pieces given = new Pieces(c, out.at(start[lo] * size), start[hi] - start[lo], type, segment,
                partner, tag(seq, step));
            allGiven.add(given);
            for (int k = 0; k < pieces.length; k++) {
                given.sendAhead(k);
                pieces[k].join();
            }
            given.sendRest();
            lo = Math.min(lo, t.lo);
            hi = Math.max(hi, t.hi);
        }
        for (final Pieces given : allGiven) {
            given.joinSent();
        }
    }

    /**
     * Posts the receives of every step of {@link #directRabenseifner}'s allgather into {@code out}, one array of
     * pieces per step. The allgather starts from the block the reduce-scatter leaves the rank with, which is block
     * {@code rank}: every halving keeps the half whose bit of the rank it shares.
     */
    private static Pending[][] postAllgather(final Communicator c, final int seq, final Memory out,
                                             final long[] start, final Datatype type, final long segment) {
        final int n = c.size();
        final int me = c.rank;
        int lo = me;
        int hi = me + 1;
        final Pending[][] steps = new Pending[Integer.numberOfTrailingZeros(n)][];
        for (int mask = 1, step = 0; mask < n; mask <<= 1, step++) {
            final Theirs t = Theirs.of(lo, hi, (me & mask) == 0);
            steps[step] = receivePieces(c, out.at(start[t.lo] * type.size()), start[t.hi] - start[t.lo], type,
                segment, me ^ mask, tag(seq, 92 + step));
            lo = Math.min(lo, t.lo);
            hi = Math.max(hi, t.hi);
        }
        return steps;
    }

    /**
     * Posts the receives of a block of {@code count} elements of a gap-free type that comes in pieces of
     * {@code segment} elements (the last one shorter). Partners cut a block the same way, and pieces between two
     * ranks arrive in the order sent, so they can share one tag.
     */
    private static Pending[] receivePieces(final Communicator c, final Memory into, final long count,
                                           final Datatype type, final long segment, final int partner,
                                           final int tag) {
        final Pending[] pieces = new Pending[Math.toIntExact((count + segment - 1) / segment)];
        for (int k = 0; k < pieces.length; k++) {
            final long first = k * segment;
            pieces[k] = irecv(c, into.at(first * type.size()), Math.min(segment, count - first), type, partner, tag);
        }
        return pieces;
    }

    /**
     * Bytes of a block's pieces sent ahead of the partner's: half the eager credit a rank may have unconsumed at a
     * peer (4 MiB, see docs/comm.md), so that every piece goes eagerly. Sending all of a block's pieces at once, the
     * pieces beyond the credit waited at the sender for the partner to ask for each.
     */
    static final long PIECES_AHEAD_BYTES = 2L << 20;

    /**
     * A block of {@code count} elements of a gap-free type sent in pieces, as {@link #receivePieces} expects, at most
     * {@link #PIECES_AHEAD_BYTES} ahead of the pieces received from the partner: the first ones when made, each later
     * one as the receiver reaches the piece that many before it. Neither partner waits for the other for good: before
     * waiting for piece {@code j}, each has sent its pieces up to {@code j + ahead - 1}, so the piece it waits for
     * was sent before its partner waited for an earlier one, down to the pieces sent when made; and each sends the
     * rest of its pieces once it has received all it waits for (the halves of a block differ by at most one piece).
     */
    private static final class Pieces {
        private final Communicator c;
        private final Memory from;
        private final long count;
        private final Datatype type;
        private final long segment;
        private final int partner;
        private final int tag;
        private final int ahead;
        private int sent;
        /**
         * Whether {@link #from} is a direct buffer, whose pieces the transport may write from there instead of packing
         * them (the caller joins them before it returns, {@link #joinSent}); arrays are packed as any send's data.
         */
        private final boolean fromDirect;
        /** The sends that may still read {@link #from}. */
        private final List<Pending> sends = new ArrayList<>();

        Pieces(final Communicator c, final Memory from, final long count, final Datatype type, final long segment,
               final int partner, final int tag) {
            this.c = c;
            this.from = from;
            this.count = count;
            this.type = type;
            this.segment = segment;
            this.partner = partner;
            this.tag = tag;
            this.ahead = (int) Math.max(1, PIECES_AHEAD_BYTES / Math.max(1, segment * type.size()));
            this.fromDirect = from.directRegion(from.origin(), 0, false) != null;
            sendAhead(0);
        }

        /** Sends the pieces not sent yet of those before {@code received + ahead}. */
        void sendAhead(final int received) {
            final long pieces = (count + segment - 1) / segment;
            final long until = Math.min(pieces, (long) received + ahead);
            for (; sent < until; sent++) {
                final long first = sent * segment;
                if (fromDirect) {
                    sends.add(sendInPlace(c, from.at(first * type.size()), Math.min(segment, count - first), type,
                        partner, tag));
                } else {
                    send(c, from.at(first * type.size()), Math.min(segment, count - first), type, partner, tag);
                }
            }
        }

        /** Waits until no send of this block reads its memory any more. */
        void joinSent() {
            joinAll(sends.toArray(new Pending[0]));
        }

        /** Sends every piece not sent yet: the partner's are all in. */
        void sendRest() {
            sendAhead(Integer.MAX_VALUE);
        }
    }

    /**
     * Combines each piece of {@code incoming} into {@code acc} (from element {@code accFirst} on) as soon as it
     * has arrived, so that combining overlaps the pieces still on their way. A piece is worked on in chunks small
     * enough to stay in the cache between their steps: when {@code packFrom} is given, each chunk of the
     * accumulator is first packed from there (the rank's own operand); when {@code unpackTo} is given (the last
     * step), each combined chunk goes on into it, so neither the operand nor the result crosses memory whole once
     * more.
     */
    private static void combinePieces(final Pending[] pieces, final byte[] incoming, final byte[] acc,
                                      final long accFirst, final long count, final long segment, final Datatype type,
                                      final Op op, final Memory packFrom, final Memory unpackTo, final Pieces given) {
        final int size = (int) type.size();
        final long chunk = Math.max(1, COMBINE_CHUNK_BYTES / size);
        final ByteBuffer accBuffer = ByteBuffer.wrap(acc);
        for (int k = 0; k < pieces.length; k++) {
            given.sendAhead(k);
            pieces[k].join();
            final long pieceEnd = Math.min(count, (k + 1) * segment);
            for (long first = k * segment; first < pieceEnd; first += chunk) {
                final int elements = (int) Math.min(chunk, pieceEnd - first);
                final int at = (int) ((accFirst + first) * size);
                if (packFrom != null) {
                    final Memory from = packFrom.at(first * size);
                    Packer.pack(from, from.origin(), type, elements, DataRepresentation.NATIVE, 0, accBuffer, at,
                        elements * size);
                }
                Op.combine(op, ByteBuffer.wrap(incoming, (int) (first * size), elements * size).slice(),
                    ByteBuffer.wrap(acc, at, elements * size).slice(), new Reductions.Element(type, elements));
                if (unpackTo != null) {
                    final Memory to = unpackTo.at(first * size);
                    Packer.unpack(accBuffer, at, elements * size, to, to.origin(), type, elements,
                        DataRepresentation.NATIVE, 0);
                }
            }
        }
        given.sendRest();
    }

    /**
     * {@link #combinePieces} between primitive arrays ({@link ArrayCombine}): each piece of the partner's values
     * combined with {@code own} from element {@code ownFirst} on into {@code out} from {@code outFirst} on (the
     * accumulator, or in the last step the receive buffer; the two may be one array, element by element in place),
     * which saves packing and unpacking the operands.
     */
    private static void combineInArrays(final Pending[] pieces, final byte[] incoming, final long count,
                                        final long segment, final Datatype type, final Op op, final Object own,
                                        final int ownFirst, final Object out, final int outFirst,
                                        final Pieces given) {
        final int size = (int) type.size();
        for (int k = 0; k < pieces.length; k++) {
            given.sendAhead(k);
            pieces[k].join();
            final int first = (int) (k * segment);
            final int elements = (int) (Math.min(count, (k + 1) * segment) - first);
            ArrayCombine.combine(op.name(), incoming, first * size, own, ownFirst + first, out, outFirst + first,
                elements);
        }
        given.sendRest();
    }

    /**
     * The power-of-two core of a reduction: with {@code n} ranks and {@code pof2} the largest power of two not
     * above it, the first {@code 2 * (n - pof2)} ranks fold in pairs (odd ranks give their operand to the even
     * rank before them and sit out with {@code newRank} -1); the others take part as {@code newRank}.
     */
    private record Core(int pof2, int extra, int newRank, byte[] acc) {
        /** @return the communicator rank of core rank {@code coreRank} */
        int world(final int coreRank) {
            return coreRank < extra ? coreRank * 2 : coreRank + extra;
        }
    }

    private static Core foldIn(final Communicator c, final int seq, final byte[] own, final Reductions.Element e,
                               final Op op) {
        final int me = c.rank;
        int pof2 = 1;
        while (pof2 * 2 <= c.size()) {
            pof2 *= 2;
        }
        final int extra = c.size() - pof2;
        if (me >= 2 * extra) {
            return new Core(pof2, extra, me - extra, own);
        }
        if (me % 2 == 1) {
            // own goes on as the array foldOut receives the result into
            sendBytes(c, own, me - 1, tag(seq, 4));
            return new Core(pof2, extra, -1, own);
        }
        final byte[] right = recvBytes(c, own.length, me + 1, tag(seq, 4));
        // the lower rank's operand on the left
        Op.combine(op, ByteBuffer.wrap(own), ByteBuffer.wrap(right), e);
        c.state.scratch.give(own);
        return new Core(pof2, extra, me / 2, right);
    }

    /** Hands the result back to the ranks that sat out: each even folding rank to the odd one after it. */
    private static byte[] foldOut(final Communicator c, final int seq, final Core core, final byte[] result) {
        final int me = c.rank;
        if (me >= 2 * core.extra) {
            return result;
        }
        if (me % 2 == 0) {
            sendBytes(c, result, me + 1, tag(seq, 40));
            return result;
        }
        recv(c, Memory.of(result), result.length, Datatype.BYTE, me - 1, tag(seq, 40));
        return result;
    }

    /**
     * Recursive doubling; with a non-power-of-two size, the first {@code 2 * (n - pof2)} ranks fold in pairs
     * first (odd ranks give their data to the even rank before them and get the result back at the end).
     */
    private static byte[] recursiveDoubling(final Communicator c, final int seq, final byte[] own,
                                            final Reductions.Element e, final Op op) {
        final Core core = foldIn(c, seq, own, e, op);
        final int pof2 = core.pof2;
        final int newRank = core.newRank;
        byte[] acc = core.acc;
        if (newRank >= 0) {
            for (int mask = 1, step = 5; mask < pof2; mask <<= 1, step++) {
                final int partnerNew = newRank ^ mask;
                final int partner = core.world(partnerNew);
                final byte[] theirs = c.state.scratch.take(acc.length);
                final Pending r = irecv(c, Memory.of(theirs), theirs.length, Datatype.BYTE, partner, tag(seq, step));
                sendBytes(c, acc, partner, tag(seq, step));
                r.join();
                // the lower group's value is always the left operand, so both partners compute the same bits
                if (partnerNew < newRank) {
                    Op.combine(op, ByteBuffer.wrap(theirs), ByteBuffer.wrap(acc), e);
                    c.state.scratch.give(theirs);
                } else {
                    Op.combine(op, ByteBuffer.wrap(acc), ByteBuffer.wrap(theirs), e);
                    c.state.scratch.give(acc);
                    acc = theirs;
                }
            }
        }
        return foldOut(c, seq, core, acc);
    }

    /**
     * Rabenseifner's allreduce: a reduce-scatter by recursive halving leaves each of the {@code pof2} ranks with
     * the reduction of one block of whole elements, then an allgather by recursive doubling hands every block to
     * every rank; with a non-power-of-two size the first {@code 2 * (n - pof2)} ranks fold in pairs first. Each
     * rank sends and receives about twice its data in {@code 2 log2(pof2)} steps. Every block is reduced on exactly
     * one rank and copied from there, so all ranks hold the same bits. Partial results are combined in place, into
     * the rank's packed operand.
     */
    private static byte[] rabenseifner(final Communicator c, final int seq, final byte[] own,
                                       final Reductions.Element e, final Op op) {
        final Core core = foldIn(c, seq, own, e, op);
        final int pof2 = core.pof2;
        final int newRank = core.newRank;
        final byte[] acc = core.acc;
        if (newRank >= 0) {
            final long elementSize = e.size();
            final int[] start = new int[pof2 + 1];
            for (int b = 0; b <= pof2; b++) {
                start[b] = Math.toIntExact(e.count() * b / pof2 * elementSize);
            }
            final int half = pof2 / 2;
            final byte[] incoming = c.state.scratch.take(Math.max(start[half], start[pof2] - start[half]));
            int lo = 0;
            int hi = pof2;
            for (int mask = half, step = 60; mask > 0; mask >>= 1, step++) {
                final int partner = core.world(newRank ^ mask);
                final Halves h = Halves.of(lo, hi, (newRank & mask) == 0);
                final int keep = start[h.keepHi] - start[h.keepLo];
                final Pending r = irecv(c, Memory.of(incoming), keep, Datatype.BYTE, partner, tag(seq, step));
                send(c, Memory.of(acc).at(start[h.giveLo]), start[h.giveHi] - start[h.giveLo], Datatype.BYTE, partner,
                    tag(seq, step));
                r.join();
                Op.combine(op, ByteBuffer.wrap(incoming, 0, keep).slice(),
                    ByteBuffer.wrap(acc, start[h.keepLo], keep).slice(),
                    new Reductions.Element(e.type(), keep / elementSize));
                lo = h.keepLo;
                hi = h.keepHi;
            }
            c.state.scratch.give(incoming);
            for (int mask = 1, step = 92; mask < pof2; mask <<= 1, step++) {
                final int partner = core.world(newRank ^ mask);
                final Theirs t = Theirs.of(lo, hi, (newRank & mask) == 0);
                final Pending r = irecv(c, Memory.of(acc).at(start[t.lo]), start[t.hi] - start[t.lo], Datatype.BYTE,
                    partner, tag(seq, step));
                send(c, Memory.of(acc).at(start[lo]), start[hi] - start[lo], Datatype.BYTE, partner, tag(seq, step));
                r.join();
                lo = Math.min(lo, t.lo);
                hi = Math.max(hi, t.hi);
            }
        }
        return foldOut(c, seq, core, acc);
    }

    /**
     * Reduce-scatter. Commutative operations: pairwise exchange, in step s each rank sends rank {@code me + s} that
     * rank's block of its operand and folds in what rank {@code me - s} sends for its own block, so each rank
     * moves only its data once and holds one block's worth of buffers. Non-commutative operations: reduce in rank
     * order to rank 0, which sends each rank its block.
     */
    static void reduceScatter(final Communicator c, final int seq, final Object sendbuf, final Object recvbuf,
                              final long[] recvcounts, final Datatype type, final Op op) {
        final int n = c.size();
        Checks.length("recvcounts", recvcounts, n);
        long total = 0;
        for (int i = 0; i < n; i++) {
            Checks.count("recvcounts[" + i + "]", recvcounts[i]);
            total = Math.addExact(total, recvcounts[i]);
        }
        final long per = sliceElements(c, type, total);
        if (per > 0) {
            // slice by slice of the whole operand, each rank getting the part of its block in the slice. In place, a
            // slice's operand is packed before its results land, and they land no further on than the slice ends,
            // so in increasing order they never overwrite operand slices not yet reduced
            final Object source = sendbuf == Communicator.IN_PLACE ? memory("recvbuf", recvbuf) : sendbuf;
            for (long first = 0; first < total; first += per) {
                final long end = Math.min(total, first + per);
                final long[] counts = new long[n];
                long blockStart = 0;
                long mine = 0;
                for (int i = 0; i < n; i++) {
                    final long from = Math.max(first, blockStart);
                    final long to = Math.min(end, blockStart + recvcounts[i]);
                    counts[i] = Math.max(0, to - from);
                    if (i == c.rank) {
                        mine = Math.max(0, from - blockStart);
                    }
                    blockStart += recvcounts[i];
                }
                reduceScatter(c, seq, sliceOf(source, Math.multiplyExact(first, type.extent())),
                    counts[c.rank] == 0 ? recvbuf : sliceOf(recvbuf, Math.multiplyExact(mine, type.extent())), counts,
                    type, op);
            }
            return;
        }
        final Reductions.Element e = Reductions.element(op, type, total);
        final byte[] packed = operand(c, sendbuf, recvbuf, total, type);
        final long size = type.size();
        final int me = c.rank;
        final int[] at = new int[n + 1];
        for (int i = 0; i < n; i++) {
            at[i + 1] = Math.toIntExact(at[i] + recvcounts[i] * size);
        }
        if (op.commutative()) {
            final int mine = at[me + 1] - at[me];
            final byte[] incoming = c.state.scratch.take(mine);
            final Reductions.Element part = new Reductions.Element(e.type(), recvcounts[me]);
            for (int step = 1; step < n; step++) {
                final int dest = (me + step) % n;
                final int source = (me - step + n) % n;
                final Pending r = irecv(c, Memory.of(incoming), mine, Datatype.BYTE, source, tag(seq, 3));
                send(c, Memory.of(packed).at(at[dest]), at[dest + 1] - at[dest], Datatype.BYTE, dest, tag(seq, 3));
                r.join();
                Op.combine(op, ByteBuffer.wrap(incoming), ByteBuffer.wrap(packed, at[me], mine).slice(), part);
            }
            Packer.unpack(ByteBuffer.wrap(packed), at[me], mine, memory("recvbuf", recvbuf),
                memory("recvbuf", recvbuf).origin(), type, recvcounts[me], DataRepresentation.NATIVE, 0);
            c.state.scratch.give(incoming);
            c.state.scratch.give(packed);
            return;
        }
        final byte[] result = reduceToRoot(c, seq, packed, e, op, 0);
        if (me == 0) {
            for (int i = 1; i < n; i++) {
                send(c, Memory.of(result).at(at[i]), at[i + 1] - at[i], Datatype.BYTE, i, tag(seq, 2));
            }
            Packer.unpack(ByteBuffer.wrap(result), 0, at[1], memory("recvbuf", recvbuf),
                memory("recvbuf", recvbuf).origin(), type, recvcounts[0], DataRepresentation.NATIVE, 0);
            c.state.scratch.give(result);
        } else {
            final byte[] block = recvBytes(c, at[me + 1] - at[me], 0, tag(seq, 2));
            Packer.unpack(block, memory("recvbuf", recvbuf), type, recvcounts[me]);
            c.state.scratch.give(block);
        }
    }

    /** Chain: rank i waits for the prefix of ranks 0..i-1, folds its operand in and passes the prefix on. */
    static void scan(final Communicator c, final int seq, final Object sendbuf, final Object recvbuf, final long count,
                     final Datatype type, final Op op, final boolean exclusive) {
        Checks.count("count", count);
        if (inSlices(c, sendbuf, recvbuf, count, type, (s, r, k) -> scan(c, seq, s, r, k, type, op, exclusive))) {
            return;
        }
        final Reductions.Element e = Reductions.element(op, type, count);
        final byte[] own = operand(c, sendbuf, recvbuf, count, type);
        final int me = c.rank;
        final byte[] prefix = own;
        if (me > 0) {
            final byte[] before = recvBytes(c, own.length, me - 1, tag(seq, 3));
            if (exclusive) {
                Packer.unpack(before, memory("recvbuf", recvbuf), type, count);
            }
            // the operand is not needed on its own once the prefix is known: fold into it
            Op.combine(op, ByteBuffer.wrap(before), ByteBuffer.wrap(prefix), e);
            c.state.scratch.give(before);
        }
        if (me + 1 < c.size()) {
            sendBytes(c, prefix, me + 1, tag(seq, 3));
        }
        if (!exclusive) {
            Packer.unpack(prefix, memory("recvbuf", recvbuf), type, count);
        }
        c.state.scratch.give(prefix);
    }

    // ------------------------------------------------------------------ split

    static Communicator split(final Communicator c, final int color, final int key) {
        final int n = c.size();
        final int[] mine = {color, key};
        final int[] all = new int[2 * n];
        c.allgather(mine, 2, Datatype.INT, all, 2, Datatype.INT);
        final int newContext = c.agreeContext();
        if (color == Communicator.UNDEFINED) {
            return null;
        }
        final List<int[]> members = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            if (all[2 * r] == color) {
                members.add(new int[] {all[2 * r + 1], r});
            }
        }
        members.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
        final int[] group = new int[members.size()];
        int newRank = -1;
        for (int i = 0; i < group.length; i++) {
            group[i] = c.group[members.get(i)[1]];
            if (members.get(i)[1] == c.rank) {
                newRank = i;
            }
        }
        return new Communicator(c.fabric, group, newRank, newContext, c.state);
    }
}
