package org.pario.comm.internal.coll;

import static org.pario.comm.internal.coll.CollectiveCalls.Pending;
import static org.pario.comm.internal.coll.CollectiveCalls.irecv;
import static org.pario.comm.internal.coll.CollectiveCalls.send;
import static org.pario.comm.internal.coll.CollectiveCalls.tag;

import org.pario.ParioException;
import org.pario.comm.settings.CollectiveTuning;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * Barrier: from 3 up to {@link org.pario.comm.settings.CollectiveTuning#barrierLinearMaxRanks()} ranks, every rank's
 * arrival gathered at rank 0, which then lets each go; otherwise the dissemination barrier.
 */
public final class Barriers {
    private Barriers() {
    }

    // ------------------------------------------------------------------ barrier and broadcast

    public static void barrier(final CollectiveContext c, final int seq) {
        final int n = c.size();
        final byte[] none = new byte[0];
        if (n > 2 && n <= c.tuning().barrierLinearMaxRanks()) {
            linearBarrier(c, seq, none);
            return;
        }
        for (int k = 1, step = 0; k < n; k <<= 1, step++) {
            final Pending r = irecv(c, Memory.of(none), 0, Datatype.BYTE, (c.rank() - k + n) % n, tag(seq, step));
            send(c, Memory.of(none), 0, Datatype.BYTE, (c.rank() + k) % n, tag(seq, step));
            r.join();
        }
    }

    /**
     * Every rank tells rank 0 it has arrived, and rank 0, once all have, tells the odd ranks and the last one to go
     * on, each odd rank passing the word on to the even rank after it: {@code 2(n - 1)} messages where dissemination
     * sends {@code n log2(n)}, and rank 0 leaves first, ready for what follows. Rank 0 sending every release itself
     * kept it at work a send longer, where ranks outnumber cores on the core another rank needed.
     */
    static void linearBarrier(final CollectiveContext c, final int seq, final byte[] none) {
        final int n = c.size();
        final int me = c.rank();
        if (me == 0) {
            final Pending[] arrived = new Pending[n];
            for (int i = 1; i < n; i++) {
                arrived[i] = irecv(c, Memory.of(none), 0, Datatype.BYTE, i, tag(seq, 0));
            }
            joinAll(arrived);
            for (int i = 1; i < n; i++) {
                if (releaser(i, n) == 0) {
                    send(c, Memory.of(none), 0, Datatype.BYTE, i, tag(seq, 1));
                }
            }
            return;
        }
        final Pending go = irecv(c, Memory.of(none), 0, Datatype.BYTE, releaser(me, n), tag(seq, 1));
        send(c, Memory.of(none), 0, Datatype.BYTE, 0, tag(seq, 0));
        go.join();
        if (me + 1 < n && releaser(me + 1, n) == me) {
            send(c, Memory.of(none), 0, Datatype.BYTE, me + 1, tag(seq, 1));
        }
    }

    /** @return who releases rank {@code r} (not 0) from {@link #linearBarrier}: rank 0, or the odd rank before it */
    static int releaser(final int r, final int n) {
        return r % 2 == 1 || r == n - 1 ? 0 : r - 1;
    }

    /**
     * Waits for every non-null receive, then throws the first failure, if any, so none is left behind.
     *
     * @return the bytes each receive took, 0 where there was none
     */
    static long[] joinAll(final Pending[] pending) {
        final long[] statuses = new long[pending.length];
        ParioException first = null;
        for (int i = 0; i < pending.length; i++) {
            if (pending[i] == null) {
                continue;
            }
            try {
                statuses[i] = pending[i].join();
            } catch (ParioException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
        return statuses;
    }
}
