package org.pario.comm.internal.tcp;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import org.pario.ErrorCategory;
import org.pario.ParioException;

/**
 * Start-up exchange of addresses: rank 0 listens on the coordinator address; every other rank connects,
 * presents the job token and its data address; once all have registered, rank 0 sends everyone the table of
 * addresses. Connections with a wrong token are refused and logged, and the job carries on. Ranks that do not
 * arrive within the start-up timeout fail the start on every rank that is waiting, naming the missing ranks.
 */
final class Rendezvous {
    private static final System.Logger LOG = System.getLogger(Rendezvous.class.getName());
    private static final int MAGIC = 0x50617230;
    /** Rank 0's answer to a registration: the address table follows, or why the start failed. */
    private static final int TABLE = 0;
    private static final int FAILED = 1;
    /**
     * How much longer than its own start-up bound a registered rank waits for rank 0's answer: rank 0 may have
     * started later, and its verdict (the table, or which ranks did not arrive) should reach everyone.
     */
    private static final long VERDICT_GRACE_MILLIS = 5000;

    private Rendezvous() {
    }

    /** Rank 0: collects every rank's address, then sends the table back. */
    static InetSocketAddress[] host(final ServerSocket server, final int size, final byte[] token,
                                    final InetSocketAddress mine, final long timeoutMillis) throws IOException {
        final InetSocketAddress[] table = new InetSocketAddress[size];
        table[0] = mine;
        final List<Socket> registered = new ArrayList<>();
        final long deadline = System.currentTimeMillis() + timeoutMillis;
        try {
            int count = 1;
            while (count < size) {
                final long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    throw tellMissing(table, registered);
                }
                server.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
                final Socket s;
                try {
                    s = server.accept();
                } catch (SocketTimeoutException e) {
                    throw tellMissing(table, registered);
                }
                s.setSoTimeout(5000);
                try {
                    final DataInputStream in = new DataInputStream(s.getInputStream());
                    if (in.readInt() != MAGIC) {
                        throw new IOException("not a Pario registration");
                    }
                    final byte[] theirs = new byte[in.readUnsignedShort()];
                    in.readFully(theirs);
                    final int rank = in.readInt();
                    final String host = in.readUTF();
                    final int port = in.readInt();
                    if (!MessageDigest.isEqual(token, theirs)) {
                        LOG.log(System.Logger.Level.WARNING, "refused a registration from " + s.getRemoteSocketAddress()
                            + " with a wrong job token");
                        s.close();
                        continue;
                    }
                    if (rank <= 0 || rank >= size || table[rank] != null) {
                        LOG.log(System.Logger.Level.WARNING, "refused a registration for rank " + rank + " from "
                            + s.getRemoteSocketAddress() + " (invalid or already registered)");
                        s.close();
                        continue;
                    }
                    table[rank] = new InetSocketAddress(host, port);
                    registered.add(s);
                    count++;
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.WARNING, "dropped a malformed registration from "
                        + s.getRemoteSocketAddress() + ": " + e.getMessage());
                    s.close();
                }
            }
            for (final Socket s : registered) {
                final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeInt(TABLE);
                for (final InetSocketAddress a : table) {
                    out.writeUTF(a.getHostString());
                    out.writeInt(a.getPort());
                }
                out.flush();
            }
            return table;
        } finally {
            for (final Socket s : registered) {
                s.close();
            }
        }
    }

    /** The start failed: tells every registered rank which ranks did not arrive, so all fail with one error. */
    private static ParioException tellMissing(final InetSocketAddress[] table, final List<Socket> registered) {
        final ParioException e = missing(table);
        for (final Socket s : registered) {
            try {
                final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeInt(FAILED);
                out.writeUTF(e.getMessage());
                out.flush();
            } catch (IOException ignored) {
                // that rank is gone too; it fails on its own
            }
        }
        return e;
    }

    private static ParioException missing(final InetSocketAddress[] table) {
        final List<Integer> absent = new ArrayList<>();
        for (int r = 0; r < table.length; r++) {
            if (table[r] == null) {
                absent.add(r);
            }
        }
        return new ParioException(ErrorCategory.TIMEOUT, "start-up: ranks " + absent + " did not arrive");
    }

    /** Ranks other than 0: register with the coordinator (retrying until it listens) and receive the table. */
    static InetSocketAddress[] join(final InetSocketAddress coordinator, final int rank, final int size,
                                    final byte[] token, final InetSocketAddress mine, final long timeoutMillis,
                                    final javax.net.SocketFactory sockets) throws IOException {
        final long deadline = System.currentTimeMillis() + timeoutMillis;
        IOException last = null;
        while (System.currentTimeMillis() < deadline) {
            try (Socket s = sockets.createSocket()) {
                s.connect(coordinator, (int) Math.max(1, Math.min(2000, deadline - System.currentTimeMillis())));
                s.setSoTimeout((int) Math.max(1, deadline - System.currentTimeMillis() + VERDICT_GRACE_MILLIS));
                final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeInt(MAGIC);
                out.writeShort(token.length);
                out.write(token);
                out.writeInt(rank);
                out.writeUTF(mine.getHostString());
                out.writeInt(mine.getPort());
                out.flush();
                final DataInputStream in = new DataInputStream(s.getInputStream());
                final int verdict = in.readInt();
                if (verdict == FAILED) {
                    throw new ParioException(ErrorCategory.TIMEOUT, in.readUTF());
                }
                if (verdict != TABLE) {
                    throw new ParioException(ErrorCategory.TRANSPORT, "start-up: rank " + rank + " got an answer "
                        + "from " + coordinator + " that is not Pario's rendezvous");
                }
                final InetSocketAddress[] table = new InetSocketAddress[size];
                for (int r = 0; r < size; r++) {
                    table[r] = new InetSocketAddress(in.readUTF(), in.readInt());
                }
                return table;
            } catch (SocketTimeoutException e) {
                throw new ParioException(ErrorCategory.TIMEOUT, "start-up: rank " + rank + " registered with "
                    + coordinator + " but the job did not assemble in time (some rank did not arrive)", e);
            } catch (IOException e) {
                last = e;
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new ParioException(ErrorCategory.TIMEOUT, "interrupted during start-up", ie);
                }
            }
        }
        throw new ParioException(ErrorCategory.TIMEOUT, "start-up: rank " + rank + " could not reach the coordinator "
            + coordinator + " in time" + (last == null ? "" : ": " + last), last);
    }

    static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
