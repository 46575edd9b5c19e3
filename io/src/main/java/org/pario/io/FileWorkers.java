package org.pario.io;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import org.pario.comm.Request;
import org.pario.comm.Status;

/**
 * One file's threads for its nonblocking independent accesses and the runs of an access read at once: daemons, made as needed, so they never keep a JVM
 * alive; shut down when the file closes, after the accesses begun before (MPI has them completed by then).
 */
final class FileWorkers {
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "pario-file-io");
        t.setDaemon(true);
        return t;
    });
    /** Where a request's dependents run: the file's threads, or the caller's once the file has closed. */
    private final Executor completion = task -> {
        try {
            workers.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    };

    /** @return the file's threads, for the parts of one access that run at once ({@link RunReads}) */
    Executor executor() {
        return workers;
    }

    /** @return a request for {@code access}, run on the file's threads */
    Request<Status> start(final Supplier<Status> access) {
        return Request.of(CompletableFuture.supplyAsync(access, workers), completion);
    }

    /** @return a request already complete with {@code status} */
    Request<Status> done(final Status status) {
        return Request.of(CompletableFuture.completedFuture(status), completion);
    }

    /** Takes no new accesses; those begun finish. */
    void shutdown() {
        workers.shutdown();
    }
}
