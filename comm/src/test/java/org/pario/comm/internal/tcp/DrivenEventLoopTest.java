package org.pario.comm.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The event loop that waiting threads drive: tasks and timers run whether or not anyone waits, a waiting thread
 * runs them itself, only one thread drives at a time, a wait from inside the loop does not drive it twice, the
 * background thread sleeping while a waiter drives is woken when the rank owes progress and nobody waits, and a
 * shut-down loop refuses work. Socket traffic through it is covered by every test over the TCP transport.
 */
@Timeout(60)
class DrivenEventLoopTest {
    private DrivenEventLoop loop;

    @BeforeEach
    void start() {
        loop = new DrivenEventLoop(Transports.chosen("auto").handlers(), "test-loop");
    }

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }

    @Test
    void aTaskRunsOnTheLoopWhenNobodyWaits() throws Exception {
        final CompletableFuture<Boolean> inLoop = new CompletableFuture<>();
        loop.execute(() -> inLoop.complete(loop.inEventLoop()));
        assertTrue(inLoop.get(10, TimeUnit.SECONDS));
        assertFalse(loop.inEventLoop(), "the test thread does not drive the loop");
    }

    @Test
    void aTimerFiresWhenNobodyWaits() throws Exception {
        final CompletableFuture<Boolean> fired = new CompletableFuture<>();
        loop.schedule(() -> fired.complete(loop.inEventLoop()), 20, TimeUnit.MILLISECONDS);
        assertTrue(fired.get(10, TimeUnit.SECONDS));
    }

    @Test
    void waitingThreadsRunTasksThemselvesOneAtATime() throws Exception {
        final Thread waiter = Thread.currentThread();
        final AtomicInteger onWaiter = new AtomicInteger();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final int rounds = 2000;
        for (int i = 0; i < rounds; i++) {
            final CompletableFuture<Thread> ranOn = new CompletableFuture<>();
            final Thread submitter = new Thread(() -> loop.execute(() -> {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                ranOn.complete(Thread.currentThread());
                inside.decrementAndGet();
            }));
            submitter.start();
            loop.driveUntil(ranOn, TimeUnit.SECONDS.toNanos(1), false, false);
            final Thread t = ranOn.get(10, TimeUnit.SECONDS);
            submitter.join();
            if (t == waiter) {
                onWaiter.incrementAndGet();
            }
        }
        assertEquals(0, overlaps.get(), "two threads drove the loop at once");
        // the background thread holds back after a wait that ended well, so the waiter runs nearly all of them
        assertTrue(onWaiter.get() > 0, "no task ran on the waiting thread in " + rounds + " rounds");
    }

    /** Prompt or not (a crowded waiter that first keeps its core for a few µs), it goes on to yield, then sleep. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aWaiterSleepingInThePollWakesForATask(final boolean prompt) throws Exception {
        final CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        final Thread waiter = Thread.currentThread();
        final long start = System.nanoTime();
        final Thread submitter = new Thread(() -> {
            // submits once the waiter drives the loop and has polled (crowded: yielding) far longer than it polls
            // before it sleeps, so that it is asleep in the poll
            while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(20) || !loop.inEventLoop(waiter)) {
                Thread.onSpinWait();
            }
            loop.execute(() -> ranOn.complete(Thread.currentThread()));
        });
        submitter.start();
        // sleeps in the poll for up to 30 s unless the task's wake-up reaches it
        loop.driveUntil(ranOn, TimeUnit.SECONDS.toNanos(30), true, prompt);
        final long waitedMillis = (System.nanoTime() - start) / 1_000_000;
        submitter.join();
        assertTrue(ranOn.isDone());
        assertTrue(waitedMillis < 20_000, "the task's wake-up was lost: the waiter slept " + waitedMillis + " ms");
        assertEquals(Thread.currentThread(), ranOn.get(), "the sleeping waiter ran the task itself");
    }

    @Test
    void aWaitFromInsideTheLoopOnlyChecks() throws Exception {
        final CompletableFuture<String> outcome = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                loop.driveUntil(new CompletableFuture<>(), TimeUnit.MILLISECONDS.toNanos(5), false, false);
                outcome.complete("returned");
            } catch (RuntimeException e) {
                outcome.complete(e.toString());
            }
        });
        assertEquals("returned", outcome.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aWaitThatGivesUpHandsTheLoopBack() throws Exception {
        loop.driveUntil(new CompletableFuture<>(), TimeUnit.MILLISECONDS.toNanos(2), false, false);
        final CountDownLatch ran = new CountDownLatch(1);
        final CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        loop.execute(() -> {
            ranOn.complete(Thread.currentThread());
            ran.countDown();
        });
        assertTrue(ran.await(10, TimeUnit.SECONDS));
        assertNotEquals(Thread.currentThread(), ranOn.get());
    }

    /**
     * A wait's time counts from the last event it handled: while events keep coming (the pieces of a large message)
     * the waiter keeps driving past its time instead of leaving the loop to be woken for each; without events, or
     * once the overall limit is reached, it leaves.
     */
    @Test
    void aWaiterKeepsDrivingWhileEventsKeepComingButNotForever() throws Exception {
        // windows far longer than a busy machine keeps a thread off its core, so only sliding decides the outcome
        final long window = TimeUnit.MILLISECONDS.toNanos(40);
        final long driveLimit = TimeUnit.MILLISECONDS.toNanos(400);
        final DrivenEventLoop sliding = new DrivenEventLoop(Transports.chosen("auto").handlers(), "sliding-loop",
            () -> true, () -> true, TimeUnit.MILLISECONDS.toNanos(1), driveLimit);
        try {
            final AtomicInteger onWaiter = new AtomicInteger();
            final Thread waiter = Thread.currentThread();
            // a chain of timers 2 ms apart, each set by the one before, 200 ms in all: the events come from the loop
            // itself, so their gaps do not depend on how another thread is scheduled. A link that fires on the
            // background thread (before the waiter took the loop) sets the next one without counting.
            final int links = 100;
            final AtomicBoolean chaining = new AtomicBoolean(true);
            final Runnable[] link = new Runnable[1];
            link[0] = () -> {
                if (chaining.get() && (Thread.currentThread() != waiter || onWaiter.incrementAndGet() < links)) {
                    sliding.schedule(link[0], 2, TimeUnit.MILLISECONDS);
                }
            };
            sliding.schedule(link[0], 2, TimeUnit.MILLISECONDS);
            sliding.driveUntil(new CompletableFuture<>(), window, false, false);
            chaining.set(false);
            // without sliding it would leave after its window, having run twenty or so of them
            assertTrue(onWaiter.get() >= 60, "the waiter ran only " + onWaiter.get() + " events itself");
            // no events: it leaves after its window
            final long quiet = System.nanoTime();
            sliding.driveUntil(new CompletableFuture<>(), window, false, false);
            final long waited = System.nanoTime() - quiet;
            assertTrue(waited >= window && waited < TimeUnit.SECONDS.toNanos(5), "waited " + waited + " ns");
            // events without end: it leaves at the overall limit all the same
            final AtomicBoolean feeding = new AtomicBoolean(true);
            final Runnable[] endless = new Runnable[1];
            endless[0] = () -> {
                if (feeding.get()) {
                    sliding.schedule(endless[0], 1, TimeUnit.MILLISECONDS);
                }
            };
            sliding.schedule(endless[0], 1, TimeUnit.MILLISECONDS);
            final long busy = System.nanoTime();
            sliding.driveUntil(new CompletableFuture<>(), window, false, false);
            final long drove = System.nanoTime() - busy;
            feeding.set(false);
            assertTrue(drove >= driveLimit && drove < TimeUnit.SECONDS.toNanos(5), "drove " + drove + " ns");
        } finally {
            sliding.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aShutDownLoopTerminatesAndRefusesWork() throws Exception {
        final CompletableFuture<Boolean> last = new CompletableFuture<>();
        loop.execute(() -> last.complete(true));
        assertTrue(loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
        assertTrue(loop.isTerminated());
        assertTrue(last.get(1, TimeUnit.SECONDS), "a task submitted before the shutdown ran");
        assertThrows(RejectedExecutionException.class, () -> loop.execute(() -> { }));
        final CompletableFuture<Void> never = new CompletableFuture<>();
        loop.driveUntil(never, TimeUnit.MILLISECONDS.toNanos(1), false, false);
        assertFalse(never.isDone());
    }

    @Test
    void aWaiterThatLeavesWhileTheRankOwesProgressWakesTheSleepingBackgroundThread() throws Exception {
        final AtomicBoolean owes = new AtomicBoolean();
        final DrivenEventLoop quiet = quietLoop(owes);
        try {
            final CompletableFuture<Boolean> fired = new CompletableFuture<>();
            driveUntilATimerIsSet(quiet, fired, () -> owes.set(true));
            // nobody waits now: only the background thread, which the waiter had to wake, can run the timer
            assertTrue(fired.get(10, TimeUnit.SECONDS));
        } finally {
            quiet.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void owingWakesTheBackgroundThreadFromItsQuietSleep() throws Exception {
        final AtomicBoolean owes = new AtomicBoolean();
        final DrivenEventLoop quiet = quietLoop(owes);
        try {
            final CompletableFuture<Boolean> fired = new CompletableFuture<>();
            driveUntilATimerIsSet(quiet, fired, () -> { });
            owes.set(true);
            quiet.owing();
            assertTrue(fired.get(10, TimeUnit.SECONDS));
        } finally {
            quiet.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    /** A loop whose background thread sleeps an hour at a time while a thread drives it and nothing is owed. */
    private static DrivenEventLoop quietLoop(final AtomicBoolean owes) {
        return new DrivenEventLoop(Transports.chosen("auto").handlers(), "quiet-loop", owes::get, () -> true,
            TimeUnit.HOURS.toNanos(1));
    }

    /**
     * Has a thread drive {@code quiet} until a task, run by that thread once the background thread sleeps, schedules
     * a timer that completes {@code fired} and then lets the waiter go, doing {@code beforeLeaving} first; returns
     * once the waiter has left. The timer is scheduled from inside the loop, which wakes nobody: from then on it runs
     * only when the background thread drives the loop.
     */
    private static void driveUntilATimerIsSet(final DrivenEventLoop quiet, final CompletableFuture<Boolean> fired,
                                              final Runnable beforeLeaving) throws InterruptedException {
        final CompletableFuture<Void> release = new CompletableFuture<>();
        final CountDownLatch driving = new CountDownLatch(1);
        final Thread waiter = new Thread(() -> {
            driving.countDown();
            quiet.driveUntil(release, TimeUnit.SECONDS.toNanos(20), false, false);
        }, "waiter");
        waiter.start();
        assertTrue(driving.await(10, TimeUnit.SECONDS));
        final Thread background = threadNamed("quiet-loop");
        while (background.getState() != Thread.State.TIMED_WAITING || waiter.getState() == Thread.State.NEW) {
            Thread.onSpinWait();
        }
        quiet.execute(() -> {
            quiet.schedule(() -> fired.complete(true), 1, TimeUnit.MILLISECONDS);
            beforeLeaving.run();
            release.complete(null);
        });
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(waiter.isAlive());
    }

    private static Thread threadNamed(final String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst()
            .orElseThrow();
    }
}
