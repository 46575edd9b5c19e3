package org.pario.comm;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.Endpoint;
import org.pario.comm.internal.Fabric;
import org.pario.comm.internal.coll.InPlace;
import org.pario.comm.settings.CommSettings;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * A group of ranks that communicate ({@code MPI_Comm}): point-to-point messages and collective operations, with
 * MPI's semantics and names.
 *
 * <p>Buffers are primitive arrays, {@code byte[]}, {@code ByteBuffer}s (heap or direct) or {@link Memory}
 * (use {@link Memory#at(long)} for a buffer that starts inside an array, as {@code &a[0][i]} in C), laid out by
 * the datatype given with them; both sides may use any datatypes whose signatures match. Sends copy the data
 * out before they return. A receive into a buffer too small for the message fails with
 * {@link ErrorCategory#TRUNCATE}; data whose basic type differs from the receive type's fails with
 * {@link ErrorCategory#MISMATCH}.
 *
 * <p>Collectives must be called by every rank in the same order. They are built on point-to-point messages in
 * a context of their own, so they never match user messages; each call is numbered, so nonblocking collectives
 * in flight do not mix. When a rank of the group fails, every pending and later operation on the communicator
 * fails with an error naming that rank, and a receive that no remaining rank can satisfy fails instead of
 * waiting forever.
 *
 * <p>A communicator belongs to one rank and is used by one thread at a time; nonblocking operations return a
 * {@link Request}. A thread that makes communicators (dups, splits, files) while another thread of the rank makes
 * its own starts from {@link #dupForThread()}. No static state: communicators come from {@link LocalCluster} (ranks
 * as threads) and, with the network transport, from the bootstrap.
 */
public final class Communicator implements AutoCloseable {
    /** Matches a message from any rank. */
    public static final int ANY_SOURCE = Endpoint.ANY_SOURCE;
    /** Matches a message with any tag. */
    public static final int ANY_TAG = Endpoint.ANY_TAG;
    /** {@code split} color of ranks that want no new communicator. */
    public static final int UNDEFINED = -32766;
    /** The largest tag a user message may carry. */
    public static final int TAG_UB = Integer.MAX_VALUE;
    /** {@code MPI_IN_PLACE}: as the send buffer of collectives that allow it, "the data is already in place". */
    public static final Object IN_PLACE = InPlace.MARKER;

    private final Port port;
    private final int context;
    private final RankState state;
    /** Where this communicator's dups and splits take their context ids from. */
    private final ContextSpace space;
    private final Runnable onClose;
    private final CachedAttributes attributes = new CachedAttributes();
    private final Collectives collectives;
    private volatile boolean closed;

    /** @return the settings this rank runs with */
    public CommSettings settings() {
        return state.settings;
    }

    Communicator(final Fabric fabric, final int[] group, final int rank, final int context, final RankState state) {
        this(fabric, group, rank, context, state, null);
    }

    Communicator(final Fabric fabric, final int[] group, final int rank, final int context, final RankState state,
                 final Runnable onClose) {
        this(new Port(fabric, group, rank, state.executor), context, state, state.worldSpace, onClose);
    }

    private Communicator(final Port port, final int context, final RankState state, final ContextSpace space,
                         final Runnable onClose) {
        this.onClose = onClose;
        this.context = context;
        this.state = state;
        this.space = space;
        this.port = port;
        // collectives run in a context of their own, so they never match user messages
        this.collectives = new Collectives(new CollectivePort(port, context + 1, state.settings.tuning(),
            state.scratch), port);
    }

    /** @return this rank's number in the communicator, {@code 0 <= rank() < size()} */
    public int rank() {
        return port.rank();
    }

    /** @return the number of ranks in the communicator */
    public int size() {
        return port.size();
    }

    /** @return how this communicator's messages travel: "in-JVM", "TCP (epoll)" or "TCP (nio)" */
    public String transport() {
        return port.fabric().transport();
    }

    // ------------------------------------------------------------------ point-to-point

    /**
     * {@code MPI_Send}: sends {@code count} elements of {@code type} from {@code buf} to {@code dest}.
     *
     * @param buf   the data
     * @param count number of elements, {@code >= 0}
     * @param type  layout of the data
     * @param dest  destination rank
     * @param tag   message tag, {@code >= 0}
     */
    public void send(final Object buf, final long count, final Datatype type, final int dest, final int tag) {
        checkOpen();
        checkTag("tag", tag, false);
        port.send(context, Memory.ofObject(buf), count, type, checkRank("dest", dest), tag);
    }

    /**
     * {@code MPI_Recv}: receives at most {@code count} elements of {@code type} into {@code buf}.
     *
     * @param buf    where the data goes
     * @param count  capacity in elements
     * @param type   layout of the buffer
     * @param source the sender's rank, or {@link #ANY_SOURCE}
     * @param tag    the tag, or {@link #ANY_TAG}
     * @return who sent what
     */
    public Status recv(final Object buf, final long count, final Datatype type, final int source, final int tag) {
        checkOpen();
        checkTag("tag", tag, true);
        return port.receive(context, Memory.ofObject(buf), count, type, port.checkSource(source), tag).join();
    }

    /**
     * {@code MPI_Isend}. The data is copied out before this returns, so the request is already complete.
     *
     * @return the request
     */
    public Request<Void> isend(final Object buf, final long count, final Datatype type, final int dest, final int tag) {
        send(buf, count, type, dest, tag);
        return port.request(CompletableFuture.completedFuture(null));
    }

    /**
     * {@code MPI_Irecv}.
     *
     * @return a request whose result is the receive's {@link Status}
     */
    public Request<Status> irecv(final Object buf, final long count, final Datatype type, final int source,
                                 final int tag) {
        checkOpen();
        checkTag("tag", tag, true);
        return port.receive(context, Memory.ofObject(buf), count, type, port.checkSource(source), tag);
    }

    /**
     * {@code MPI_Sendrecv}: a send and a receive that cannot deadlock with each other.
     *
     * @return the receive's status
     */
    public Status sendrecv(final Object sendbuf, final long sendcount, final Datatype sendtype, final int dest,
                           final int sendtag, final Object recvbuf, final long recvcount, final Datatype recvtype,
                           final int source, final int recvtag) {
        final Request<Status> r = irecv(recvbuf, recvcount, recvtype, source, recvtag);
        send(sendbuf, sendcount, sendtype, dest, sendtag);
        return r.join();
    }

    /**
     * {@code MPI_Probe}: waits for a matching message without receiving it.
     *
     * @return its status
     */
    public Status probe(final int source, final int tag) {
        checkOpen();
        checkTag("tag", tag, true);
        return port.probe(context, port.checkSource(source), tag);
    }

    /**
     * {@code MPI_Iprobe}.
     *
     * @return the status of a matching message that has arrived, or empty
     */
    public Optional<Status> iprobe(final int source, final int tag) {
        checkOpen();
        checkTag("tag", tag, true);
        return port.peek(context, port.checkSource(source), tag);
    }

    // ------------------------------------------------------------------ communicators

    /**
     * {@code MPI_Comm_dup}, collective: a communicator with the same group and a new, separate context.
     *
     * @return the new communicator
     */
    public Communicator dup() {
        final int newContext = agreeContext();
        return new Communicator(port, newContext, state, space, null);
    }

    /**
     * {@code copies} calls of {@link #dup()} in one, collective: the duplicates' contexts are agreed in one
     * reduction instead of one each, which is what a duplicate costs. For a library that keeps several private
     * communicators over the same ranks (a file's two-phase engine and its shared pointer).
     *
     * @param copies how many duplicates, at least 1, the same on every rank
     * @return the duplicates, each with the same group and a new, separate context
     * @throws ParioException if {@code copies} is less than 1 (before anything collective)
     */
    public Communicator[] dup(final int copies) {
        if (copies < 1) {
            throw ParioException.argument("dup: copies must be >= 1, got " + copies);
        }
        final int first = agreeContext();
        final Communicator[] out = new Communicator[copies];
        for (int i = 0; i < copies; i++) {
            // every rank takes the same ids in the same order after the one agreed: a context and its collectives'
            out[i] = new Communicator(port, i == 0 ? first : space.take(first + 2L * i), state, space, null);
        }
        return out;
    }

    /**
     * {@code MPI_Comm_dup} for a thread of its own, collective: a duplicate that one other thread of this rank uses
     * while this rank's other threads go on with the original. The communicators made from the duplicate (its dups
     * and splits, the files opened on it, and theirs) take their context ids from a range of their own, so that
     * thread may make them while another thread makes communicators from the original; with {@link #dup()}, the two
     * could agree on the same id and take each other's messages. For libraries that run collectives in the
     * background (asynchronous checkpoints run on one).
     *
     * @return the duplicate
     * @throws ParioException the same on every rank, when called on a communicator that came from
     *                        {@code dupForThread} (its thread starts no others), or after 256 of them on one rank
     */
    public Communicator dupForThread() {
        if (space.isForThread()) {
            throw ParioException.argument("dupForThread: this communicator already belongs to a thread's family; "
                + "dup it instead");
        }
        final long[] mine = {space.proposal(), state.nextFamily.get()};
        final long[] max = new long[2];
        allreduce(mine, max, 2, Datatype.LONG, Op.MAX);
        final ContextSpace family = ContextSpace.forThread(max[1]);
        state.nextFamily.set(max[1] + 1);
        return new Communicator(port, space.take(max[0]), state, family, null);
    }

    /**
     * {@code MPI_Comm_split}, collective: ranks with the same color form a new communicator, ordered by key and
     * then by their rank here.
     *
     * @param color group to join, {@code >= 0}, or {@link #UNDEFINED} for none
     * @param key   ordering within the new group
     * @return the new communicator, or null for {@link #UNDEFINED}
     */
    public Communicator split(final int color, final int key) {
        if (color < 0 && color != UNDEFINED) {
            throw ParioException.argument("split: color must be >= 0 or UNDEFINED, got " + color);
        }
        final int n = size();
        final int[] mine = {color, key};
        final int[] all = new int[2 * n];
        allgather(mine, 2, Datatype.INT, all, 2, Datatype.INT);
        final int newContext = agreeContext();
        if (color == UNDEFINED) {
            return null;
        }
        return new Communicator(port.subgroup(all, color), newContext, state, space, null);
    }

    /**
     * Frees the communicator ({@code MPI_Comm_free}); for the world communicator of {@link Pario#init()}, also
     * leaves the job ({@code MPI_Finalize}): peers learn this rank finished normally. Pending operations are not
     * cancelled. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            attributes.close();
        } finally {
            if (onClose != null) {
                onClose.run();
            }
        }
    }

    /**
     * The value a library caches on this communicator under {@code key}, created by {@code create} on first use
     * ({@code MPI_Comm_get_attr} / {@code MPI_Comm_set_attr}). When the communicator is closed, values that are
     * {@link AutoCloseable} are closed, newest first, before it is freed, as MPI runs attribute delete callbacks at
     * {@code MPI_Comm_free}: a library finishes its work on the communicator there (asynchronous checkpoints wait
     * for their writes). Not copied by {@link #dup()}. Thread-safe.
     *
     * @param key    the key
     * @param create makes the value, once
     * @param <T>    the value type
     * @return the value
     * @throws IllegalStateException once the communicator is closed
     */
    public <T> T attribute(final AttributeKey<T> key, final java.util.function.Supplier<? extends T> create) {
        return attributes.get(key, create);
    }

    /**
     * {@code MPI_Abort}: leaves the job after an error that this rank cannot recover from. Every pending and later
     * operation of the other ranks that involves this one fails, naming this rank and {@code reason}, instead of
     * waiting for messages that will never come; then this communicator is closed. Call it where a rank gives
     * up, so that the others fail with the real cause:
     *
     * <pre>{@code
     * try (Communicator world = Pario.init()) {
     *     try {
     *         compute(world);
     *     } catch (RuntimeException e) {
     *         world.abort(e.toString());
     *         throw e;
     *     }
     * }
     * }</pre>
     *
     * (A rank that leaves after one of its own operations failed because a peer was gone tells the others that
     * first error by itself.)
     *
     * @param reason why this rank gives up
     */
    public void abort(final String reason) {
        if (closed) {
            return;
        }
        port.abort(reason == null ? "no reason given" : reason);
        close();
    }

    int agreeContext() {
        final long[] mine = {space.proposal()};
        final long[] max = new long[1];
        allreduce(mine, max, 1, Datatype.LONG, Op.MAX);
        return space.take(max[0]);
    }

    // ------------------------------------------------------------------ collectives (see Collectives)

    /** {@code MPI_Barrier}: returns when every rank has entered it. */
    public void barrier() {
        calls().barrier().run();
    }

    /** {@code MPI_Bcast}: root's {@code count x type} is copied to every rank's buffer. */
    public void bcast(final Object buf, final long count, final Datatype type, final int root) {
        calls().bcast(buf, count, type, root).run();
    }

    /** {@code MPI_Gather}: every rank's data, concatenated in rank order at root. */
    public void gather(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                       final long recvcount, final Datatype recvtype, final int root) {
        calls().gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root).run();
    }

    /** {@code MPI_Gatherv}: rank i's data lands at {@code displs[i]} extents of recvtype, {@code recvcounts[i]} long. */
    public void gatherv(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                        final long[] recvcounts, final long[] displs, final Datatype recvtype, final int root) {
        calls().gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root).run();
    }

    /** {@code MPI_Scatter}: root's buffer is cut in rank-order blocks, one per rank. */
    public void scatter(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                        final long recvcount, final Datatype recvtype, final int root) {
        calls().scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root).run();
    }

    /** {@code MPI_Scatterv}. */
    public void scatterv(final Object sendbuf, final long[] sendcounts, final long[] displs, final Datatype sendtype,
                         final Object recvbuf, final long recvcount, final Datatype recvtype, final int root) {
        calls().scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root).run();
    }

    /** {@code MPI_Allgather}: every rank gets every rank's data, in rank order. */
    public void allgather(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                          final long recvcount, final Datatype recvtype) {
        calls().allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype).run();
    }

    /** {@code MPI_Allgatherv}. */
    public void allgatherv(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                           final long[] recvcounts, final long[] displs, final Datatype recvtype) {
        calls().allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype).run();
    }

    /** {@code MPI_Alltoall}: block j of rank i's send buffer becomes block i of rank j's receive buffer. */
    public void alltoall(final Object sendbuf, final long sendcount, final Datatype sendtype, final Object recvbuf,
                         final long recvcount, final Datatype recvtype) {
        calls().alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype).run();
    }

    /** {@code MPI_Alltoallv}: counts and displacements (in extents) per peer. */
    public void alltoallv(final Object sendbuf, final long[] sendcounts, final long[] sdispls, final Datatype sendtype,
                          final Object recvbuf, final long[] recvcounts, final long[] rdispls, final Datatype recvtype) {
        calls().alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype).run();
    }

    /** {@code MPI_Alltoallw}: counts, byte displacements and datatypes per peer. */
    public void alltoallw(final Object sendbuf, final long[] sendcounts, final long[] sdispls, final Datatype[] sendtypes,
                          final Object recvbuf, final long[] recvcounts, final long[] rdispls,
                          final Datatype[] recvtypes) {
        calls().alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes).run();
    }

    /** {@code MPI_Reduce}: root gets {@code x_0 op x_1 op ... op x_{n-1}}, element by element. */
    public void reduce(final Object sendbuf, final Object recvbuf, final long count, final Datatype type, final Op op,
                       final int root) {
        calls().reduce(sendbuf, recvbuf, count, type, op, root).run();
    }

    /** {@code MPI_Allreduce}: every rank gets the same, bitwise identical, reduction. */
    public void allreduce(final Object sendbuf, final Object recvbuf, final long count, final Datatype type,
                          final Op op) {
        calls().allreduce(sendbuf, recvbuf, count, type, op).run();
    }

    /** {@code MPI_Reduce_scatter}: the reduction is cut in blocks of {@code recvcounts[i]} elements, one per rank. */
    public void reduceScatter(final Object sendbuf, final Object recvbuf, final long[] recvcounts, final Datatype type,
                              final Op op) {
        calls().reduceScatter(sendbuf, recvbuf, recvcounts, type, op).run();
    }

    /** {@code MPI_Reduce_scatter_block}. */
    public void reduceScatterBlock(final Object sendbuf, final Object recvbuf, final long recvcount,
                                   final Datatype type, final Op op) {
        calls().reduceScatterBlock(sendbuf, recvbuf, recvcount, type, op).run();
    }

    /** {@code MPI_Scan}: rank i gets {@code x_0 op ... op x_i}. */
    public void scan(final Object sendbuf, final Object recvbuf, final long count, final Datatype type, final Op op) {
        calls().scan(sendbuf, recvbuf, count, type, op, false).run();
    }

    /** {@code MPI_Exscan}: rank i gets {@code x_0 op ... op x_{i-1}}; rank 0's buffer is left as it was. */
    public void exscan(final Object sendbuf, final Object recvbuf, final long count, final Datatype type, final Op op) {
        calls().scan(sendbuf, recvbuf, count, type, op, true).run();
    }

    // ------------------------------------------------------------------ typed shortcuts (see Shortcuts)

    /** {@link #allreduce(Object, Object, long, Datatype, Op)} of one {@code long}: {@code allreduce(n, Op.SUM)}. */
    public long allreduce(final long value, final Op op) {
        return Shortcuts.allreduce(this, value, op);
    }

    /** {@link #allreduce(Object, Object, long, Datatype, Op)} of one {@code int}. */
    public int allreduce(final int value, final Op op) {
        return Shortcuts.allreduce(this, value, op);
    }

    /** {@link #allreduce(Object, Object, long, Datatype, Op)} of one {@code double}. */
    public double allreduce(final double value, final Op op) {
        return Shortcuts.allreduce(this, value, op);
    }

    /** Element-wise {@link #allreduce(Object, Object, long, Datatype, Op)} into a new array of the same length. */
    public double[] allreduce(final double[] values, final Op op) {
        return Shortcuts.allreduce(this, values, op);
    }

    /** Element-wise {@link #allreduce(Object, Object, long, Datatype, Op)} into a new array of the same length. */
    public long[] allreduce(final long[] values, final Op op) {
        return Shortcuts.allreduce(this, values, op);
    }

    /** Element-wise {@link #allreduce(Object, Object, long, Datatype, Op)} into a new array of the same length. */
    public int[] allreduce(final int[] values, final Op op) {
        return Shortcuts.allreduce(this, values, op);
    }

    /** {@link #bcast(Object, long, Datatype, int)} of one {@code long}: every rank returns root's value. */
    public long bcast(final long value, final int root) {
        return Shortcuts.bcast(this, value, checkRank("root", root));
    }

    /** {@link #bcast(Object, long, Datatype, int)} of one {@code double}: every rank returns root's value. */
    public double bcast(final double value, final int root) {
        return Shortcuts.bcast(this, value, checkRank("root", root));
    }

    /** Root's string on every rank (other ranks' argument is ignored and may be null). */
    public String bcast(final String value, final int root) {
        return Shortcuts.bcast(this, value, checkRank("root", root));
    }

    /** {@link #allgather(Object, long, Datatype, Object, long, Datatype)} of one value a rank, in rank order. */
    public long[] allgather(final long value) {
        return Shortcuts.allgather(this, value);
    }

    /** {@link #allgather(Object, long, Datatype, Object, long, Datatype)} of one value a rank, in rank order. */
    public double[] allgather(final double value) {
        return Shortcuts.allgather(this, value);
    }

    /** {@link #gatherv} of each rank's values, of any length: at root, all of them in rank order; elsewhere null. */
    public double[] gather(final double[] values, final int root) {
        return (double[]) Shortcuts.gather(this, values, values.length, Datatype.DOUBLE, checkRank("root", root),
            double[]::new);
    }

    /** {@link #gatherv} of each rank's values, of any length: at root, all of them in rank order; elsewhere null. */
    public long[] gather(final long[] values, final int root) {
        return (long[]) Shortcuts.gather(this, values, values.length, Datatype.LONG, checkRank("root", root),
            long[]::new);
    }

    /** {@link #gatherv} of each rank's values, of any length: at root, all of them in rank order; elsewhere null. */
    public int[] gather(final int[] values, final int root) {
        return (int[]) Shortcuts.gather(this, values, values.length, Datatype.INT, checkRank("root", root),
            int[]::new);
    }

    // ------------------------------------------------------------------ nonblocking collectives

    /** {@code MPI_Ibarrier}. */
    public Request<Void> ibarrier() {
        return start(calls().barrier());
    }

    /** {@code MPI_Ibcast}. */
    public Request<Void> ibcast(final Object buf, final long count, final Datatype type, final int root) {
        return start(calls().bcast(buf, count, type, root));
    }

    /** {@code MPI_Igather}. */
    public Request<Void> igather(final Object sendbuf, final long sendcount, final Datatype sendtype,
                                 final Object recvbuf, final long recvcount, final Datatype recvtype, final int root) {
        return start(calls().gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
    }

    /** {@code MPI_Iallgather}. */
    public Request<Void> iallgather(final Object sendbuf, final long sendcount, final Datatype sendtype,
                                    final Object recvbuf, final long recvcount, final Datatype recvtype) {
        return start(calls().allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    }

    /** {@code MPI_Ialltoall}. */
    public Request<Void> ialltoall(final Object sendbuf, final long sendcount, final Datatype sendtype,
                                   final Object recvbuf, final long recvcount, final Datatype recvtype) {
        return start(calls().alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    }

    /** {@code MPI_Ireduce}. */
    public Request<Void> ireduce(final Object sendbuf, final Object recvbuf, final long count, final Datatype type,
                                 final Op op, final int root) {
        return start(calls().reduce(sendbuf, recvbuf, count, type, op, root));
    }

    /** {@code MPI_Iallreduce}. */
    public Request<Void> iallreduce(final Object sendbuf, final Object recvbuf, final long count, final Datatype type,
                                    final Op op) {
        return start(calls().allreduce(sendbuf, recvbuf, count, type, op));
    }

    /** {@code MPI_Iscan}. */
    public Request<Void> iscan(final Object sendbuf, final Object recvbuf, final long count, final Datatype type,
                               final Op op) {
        return start(calls().scan(sendbuf, recvbuf, count, type, op, false));
    }

    /** {@code MPI_Igatherv}. */
    public Request<Void> igatherv(final Object sendbuf, final long sendcount, final Datatype sendtype,
                                  final Object recvbuf, final long[] recvcounts, final long[] displs,
                                  final Datatype recvtype, final int root) {
        return start(calls().gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root));
    }

    /** {@code MPI_Iscatter}. */
    public Request<Void> iscatter(final Object sendbuf, final long sendcount, final Datatype sendtype,
                                  final Object recvbuf, final long recvcount, final Datatype recvtype, final int root) {
        return start(calls().scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
    }

    /** {@code MPI_Iscatterv}. */
    public Request<Void> iscatterv(final Object sendbuf, final long[] sendcounts, final long[] displs,
                                   final Datatype sendtype, final Object recvbuf, final long recvcount,
                                   final Datatype recvtype, final int root) {
        return start(calls().scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root));
    }

    /** {@code MPI_Iallgatherv}. */
    public Request<Void> iallgatherv(final Object sendbuf, final long sendcount, final Datatype sendtype,
                                     final Object recvbuf, final long[] recvcounts, final long[] displs,
                                     final Datatype recvtype) {
        return start(calls().allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype));
    }

    /** {@code MPI_Ialltoallv}. */
    public Request<Void> ialltoallv(final Object sendbuf, final long[] sendcounts, final long[] sdispls,
                                    final Datatype sendtype, final Object recvbuf, final long[] recvcounts,
                                    final long[] rdispls, final Datatype recvtype) {
        return start(calls().alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype));
    }

    /** {@code MPI_Ialltoallw}. */
    public Request<Void> ialltoallw(final Object sendbuf, final long[] sendcounts, final long[] sdispls,
                                    final Datatype[] sendtypes, final Object recvbuf, final long[] recvcounts,
                                    final long[] rdispls, final Datatype[] recvtypes) {
        return start(calls().alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
            recvtypes));
    }

    /** {@code MPI_Ireduce_scatter}. */
    public Request<Void> ireduceScatter(final Object sendbuf, final Object recvbuf, final long[] recvcounts,
                                        final Datatype type, final Op op) {
        return start(calls().reduceScatter(sendbuf, recvbuf, recvcounts, type, op));
    }

    /** {@code MPI_Ireduce_scatter_block}. */
    public Request<Void> ireduceScatterBlock(final Object sendbuf, final Object recvbuf, final long recvcount,
                                             final Datatype type, final Op op) {
        return start(calls().reduceScatterBlock(sendbuf, recvbuf, recvcount, type, op));
    }

    /** {@code MPI_Iexscan}. */
    public Request<Void> iexscan(final Object sendbuf, final Object recvbuf, final long count, final Datatype type,
                                 final Op op) {
        return start(calls().scan(sendbuf, recvbuf, count, type, op, true));
    }

    private Request<Void> start(final Runnable collective) {
        final CompletableFuture<Void> f = CompletableFuture.runAsync(collective, state.executor);
        return port.request(f);
    }

    /** The collective calls, refused once the communicator is closed. */
    private Collectives calls() {
        checkOpen();
        return collectives;
    }

    private int checkRank(final String name, final int r) {
        return port.checkRank(name, r);
    }

    private static void checkTag(final String name, final int tag, final boolean anyAllowed) {
        if (tag < 0 && !(anyAllowed && tag == ANY_TAG)) {
            throw ParioException.argument(name + " must be >= 0" + (anyAllowed ? " or ANY_TAG" : "") + ", got " + tag);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw ParioException.argument("the communicator is closed");
        }
    }

    /** For tests in this package: how this communicator's messages travel. */
    Fabric fabric() {
        return port.fabric();
    }

    /** For tests in this package: this rank's message queues. */
    Endpoint endpoint() {
        return port.endpoint();
    }

    @Override
    public String toString() {
        return "Communicator[rank " + rank() + " of " + size() + ", context " + context + "]";
    }
}
