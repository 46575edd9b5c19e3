package org.pario.io;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.datatypes.Datatype;

/**
 * Makes every rank of a collective operation end the same way: each rank reports whether it failed; if any did,
 * the first failing rank's error is broadcast and thrown on every rank, with the same category and message
 * ({@code "rank R: ..."}), so no rank continues while another has stopped. An error that an inner agreement
 * already made common keeps its message as it is.
 */
public final class Agreement {
    private Agreement() {
    }

    /**
     * Collective: returns on every rank if no rank failed, or throws the first failing rank's error on every rank.
     *
     * @param comm  the ranks
     * @param local this rank's failure, or null
     * @throws ParioException the agreed error
     */
    public static void agree(final Communicator comm, final Throwable local) {
        final int n = comm.size();
        // the first failing rank, or n: one reduction, log(n) steps where an allgather's ring took n - 1, each a
        // latency that every collective file call pays
        final int first = comm.allreduce(local == null ? n : comm.rank(), Op.MIN);
        if (first < n) {
            throwAgreed(comm, first, local);
        }
    }

    /**
     * Collective: {@link #agree(Communicator, Throwable)}, and in the same reduction the smallest of every rank's
     * {@code values}, which a step that needs both a common outcome and a common figure would otherwise pay a
     * second reduction for. A largest value travels as its bitwise complement ({@code ~v}, whose smallest is the
     * complement of the largest).
     *
     * @param comm   the ranks
     * @param local  this rank's failure, or null
     * @param values this rank's values, as many on every rank
     * @return per value, the smallest any rank gave, once no rank failed
     * @throws ParioException the agreed error
     */
    public static long[] agreeWithMinima(final Communicator comm, final Throwable local, final long... values) {
        final int n = comm.size();
        final long[] mine = new long[values.length + 1];
        mine[0] = local == null ? n : comm.rank();
        System.arraycopy(values, 0, mine, 1, values.length);
        final long[] least = comm.allreduce(mine, Op.MIN);
        if (least[0] < n) {
            throwAgreed(comm, (int) least[0], local);
        }
        return Arrays.copyOfRange(least, 1, least.length);
    }

    /** Rank {@code first}'s error, broadcast from it and thrown on every rank. */
    private static void throwAgreed(final Communicator comm, final int first, final Throwable local) {
        final ParioException mine = local == null ? null : asPario(local);
        final byte[] text = mine == null ? new byte[0]
            : ((mine.agreed() ? "=" : "") + mine.category().ordinal() + ":" + mine.getMessage())
                .getBytes(StandardCharsets.UTF_8);
        final int[] length = {text.length};
        comm.bcast(length, 1, Datatype.INT, first);
        final byte[] message = comm.rank() == first ? text : new byte[length[0]];
        comm.bcast(message, message.length, Datatype.BYTE, first);
        String s = new String(message, StandardCharsets.UTF_8);
        final boolean alreadyAgreed = s.startsWith("=");
        s = alreadyAgreed ? s.substring(1) : s;
        final int colon = s.indexOf(':');
        final ErrorCategory category = ErrorCategory.values()[Integer.parseInt(s.substring(0, colon))];
        final String prefix = alreadyAgreed ? "" : "rank " + first + ": ";
        throw new ParioException(category, prefix + s.substring(colon + 1), local, true);
    }

    /**
     * Collective: the smallest and largest of every rank's {@code value}, from one allreduce. The maximum travels as
     * its bitwise complement, which reverses the order without the overflow negation would have at
     * {@code Long.MIN_VALUE}.
     *
     * @return {@code {min, max}}
     */
    static long[] range(final Communicator comm, final long value) {
        final long[] minAndComplementedMax = new long[2];
        comm.allreduce(new long[] {value, ~value}, minAndComplementedMax, 2, Datatype.LONG, Op.MIN);
        return new long[] {minAndComplementedMax[0], ~minAndComplementedMax[1]};
    }

    static ParioException asPario(final Throwable t) {
        if (t instanceof ParioException p) {
            return p;
        }
        return new ParioException(ErrorCategory.IO, t.getMessage() == null ? t.toString() : t.getMessage(), t);
    }
}
