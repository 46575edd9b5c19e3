package org.pario.comm.internal.coll;

import static org.pario.comm.internal.coll.CollectiveCalls.Pending;
import static org.pario.comm.internal.coll.CollectiveCalls.irecv;
import static org.pario.comm.internal.coll.CollectiveCalls.memory;
import static org.pario.comm.internal.coll.CollectiveCalls.recv;
import static org.pario.comm.internal.coll.CollectiveCalls.send;
import static org.pario.comm.internal.coll.CollectiveCalls.tag;

import java.nio.ByteBuffer;

import org.pario.ParioException;
import org.pario.comm.internal.Checks;
import org.pario.comm.internal.Reductions;
import org.pario.comm.internal.Scratch;
import org.pario.comm.settings.CollectiveTuning;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * Reductions: reduce to a root (binomial tree, linear, or rank-ordered for non-commutative operations), the choice
 * of allreduce algorithm ({@link AllreduceAlgorithms}), pairwise-exchange reduce-scatter, and scan and exscan as a
 * chain; operands larger than the slice size go slice by slice.
 */
public final class ReduceFamily {
    private ReduceFamily() {
    }

    // ------------------------------------------------------------------ reductions

    /**
     * Packs a rank's operand, from sendbuf, or from recvbuf when sendbuf is IN_PLACE, into an array of the rank's
     * scratch, to be given back there when done.
     */
    static byte[] operand(final CollectiveContext c, final Object sendbuf, final Object recvbuf, final long count,
                          final Datatype type) {
        return packed(c, "reduction", sendbuf == InPlace.MARKER ? recvbuf : sendbuf, count, type);
    }

    /**
     * Packs {@code count} elements of {@code type} from {@code buf} into an array of the rank's scratch, to be given
     * back there when done.
     *
     * @param what the operation, for the error when the packed bytes do not fit one array
     */
    static byte[] packed(final CollectiveContext c, final String what, final Object buf, final long count,
                         final Datatype type) {
        final Memory from = memory("sendbuf", buf);
        final long size = Packer.packedSize(type, count, DataRepresentation.NATIVE);
        if (size > Integer.MAX_VALUE - 8) {
            throw ParioException.argument(what + ": " + size + " packed bytes per rank do not fit one array");
        }
        final byte[] packed = c.scratch().take((int) size);
        Packer.pack(from, from.origin(), type, count, DataRepresentation.NATIVE, 0, ByteBuffer.wrap(packed), 0,
            packed.length);
        return packed;
    }

    static void sendBytes(final CollectiveContext c, final byte[] b, final int dest, final int tag) {
        send(c, Memory.of(b), b.length, Datatype.BYTE, dest, tag);
    }

