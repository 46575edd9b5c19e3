package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoopGroup;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.Fabric;

/**
 * A rank's connections to its peers, as its senders see them: one outbound connection per peer, written through its
 * {@link Gate}; a failed write makes the peer depart; direct buffers for frames come from the rank's spares.
 */
final class Links {
    /** The gate every frame to an outbound connection passes. */
    private static final AttributeKey<Gate> GATE = AttributeKey.valueOf("pario.gate");
    /** How long a failed write waits for the peer's own word on why it left (see {@link #failedSend}). */
    private static final long SEND_FAILURE_GRACE_MILLIS = 100;

    private final int rank;
    private final Fabric fabric;
    private final Channel[] outbound;
    private final EventLoopGroup group;
    private final SpareBuffers spares;
    /** Set once the rank has closed its connections. */
    private final AtomicBoolean closed = new AtomicBoolean();

    Links(final int rank, final Fabric fabric, final EventLoopGroup group, final SpareBuffers spares) {
        this.rank = rank;
        this.fabric = fabric;
        this.outbound = new Channel[fabric.size()];
        this.group = group;
        this.spares = spares;
    }

    int rank() {
        return rank;
    }

    /** @return the fabric whose peers these are: who departed, and why */
    Fabric fabric() {
        return fabric;
    }

    /** Records the outbound connection to {@code peer}. */
    void connected(final int peer, final Channel ch) {
        outbound[peer] = ch;
    }

    /** @return the outbound connection to {@code peer} */
    Channel channel(final int peer) {
        return outbound[peer];
    }

    /** @return every outbound connection, null for this rank's own */
    Channel[] channels() {
        return outbound.clone();
    }

    ByteBufAllocator alloc(final int peer) {
        return outbound[peer].alloc();
    }

    /** Gives an outbound connection the gate its frames pass. */
    static void attach(final Channel ch, final Gate gate) {
        ch.attr(GATE).set(gate);
    }

    static Gate gate(final Channel outboundChannel) {
        return outboundChannel.attr(GATE).get();
    }

    Gate gate(final int peer) {
        return gate(outbound[peer]);
    }

    /** Writes a frame to rank {@code dest}'s connection, through its {@link Gate}. */
    void write(final int dest, final ByteBuf frame, final ChannelFutureListener listener) {
        gate(outbound[dest]).write(frame, listener);
    }

    /** Writes a frame to rank {@code dest}'s connection; a failure makes {@code dest} depart. */
    void write(final int dest, final ByteBuf frame) {
        write(dest, frame, f -> failedSend(dest, f));
    }

    /** @return whether the rank has closed its connections */
    boolean closed() {
        return closed.get();
    }

    /** @return true for the one caller that closes the connections */
    boolean close() {
        return closed.compareAndSet(false, true);
    }

    /**
     * A write to {@code dest} failed: it departs, but only {@link #SEND_FAILURE_GRACE_MILLIS} later. A peer that
     * leaves after an error says why (ABORT) on its own connection before it closes ours, and that reason, naming
     * the rank that failed first, is what the caller must hear; a write can fail before anyone has read it.
     */
    void failedSend(final int dest, final Future<? super Void> f) {
        if (!f.isSuccess() && !closed.get()) {
            final IOException failure = new IOException("sending to rank " + dest + " failed: " + f.cause());
            try {
                group.schedule(() -> fabric.depart(dest, failure), SEND_FAILURE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                fabric.depart(dest, failure);
            }
        }
    }

    /** @return why a message of {@code bytes} to {@code dest} was not sent: the rank's loss, if it is lost */
    ParioException sendFailed(final int dest, final long bytes, final Throwable cause) {
        final ParioException lostRank = fabric.failureIn(new int[] {dest});
        return lostRank != null ? lostRank : new ParioException(ErrorCategory.TRANSPORT, "rank " + rank
            + " could not send the data of a message of " + bytes + " bytes to rank " + dest + ": " + cause, cause);
    }

    /**
     * @return a direct buffer of at least {@code size} bytes for a message of {@code messageBytes} to {@code dest}
     * @throws ParioException (MEMORY) when the JVM's direct memory is exhausted: "rank R has no direct memory left
     *     to VERB a message of N bytes for rank D" and the {@code detail}
     */
    ByteBuf direct(final int size, final String verb, final long messageBytes, final int dest, final String detail) {
        try {
            return spares.take(size);
        } catch (OutOfMemoryError e) {
            throw new ParioException(ErrorCategory.MEMORY, "rank " + rank + " has no direct memory left to " + verb
                + " a message of " + messageBytes + " bytes for rank " + dest + detail + ": " + e.getMessage(), e);
        }
    }

    /** Gives a buffer taken with {@link #direct} back once its writes are done with it. */
    void give(final ByteBuf buffer) {
        spares.give(buffer);
    }

    /** Moves on what the sockets have not taken yet, on this thread, when waiting threads drive the loop. */
    void pollOnce() {
        if (group instanceof DrivenEventLoop loop) {
            loop.pollOnce();
        }
    }

    /** Tells the loop the rank owes progress no waiting thread may drive (a rendezvous send's request). */
    void owing() {
        if (group instanceof DrivenEventLoop loop) {
            loop.owing();
        }
    }
}
