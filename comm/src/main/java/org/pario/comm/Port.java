package org.pario.comm;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.IntPredicate;

import org.pario.ParioException;
import org.pario.comm.internal.Checks;
import org.pario.comm.internal.Endpoint;
import org.pario.comm.internal.Fabric;
import org.pario.comm.internal.Message;
import org.pario.comm.internal.Waiting;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * One rank's end of a group's messages: sends, receives and probes in a context, with ranks of the group
 * translated to the fabric's and each argument checked. A communicator has one for its user messages and its
 * collectives, which differ only by context.
 */
final class Port {
    private final Fabric fabric;
    private final Endpoint endpoint;
    private final int[] group;
    private final int rank;
    private final Executor completion;

    /**
     * @param fabric     how messages travel
     * @param group      the fabric's rank of each rank of the group
     * @param rank       this rank's number in the group
     * @param completion where requests run what waits on them
     */
    Port(final Fabric fabric, final int[] group, final int rank, final Executor completion) {
        this.fabric = fabric;
        this.group = group;
        this.rank = rank;
        this.completion = completion;
        this.endpoint = fabric.endpoint(group[rank]);
    }

    int rank() {
        return rank;
    }

    int size() {
        return group.length;
    }

    Fabric fabric() {
        return fabric;
    }

    Endpoint endpoint() {
        return endpoint;
    }

    /**
     * {@code MPI_Comm_split}'s new group for this rank: the ranks that chose its color, ordered by key and then by
     * their rank here.
     *
     * @param colorsAndKeys every rank's color and key, in rank order
     * @param color         this rank's color
     */
    Port subgroup(final int[] colorsAndKeys, final int color) {
        final List<int[]> members = new ArrayList<>();
        for (int r = 0; r < group.length; r++) {
            if (colorsAndKeys[2 * r] == color) {
                members.add(new int[] {colorsAndKeys[2 * r + 1], r});
            }
        }
        members.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
        final int[] newGroup = new int[members.size()];
        int newRank = -1;
        for (int i = 0; i < newGroup.length; i++) {
            newGroup[i] = group[members.get(i)[1]];
            if (members.get(i)[1] == rank) {
                newRank = i;
            }
        }
        return new Port(fabric, newGroup, newRank, completion);
    }

    /** A send that has copied the data out when it returns. */
    void send(final int context, final Memory memory, final long count, final Datatype type, final int dest,
              final int tag) {
        checkSend(count, type);
        fabric.send(group[dest], context, rank, tag, memory, type, count, group);
    }

    /**
     * A send that may read {@code memory} until the request is done ({@link Fabric#sendInPlace}): for collectives,
     * which leave their buffers alone until they return.
     */
    Request<Void> sendInPlace(final int context, final Memory memory, final long count, final Datatype type,
                              final int dest, final int tag) {
        checkSend(count, type);
        return request(fabric.sendInPlace(group[dest], context, rank, tag, memory, type, count, group));
    }

    Request<Status> receive(final int context, final Memory memory, final long count, final Datatype type,
                            final int source, final int tag) {
        Checks.count("count", count);
        Checks.type(type);
        final CompletableFuture<Status> f = endpoint.post(context, source, tag, group, false,
                new Delivery.Into(memory, type, count))
            .thenCompose(m -> Delivery.complete(m, memory, count, type));
        return request(f);
    }

    /** Waits for a matching message without receiving it. */
    Status probe(final int context, final int source, final int tag) {
        try {
            return Delivery.status(Waiting.await(endpoint.post(context, source, tag, group, true), fabric, false));
        } catch (CompletionException e) {
            throw Request.unwrap(e.getCause());
        }
    }

    Optional<Status> peek(final int context, final int source, final int tag) {
        return Optional.ofNullable(endpoint.peek(context, source, tag)).map(Delivery::status);
    }

    /** @return the first message waiting in {@code context} from {@code source} whose tag passes, or null */
    Message peekWhere(final int context, final int source, final IntPredicate tag) {
        return endpoint.peekWhere(context, source, tag);
    }

    <T> Request<T> request(final CompletableFuture<T> f) {
        return new Request<>(f, completion, fabric);
    }

    /** Leaves the job, telling the others why. */
    void abort(final String reason) {
        fabric.abort(group[rank], reason);
    }

    int checkRank(final String name, final int r) {
        if (r < 0 || r >= group.length) {
            throw ParioException.argument(name + " must be a rank in [0, " + group.length + "), got " + r);
        }
        return r;
    }

    int checkSource(final int source) {
        return source == Endpoint.ANY_SOURCE ? source : checkRank("source", source);
    }

    /** Fails on a bad count or type, or when a rank of this group has failed. */
    private void checkSend(final long count, final Datatype type) {
        Checks.count("count", count);
        Checks.type(type);
        final ParioException failed = fabric.failureIn(group);
        if (failed != null) {
            throw failed;
        }
    }
}
