package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.Limits;

/**
 * Every frame written to one outbound connection passes here. When nothing handed to Netty is still unwritten,
 * a frame in direct memory (one buffer, or a header and data in parts) goes straight into the socket from the
 * calling thread: a small message then costs the sender one system call instead of a task for the event loop and
 * the wake-up of its thread. Otherwise, or when the socket takes only part of it, the frame (or its rest) goes
 * through Netty, and frames after it follow it there until Netty has written everything, so frames never
 * interleave. Connections Netty must encode (TLS) or that are not epoll sockets always go through Netty.
 *
 * <p>A thread writing to a socket that another thread closes could write into whatever file reuses the number.
 * So the socket is closed only through {@link #close}, on the event loop while holding this gate's lock, and
 * Netty must never close it on its own: outbound connections run with {@code AUTO_CLOSE} off (a failed write shuts
 * output down instead) and {@code ALLOW_HALF_CLOSURE} on (a read error shuts input down instead).
 */
final class Gate {
    private final Channel channel;
    private final FileDescriptor socket;
    /** Writes handed to Netty and not yet complete; the hello, written by Netty first, counts from the start. */
    private int inNetty = 1;
    /** Set under the lock right before the socket is closed; no direct write starts after it. */
    private boolean closed;
    /** Frames handed to Netty and not yet written, over all of a rank's gates. */
    private final AtomicInteger unwritten;

    /**
     * @param channel   the connection
     * @param direct    whether frames may be written to its socket directly (plain TCP over epoll)
     * @param unwritten frames handed to Netty and not yet written, shared by all of a rank's gates
     */
    Gate(final Channel channel, final boolean direct, final AtomicInteger unwritten) {
        this.channel = channel;
        this.unwritten = unwritten;
        this.socket = direct && channel instanceof EpollSocketChannel e ? e.fd() : null;
    }

    /** The hello has been written (or failed): direct writes may start. */
    synchronized void helloDone() {
        inNetty--;
    }

    /**
     * Writes a frame and flushes it.
     *
     * @param frame    the frame; released here or by Netty
     * @param listener told of the write's outcome when it goes through Netty, and of a failed direct write
     */
    void write(final ByteBuf frame, final ChannelFutureListener listener) {
        ChannelFuture outcome;
        synchronized (this) {
            outcome = writeDirectly(frame);
            if (outcome == null) {
                try {
                    // always as a task, even on the event loop: a write made there at once would overtake writes
                    // other threads queued before it, among them the rest of a frame the socket took only part of
                    inNetty++;
                    unwritten.incrementAndGet();
                    channel.eventLoop().execute(
                        () -> channel.writeAndFlush(frame).addListener(f -> done()).addListener(listener));
                    return;
                } catch (RejectedExecutionException e) {
                    // the loop is shut down: the connection is gone
                    done();
                    frame.release();
                    outcome = channel.newFailedFuture(e);
                }
            }
        }
        try {
            listener.operationComplete(outcome);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Writes the frame into the socket if it may (caller holds the lock).
     *
     * @return the outcome once the whole frame is written or the write failed (the frame is then released), or
     *     null when the frame, or what the socket did not take of it, must go through Netty
     */
    private ChannelFuture writeDirectly(final ByteBuf frame) {
        final boolean parts = !frame.hasMemoryAddress() && frame.nioBufferCount() > 1 && frame.isDirect();
        if (socket == null || inNetty > 0 || closed || !frame.hasMemoryAddress() && !parts || !channel.isActive()) {
            return null;
        }
        try {
            if (parts) {
                // a header and data from elsewhere (the caller's memory): one gathering write takes both
                final ByteBuffer[] buffers = frame.nioBuffers();
                frame.skipBytes((int) socket.writev(buffers, 0, Math.min(buffers.length, Limits.IOV_MAX),
                    Integer.MAX_VALUE));
            } else {
                frame.skipBytes(socket.writeAddress(frame.memoryAddress(), frame.readerIndex(),
                    frame.writerIndex()));
            }
        } catch (IOException e) {
            frame.release();
            return channel.newFailedFuture(e);
        }
        if (frame.isReadable()) {
            return null;
        }
        frame.release();
        return channel.newSucceededFuture();
    }

    /** Closes the connection, on its event loop, once no direct write is under way. */
    void close() {
        channel.eventLoop().execute(() -> {
            synchronized (this) {
                closed = true;
                channel.close();
            }
        });
    }

    private synchronized void done() {
        inNetty--;
        unwritten.decrementAndGet();
    }
}
