package org.pario.comm.internal.tcp;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Promise;
import io.netty.util.internal.ThreadExecutorMap;
import org.pario.comm.settings.CommSettings;

/**
 * One event loop for all of a rank's connections, driven by whichever thread waits for a message. A thread that
 * waits ({@link #driveUntil}) polls the sockets itself, so the message it waits for is read, matched and delivered
 * on its own thread: nobody else has to be woken first, and waking a thread on a virtual machine costs as much as
 * the message itself (a bare Netty ping-pong between two JVMs takes twice as long with an event-loop thread as
 * with a waiter that polls). Netty's own {@code ManualIoEventLoop} is tied to one
 * thread for its lifetime, so this loop lets the thread that drives it change: one at a time, under a lock, and
 * {@link #inEventLoop(Thread)} is true only for the thread driving it at that moment.
 *
 * <p>A waiter first polls without blocking for setting {@code tightPollNanos}, then sleeps in the poll itself
 * until its message, a task or another waiter wakes it, or its time is over. Where ranks outnumber cores it yields
 * its core between polls instead, for a window that follows its recent waits ({@link #crowdedMaxNanos}), as a
 * tight poll would keep the sender off the core and sleeping at once would cost a wake-up per message; only a waiter
 * whose sender is at work on the message already keeps its core a few microseconds first ({@link
 * #crowdedSpinNanos}). While a message is part way through a connection,
 * both windows, and the waiter's time, count from the last event it handled: a large message arrives in pieces,
 * and a receiver that slept between them was woken for each (plain Java sockets that poll move 16 MiB between two
 * JVMs as fast as the C stacks do, and a quarter slower when they block). Counting every event that way kept
 * waiting ranks polling on unrelated traffic, taking the cores of 4 ranks on 2 from the rank with work.
 *
 * <p>When nobody waits, a background thread drives the loop, blocking in the poll as an ordinary event loop does.
 * A waiter that arrives while it blocks wakes it and takes over once it has let go. After a wait that ended with
 * its message the background thread holds back for setting {@code loopLingerNanos} (default 100 µs), because
 * another wait usually follows at once and taking the loop back would cost a wake-up each time. A waiter whose time
 * is over hands the loop back to the background thread at once, and tasks submitted while nobody drives wake it as
 * well. While a thread drives the loop the background thread sleeps, looking again every 1 ms while the rank owes
 * its peers progress that nobody may wait for (a rendezvous send whose receiver will ask for the data, a write
 * Netty has not finished; the last waiter to leave then wakes it, and so does such work begun while nobody waits),
 * and otherwise only every quiet period: each of its wake-ups preempts the thread at work on its core. So an event
 * that arrives after a wait, while nobody waits and nothing is owed, waits for the next wait or at most the quiet
 * period, as in MPI libraries without a progress thread. The measurements behind each window are in
 * docs/history/benchmarks-2026-11.md.
 *
 * <p>A thread that drives the loop must not block in a callback; one that waits again from inside a callback
 * (already driving) only checks, as it cannot drive the loop twice.
 */
