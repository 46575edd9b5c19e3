package org.pario.comm;

import java.util.concurrent.atomic.AtomicInteger;

import org.pario.comm.internal.coll.AllToAll;
import org.pario.comm.internal.coll.Barriers;
import org.pario.comm.internal.coll.Broadcasts;
import org.pario.comm.internal.coll.CollectiveCalls;
import org.pario.comm.internal.coll.CollectiveContext;
import org.pario.comm.internal.coll.GatherScatter;
import org.pario.comm.internal.coll.ReduceFamily;
import org.pario.datatypes.Datatype;

/**
 * The collective calls of one communicator. Each method numbers the call and checks its root when it is made,
 * and returns the call bound to that number: a blocking collective runs it at once, a nonblocking one on the
 * rank's executor. The number is taken at the call, in the order the application makes its calls, so that a
 * nonblocking collective started before a blocking one is matched with the same call on every rank however the
 * threads run.
 */
final class Collectives {
    private final CollectiveContext context;
    private final Port port;
    private final AtomicInteger sequence = new AtomicInteger();

    Collectives(final CollectiveContext context, final Port port) {
        this.context = context;
        this.port = port;
    }

    Runnable barrier() {
        final int call = next(1);
        return () -> Barriers.barrier(context, call);
    }

    Runnable bcast(final Object buf, final long count, final Datatype type, final int root) {
        final int call = next(2);
        final int r = root(root);
        return () -> Broadcasts.bcast(context, call, buf, count, type, r);
    }

    Runnable gather(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                    final long recvcount, final Datatype recvtype, final int root) {
        final int call = next(3);
        final int r = root(root);
        return () -> GatherScatter.gather(context, call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, r);
    }

    Runnable gatherv(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                     final long[] recvcounts, final long[] displs, final Datatype recvtype, final int root) {
        final int call = next(4);
        final int r = root(root);
        return () -> GatherScatter.gatherv(context, call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
            recvtype, r);
    }

    Runnable scatter(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                     final long recvcount, final Datatype recvtype, final int root) {
        final int call = next(5);
        final int r = root(root);
        return () -> GatherScatter.scatter(context, call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            r);
    }

    Runnable scatterv(final Object sendbuf, final long[] sendcounts, final long[] displs, final Datatype sendtype,
                      final Object recvbuf, final long recvcount, final Datatype recvtype, final int root) {
        final int call = next(6);
        final int r = root(root);
        return () -> GatherScatter.scatterv(context, call, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
            recvtype, r);
    }

    Runnable allgather(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                       final long recvcount, final Datatype recvtype) {
        final int call = next(7);
        final int n = port.size();
        return () -> GatherScatter.allgatherv(context, call, sendbuf, sendcount, sendtype, recvbuf,
            CollectiveCalls.repeat(recvcount, n), CollectiveCalls.blockDispls(recvcount, n), recvtype);
    }

    Runnable allgatherv(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                        final long[] recvcounts, final long[] displs, final Datatype recvtype) {
        final int call = next(8);
        return () -> GatherScatter.allgatherv(context, call, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
            displs, recvtype);
    }

    Runnable alltoall(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                      final long recvcount, final Datatype recvtype) {
        final int call = next(9);
        return () -> AllToAll.alltoall(context, call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }

    Runnable alltoallv(final Object sendbuf, final long[] sendcounts, final long[] sdispls, final Datatype sendtype,
                       final Object recvbuf, final long[] recvcounts, final long[] rdispls, final Datatype recvtype) {
        final int call = next(10);
        return () -> AllToAll.alltoallv(context, call, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
            rdispls, recvtype);
    }

    Runnable alltoallw(final Object sendbuf, final long[] sendcounts, final long[] sdispls,
                       final Datatype[] sendtypes, final Object recvbuf, final long[] recvcounts,
                       final long[] rdispls, final Datatype[] recvtypes) {
        final int call = next(11);
        return () -> AllToAll.alltoallw(context, call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
            rdispls, recvtypes);
    }

    Runnable reduce(final Object sendbuf, final Object recvbuf, final long count, final Datatype type, final Op op,
                    final int root) {
        final int call = next(12);
        final int r = root(root);
        return () -> ReduceFamily.reduce(context, call, sendbuf, recvbuf, count, type, op.reduction(), r);
    }

    Runnable allreduce(final Object sendbuf, final Object recvbuf, final long count, final Datatype type,
                       final Op op) {
        final int call = next(13);
        return () -> ReduceFamily.allreduce(context, call, sendbuf, recvbuf, count, type, op.reduction());
    }

    Runnable reduceScatter(final Object sendbuf, final Object recvbuf, final long[] recvcounts, final Datatype type,
                           final Op op) {
        final int call = next(14);
        return () -> ReduceFamily.reduceScatter(context, call, sendbuf, recvbuf, recvcounts, type, op.reduction());
    }

    Runnable reduceScatterBlock(final Object sendbuf, final Object recvbuf, final long recvcount,
                                final Datatype type, final Op op) {
        final int call = next(15);
        final long[] counts = CollectiveCalls.repeat(recvcount, port.size());
        return () -> ReduceFamily.reduceScatter(context, call, sendbuf, recvbuf, counts, type, op.reduction());
    }

    Runnable scan(final Object sendbuf, final Object recvbuf, final long count, final Datatype type, final Op op,
                  final boolean exclusive) {
        final int call = next(exclusive ? 17 : 16);
        return () -> ReduceFamily.scan(context, call, sendbuf, recvbuf, count, type, op.reduction(), exclusive);
    }

    /**
     * @param operation the collective's code (an index of {@code CollectiveCalls.OPERATIONS})
     * @return this call's id: its sequence number and operation, the same on every rank that calls the same
     *     collective in the same order; messages carry it, so mismatched collectives are detected
     */
    private int next(final int operation) {
        return CollectiveCalls.call(sequence.getAndIncrement(), operation);
    }

    private int root(final int root) {
        return port.checkRank("root", root);
    }
}
