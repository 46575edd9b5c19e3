package org.pario.comm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.settings.CommSettings;

/**
 * The transports a test body runs over: ranks as threads over the in-JVM fabric, or ranks as threads that
 * each own a TCP fabric connected over loopback (the same code path as one JVM per rank), on Netty's default
 * transport for this machine (native epoll on Linux) and on Java NIO.
 */
enum Transport {
    IN_JVM,
    TCP,
    TCP_NIO;

    /** Runs {@code n} ranks with the settings of the run's system properties (the build sets some). */
    <T> List<T> call(final int n, final LocalCluster.RankFunction<T> body) {
        return call(n, CommSettings.fromSystemProperties(), body);
    }

    /** Runs {@code n} ranks with {@code settings}, over this transport. */
    <T> List<T> call(final int n, final CommSettings settings, final LocalCluster.RankFunction<T> body) {
        if (this == IN_JVM) {
            return LocalCluster.call(n, settings, body);
        }
        return callOverTcp(n, settings.with("transport", this == TCP_NIO ? "nio" : settings.transport()), body);
    }

    private <T> List<T> callOverTcp(final int n, final CommSettings settings,
                                    final LocalCluster.RankFunction<T> body) {
        final Path dir;
        try {
            dir = Files.createTempDirectory("pario-test-");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        final String job = "t-" + UUID.randomUUID();
        final List<T> results = new ArrayList<>();
        final Throwable[] failures = new Throwable[n];
        final Thread[] threads = new Thread[n];
        for (int r = 0; r < n; r++) {
            results.add(null);
            final int rank = r;
            threads[r] = new Thread(() -> {
                try (Communicator world = Pario.init(new Bootstrap(rank, n, null, dir, job, "secret-" + job,
                    "127.0.0.1", "127.0.0.1", Duration.ofSeconds(30)), settings)) {
                    results.set(rank, body.call(world));
                } catch (Throwable t) {
                    failures[rank] = t;
                }
            }, "tcp-rank-" + r);
            threads[r].start();
        }
        try {
            for (final Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            remove(dir);
        }
        for (int r = 0; r < n; r++) {
            if (failures[r] != null) {
                throw new ParioException(ErrorCategory.IO, "rank " + r + ": " + failures[r], failures[r]);
            }
        }
        return results;
    }

    /** Removes a rendezvous folder and what is in it: a run of the suite leaves nothing in the temporary directory. */
    static void remove(final Path dir) {
        try (var files = Files.list(dir)) {
            for (final Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (java.io.IOException e) {
            // already gone
        }
    }

    void run(final int n, final LocalCluster.RankBody body) {
        run(n, CommSettings.fromSystemProperties(), body);
    }

    void run(final int n, final CommSettings settings, final LocalCluster.RankBody body) {
        call(n, settings, world -> {
            body.run(world);
            return null;
        });
    }
}