final class DrivenEventLoop extends AbstractScheduledEventExecutor implements IoEventLoop {
    private final long lingerNanos;
    /**
     * How long the background thread sleeps while some thread drives the loop before it looks again, when the rank
     * owes its peers progress ({@link #owes}).
     */
    private static final long WAITED_ON_NANOS = 1_000_000L;
    /**
     * How long a waiter polls without blocking before it sleeps in the poll (setting {@code tightPollNanos},
     * default 200 µs), where ranks do not outnumber cores. Shorter windows feed on themselves: a waiter that slept
     * answers late, so its peer's next wait outlasts the window and it sleeps too. The first byte of a message of a
     * MiB comes more than 50 µs after its sender starts packing it, so shorter windows made every such wait end
     * asleep and cost a wake-up. Yielding between polls instead of sleeping kept the poller's core from the sender
     * whenever the scheduler had put both on one core.
     */
    private final long tightNanos;
    /**
     * How long a waiter polls, yielding its core between polls, before it sleeps in the poll
     * (setting {@code crowdedPollNanos}, default 200 µs), where ranks outnumber cores. A sleeping rank costs its
     * sender a wake-up per message and itself a switch back in; a yielding one hands its core to whichever rank
     * there has work and is found by the next poll, as a plain C program of the same barrier shows too. 0 sleeps at
     * once.
     */
    private final long crowdedNanos;
    /**
     * The longest a crowded waiter yields before it sleeps (setting {@code crowdedPollMaxNanos}, default 1 ms): its
     * window is half as long again as the longest of its recent waits, at least {@link #crowdedNanos}. A wait as long
     * as the window often ended asleep and paid a wake-up, while fixed long windows slowed short waits.
     */
    private final long crowdedMaxNanos;
    /**
     * How long a crowded waiter polls without yielding before it starts to yield, when its message's sender is at
     * work on it already ({@code prompt}; setting {@code crowdedSpinNanos}, default 3 µs): the sender holds a core,
     * and a yield hands this waiter's core to a rank that does not owe it anything, which keeps it until it waits in
     * turn: in a linear bcast the rank released first got the first message and ended last, while ranks released
     * later took its core. Keeping the core in every crowded wait slowed the collectives through rank 0 by half, as
     * its waits for the others' messages kept a core they needed.
     */
    private final long crowdedSpinNanos;
    /** The longest recent wait that ended with its future done, decaying by an eighth with each later one. */
    private volatile long recentWaitNanos;
    /**
     * The longest a waiter drives the loop in one go while events keep coming (its time counts from the last event,
     * see {@link #driveUntil}): long enough for a large message to arrive whole, short enough that a timed wait
     * on a busy rank still gets to block on its own deadline.
     */
    static final long DRIVE_LIMIT_NANOS = 20_000_000L;
    /** A future that never completes: for a pass that waits for nothing in particular. */
    private static final CompletableFuture<Void> NEVER = new CompletableFuture<>();
    private static final int RUNNING = 0;
    private static final int SHUTTING_DOWN = 1;
    private static final int TERMINATED = 2;

