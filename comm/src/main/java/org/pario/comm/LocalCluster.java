package org.pario.comm;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.Fabric;
import org.pario.comm.internal.LocalFabric;
import org.pario.comm.settings.CommSettings;

/**
 * Runs N ranks as threads of this JVM, each with its own world communicator, over an in-JVM transport: the
 * embedded default, and the way tests run many ranks. A rank that throws fails every operation the others have
 * pending with it, and {@link #run} reports the first failure.
 *
 * <pre>{@code
 * LocalCluster.run(4, world -> {
 *     double[] sum = new double[1];
 *     world.allreduce(new double[] {world.rank()}, sum, 1, Datatype.DOUBLE, Op.SUM);
 * });
 * }</pre>
 */
public final class LocalCluster {
    private LocalCluster() {
    }

    /** What each rank runs. */
    @FunctionalInterface
    public interface RankBody {
        /**
         * @param world this rank's world communicator
         * @throws Exception any failure, which fails the run
         */
        void run(Communicator world) throws Exception;
    }

    /** What each rank computes. */
    @FunctionalInterface
    public interface RankFunction<T> {
        /**
         * @param world this rank's world communicator
         * @return this rank's result
         * @throws Exception any failure, which fails the run
         */
        T call(Communicator world) throws Exception;
    }

    /**
     * Runs {@code ranks} ranks and waits for all of them.
     *
     * @param ranks number of ranks, {@code >= 1}
     * @param body  what each rank runs
     * @throws ParioException the failure of the rank that failed first on its own, with that rank's exception as
     *                        its cause (the others attached as suppressed)
     */
    public static void run(final int ranks, final RankBody body) {
        call(ranks, world -> {
            body.run(world);
            return null;
        });
    }

    /**
     * Runs {@code ranks} ranks and collects their results in rank order.
     *
     * @param ranks number of ranks, {@code >= 1}
     * @param body  what each rank computes
     * @param <T>   result type
     * @return each rank's result
     * @throws ParioException the first rank failure (later ones attached as suppressed)
     */
    public static <T> List<T> call(final int ranks, final RankFunction<T> body) {
        if (ranks < 1) {
            throw ParioException.argument("ranks must be >= 1, got " + ranks);
        }
        return call(ranks, CommSettings.fromSystemProperties(), body);
    }

    /**
     * Runs {@code ranks} ranks with the given settings and waits for all of them.
     *
     * @param ranks    number of ranks, {@code >= 1}
     * @param settings how the ranks communicate
     * @param body     what each rank runs
     * @throws ParioException as {@link #run(int, RankBody)}
     */
    public static void run(final int ranks, final CommSettings settings, final RankBody body) {
        call(ranks, settings, world -> {
            body.run(world);
            return null;
        });
    }

    /**
     * Runs {@code ranks} ranks with the given settings and collects their results in rank order.
     *
     * @param ranks    number of ranks, {@code >= 1}
     * @param settings how the ranks communicate
     * @param body     what each rank computes
     * @param <T>      result type
     * @return each rank's result
     * @throws ParioException as {@link #call(int, RankFunction)}
     */
    public static <T> List<T> call(final int ranks, final CommSettings settings, final RankFunction<T> body) {
        if (ranks < 1) {
            throw ParioException.argument("ranks must be >= 1, got " + ranks);
        }
        final Fabric fabric = new LocalFabric(ranks, settings);
        final int[] world = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            world[r] = r;
        }
        final ExecutorService workers = Executors.newCachedThreadPool(daemons("pario-worker"));
        final List<T> results = new ArrayList<>(ranks);
        final Throwable[] failures = new Throwable[ranks];
        final Thread[] threads = new Thread[ranks];
        for (int r = 0; r < ranks; r++) {
            results.add(null);
            final int rank = r;
            threads[r] = new Thread(() -> {
                final Communicator comm = new Communicator(fabric, world, rank, 0,
                    new RankState(workers, ranks, settings));
                Throwable failure = null;
                try {
                    results.set(rank, body.call(comm));
                } catch (Throwable t) {
                    failure = t;
                    failures[rank] = t;
                } finally {
                    comm.close();
                    // an error every rank agreed on is an orderly end, not this rank failing on its own: the
                    // others may still be finishing the agreement with it
                    fabric.depart(rank, failure instanceof ParioException p && p.agreed() ? null : failure);
                }
            }, "pario-rank-" + r);
            threads[r].setDaemon(true);
        }
        for (final Thread t : threads) {
            t.start();
        }
        try {
            for (final Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ParioException(ErrorCategory.TIMEOUT, "interrupted while waiting for the ranks", e);
        } finally {
            workers.shutdownNow();
        }
        final ParioException failure = failure(failures);
        if (failure != null) {
            throw failure;
        }
        return results;
    }

    /**
     * The run's failure: the rank that failed on its own if there is one (not through an error every rank agreed
     * on, nor through a lost peer or a timeout, which follow from another rank's failure), else the rank whose own
     * error an agreement spread, else the first; its own exception is the cause, the others are suppressed.
     */
    static ParioException failure(final Throwable[] failures) {
        int origin = -1;
        for (int r = 0; r < failures.length && origin < 0; r++) {
            if (failures[r] != null && !(failures[r] instanceof ParioException p && (p.agreed()
                || p.category() == ErrorCategory.TRANSPORT || p.category() == ErrorCategory.TIMEOUT))) {
                origin = r;
            }
        }
        for (int r = 0; r < failures.length && origin < 0; r++) {
            // an agreed error carries the failing rank's own exception as its cause on that rank only
            if (failures[r] != null && failures[r].getCause() != null) {
                origin = r;
            }
        }
        for (int r = 0; r < failures.length && origin < 0; r++) {
            origin = failures[r] != null ? r : -1;
        }
        if (origin < 0) {
            return null;
        }
        final ParioException e = asRunFailure(origin, failures[origin]);
        for (int r = 0; r < failures.length; r++) {
            if (r != origin && failures[r] != null) {
                e.addSuppressed(failures[r]);
            }
        }
        return e;
    }

    private static ParioException asRunFailure(final int rank, final Throwable t) {
        if (t instanceof ParioException p) {
            // an agreed message already names the failing rank ("rank 2: ..."); others get their rank in front
            final String m = p.agreed() && p.getMessage() != null && p.getMessage().startsWith("rank ")
                ? p.getMessage() : "rank " + rank + ": " + p.getMessage();
            final Throwable own = p.agreed() && p.getCause() != null ? p.getCause() : p;
            return new ParioException(p.category(), m, own, p.agreed());
        }
        return new ParioException(ErrorCategory.IO, "rank " + rank + ": " + t, t);
    }

    private static ThreadFactory daemons(final String name) {
        final AtomicInteger n = new AtomicInteger();
        return r -> {
            final Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
