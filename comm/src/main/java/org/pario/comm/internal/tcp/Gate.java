package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
    private final TcpCounters counters;

    /**
     * @param channel   the connection
     * @param direct    whether frames may be written to its socket directly (plain TCP over epoll)
     * @param unwritten frames handed to Netty and not yet written, shared by all of a rank's gates
     * @param counters  the rank's counters, told of the bytes written straight from arrays
     */
    Gate(final Channel channel, final boolean direct, final AtomicInteger unwritten, final TcpCounters counters) {
        this.channel = channel;
        this.unwritten = unwritten;
        this.counters = counters;
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
        final ChannelFuture outcome;
        synchronized (this) {
            outcome = writeDirectlyOrQueue(frame, listener);
        }
        tell(listener, outcome);
    }

    /**
     * Writes a frame whose data is filled in as it leaves: a piece is filled into a small buffer of the calling
     * thread's, written into the socket at once, and the next filled while the receiver reads it, so that the
     * receiver's work overlaps this thread's instead of following all of it. The pieces go through one buffer that
     * stays in the core's cache, where filling a whole frame of 1 MiB wrote memory the cache could not keep (packing
     * into pieces of one small buffer took two thirds of the time, {@code bench/.../PieceCopy}). The buffer is the
     * thread's, not the connection's, so that a rank sending to many peers holds one, not one per peer; the
     * collector frees it with the thread. Once the socket takes less than a piece, or where frames cannot be written
     * directly, the rest is filled into the frame and goes as {@link #write} sends it. No other frame comes between
     * the pieces.
     *
     * @param frame    a direct buffer whose bytes up to its writer index (the header) lead the frame, with room for
     *                 all of it; its data is filled only when the rest goes through Netty
     * @param end      the frame's writer index once filled
     * @param piece    bytes filled and written at a time
     * @param fill     fills bytes {@code [from, from + length)} of the frame (absolute indexes) into {@code target}
     *                 from {@code at}; must not fail once the first piece has been written (the stream would be left
     *                 with part of a frame)
     * @param source   where the frame's data lies in a Java array: where this JVM can write arrays into sockets
     *                 ({@link ArraySockets}), the socket takes the data straight from the array after the header, and
     *                 only what it does not take is filled into the frame; null to fill every piece
     * @param listener as {@link #write}'s
     * @return whether the socket filled after the first piece had gone into it, so that the rest went through Netty
     */
    boolean writeFilling(final ByteBuf frame, final int end, final int piece, final Fill fill,
                         final ArrayRun source, final ChannelFutureListener listener) {
        ChannelFuture outcome = null;
        boolean filled = false;
        synchronized (this) {
            final int header = frame.writerIndex();
            final int headerBytes = frame.readableBytes();
            final boolean fromArray = source != null && ArraySockets.AVAILABLE;
            final ByteBuf through = canWriteDirectly() ? pieceBuffer(headerBytes + (fromArray ? 0 : piece)) : null;
            if (through != null && fromArray) {
                through.clear().writeBytes(frame, frame.readerIndex(), headerBytes);
                // the header waits in the kernel for the data (MSG_MORE) instead of waking the receiver alone; a
                // socket that takes none of it (full, or failed) leaves it all to Netty, which waits or says why
                final long took = ArraySockets.writeHeader(socket.intValue(), through.memoryAddress(), headerBytes);
                through.skipBytes((int) Math.max(0, took));
                int from = header;
                if (!through.isReadable()) {
                    while (from < end) {
                        final long wanted = Math.min(end - from, ArraySockets.MAX_CALL_BYTES);
                        final long n = ArraySockets.write(socket.intValue(), source.array(),
                            source.offset() + (from - header), wanted);
                        from += (int) Math.max(0, n);
                        if (n < wanted) {
                            // the socket is full (or failed): asking again would only hear so
                            break;
                        }
                    }
                    counters.sentFromArrays.addAndGet(from - header);
                }
                if (from == end && !through.isReadable()) {
                    frame.release();
                    outcome = channel.newSucceededFuture();
                } else {
                    filled = true;
                    // what the socket did not take of the header, or of the data, and the rest
                    final int left = through.isReadable() ? frame.readerIndex() + through.readerIndex() : from;
                    fill.fill(frame, from, end - from, from);
                    frame.setIndex(left, end);
                    outcome = writeDirectlyOrQueue(frame, listener);
                }
            } else if (through == null) {
                fill.fill(frame, header, end - header, header);
                frame.writerIndex(end);
                outcome = writeDirectlyOrQueue(frame, listener);
            } else {
                // the first piece carries the header, so that it costs one write too
                through.clear().writeBytes(frame, frame.readerIndex(), headerBytes);
                int from = header;
                while (true) {
                    final int length = Math.min(piece, end - from);
                    final int at = through.writerIndex();
                    fill.fill(through, at, length, from);
                    through.writerIndex(at + length);
                    // the frame's index of the piece buffer's first byte
                    final int base = from - at;
                    from += length;
                    final IOException failed = writePart(through);
                    if (failed != null) {
                        frame.release();
                        outcome = channel.newFailedFuture(failed);
                        break;
                    }
                    if (through.isReadable()) {
                        // the socket is full: what it did not take, and the rest, go through Netty as one
                        filled = true;
                        final int left = base + through.readerIndex();
                        final int dataLeft = Math.max(header, left);
                        fill.fill(frame, dataLeft, end - dataLeft, dataLeft);
                        frame.setIndex(left, end);
                        outcome = writeDirectlyOrQueue(frame, listener);
                        break;
                    }
                    if (from == end) {
                        // every byte went from the piece buffer: the frame's memory was never needed
                        frame.release();
                        outcome = channel.newSucceededFuture();
                        break;
                    }
                    through.clear();
                }
            }
        }
        tell(listener, outcome);
        return filled;
    }

    /**
     * The calling thread's buffers for pieces: memory the collector frees (a direct {@code ByteBuffer}), since a
     * thread that ends never says so. A thread uses its buffer only within one {@link #writeFilling} call.
     */
    private static final ThreadLocal<ByteBuf> PIECES = new ThreadLocal<>();

    /**
     * @return the calling thread's buffer for pieces, of at least {@code capacity} bytes (a larger one replaces a
     *     smaller), or null when it has no memory address to write from
     */
    private static ByteBuf pieceBuffer(final int capacity) {
        ByteBuf pieces = PIECES.get();
        if (pieces == null || pieces.capacity() < capacity) {
            // room for a longer header than this one, so that another type's name finds it large enough
            pieces = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(capacity + 256));
            PIECES.set(pieces);
        }
        return pieces.hasMemoryAddress() ? pieces : null;
    }

    /**
     * Where a frame's data lies in a Java array, for {@link ArraySockets}.
     *
     * @param array  a {@code byte[]} or primitive array
     * @param offset the byte of the array (counted from its first element) that is the frame's first data byte
     */
    record ArrayRun(Object array, long offset) {
    }

    /** Fills part of a frame before it is written. */
    @FunctionalInterface
    interface Fill {
        /**
         * Fills the frame's bytes {@code [from, from + length)} (absolute indexes) into {@code target}'s bytes
         * {@code [at, at + length)}; the target is the frame itself ({@code at == from}) or the piece buffer.
         */
        void fill(ByteBuf target, int at, int length, int from);
    }

    /**
     * Writes the frame into the socket if it may, else queues it (or its rest) to Netty (caller holds the lock).
     *
     * @return the outcome to tell the listener now, or null when Netty will
     */
    private ChannelFuture writeDirectlyOrQueue(final ByteBuf frame, final ChannelFutureListener listener) {
        final ChannelFuture outcome = writeDirectly(frame);
        if (outcome != null) {
            return outcome;
        }
        try {
            // always as a task, even on the event loop: a write made there at once would overtake writes
            // other threads queued before it, among them the rest of a frame the socket took only part of
            inNetty++;
            unwritten.incrementAndGet();
            channel.eventLoop().execute(
                () -> channel.writeAndFlush(frame).addListener(f -> done()).addListener(listener));
            return null;
        } catch (RejectedExecutionException e) {
            // the loop is shut down: the connection is gone
            done();
            frame.release();
            return channel.newFailedFuture(e);
        }
    }

    private static void tell(final ChannelFutureListener listener, final ChannelFuture outcome) {
        if (outcome == null) {
            return;
        }
        try {
            listener.operationComplete(outcome);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return whether a frame may go into the socket from the calling thread now (caller holds the lock) */
    private boolean canWriteDirectly() {
        return socket != null && inNetty == 0 && !closed && channel.isActive();
    }

    /**
     * Writes what the socket takes of the frame's readable bytes, from the calling thread (caller holds the lock
     * and has checked {@link #canWriteDirectly}).
     *
     * @return why the write failed, or null
     */
    private IOException writePart(final ByteBuf frame) {
        try {
            frame.skipBytes(socket.writeAddress(frame.memoryAddress(), frame.readerIndex(), frame.writerIndex()));
            return null;
        } catch (IOException e) {
            return e;
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
        if (!canWriteDirectly() || !frame.hasMemoryAddress() && !parts) {
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