    private final IoHandler handler;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Held by the thread that drives the loop; never taken twice by one thread (see {@link #driveUntil}). */
    private final ReentrantLock driving = new ReentrantLock();
    private final AtomicInteger state = new AtomicInteger(RUNNING);
    private final Promise<Void> termination = new DefaultPromise<>(GlobalEventExecutor.INSTANCE);
    private final Thread background;
    /**
     * Whether this rank owes its peers progress that needs the loop driven even when no thread waits: a rendezvous
     * send waiting for its receiver's request, or a write Netty has not finished.
     */
    private final BooleanSupplier owes;
    /** Whether a message is part way through a connection now (see {@link #driveUntil}). */
    private final BooleanSupplier moving;
    /** How long the background thread sleeps at a time while some thread drives the loop and nothing is owed. */
    private final long quietNanos;
    /** The longest a waiter drives in one go while events keep coming ({@link #DRIVE_LIMIT_NANOS} but in tests). */
    private final long driveLimitNanos;
    /** Threads in {@link #driveUntil}: while any, the background thread stays out of the way. */
    private final AtomicInteger waiters = new AtomicInteger();
    private final IoHandlerContext polling = new Context(false);
    private final IoHandlerContext blocking = new Context(true);
    /** The thread inside a pass of the loop, or null. */
    private volatile Thread driver;
    /** When the last wait that ended with its message did so ({@link System#nanoTime()}). */
    private volatile long lastWaitEnded;
    /** Set by a waiter that gave up polling: the background thread takes over without lingering. */
    private volatile boolean handedBack;
    private boolean initialized;

    /**
     * @param factory the transport's I/O handler
     * @param name    the background thread's name
     */
    DrivenEventLoop(final IoHandlerFactory factory, final String name) {
        this(factory, name, () -> true, () -> true, WAITED_ON_NANOS);
    }

    /**
     * @param factory    the transport's I/O handler
     * @param name       the background thread's name
     * @param owes       whether the rank owes its peers progress now (see {@link #owing()})
     * @param moving     whether a message is on its way in or out now, part of it read or written: a waiter's
     *                   windows then count from the last event it handled (see {@link #driveUntil})
     * @param quietNanos how long the background thread sleeps at a time while a thread drives the loop and nothing
     *                   is owed
     */
    DrivenEventLoop(final IoHandlerFactory factory, final String name, final BooleanSupplier owes,
                    final BooleanSupplier moving, final long quietNanos) {
        this(factory, name, owes, moving, quietNanos, DRIVE_LIMIT_NANOS, CommSettings.defaults());
    }

    /**
     * As above, with the longest a waiter drives in one go while events keep coming: tests stretch it, with the
     * windows they wait for, beyond what a busy machine may keep a thread off its core.
     */
    DrivenEventLoop(final IoHandlerFactory factory, final String name, final BooleanSupplier owes,
                    final BooleanSupplier moving, final long quietNanos, final long driveLimitNanos) {
        this(factory, name, owes, moving, quietNanos, driveLimitNanos, CommSettings.defaults());
    }

    /** As above, with the waiters' windows from {@code settings}. */
    DrivenEventLoop(final IoHandlerFactory factory, final String name, final BooleanSupplier owes,
                    final BooleanSupplier moving, final long quietNanos, final long driveLimitNanos,
                    final CommSettings settings) {
        this.lingerNanos = settings.loopLingerNanos();
        this.tightNanos = settings.tightPollNanos();
        this.crowdedNanos = settings.crowdedPollNanos();
        this.crowdedMaxNanos = settings.crowdedPollMaxNanos();
        this.crowdedSpinNanos = settings.crowdedSpinNanos();
        this.lastWaitEnded = System.nanoTime() - lingerNanos;
        this.owes = owes;
        this.moving = moving;
        this.quietNanos = quietNanos;
        this.driveLimitNanos = driveLimitNanos;
        this.handler = factory.newHandler(this);
        this.background = new Thread(this::drive, name);
        background.setDaemon(true);
        background.start();
    }

    /**
     * Drives the loop until {@code f} is done or {@code nanos} have passed: polling for {@link #tightNanos} first,
     * or for {@link #crowdedNanos} yielding the core between polls if {@code crowded}, then sleeping in the poll.
     * While a message is part way through a connection ({@code moving}), both count from the last event handled
     * instead, up to {@link #DRIVE_LIMIT_NANOS} in all. While another thread drives the loop, or once it is shut
     * down, only checks, for {@code nanos}.
     *
     * @param f       what the caller waits for
     * @param nanos   how long to drive without an event
     * @param crowded whether this host runs more ranks than it has cores: then the waiter yields its core between
     *                polls, as a tight poll would keep the sender of the awaited message off the core
     * @param prompt  whether the sender is at work on the message already: then a crowded waiter yields only after
     *                {@link #crowdedSpinNanos}
     */
    void driveUntil(final CompletableFuture<?> f, final long nanos, final boolean crowded, final boolean prompt) {
        if (f.isDone() || nanos <= 0) {
            return;
        }
        final long begin = System.nanoTime();
        final long limit = begin + Math.max(nanos, driveLimitNanos);
        long until = begin + nanos;
        if (driver == Thread.currentThread() || state.get() != RUNNING) {
            while (!f.isDone() && System.nanoTime() - until < 0) {
                Thread.yield();
            }
            return;
        }
        waiters.incrementAndGet();
        boolean done = false;
        try {
            // takes the loop from the background thread if it blocks in the poll (a no-op when nobody blocks)
            handler.wakeup();
            final long pollNanos = !crowded ? tightNanos : crowdedNanos <= 0 ? 0
                : Math.max(crowdedNanos, Math.min(crowdedMaxNanos, recentWaitNanos + recentWaitNanos / 2));
            // when the last pass handled an event: the windows for polling and for driving count from there, so a
            // waiter whose message arrives in pieces (a large one, read as the sender writes it) keeps polling
            // until it is complete instead of sleeping between pieces and being woken for each
            long lastWork = begin;
            // null while the waiter still polls without blocking
            WaiterContext sleeping = pollNanos <= 0 ? new WaiterContext(until) : null;
            while (true) {
                int work = tryPass(polling, f);
                if (f.isDone()) {
                    done = true;
                    return;
                }
                if (work <= 0 && sleeping != null) {
                    work = tryPass(sleeping, f);
                    if (f.isDone()) {
                        done = true;
                        return;
                    }
                    if (work < 0) {
                        // another thread drives the loop, and delivers this thread's message too
                        Thread.yield();
                    }
                }
                final long now = System.nanoTime();
                if (work > 0 && moving.getAsBoolean()) {
                    // only while a message is part way through: a waiter that kept polling on every unrelated event
                    // took the cores of 4 ranks on 2 from the rank that had work (collective reads 12-15% slower)
                    lastWork = now;
                    until = Math.min(Math.max(until, now + nanos), limit);
                    sleeping = pollNanos <= 0 ? new WaiterContext(until) : null;
                }
                if (now - until >= 0) {
                    return;
                }
                if (work <= 0 && sleeping == null) {
                    if (now - lastWork > pollNanos) {
                        sleeping = new WaiterContext(until);
                    } else if (crowded && (!prompt || now - begin > crowdedSpinNanos)) {
                        // the rank that owes this one a message may be waiting for this very core
                        Thread.yield();
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }
        } finally {
            if (done) {
                lastWaitEnded = System.nanoTime();
                final long recent = recentWaitNanos;
                recentWaitNanos = Math.max(lastWaitEnded - begin, recent - recent / 8);
            } else {
                handedBack = true;
            }
            if (waiters.decrementAndGet() == 0 && (!done || !tasks.isEmpty() || owes.getAsBoolean())) {
                LockSupport.unpark(background);
            }
        }
    }

    /**
     * One pass of the loop without blocking, unless another thread drives it (or this one, from inside a callback):
     * lets a thread that is busy with something else, such as packing the next piece of a message, move on what the
     * sockets are ready for, among them the rest of the pieces it wrote.
     */
    void pollOnce() {
        if (driver != Thread.currentThread() && state.get() == RUNNING) {
            tryPass(polling, NEVER);
        }
    }

    /**
     * The rank now owes its peers progress ({@code owes} says so from now on): when no thread waits, the background
     * thread must drive the loop soon, not at the end of a quiet sleep.
     */
    void owing() {
        if (waiters.get() == 0) {
            LockSupport.unpark(background);
        }
    }

    /**
     * One pass with {@code context} unless another thread drives the loop, {@code f} is done or the loop is shut
     * down.
     *
     * @return the events and tasks handled, or -1 when another thread drives the loop
     */
    private int tryPass(final IoHandlerContext context, final CompletableFuture<?> f) {
        if (!driving.tryLock()) {
            return -1;
        }
        try {
            return state.get() == RUNNING && !f.isDone() ? pass(context) : 0;
        } finally {
            driving.unlock();
        }
    }

    /** The background thread: drives the loop whenever no waiter does, until the loop is shut down. */
    private void drive() {
        while (true) {
            final long lingerLeft = lingerNanos - (System.nanoTime() - lastWaitEnded);
            if (state.get() == RUNNING && (waiters.get() > 0
                || !handedBack && lingerLeft > 0 && tasks.isEmpty())) {
                // a waiter that leaves without its message or while the rank owes progress, a task submitted
                // while nobody drives, or owing() unparks it
                LockSupport.parkNanos(this, waiters.get() == 0 ? lingerLeft
                    : owes.getAsBoolean() ? WAITED_ON_NANOS : quietNanos);
                continue;
            }
            handedBack = false;
            driving.lock();
            try {
                if (state.get() != RUNNING) {
                    finish();
                    return;
                }
                pass(blocking);
            } catch (Throwable t) {
                // a failing pass must not end the loop: Netty's own loops log and go on the same way
                System.getLogger(DrivenEventLoop.class.getName()).log(System.Logger.Level.WARNING,
                    "unexpected failure in the event loop", t);
            } finally {
                driving.unlock();
            }
        }
    }

    /** One pass: ready I/O, then due scheduled tasks, then submitted tasks (caller holds the lock). */
    private int pass(final IoHandlerContext context) {
        driver = Thread.currentThread();
        final EventExecutor previous = ThreadExecutorMap.setCurrentExecutor(this);
        try {
            if (!initialized) {
                initialized = true;
                handler.initialize();
            }
            return handler.run(context) + runTasks();
        } finally {
            ThreadExecutorMap.setCurrentExecutor(previous);
            driver = null;
        }
    }

    private int runTasks() {
        int ran = 0;
        final long now = getCurrentTimeNanos();
        for (Runnable due = pollScheduledTask(now); due != null; due = pollScheduledTask(now)) {
            safeExecute(due);
            ran++;
        }
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            safeExecute(task);
            ran++;
        }
        return ran;
    }

    /** Closes every registration, runs what that submits, and frees the handler (background thread, locked). */
    private void finish() {
        driver = Thread.currentThread();
        try {
            runTasks();
            handler.prepareToDestroy();
            while (runTasks() > 0) {
                continue;
            }
            handler.destroy();
            while (runTasks() > 0) {
                continue;
            }
            cancelScheduledTasks();
        } finally {
            driver = null;
            state.set(TERMINATED);
            termination.setSuccess(null);
        }
    }

    @Override
    public boolean inEventLoop(final Thread thread) {
        return driver == thread;
    }

    @Override
    public void execute(final Runnable task) {
        if (state.get() == TERMINATED) {
            throw new RejectedExecutionException("the event loop is shut down");
        }
        tasks.add(task);
        if (!inEventLoop()) {
            handler.wakeup();
            if (waiters.get() == 0) {
                LockSupport.unpark(background);
            }
        }
    }

    @Override
    public DrivenEventLoop next() {
        return this;
    }

    @Override
    public DrivenEventLoop parent() {
        return this;
    }

    @Override
    @Deprecated
    public ChannelFuture register(final Channel channel) {
        return register(new DefaultChannelPromise(channel, this));
    }

    @Override
    public ChannelFuture register(final ChannelPromise promise) {
        promise.channel().unsafe().register(this, promise);
        return promise;
    }

    @Override
    @Deprecated
    public ChannelFuture register(final Channel channel, final ChannelPromise promise) {
        channel.unsafe().register(this, promise);
        return promise;
    }

    @Override
    public Future<IoRegistration> register(final IoHandle handle) {
        final Promise<IoRegistration> promise = newPromise();
        if (inEventLoop()) {
            registerNow(handle, promise);
        } else {
            execute(() -> registerNow(handle, promise));
        }
        return promise;
    }

    private void registerNow(final IoHandle handle, final Promise<IoRegistration> promise) {
        try {
            promise.setSuccess(handler.register(handle));
        } catch (Exception e) {
            promise.setFailure(e);
        }
    }

    @Override
    public boolean isCompatible(final Class<? extends IoHandle> handleType) {
        return handler.isCompatible(handleType);
    }

    @Override
    public boolean isIoType(final Class<? extends IoHandler> handlerType) {
        return handler.getClass().equals(handlerType);
    }

    /** Shuts down at once: the quiet period is not waited for, as nothing is submitted after a fabric closes. */
    @Override
    public Future<?> shutdownGracefully(final long quietPeriod, final long timeout, final TimeUnit unit) {
        if (state.compareAndSet(RUNNING, SHUTTING_DOWN)) {
            handler.wakeup();
            LockSupport.unpark(background);
        }
        return termination;
    }

    @Override
    @Deprecated
    public void shutdown() {
        shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    @Override
    public Future<?> terminationFuture() {
        return termination;
    }

    @Override
    public boolean isShuttingDown() {
        return state.get() != RUNNING;
    }

    @Override
    public boolean isShutdown() {
        return state.get() != RUNNING;
    }

    @Override
    public boolean isTerminated() {
        return state.get() == TERMINATED;
    }

    @Override
    public boolean awaitTermination(final long timeout, final TimeUnit unit) throws InterruptedException {
        return termination.await(timeout, unit);
    }

    /**
     * A waiter sleeping in the poll itself until its wait is over, unless its message, a task or another waiter
     * comes: the message then wakes this thread, nobody else has to run first.
     */
    private final class WaiterContext implements IoHandlerContext {
        /** When the wait is over ({@link System#nanoTime()}). */
        private final long until;

        WaiterContext(final long until) {
            this.until = until;
        }

        @Override
        public boolean canBlock() {
            return tasks.isEmpty() && waiters.get() <= 1 && state.get() == RUNNING;
        }

        @Override
        public long delayNanos(final long currentTimeNanos) {
            return Math.max(0, Math.min(until - currentTimeNanos,
                DrivenEventLoop.this.delayNanos(currentTimeNanos, Long.MAX_VALUE)));
        }

        @Override
        public long deadlineNanos() {
            // in the scheduler's time base; never "none", or the poll would not time out
            final long mine = until - ticker().initialNanoTime();
            final long next = nextScheduledTaskDeadlineNanos();
            return next == -1 ? mine : Math.min(mine, next);
        }
    }

    /** What the I/O handler may do in a pass: block in the poll (background thread) or only look (waiters). */
    private final class Context implements IoHandlerContext {
        private final boolean mayBlock;

        Context(final boolean mayBlock) {
            this.mayBlock = mayBlock;
        }

        @Override
        public boolean canBlock() {
            // read after the handler announced that it is about to block, so a waiter's wake-up is never lost
            return mayBlock && tasks.isEmpty() && waiters.get() == 0 && state.get() == RUNNING;
        }

        @Override
        public long delayNanos(final long currentTimeNanos) {
            // scheduled deadlines count from the ticker's start, not System.nanoTime's; the base class converts
            return mayBlock ? DrivenEventLoop.this.delayNanos(currentTimeNanos, TimeUnit.SECONDS.toNanos(1)) : 0;
        }

        @Override
        public long deadlineNanos() {
            return mayBlock ? nextScheduledTaskDeadlineNanos() : -1;
        }
    }
}
