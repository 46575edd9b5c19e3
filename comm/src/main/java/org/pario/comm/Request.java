package org.pario.comm;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.Fabric;
import org.pario.comm.internal.Waiting;

/**
 * A nonblocking operation in progress ({@code MPI_Request}). The caller must not touch the operation's buffers
 * until it completes. {@link #join()} waits and rethrows the operation's {@link ParioException};
 * {@link #toCompletableFuture()} gives a future that completes on Pario's completion executor, never on a
 * transport thread.
 *
 * @param <T> the result: a {@link Status} for receives, nothing ({@code Void}) for most others
 */
public final class Request<T> {
    private final CompletableFuture<T> future;
    private final Executor completion;
    /** The transport whose messages complete the operation, or null: how {@link #join()} waits before blocking. */
    private final Fabric fabric;
    /** Whether the awaited message's sender is at work on it already ({@link #sentPromptly}). */
    private final boolean prompt;

    Request(final CompletableFuture<T> future, final Executor completion, final Fabric fabric) {
        this(future, completion, fabric, false);
    }

    private Request(final CompletableFuture<T> future, final Executor completion, final Fabric fabric,
                    final boolean prompt) {
        this.future = future;
        this.completion = completion;
        this.fabric = fabric;
        this.prompt = prompt;
    }

    /**
     * @return this operation, waited for as one whose message its sender sends as soon as it enters the call, needing
     *     nothing from other ranks first (a linear broadcast's root): {@link Fabric#waitBriefly(CompletableFuture,
     *     boolean)}
     */
    Request<T> sentPromptly() {
        return new Request<>(future, completion, fabric, true);
    }

    /**
     * Wraps a future as a request, for layers built on the communicator (files, for instance).
     *
     * @param future     the operation's outcome
     * @param completion where {@link #toCompletableFuture()} completes its dependents
     * @param <T>        the result type
     * @return the request
     */
    public static <T> Request<T> of(final CompletableFuture<T> future, final Executor completion) {
        return new Request<>(future, completion, null);
    }

    /** @return true once the operation has completed, successfully or not ({@code MPI_Test}) */
    public boolean test() {
        return future.isDone();
    }

    /**
     * Waits for the operation ({@code MPI_Wait}).
     *
     * @return its result
     * @throws ParioException the operation's failure
     */
    public T join() {
        try {
            return Waiting.await(future, fabric, prompt);
        } catch (CompletionException e) {
            throw unwrap(e.getCause());
        }
    }

    /**
     * Waits at most the given time.
     *
     * @param timeout how long
     * @param unit    unit of timeout
     * @return the result
     * @throws ParioException the operation's failure, or {@link ErrorCategory#TIMEOUT}
     */
    public T join(final long timeout, final TimeUnit unit) {
        try {
            Waiting.spin(future, fabric, prompt);
            return future.get(timeout, unit);
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        } catch (TimeoutException e) {
            throw new ParioException(ErrorCategory.TIMEOUT, "operation did not complete within " + timeout + " "
                + unit.name().toLowerCase(java.util.Locale.ROOT));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ParioException(ErrorCategory.TIMEOUT, "interrupted while waiting", e);
        }
    }

    /** @return a future completed on Pario's completion executor with this request's outcome */
    public CompletableFuture<T> toCompletableFuture() {
        return future.thenApplyAsync(v -> v, completion);
    }

    static ParioException unwrap(final Throwable t) {
        if (t instanceof ParioException p) {
            return new ParioException(p.category(), p.getMessage(), p);
        }
        return new ParioException(ErrorCategory.IO, String.valueOf(t), t);
    }

    /**
     * Waits for every request ({@code MPI_Waitall}); all are waited for even when one fails.
     *
     * @param requests the requests
     * @throws ParioException the first failure, after all have completed
     */
    public static void joinAll(final Request<?>... requests) {
        ParioException first = null;
        for (final Request<?> r : requests) {
            try {
                r.join();
            } catch (ParioException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
