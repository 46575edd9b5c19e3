package org.pario.comm;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.pario.comm.internal.LocalFabric;
import org.pario.comm.internal.tcp.TcpConfig;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.comm.internal.tcp.TlsContexts;
import org.pario.comm.settings.CommSettings;

/**
 * Entry point for a rank that runs in its own JVM: joins the job and returns the world communicator, whose
 * {@link Communicator#close()} leaves the job.
 *
 * <pre>{@code
 * try (Communicator world = Pario.init()) {
 *     world.barrier();
 * }
 * }</pre>
 */
public final class Pario {
    /** Largest message a rank accepts from a peer: 64 GiB. */
    static final long MAX_MESSAGE = 64L << 30;

    private Pario() {
    }

    /**
     * Joins the job described by the environment ({@link Bootstrap#fromEnvironment()}); a process that no
     * launcher started (no rank in its environment) is a job of one rank on its own, as an MPI singleton is, so
     * the same program runs alone, as threads ({@link LocalCluster}) and as launched JVMs.
     *
     * @return the world communicator
     */
    public static Communicator init() {
        if (!Bootstrap.launched(System.getenv())) {
            return singleton();
        }
        final Bootstrap b = Bootstrap.fromEnvironment();
        watchLauncher(System.getenv("PARIO_LAUNCHER_PID"), b.rank());
        return init(b);
    }

    /**
     * A rank that {@code pario launch} started leaves when its launcher is gone (killed with SIGKILL, say, so it
     * could not stop its ranks): nobody would collect its output or status, and it would hold its cores and files.
     * A daemon thread looks twice a second.
     */
    private static void watchLauncher(final String pid, final int rank) {
        if (pid == null) {
            return;
        }
        final java.util.Optional<ProcessHandle> launcher;
        try {
            launcher = ProcessHandle.of(Long.parseLong(pid.trim()));
        } catch (NumberFormatException e) {
            throw org.pario.ParioException.argument("PARIO_LAUNCHER_PID must be a process id, got '" + pid + "'");
        }
        final Thread t = new Thread(() -> {
            while (launcher.map(ProcessHandle::isAlive).orElse(false)) {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
            }
            System.err.println("pario: rank " + rank + ": the launcher (pid " + pid.trim() + ") is gone; this rank "
                + "exits");
            System.err.flush();
            // halt, not exit: the rank may be blocked in a collective whose peers are gone too
            Runtime.getRuntime().halt(1);
        }, "pario-launcher-watch");
        t.setDaemon(true);
        t.start();
    }

    /** @return a world of one rank, this process, over the in-JVM transport: nothing listens on a socket */
    static Communicator singleton() {
        final CommSettings settings = CommSettings.fromSystemProperties();
        final LocalFabric fabric = new LocalFabric(1, settings);
        final ExecutorService workers = workers();
        return new Communicator(fabric, new int[] {0}, 0, 0, new RankState(workers, 1, settings), () -> {
            fabric.depart(0, null);
            workers.shutdownNow();
        });
    }

    /**
     * Joins a job over TCP with the settings of the JVM's system properties ({@link
     * CommSettings#fromSystemProperties()}); returns once every rank has connected.
     *
     * @param b how to find the job
     * @return the world communicator
     */
    public static Communicator init(final Bootstrap b) {
        return init(b, CommSettings.fromSystemProperties());
    }

    /**
     * Joins a job over TCP; returns once every rank has connected.
     *
     * @param b        how to find the job
     * @param settings how this rank communicates
     * @return the world communicator
     */
    public static Communicator init(final Bootstrap b, final CommSettings settings) {
        final TcpFabric fabric = TcpFabric.start(new TcpConfig(b.rank(), b.size(),
            b.token().getBytes(java.nio.charset.StandardCharsets.UTF_8), b.coordinatorBind(), b::lookup, b::publish,
            b.bindHost(), b.advertisedHost(), b.startupTimeout().toMillis(), MAX_MESSAGE,
            Math.max(1, b.failureTimeout().toMillis() / 5), b.failureTimeout().toMillis(),
            b.tls() == null ? null : TlsContexts.load(b.tls().keyStore(), b.tls().password().toCharArray()), settings));
        if (b.rank() == 0) {
            b.unpublish();
        }
        final ExecutorService workers = workers();
        final int[] world = new int[b.size()];
        for (int r = 0; r < world.length; r++) {
            world[r] = r;
        }
        return new Communicator(fabric, world, b.rank(), 0, new RankState(workers, 1, settings), () -> {
            fabric.close();
            workers.shutdownNow();
        });
    }

    /** @return the daemon threads a rank runs its nonblocking operations on */
    private static ExecutorService workers() {
        final AtomicInteger n = new AtomicInteger();
        return Executors.newCachedThreadPool(r -> {
            final Thread t = new Thread(r, "pario-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }
}
