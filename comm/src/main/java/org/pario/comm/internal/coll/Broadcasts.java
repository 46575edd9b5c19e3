package org.pario.comm.internal.coll;

import static org.pario.comm.internal.coll.CollectiveCalls.Pending;
import static org.pario.comm.internal.coll.CollectiveCalls.SendWindow;
import static org.pario.comm.internal.coll.CollectiveCalls.irecv;
import static org.pario.comm.internal.coll.CollectiveCalls.memory;
import static org.pario.comm.internal.coll.CollectiveCalls.recv;
import static org.pario.comm.internal.coll.CollectiveCalls.recvFromRoot;
import static org.pario.comm.internal.coll.CollectiveCalls.sendInPlace;
import static org.pario.comm.internal.coll.CollectiveCalls.tag;

import java.nio.ByteBuffer;

import org.pario.comm.internal.Checks;
import org.pario.comm.settings.CollectiveTuning;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/** Broadcast: linear from the root for few ranks and small data, a binomial tree, or a pipeline for large data. */
public final class Broadcasts {
    private Broadcasts() {
    }

    /**
     * Broadcast: from the root to every rank directly up to {@link CollectiveTuning#bcastLinearMaxRanks()} ranks
     * and {@link CollectiveTuning#bcastLinearMaxBytes()}, otherwise a binomial tree, or from
     * {@link CollectiveTuning#bcastPipelineMinBytes()} on a pipeline along the ranks in order from the root (with 2
     * ranks, the message in pieces), in segments of
     * {@link CollectiveTuning#bcastSegmentBytes()}, so that every link carries data at once instead of the
     * tree's {@code log2(n)} full-size steps one after another.
     */
    public static void bcast(final CollectiveContext c, final int seq, final Object buf, final long count,
                             final Datatype type, final int root) {
        bcast(c, seq, buf, count, type, root, true);
    }

    /**
     * @param rootAtWork whether the root enters the call with its data ready, so that a linear bcast's messages are
     *                   sent as soon as it does; not so for a result the root computes from the others' data first
     */
    public static void bcast(final CollectiveContext c, final int seq, final Object buf, final long count,
                             final Datatype type, final int root, final boolean rootAtWork) {
        Checks.count("count", count);
        final Memory m = memory("buf", buf);
        final int n = c.size();
        final CollectiveTuning tuning = c.tuning();
        if (n >= 2 && type.size() > 0 && count * type.size() >= tuning.bcastPipelineMinBytes()) {
            pipelinedBcast(c, seq, m, count, type, root, Math.max(1, tuning.bcastSegmentBytes()));
            return;
        }
        if (n <= tuning.bcastLinearMaxRanks() && count * type.size() <= tuning.bcastLinearMaxBytes()) {
            if (c.rank() == root) {
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
        final int rel = (c.rank() - root + n) % n;
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
    static final int PIPELINE_DEPTH = 4;
    /** Bytes of a reduction worked on at a time: its operand, partner's data and result stay in a core's cache. */
    static final long COMBINE_CHUNK_BYTES = 128 << 10;

    /**
     * Segment {@code s} holds bytes {@code [s * segmentBytes, (s + 1) * segmentBytes)} of the message's packed
     * stream; every rank but the root receives each from the rank before it and passes it on to the rank after it.
     * Segments are cut in bytes, not in elements, because ranks may describe the same data with different
     * datatypes (MPI asks only for equal type signatures): a rank whose type's size divides the segment size moves
     * whole elements of its buffer, any other packs or unpacks each segment through a buffer of its own and sends it
     * as bytes (which match any type). All segments share one tag: MPI's ordering between two ranks keeps them in
     * sequence.
     */
    static void pipelinedBcast(final CollectiveContext c, final int seq, final Memory m, final long count,
                               final Datatype type, final int root, final long segmentBytes) {
        final int n = c.size();
        final int rel = (c.rank() - root + n) % n;
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
    static final class Segments {
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

        void send(final CollectiveContext c, final long s, final int dest, final int tag) {
            if (whole) {
                // not in place: a root that waited for its segments' writes would hold up the pipeline
                CollectiveCalls.send(c, elementsAt(s), length(s) / type.size(), type, dest, tag);
                return;
            }
            final byte[] bytes = stage(0, length(s));
            Packer.pack(m, m.origin(), type, count, DataRepresentation.NATIVE, first(s), ByteBuffer.wrap(bytes), 0,
                length(s));
            CollectiveCalls.send(c, Memory.of(bytes), length(s), Datatype.BYTE, dest, tag);
        }

        Pending receive(final CollectiveContext c, final long s, final int slot, final int source, final int tag) {
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

        void forward(final CollectiveContext c, final long s, final int slot, final int dest, final int tag) {
            if (whole) {
                send(c, s, dest, tag);
            } else {
                CollectiveCalls.send(c, Memory.of(staged[slot]), length(s), Datatype.BYTE, dest, tag);
            }
        }
    }
}
