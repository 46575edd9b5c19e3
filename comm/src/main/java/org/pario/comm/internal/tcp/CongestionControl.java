package org.pario.comm.internal.tcp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.AttributeKey;
import org.pario.ParioException;

/**
 * The TCP congestion control of the connections a rank opens, which carry its data (setting {@code
 * tcpCongestion}): {@code auto} (the default) sets {@code cubic} on connections to ranks of this host and leaves
 * the others at the system's default; {@code system} leaves every connection at the system's default; any other
 * name sets that algorithm on every connection. Some systems default to BBR, which paces a sender at the rate it
 * has measured the path to carry; over loopback it retransmits spuriously (fast retransmits undone by duplicate
 * SACKs, each cutting the sender's window) and holds bulk transfers well below what the link carries, where cubic
 * does neither, for C stacks too (docs/history/benchmarks-2026-11.md). Only the native epoll transport can set it;
 * with NIO every connection keeps the default.
 */
final class CongestionControl {
    private static final System.Logger LOG = System.getLogger(CongestionControl.class.getName());
    /** The congestion control a connection is to be given as it opens, when not the system's default. */
    private static final AttributeKey<String> WANTED = AttributeKey.valueOf("pario.congestion");
    /** Whether a refused congestion control has been logged: once per JVM is enough. */
    private static final AtomicBoolean REFUSAL_LOGGED = new AtomicBoolean();

    private final String setting;
    private final Transports transport;

    /**
     * @throws ParioException naming the setting when it is neither auto, system nor a congestion control's name
     */
    CongestionControl(final String setting, final Transports transport) {
        if (!"auto".equals(setting) && !"system".equals(setting) && (setting.isEmpty()
            || setting.length() > Transports.CONGESTION_NAME_MAX
            || !setting.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || c == '_' || c == '-')))) {
            throw ParioException.argument("pario.tcpCongestion must be auto, system or the name of a TCP congestion "
                + "control (letters, digits, '_' or '-', at most " + Transports.CONGESTION_NAME_MAX
                + " characters), not '" + setting + "'");
        }
        this.setting = setting;
        this.transport = transport;
    }

    /**
     * @param sameHost whether the peer runs on this host
     * @return the connect bootstrap for a peer: {@code b}, or a copy that asks for the congestion control the
     *     setting wants on that connection
     */
    Bootstrap forPeer(final Bootstrap b, final boolean sameHost) {
        final String algorithm;
        switch (setting) {
            case "system":
                algorithm = null;
                break;
            case "auto":
                algorithm = sameHost ? "cubic" : null;
                break;
            default:
                algorithm = setting;
        }
        return algorithm == null ? b : b.clone().attr(WANTED, algorithm);
    }

    /**
     * Gives a connection about to open the congestion control asked for it; one the kernel refuses (not built in,
     * or not allowed to this user) leaves it at the system's default, logged once.
     */
    void apply(final SocketChannel ch) {
        final String algorithm = ch.attr(WANTED).get();
        final byte[] name = algorithm == null ? null : algorithm.getBytes(StandardCharsets.US_ASCII);
        final ChannelOption<ByteBuffer> option = name == null ? null : transport.congestionControl(name.length);
        if (option == null) {
            return;
        }
        try {
            ch.config().setOption(option, ByteBuffer.wrap(name));
        } catch (RuntimeException e) {
            if (REFUSAL_LOGGED.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "TCP congestion control '" + algorithm + "' refused (" + e
                    + "); connections keep the system's default. Set pario.tcpCongestion=system to not ask for it.");
            }
        }
    }

    /**
     * @return the congestion control of a connection as the kernel reports it, or null where the transport cannot
     *     tell (NIO)
     */
    String of(final Channel ch) {
        final ChannelOption<ByteBuffer> query = transport.congestionControl(Transports.CONGESTION_NAME_MAX + 1);
        if (query == null) {
            return null;
        }
        // the kernel fills the name out with NULs
        final String name = StandardCharsets.US_ASCII.decode(ch.config().getOption(query)).toString();
        final int end = name.indexOf('\0');
        return end < 0 ? name : name.substring(0, end);
    }
}
