package org.pario.comm.internal.coll;

import static org.pario.comm.internal.coll.CollectiveCalls.Pending;
import static org.pario.comm.internal.coll.CollectiveCalls.irecv;
import static org.pario.comm.internal.coll.CollectiveCalls.memory;
import static org.pario.comm.internal.coll.CollectiveCalls.recv;
import static org.pario.comm.internal.coll.CollectiveCalls.send;
import static org.pario.comm.internal.coll.CollectiveCalls.sendInPlace;
import static org.pario.comm.internal.coll.CollectiveCalls.tag;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

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
 * Allreduce algorithms: recursive doubling (small data); Rabenseifner's recursive-halving reduce-scatter plus
 * recursive-doubling allgather (large data), on packed arrays or directly over primitive arrays in pieces; ranks
 * beyond a power of two folded in and out. Every rank gets bitwise the same result.
 */
public final class AllreduceAlgorithms {
    private AllreduceAlgorithms() {
    }

    /**
     * One step of recursive halving over blocks {@code [lo, hi)}: the half a rank keeps (the lower one when it is in
     * the lower group of the step) and the half it gives its partner.
     */
    record Halves(int keepLo, int keepHi, int giveLo, int giveHi) {
        static Halves of(final int lo, final int hi, final boolean lower) {
            final int mid = lo + (hi - lo) / 2;
            return lower ? new Halves(lo, mid, mid, hi) : new Halves(mid, hi, lo, mid);
        }
    }

    /**
     * One step of recursive doubling over blocks {@code [lo, hi)}: the partner's blocks, as many again, beside
     * them (above when the rank is in the lower group of the step).
     */
    record Theirs(int lo, int hi) {
        static Theirs of(final int lo, final int hi, final boolean lower) {
            final int width = hi - lo;
            return lower ? new Theirs(hi, hi + width) : new Theirs(lo - width, lo);
        }
    }

    /** @return whether {@code type} is one basic value without gaps, so its elements are its packed bytes */
    static boolean isPlainBasic(final Datatype type) {
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
    static void directRabenseifner(final CollectiveContext c, final int seq, final Object sendbuf, final Object recvbuf,
                                   final long count, final Datatype type, final Reduction op) {
        final int n = c.size();
        final int me = c.rank();
        final long size = type.size();
        final Memory out = memory("recvbuf", recvbuf);
        final Memory in = sendbuf == InPlace.MARKER ? out : memory("sendbuf", sendbuf);
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
        final Scratch scratch = c.scratch();
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
        final CollectiveTuning tuning = c.tuning();
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
    static Pending[][] postAllgather(final CollectiveContext c, final int seq, final Memory out, final long[] start,
                                     final Datatype type, final long segment) {
        final int n = c.size();
        final int me = c.rank();
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
    static Pending[] receivePieces(final CollectiveContext c, final Memory into, final long count, final Datatype type,
                                   final long segment, final int partner, final int tag) {
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
    static final class Pieces {
        private final CollectiveContext c;
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

        Pieces(final CollectiveContext c, final Memory from, final long count, final Datatype type, final long segment,
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
            Barriers.joinAll(sends.toArray(new Pending[0]));
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
    static void combinePieces(final Pending[] pieces, final byte[] incoming, final byte[] acc, final long accFirst,
                              final long count, final long segment, final Datatype type, final Reduction op,
                              final Memory packFrom, final Memory unpackTo, final Pieces given) {
        final int size = (int) type.size();
        final long chunk = Math.max(1, Broadcasts.COMBINE_CHUNK_BYTES / size);
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
                Reduction.combine(op, ByteBuffer.wrap(incoming, (int) (first * size), elements * size).slice(),
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
    static void combineInArrays(final Pending[] pieces, final byte[] incoming, final long count, final long segment,
                                final Datatype type, final Reduction op, final Object own, final int ownFirst,
                                final Object out, final int outFirst, final Pieces given) {
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
    record Core(int pof2, int extra, int newRank, byte[] acc) {
        /** @return the communicator rank of core rank {@code coreRank} */
        int world(final int coreRank) {
            return coreRank < extra ? coreRank * 2 : coreRank + extra;
        }
    }

    static Core foldIn(final CollectiveContext c, final int seq, final byte[] own, final Reductions.Element e,
                       final Reduction op) {
        final int me = c.rank();
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
            ReduceFamily.sendBytes(c, own, me - 1, tag(seq, 4));
            return new Core(pof2, extra, -1, own);
        }
        final byte[] right = ReduceFamily.recvBytes(c, own.length, me + 1, tag(seq, 4));
        // the lower rank's operand on the left
        Reduction.combine(op, ByteBuffer.wrap(own), ByteBuffer.wrap(right), e);
        c.scratch().give(own);
        return new Core(pof2, extra, me / 2, right);
    }

    /** Hands the result back to the ranks that sat out: each even folding rank to the odd one after it. */
    static byte[] foldOut(final CollectiveContext c, final int seq, final Core core, final byte[] result) {
        final int me = c.rank();
        if (me >= 2 * core.extra) {
            return result;
        }
        if (me % 2 == 0) {
            ReduceFamily.sendBytes(c, result, me + 1, tag(seq, 40));
            return result;
        }
        recv(c, Memory.of(result), result.length, Datatype.BYTE, me - 1, tag(seq, 40));
        return result;
    }

    /**
     * Recursive doubling; with a non-power-of-two size, the first {@code 2 * (n - pof2)} ranks fold in pairs
     * first (odd ranks give their data to the even rank before them and get the result back at the end).
     */
    static byte[] recursiveDoubling(final CollectiveContext c, final int seq, final byte[] own,
                                    final Reductions.Element e, final Reduction op) {
        final Core core = foldIn(c, seq, own, e, op);
        final int pof2 = core.pof2;
        final int newRank = core.newRank;
        byte[] acc = core.acc;
        if (newRank >= 0) {
            for (int mask = 1, step = 5; mask < pof2; mask <<= 1, step++) {
                final int partnerNew = newRank ^ mask;
                final int partner = core.world(partnerNew);
                final byte[] theirs = c.scratch().take(acc.length);
                final Pending r = irecv(c, Memory.of(theirs), theirs.length, Datatype.BYTE, partner, tag(seq, step));
                ReduceFamily.sendBytes(c, acc, partner, tag(seq, step));
                r.join();
                // the lower group's value is always the left operand, so both partners compute the same bits
                if (partnerNew < newRank) {
                    Reduction.combine(op, ByteBuffer.wrap(theirs), ByteBuffer.wrap(acc), e);
                    c.scratch().give(theirs);
                } else {
                    Reduction.combine(op, ByteBuffer.wrap(acc), ByteBuffer.wrap(theirs), e);
                    c.scratch().give(acc);
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
    static byte[] rabenseifner(final CollectiveContext c, final int seq, final byte[] own, final Reductions.Element e,
                               final Reduction op) {
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
            final byte[] incoming = c.scratch().take(Math.max(start[half], start[pof2] - start[half]));
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
                Reduction.combine(op, ByteBuffer.wrap(incoming, 0, keep).slice(),
                    ByteBuffer.wrap(acc, start[h.keepLo], keep).slice(),
                    new Reductions.Element(e.type(), keep / elementSize));
                lo = h.keepLo;
                hi = h.keepHi;
            }
            c.scratch().give(incoming);
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
}
