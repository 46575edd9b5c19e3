package org.pario.comm.internal.coll;

import static org.pario.comm.internal.coll.CollectiveCalls.Pending;
import static org.pario.comm.internal.coll.CollectiveCalls.blockDispls;
import static org.pario.comm.internal.coll.CollectiveCalls.irecv;
import static org.pario.comm.internal.coll.CollectiveCalls.memory;
import static org.pario.comm.internal.coll.CollectiveCalls.repeat;
import static org.pario.comm.internal.coll.CollectiveCalls.send;
import static org.pario.comm.internal.coll.CollectiveCalls.sendInPlace;
import static org.pario.comm.internal.coll.CollectiveCalls.tag;

import java.util.Arrays;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.Checks;
import org.pario.comm.internal.Scratch;
import org.pario.comm.settings.CollectiveTuning;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * Alltoall(v/w): through rank 0 from 3 up to a few ranks and small blocks; every message in flight at once for small
 * blocks; pairwise exchange above.
 */
public final class AllToAll {
    private AllToAll() {
    }

    public static void alltoallv(final CollectiveContext c, final int seq, final Object sendbuf,
                                 final long[] sendcounts, final long[] sdispls, final Datatype sendtype,
                                 final Object recvbuf, final long[] recvcounts, final long[] rdispls,
                                 final Datatype recvtype) {
        final int n = c.size();
        // in place, MPI ignores the send arguments: they may be null
        final boolean inPlace = sendbuf == InPlace.MARKER;
        alltoallw(c, seq, sendbuf, sendcounts, inPlace ? null : byteDispls("sdispls", sdispls, sendtype, n),
            inPlace ? null : sameType(sendtype, n), recvbuf, recvcounts, byteDispls("rdispls", rdispls, recvtype, n),
            sameType(recvtype, n));
    }

    /**
     * Alltoall: through rank 0 from 3 up to {@link CollectiveTuning#alltoallLinearMaxRanks()} ranks while every
     * rank's blocks together stay within {@link CollectiveTuning#alltoallLinearMaxBytes()}, otherwise as
     * {@link #alltoallv}. The choice rests on the size of a block, which MPI requires to be the same on every rank.
     */
    public static void alltoall(final CollectiveContext c, final int seq, final Object sendbuf, final long sendcount,
                                final Datatype sendtype, final Object recvbuf, final long recvcount,
                                final Datatype recvtype) {
        final int n = c.size();
        final CollectiveTuning tuning = c.tuning();
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
    static void linearAlltoall(final CollectiveContext c, final int seq, final Object sendbuf, final long sendcount,
                               final Datatype sendtype, final Object recvbuf, final long recvcount,
                               final Datatype recvtype, final int block) {
        final int n = c.size();
        final Scratch scratch = c.scratch();
        final boolean inPlace = sendbuf == InPlace.MARKER;
        final Datatype ownType = inPlace ? recvtype : Checks.type(sendtype);
        final long ownCount = inPlace ? recvcount : sendcount;
        Checks.count("sendcount", ownCount);
        final byte[] mine = ReduceFamily.packed(c, "alltoall", inPlace ? recvbuf : sendbuf,
            Math.multiplyExact(ownCount, n), ownType);
        final int all = n * block;
        final Datatype sent = carrier(ownType);
        final Datatype received = carrier(recvtype);
        final Memory out = memory("recvbuf", recvbuf);
        if (c.rank() != 0) {
            final byte[] back = scratch.take(all);
            final Pending reply = irecv(c, Memory.of(back), all / received.size(), received, 0, tag(seq, 1));
            send(c, Memory.of(mine), mine.length / sent.size(), sent, 0, tag(seq, 0));
            scratch.give(mine);
            final long got = reply.join();
            if (got != all) {
                throw new ParioException(ErrorCategory.MISMATCH, "alltoall: rank 0 sent " + got + " bytes of blocks "
                    + "where rank " + c.rank() + " expects " + n + " blocks of " + block + " bytes (the ranks' blocks "
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
            final long[] statuses = Barriers.joinAll(pending);
            for (int i = 1; i < n && failure == null; i++) {
                if (statuses[i] != all) {
                    failure = new ParioException(ErrorCategory.MISMATCH, "alltoall: rank " + i + " sent "
                        + statuses[i] + " bytes of blocks, rank 0 expects " + n + " blocks of " + block
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
    static Datatype carrier(final Datatype type) {
        return type.homogeneousBasicType().orElse(Datatype.BYTE);
    }

    /** @return displacements in extents of {@code type}, checked, as alltoallw's byte displacements */
    static long[] byteDispls(final String name, final long[] displs, final Datatype type, final int n) {
        Checks.length(name, displs, n);
        final long extent = Checks.type(type).extent();
        final long[] bytes = new long[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = Math.multiplyExact(displs[i], extent);
        }
        return bytes;
    }

    /** @return {@code type} once per rank, as alltoallw's types */
    static Datatype[] sameType(final Datatype type, final int n) {
        final Datatype[] types = new Datatype[n];
        Arrays.fill(types, type);
        return types;
    }

    /** Pairwise exchange: in step s, send to rank + s and receive from rank - s. */
    public static void alltoallw(final CollectiveContext c, final int seq, final Object sendbuf,
                                 final long[] sendcounts, final long[] sdispls, final Datatype[] sendtypes,
                                 final Object recvbuf, final long[] recvcounts, final long[] rdispls,
                                 final Datatype[] recvtypes) {
        final int n = c.size();
        final int me = c.rank();
        Checks.length("recvcounts", recvcounts, n);
        Checks.length("rdispls", rdispls, n);
        Checks.types("recvtypes", recvtypes, n);
        final Memory out = memory("recvbuf", recvbuf);
        // where the block for each rank starts, with the send counts and types
        final java.util.function.IntFunction<Memory> source;
        long[] scounts = sendcounts;
        Datatype[] stypes = sendtypes;
        if (sendbuf == InPlace.MARKER) {
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
    static boolean allAtOnce(final CollectiveContext c, final long[] scounts, final Datatype[] stypes,
                             final long[] rcounts, final Datatype[] rtypes) {
        final long limit = c.tuning().alltoallAllAtOnceMaxBytes();
        for (int i = 0; i < scounts.length; i++) {
            if (scounts[i] * stypes[i].size() > limit || rcounts[i] * rtypes[i].size() > limit) {
                return false;
            }
        }
        return true;
    }
}
