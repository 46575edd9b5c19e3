package org.pario.comm.internal.coll;

import java.util.Arrays;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * What every collective algorithm is built on: call and step tags (a call's sequence number and operation, so
 * concurrent collectives never mix), receives that tell a mismatched collective from a slow one ({@link Pending}),
 * and sends and receives in the communicator's collective context.
 */
public final class CollectiveCalls {
    private CollectiveCalls() {
    }

    /** Names of the collective operation codes, for error messages. */
    static final String[] OPERATIONS = {"?", "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
        "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce", "reduce_scatter",
        "reduce_scatter_block", "scan", "exscan"};

    /** How long a collective receive waits before it looks for signs of a mismatched collective, in ms. */
    static final long MISMATCH_CHECK_MILLIS = 100;

    /** @return a call id: 19 bits of sequence number, 5 of operation */
    public static int call(final int seq, final int operation) {
        return ((seq & 0x7FFFF) << 5) | (operation & 0x1F);
    }

    /** @return the tag of a step of a call: 24 bits of call id, 7 of step */
    static int tag(final int call, final int step) {
        return ((call & 0xFFFFFF) << 7) | (step & 0x7F);
    }

    /** A posted collective receive that knows what it waits for, so it can tell a mismatched collective. */
    static final class Pending {
        private final CollectiveContext c;
        /** A receive, or a send. */
        private final CollectiveContext.Transfer transfer;
        private final int source;
        private final int tag;

        Pending(final CollectiveContext c, final CollectiveContext.Transfer transfer, final int source, final int tag) {
            this.c = c;
            this.transfer = transfer;
            this.source = source;
            this.tag = tag;
        }

        /**
         * Waits for the message (or, for a send, until it is written). While it has not come, checks whether the peer
         * sent a message of the same collective call number but another operation: then the ranks called different
         * collectives, and waiting would never end.
         *
         * @return the bytes received; 0 for a send
         */
        long join() {
            while (true) {
                try {
                    return transfer.join(MISMATCH_CHECK_MILLIS);
                } catch (ParioException e) {
                    // also when the peer is gone: it may have left because it saw the mismatch first, and its
                    // message of the other collective (sent before it left) names the real cause
                    final ParioException mismatch = mismatch();
                    if (mismatch != null) {
                        throw mismatch;
                    }
                    if (e.category() == ErrorCategory.TRUNCATE) {
                        // a collective's receives are as long as its counts say: a longer message is another
                        // collective of the same kind, or the same one with another count, on the peer
                        final int expectedCall = tag >>> 7;
                        throw new ParioException(ErrorCategory.MISMATCH, "collective mismatch in "
                            + OPERATIONS[expectedCall & 0x1F] + " (collective call #" + (expectedCall >>> 5) + " on "
                            + "this communicator): " + e.getMessage() + "; every rank must call the same collectives "
                            + "in the same order, with matching counts", e);
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
            final org.pario.comm.internal.Message other = c.peek(source,
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

    public static long[] repeat(final long value, final int n) {
        final long[] a = new long[n];
        Arrays.fill(a, value);
        return a;
    }

    public static long[] blockDispls(final long count, final int n) {
        final long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = i * count;
        }
        return a;
    }

    static Memory memory(final String name, final Object buf) {
        if (buf == null) {
            throw ParioException.argument(name + " must not be null");
        }
        return Memory.ofObject(buf);
    }

    /** Block {@code displ} (in extents of type) of a buffer. */
    static Memory slot(final Memory m, final long displ, final Datatype type) {
        return m.at(Math.multiplyExact(displ, type.extent()));
    }

    static void send(final CollectiveContext c, final Memory m, final long count, final Datatype type, final int dest,
                     final int tag) {
        c.send(m, count, type, dest, tag);
    }

    /**
     * Sends from memory the collective leaves alone until the send is joined: a transport may then write it from
     * there without packing it first ({@link org.pario.comm.internal.Fabric#sendInPlace}).
     */
    static Pending sendInPlace(final CollectiveContext c, final Memory m, final long count, final Datatype type,
                               final int dest, final int tag) {
        return new Pending(c, c.sendInPlace(m, count, type, dest, tag), dest, tag);
    }

    /**
     * Sends in place joined in the order they were made, at most {@link #WINDOW} of them outstanding, so that a
     * collective of any number of sends holds a bounded number of requests.
     */
    static final class SendWindow {
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

    static long recv(final CollectiveContext c, final Memory m, final long count, final Datatype type, final int source,
                     final int tag) {
        return irecv(c, m, count, type, source, tag).join();
    }

    /**
     * {@link #recv} of a root's message. When the root sends it as soon as it enters the call ({@code rootAtWork}:
     * a linear broadcast's or scatter's root, needing nothing from other ranks first) and it is small, the wait keeps
     * its core for a few microseconds before it hands it on where ranks outnumber cores.
     */
    static long recvFromRoot(final CollectiveContext c, final Memory m, final long count, final Datatype type,
                             final int root, final int tag, final boolean rootAtWork) {
        final boolean prompt = rootAtWork
            && (type.size() == 0 || count <= c.tuning().promptWaitMaxBytes() / type.size());
        return new Pending(c, c.receive(m, count, type, root, tag, prompt), root, tag).join();
    }

    static Pending irecv(final CollectiveContext c, final Memory m, final long count, final Datatype type,
                         final int source, final int tag) {
        return new Pending(c, c.receive(m, count, type, source, tag, false), source, tag);
    }
}
