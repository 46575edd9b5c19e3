package org.pario.comm.internal.tcp;

import java.nio.ByteBuffer;

import io.netty.channel.ChannelOption;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.RawUnixChannelOption;
import org.pario.ParioException;

/**
 * Which Netty transport carries a job's connections: native epoll where Netty's native library loads (Linux on
 * x86-64 and ARM64), Java NIO elsewhere. Setting {@code transport}: {@code nio} forces NIO, {@code epoll} demands
 * epoll and fails the start if it cannot load, {@code auto} (the default) takes epoll when it can.
 *
 * @param name           "epoll" or "nio", as reported by {@code pario info} and the benchmarks
 * @param handlers       the event loops' I/O handler
 * @param serverChannel  the listening socket's channel class
 * @param channel        a connection's channel class
 */
record Transports(String name, IoHandlerFactory handlers, Class<? extends ServerChannel> serverChannel,
                  Class<? extends SocketChannel> channel) {

    /**
     * @param wanted {@code auto}, {@code epoll} or {@code nio}
     * @return that transport
     */
    static Transports chosen(final String wanted) {
        switch (wanted) {
            case "nio":
                return nio();
            case "epoll":
                if (!Epoll.isAvailable()) {
                    throw ParioException.argument("pario.transport=epoll, but Netty's native epoll transport is not "
                        + "available here: " + Epoll.unavailabilityCause());
                }
                return epoll();
            case "auto":
                return Epoll.isAvailable() ? epoll() : nio();
            default:
                throw ParioException.argument("pario.transport must be auto, epoll or nio, not '" + wanted + "'");
        }
    }

    /** Linux's {@code IPPROTO_TCP} and {@code TCP_CONGESTION}, for {@code setsockopt}. */
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_CONGESTION = 13;
    /** The longest congestion control name the kernel takes ({@code TCP_CA_NAME_MAX} less its terminator). */
    static final int CONGESTION_NAME_MAX = 15;

    /**
     * @param length the bytes of the name the option carries: a name's own length to set it, {@link
     *               #CONGESTION_NAME_MAX} + 1 to read one back
     * @return the socket option for a connection's congestion control, or null where this transport cannot reach
     *         it (NIO)
     */
    ChannelOption<ByteBuffer> congestionControl(final int length) {
        return "epoll".equals(name) ? new RawUnixChannelOption("TCP_CONGESTION", IPPROTO_TCP, TCP_CONGESTION, length)
            : null;
    }

    private static Transports epoll() {
        return new Transports("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class,
            EpollSocketChannel.class);
    }

    private static Transports nio() {
        return new Transports("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, NioSocketChannel.class);
    }
}