    /** @return the bytes received, in an array of the rank's scratch */
    static byte[] recvBytes(final CollectiveContext c, final int length, final int source, final int tag) {
        final byte[] b = c.scratch().take(length);
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
    static byte[] reduceToRoot(final CollectiveContext c, final int seq, final byte[] own, final Reductions.Element e,
                               final Reduction op, final int root) {
        final int n = c.size();
        final int len = own.length;
        final Scratch scratch = c.scratch();
        if (op.commutative()) {
            final int rel = (c.rank() - root + n) % n;
            byte[] acc = own;
            for (int mask = 1; mask < n; mask <<= 1) {
                if ((rel & mask) == 0) {
                    final int src = rel | mask;
                    if (src < n) {
                        final byte[] in = recvBytes(c, len, (src + root) % n, tag(seq, 1));
                        // fold the higher ranks' block into ours, keeping rank order for reproducibility
                        Reduction.combine(op, ByteBuffer.wrap(acc), ByteBuffer.wrap(in), e);
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
    static byte[] linearReduceToRoot(final CollectiveContext c, final int seq, final byte[] own,
                                     final Reductions.Element e, final Reduction op, final int root) {
        final int n = c.size();
        final int len = own.length;
        final Scratch scratch = c.scratch();
        if (c.rank() != root) {
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
        Barriers.joinAll(pending);
        final byte[] acc = all[n - 1];
        for (int i = n - 2; i >= 0; i--) {
            Reduction.combine(op, ByteBuffer.wrap(all[i]), ByteBuffer.wrap(acc), e);
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
    interface Slice {
        void reduce(Object sendbuf, Object recvbuf, long count);
    }

    /**
     * Runs a reduction slice by slice when its operand is larger than the slice size.
     *
     * @return false when the operand fits one piece and the caller should reduce it whole
     */
    static boolean inSlices(final CollectiveContext c, final Object sendbuf, final Object recvbuf, final long count,
                            final Datatype type, final Slice slice) {
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
    static long sliceElements(final CollectiveContext c, final Datatype type, final long count) {
        final long size = Checks.type(type).size();
        final long limit = c.tuning().reductionSliceBytes();
        return size == 0 || count <= limit / size ? 0 : Math.max(1, limit / size);
    }

    /** A buffer from {@code offset} bytes on; IN_PLACE and null (a receive buffer that does not matter) stay so. */
    static Object sliceOf(final Object buf, final long offset) {
        return buf == null || buf == InPlace.MARKER ? buf : Memory.ofObject(buf).at(offset);
    }

    public static void reduce(final CollectiveContext c, final int seq, final Object sendbuf, final Object recvbuf,
                              final long count, final Datatype type, final Reduction op, final int root) {
        Checks.count("count", count);
        if (sendbuf == InPlace.MARKER && c.rank() != root) {
            throw ParioException.argument("reduce: IN_PLACE is only allowed as the root's send buffer");
        }
        if (inSlices(c, sendbuf, recvbuf, count, type, (s, r, k) -> reduce(c, seq, s, r, k, type, op, root))) {
            return;
        }
        final Reductions.Element e = op.element(type, count);
        final byte[] result = reduceToRoot(c, seq, operand(c, sendbuf, recvbuf, count, type), e, op, root);
        if (result != null) {
            Packer.unpack(result, memory("recvbuf", recvbuf), type, count);
            c.scratch().give(result);
        }
    }

    /**
     * Allreduce. Commutative operations: recursive doubling for small data, Rabenseifner's reduce-scatter plus
     * allgather from {@link CollectiveTuning#allreduceLargeMinBytes()} on. Non-commutative operations: reduce in
     * rank order to rank 0, then broadcast. Every algorithm gives every rank bitwise the same result: partners
     * always combine the lower group's value on the left, and each block of the ring is computed by one rank.
     */
    public static void allreduce(final CollectiveContext c, final int seq, final Object sendbuf, final Object recvbuf,
                                 final long count, final Datatype type, final Reduction op) {
        Checks.count("count", count);
        if (inSlices(c, sendbuf, recvbuf, count, type, (s, r, k) -> allreduce(c, seq, s, r, k, type, op))) {
            return;
        }
        final Reductions.Element e = op.element(type, count);
        final int n = c.size();
        if (op.commutative() && n > 1 && Integer.bitCount(n) == 1 && AllreduceAlgorithms.isPlainBasic(type)
            && Packer.packedSize(type, count, DataRepresentation.NATIVE)
                >= c.tuning().allreduceLargeMinBytes()) {
            AllreduceAlgorithms.directRabenseifner(c, seq, sendbuf, recvbuf, count, type, op);
            return;
        }
        final byte[] own = operand(c, sendbuf, recvbuf, count, type);
        final int length = own.length;
        byte[] result;
        final CollectiveTuning tuning = c.tuning();
        final boolean throughRankZero = op.commutative() && n > 2 && n <= tuning.allreduceLinearMaxRanks()
            && length <= tuning.allreduceLinearMaxBytes();
        if (throughRankZero || !op.commutative() || n == 1) {
            result = throughRankZero ? linearReduceToRoot(c, seq, own, e, op, 0) : reduceToRoot(c, seq, own, e, op, 0);
            if (result == null) {
                result = c.scratch().take(length);
            }
            Broadcasts.bcast(c, seq, result, length, Datatype.BYTE, 0, false);
        } else if (own.length >= c.tuning().allreduceLargeMinBytes()) {
            result = AllreduceAlgorithms.rabenseifner(c, seq, own, e, op);
        } else {
            result = AllreduceAlgorithms.recursiveDoubling(c, seq, own, e, op);
        }
        Packer.unpack(result, memory("recvbuf", recvbuf), type, count);
        c.scratch().give(result);
    }

    /**
     * Reduce-scatter. Commutative operations: pairwise exchange, in step s each rank sends rank {@code me + s} that
     * rank's block of its operand and folds in what rank {@code me - s} sends for its own block, so each rank
     * moves only its data once and holds one block's worth of buffers. Non-commutative operations: reduce in rank
     * order to rank 0, which sends each rank its block.
     */
    public static void reduceScatter(final CollectiveContext c, final int seq, final Object sendbuf,
                                     final Object recvbuf, final long[] recvcounts, final Datatype type,
                                     final Reduction op) {
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
            final Object source = sendbuf == InPlace.MARKER ? memory("recvbuf", recvbuf) : sendbuf;
            for (long first = 0; first < total; first += per) {
                final long end = Math.min(total, first + per);
                final long[] counts = new long[n];
                long blockStart = 0;
                long mine = 0;
                for (int i = 0; i < n; i++) {
                    final long from = Math.max(first, blockStart);
                    final long to = Math.min(end, blockStart + recvcounts[i]);
                    counts[i] = Math.max(0, to - from);
                    if (i == c.rank()) {
                        mine = Math.max(0, from - blockStart);
                    }
                    blockStart += recvcounts[i];
                }
                reduceScatter(c, seq, sliceOf(source, Math.multiplyExact(first, type.extent())),
                    counts[c.rank()] == 0 ? recvbuf : sliceOf(recvbuf, Math.multiplyExact(mine, type.extent())), counts,
                    type, op);
            }
            return;
        }
        final Reductions.Element e = op.element(type, total);
        final byte[] packed = operand(c, sendbuf, recvbuf, total, type);
        final long size = type.size();
        final int me = c.rank();
        final int[] at = new int[n + 1];
        for (int i = 0; i < n; i++) {
            at[i + 1] = Math.toIntExact(at[i] + recvcounts[i] * size);
        }
        if (op.commutative()) {
            final int mine = at[me + 1] - at[me];
            final byte[] incoming = c.scratch().take(mine);
            final Reductions.Element part = new Reductions.Element(e.type(), recvcounts[me]);
            for (int step = 1; step < n; step++) {
                final int dest = (me + step) % n;
                final int source = (me - step + n) % n;
                final Pending r = irecv(c, Memory.of(incoming), mine, Datatype.BYTE, source, tag(seq, 3));
                send(c, Memory.of(packed).at(at[dest]), at[dest + 1] - at[dest], Datatype.BYTE, dest, tag(seq, 3));
                r.join();
                Reduction.combine(op, ByteBuffer.wrap(incoming), ByteBuffer.wrap(packed, at[me], mine).slice(), part);
            }
            Packer.unpack(ByteBuffer.wrap(packed), at[me], mine, memory("recvbuf", recvbuf),
                memory("recvbuf", recvbuf).origin(), type, recvcounts[me], DataRepresentation.NATIVE, 0);
            c.scratch().give(incoming);
            c.scratch().give(packed);
            return;
        }
        final byte[] result = reduceToRoot(c, seq, packed, e, op, 0);
        if (me == 0) {
            for (int i = 1; i < n; i++) {
                send(c, Memory.of(result).at(at[i]), at[i + 1] - at[i], Datatype.BYTE, i, tag(seq, 2));
            }
            Packer.unpack(ByteBuffer.wrap(result), 0, at[1], memory("recvbuf", recvbuf),
                memory("recvbuf", recvbuf).origin(), type, recvcounts[0], DataRepresentation.NATIVE, 0);
            c.scratch().give(result);
        } else {
            final byte[] block = recvBytes(c, at[me + 1] - at[me], 0, tag(seq, 2));
            Packer.unpack(block, memory("recvbuf", recvbuf), type, recvcounts[me]);
            c.scratch().give(block);
        }
    }

    /** Chain: rank i waits for the prefix of ranks 0..i-1, folds its operand in and passes the prefix on. */
    public static void scan(final CollectiveContext c, final int seq, final Object sendbuf, final Object recvbuf,
                            final long count, final Datatype type, final Reduction op, final boolean exclusive) {
        Checks.count("count", count);
        if (inSlices(c, sendbuf, recvbuf, count, type, (s, r, k) -> scan(c, seq, s, r, k, type, op, exclusive))) {
            return;
        }
        final Reductions.Element e = op.element(type, count);
        final byte[] own = operand(c, sendbuf, recvbuf, count, type);
        final int me = c.rank();
        final byte[] prefix = own;
        if (me > 0) {
            final byte[] before = recvBytes(c, own.length, me - 1, tag(seq, 3));
            if (exclusive) {
                Packer.unpack(before, memory("recvbuf", recvbuf), type, count);
            }
            // the operand is not needed on its own once the prefix is known: fold into it
            Reduction.combine(op, ByteBuffer.wrap(before), ByteBuffer.wrap(prefix), e);
            c.scratch().give(before);
        }
        if (me + 1 < c.size()) {
            sendBytes(c, prefix, me + 1, tag(seq, 3));
        }
        if (!exclusive) {
            Packer.unpack(prefix, memory("recvbuf", recvbuf), type, count);
        }
        c.scratch().give(prefix);
    }
}
