package org.pario.comm.internal.coll;

import static org.pario.comm.internal.coll.CollectiveCalls.Pending;
import static org.pario.comm.internal.coll.CollectiveCalls.SendWindow;
import static org.pario.comm.internal.coll.CollectiveCalls.blockDispls;
import static org.pario.comm.internal.coll.CollectiveCalls.irecv;
import static org.pario.comm.internal.coll.CollectiveCalls.memory;
import static org.pario.comm.internal.coll.CollectiveCalls.recvFromRoot;
import static org.pario.comm.internal.coll.CollectiveCalls.repeat;
import static org.pario.comm.internal.coll.CollectiveCalls.sendInPlace;
import static org.pario.comm.internal.coll.CollectiveCalls.slot;
import static org.pario.comm.internal.coll.CollectiveCalls.tag;

import org.pario.ParioException;
import org.pario.comm.internal.Checks;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/** Gather(v) and scatter(v) at the root, and the ring allgather(v). */
public final class GatherScatter {
    private GatherScatter() {
    }

    // ------------------------------------------------------------------ gather and scatter

    public static void gather(final CollectiveContext c, final int seq, final Object sendbuf, final long sendcount,
                              final Datatype sendtype, final Object recvbuf, final long recvcount,
                              final Datatype recvtype, final int root) {
        final int n = c.size();
        gatherv(c, seq, sendbuf, sendcount, sendtype, recvbuf, c.rank() == root ? repeat(recvcount, n) : null,
            c.rank() == root ? blockDispls(recvcount, n) : null, recvtype, root);
    }

    public static void gatherv(final CollectiveContext c, final int seq, final Object sendbuf, final long sendcount,
                               final Datatype sendtype, final Object recvbuf, final long[] recvcounts,
                               final long[] displs, final Datatype recvtype, final int root) {
        final boolean inPlace = sendbuf == InPlace.MARKER;
        if (c.rank() != root) {
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
        Barriers.joinAll(pending);
    }

    public static void scatter(final CollectiveContext c, final int seq, final Object sendbuf, final long sendcount,
                               final Datatype sendtype, final Object recvbuf, final long recvcount,
                               final Datatype recvtype, final int root) {
        final int n = c.size();
        scatterv(c, seq, sendbuf, c.rank() == root ? repeat(sendcount, n) : null,
            c.rank() == root ? blockDispls(sendcount, n) : null, sendtype, recvbuf, recvcount, recvtype, root);
    }

    public static void scatterv(final CollectiveContext c, final int seq, final Object sendbuf, final long[] sendcounts,
                                final long[] displs, final Datatype sendtype, final Object recvbuf,
                                final long recvcount, final Datatype recvtype, final int root) {
        final boolean inPlace = recvbuf == InPlace.MARKER;
        if (c.rank() != root) {
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
    public static void allgatherv(final CollectiveContext c, final int seq, final Object sendbuf, final long sendcount,
                                  final Datatype sendtype, final Object recvbuf, final long[] recvcounts,
                                  final long[] displs, final Datatype recvtype) {
        final int n = c.size();
        Checks.length("recvcounts", recvcounts, n);
        Checks.length("displs", displs, n);
        final Memory out = memory("recvbuf", recvbuf);
        final int me = c.rank();
        if (sendbuf != InPlace.MARKER) {
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
}
