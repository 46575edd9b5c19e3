package org.pario.comm.internal.coll;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.ArrayCombine;
import org.pario.comm.internal.Checks;
import org.pario.comm.internal.Reductions;
import org.pario.comm.internal.Scratch;
import org.pario.comm.settings.CollectiveTuning;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/** Gather(v) and scatter(v) at the root, and the ring allgather(v). */
public final class GatherScatter {
    private GatherScatter() {
    }

    // ------------------------------------------------------------------ gather and scatter

    public static void gather(final CollectiveContext c, final int seq, final Object sendbuf, final long sendcount,
                       final Datatype sendtype, final Object recvbuf, final long recvcount, final Datatype recvtype,
                       final int root) {
        final int n = c.size();
        gatherv(c, seq, sendbuf, sendcount, sendtype, recvbuf, c.rank() == root ? CollectiveCalls.repeat(recvcount, n) : null,
            c.rank() == root ? CollectiveCalls.blockDispls(recvcount, n) : null, recvtype, root);
    }

    public static void gatherv(final CollectiveContext c, final int seq, final Object sendbuf, final long sendcount,
                        final Datatype sendtype, final Object recvbuf, final long[] recvcounts, final long[] displs,
                        final Datatype recvtype, final int root) {
        final boolean inPlace = sendbuf == InPlace.MARKER;
        if (c.rank() != root) {
            if (inPlace) {
                throw ParioException.argument("gather: IN_PLACE is only allowed as the root's send buffer");
            }
            Checks.count("sendcount", sendcount);
            CollectiveCalls.sendInPlace(c, CollectiveCalls.memory("sendbuf", sendbuf), sendcount, sendtype, root, CollectiveCalls.tag(seq, 0)).join();
            return;
        }
        final int n = c.size();
        Checks.length("recvcounts", recvcounts, n);
        Checks.length("displs", displs, n);
        final Memory out = CollectiveCalls.memory("recvbuf", recvbuf);
        final CollectiveCalls.Pending[] pending = new CollectiveCalls.Pending[n];
        for (int i = 0; i < n; i++) {
            if (i != root) {
                pending[i] = CollectiveCalls.irecv(c, CollectiveCalls.slot(out, displs[i], recvtype), recvcounts[i], recvtype, i, CollectiveCalls.tag(seq, 0));
            }
        }
        // after the receives are posted, so the others' data can flow while the root copies its own block
        if (!inPlace) {
            Packer.copy(CollectiveCalls.memory("sendbuf", sendbuf), sendtype, sendcount, CollectiveCalls.slot(out, displs[root], recvtype), recvtype,
                recvcounts[root]);
        }
        Barriers.joinAll(pending);
    }

    public static void scatter(final CollectiveContext c, final int seq, final Object sendbuf, final long sendcount,
                        final Datatype sendtype, final Object recvbuf, final long recvcount, final Datatype recvtype,
                        final int root) {
        final int n = c.size();
        scatterv(c, seq, sendbuf, c.rank() == root ? CollectiveCalls.repeat(sendcount, n) : null,
            c.rank() == root ? CollectiveCalls.blockDispls(sendcount, n) : null, sendtype, recvbuf, recvcount, recvtype, root);
    }

    public static void scatterv(final CollectiveContext c, final int seq, final Object sendbuf, final long[] sendcounts,
                         final long[] displs, final Datatype sendtype, final Object recvbuf, final long recvcount,
                         final Datatype recvtype, final int root) {
        final boolean inPlace = recvbuf == InPlace.MARKER;
        if (c.rank() != root) {
            if (inPlace) {
                throw ParioException.argument("scatter: IN_PLACE is only allowed as the root's receive buffer");
            }
            Checks.count("recvcount", recvcount);
            CollectiveCalls.recvFromRoot(c, CollectiveCalls.memory("recvbuf", recvbuf), recvcount, recvtype, root, CollectiveCalls.tag(seq, 0), true);
            return;
        }
        final int n = c.size();
        Checks.length("sendcounts", sendcounts, n);
        Checks.length("displs", displs, n);
        final Memory in = CollectiveCalls.memory("sendbuf", sendbuf);
        final CollectiveCalls.SendWindow sends = new CollectiveCalls.SendWindow();
        for (int i = 0; i < n; i++) {
            if (i != root) {
                sends.add(CollectiveCalls.sendInPlace(c, CollectiveCalls.slot(in, displs[i], sendtype), sendcounts[i], sendtype, i, CollectiveCalls.tag(seq, 0)));
            }
        }
        // after the sends, so the others need not wait for the root's own copy
        if (!inPlace) {
            Packer.copy(CollectiveCalls.slot(in, displs[root], sendtype), sendtype, sendcounts[root], CollectiveCalls.memory("recvbuf", recvbuf),
                recvtype, recvcount);
        }
        sends.joinAll();
    }

    /** Ring: in step s each rank passes on the block it got in step s - 1 (its own first). */
    public static void allgatherv(final CollectiveContext c, final int seq, final Object sendbuf, final long sendcount,
                           final Datatype sendtype, final Object recvbuf, final long[] recvcounts, final long[] displs,
                           final Datatype recvtype) {
        final int n = c.size();
        Checks.length("recvcounts", recvcounts, n);
        Checks.length("displs", displs, n);
        final Memory out = CollectiveCalls.memory("recvbuf", recvbuf);
        final int me = c.rank();
        if (sendbuf != InPlace.MARKER) {
            Packer.copy(CollectiveCalls.memory("sendbuf", sendbuf), sendtype, sendcount, CollectiveCalls.slot(out, displs[me], recvtype), recvtype,
                recvcounts[me]);
        }
        final int right = (me + 1) % n;
        final int left = (me - 1 + n) % n;
        for (int step = 0; step < n - 1; step++) {
            final int sendBlock = (me - step + n) % n;
            final int recvBlock = (me - step - 1 + n) % n;
            final CollectiveCalls.Pending r = CollectiveCalls.irecv(c, CollectiveCalls.slot(out, displs[recvBlock], recvtype), recvcounts[recvBlock], recvtype,
                left, CollectiveCalls.tag(seq, step));
            final CollectiveCalls.Pending sent = CollectiveCalls.sendInPlace(c, CollectiveCalls.slot(out, displs[sendBlock], recvtype), recvcounts[sendBlock], recvtype,
                right, CollectiveCalls.tag(seq, step));
            r.join();
            sent.join();
        }
    }
}
