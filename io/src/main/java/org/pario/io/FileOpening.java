package org.pario.io;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.EnumSet;
import java.util.Set;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.datatypes.Datatype;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

/**
 * The collective steps of {@code MPI_File_open} that come before a file has a view: the modes checked (the same on
 * every rank), the file created by rank 0 (exclusively with {@link Mode#EXCL}) before any other rank opens it (a
 * file not created is opened by every rank at once where its backend has nothing to repair), and every step's
 * outcome agreed, the last one's by {@link ParallelFile}'s open with its own, so the ranks hold an open storage
 * each or all fail with the same error and hold nothing.
 */
final class FileOpening {
    private FileOpening() {
    }

    /**
     * The storage this rank opened (null where it could not), the modes it was opened with, and this rank's failure
     * in the open's last step, which the caller agrees together with the rest of its open (null for none).
     */
    record Opened(Storage storage, EnumSet<Mode> modes, RuntimeException failure) {
    }

    /**
     * Collective: opens {@code location} on every rank. The first step's outcome is agreed here, and with it that
     * every rank gave the same modes (MPI asks it of {@code amode}; ranks that differed would take different steps
     * from here on). A file not created is opened by every rank in that first step where its backend has nothing
     * to repair; otherwise rank 0 opens (or creates) it first and the others open it after the agreement, their
     * outcome left to the caller's agreement ({@link Opened#failure()}): an open's cost is its collectives.
     *
     * @return this rank's storage, open on every rank unless {@link Opened#failure()} says otherwise
     */
    static Opened open(final Communicator comm, final String location, final Set<Mode> modes, final Hints hints) {
        final EnumSet<Mode> m = modes.isEmpty() ? EnumSet.noneOf(Mode.class) : EnumSet.copyOf(modes);
        RuntimeException failure = null;
        int access = 0;
        for (final Mode a : new Mode[] {Mode.RDONLY, Mode.WRONLY, Mode.RDWR}) {
            access += m.contains(a) ? 1 : 0;
        }
        if (access != 1) {
            failure = ParioException.argument("open: modes must contain exactly one of RDONLY, WRONLY, RDWR, got " + m);
        } else if (m.contains(Mode.RDONLY) && (m.contains(Mode.CREATE) || m.contains(Mode.EXCL))) {
            failure = ParioException.argument("open: RDONLY cannot be combined with CREATE or EXCL, got " + m);
        }
        final boolean together = !m.contains(Mode.CREATE) && !repairsOnFirstOpen(location);
        Storage storage = null;
        if (failure == null && (together || comm.rank() == 0)) {
            try {
                storage = Storages.open(location, request(m, comm.rank() == 0, hints));
            } catch (IOException | RuntimeException e) {
                failure = IoErrors.of("open " + location, e);
            }
        }
        agreeOnModes(comm, failure, m, storage);
        if (together || comm.rank() == 0) {
            return new Opened(storage, m, null);
        }
        try {
            return new Opened(Storages.open(location, request(m, false, hints)), m, null);
        } catch (IOException | RuntimeException e) {
            return new Opened(null, m, IoErrors.of("open " + location, e));
        }
    }

    /**
     * Collective: agrees on {@code failure} and that every rank gave the modes {@code m}, in one reduction; on any
     * failure every rank closes {@code storage} (if it holds one) and throws the same error.
     */
    private static void agreeOnModes(final Communicator comm, final Throwable failure, final EnumSet<Mode> m,
                                     final Storage storage) {
        final long bits = bits(m);
        try {
            final long[] least = Agreement.agreeWithMinima(comm, failure, bits, ~bits);
            if (least[0] != ~least[1]) {
                throw new ParioException(ErrorCategory.ARGUMENT, "open: every rank must give the same modes, got "
                    + modesOf(least[0]) + " on some ranks and " + modesOf(~least[1]) + " on others", null, true);
            }
        } catch (ParioException e) {
            closeQuietly(storage, e);
            throw e;
        }
    }

    private static long bits(final Set<Mode> m) {
        long bits = 0;
        for (final Mode mode : m) {
            bits |= 1L << mode.ordinal();
        }
        return bits;
    }

    private static EnumSet<Mode> modesOf(final long bits) {
        final EnumSet<Mode> m = EnumSet.noneOf(Mode.class);
        for (final Mode mode : Mode.values()) {
            if ((bits & 1L << mode.ordinal()) != 0) {
                m.add(mode);
            }
        }
        return m;
    }

    /**
     * Collective: the file's size as rank 0 measures it once every rank has opened it, where {@link Mode#APPEND}
     * starts every rank's pointer.
     */
    static long endOfFile(final Communicator comm, final Storage storage, final String location) {
        final long[] size = new long[1];
        Throwable failure = null;
        if (comm.rank() == 0) {
            try {
                size[0] = storage.size();
            } catch (IOException e) {
                failure = IoErrors.of("size of " + location, e);
            }
        }
        agreeOrClose(comm, failure, storage);
        comm.bcast(size, 1, Datatype.LONG, 0);
        return size[0];
    }

    /**
     * Collective: agrees on {@code failure} (any rank's); when one rank failed, every rank closes what it holds
     * and throws the same error.
     */
    static void agreeOrClose(final Communicator comm, final Throwable failure, final AutoCloseable... held) {
        try {
            Agreement.agree(comm, failure);
        } catch (ParioException e) {
            for (final AutoCloseable h : held) {
                closeQuietly(h, e);
            }
            throw e;
        }
    }

    /** Closes {@code held} (when there is one), its failure added to {@code e}'s suppressed ones. */
    private static void closeQuietly(final AutoCloseable held, final ParioException e) {
        if (held != null) {
            try {
                held.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
        }
    }

    /** @return whether the backend of {@code location} repairs the file in the first rank's open; true if unknown */
    private static boolean repairsOnFirstOpen(final String location) {
        try {
            return Storages.providerOf(location).repairsOnFirstOpen();
        } catch (RuntimeException e) {
            // no backend for it: the ordered open reports that on every rank alike
            return true;
        }
    }

    /** This process's host name, once looked up: a lookup can take milliseconds, and the host does not change. */
    private static volatile String host;

    /** This rank's host, as {@code cb_config_list} names it: {@code PARIO_HOST}, else the system's host name. */
    static String hostName() {
        String h = host;
        if (h == null) {
            h = lookUpHostName();
            host = h;
        }
        return h;
    }

    private static String lookUpHostName() {
        final String given = System.getenv("PARIO_HOST");
        if (given != null && !given.isBlank()) {
            return given.trim();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    private static StorageProvider.Request request(final Set<Mode> m, final boolean creator, final Hints hints) {
        return new StorageProvider.Request(m.contains(Mode.RDONLY) || m.contains(Mode.RDWR),
            m.contains(Mode.WRONLY) || m.contains(Mode.RDWR), creator && m.contains(Mode.CREATE),
            creator && m.contains(Mode.EXCL), hints.asMap(), creator);
    }
}
