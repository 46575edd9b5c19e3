package org.pario.io;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.EnumSet;
import java.util.Set;

import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.datatypes.Datatype;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

/**
 * The collective steps of {@code MPI_File_open} that come before a file has a view: the modes checked, the file
 * created by rank 0 (exclusively with {@link Mode#EXCL}) before any other rank opens it (a file not created is
 * opened by every rank at once where its backend has nothing to repair), and every step's outcome agreed, so
 * the ranks hold an open storage each or all fail with the same error and hold nothing.
 */
final class FileOpening {
    private FileOpening() {
    }

    /** The storage this rank opened and the modes it was opened with. */
    record Opened(Storage storage, EnumSet<Mode> modes) {
    }

    /**
     * Collective: opens {@code location} on every rank.
     *
     * @return this rank's storage, open on every rank
     */
    static Opened open(final Communicator comm, final String location, final Set<Mode> modes, final Hints hints) {
        final EnumSet<Mode> m = modes.isEmpty() ? EnumSet.noneOf(Mode.class) : EnumSet.copyOf(modes);
        Throwable failure = null;
        int access = 0;
        for (final Mode a : new Mode[] {Mode.RDONLY, Mode.WRONLY, Mode.RDWR}) {
            access += m.contains(a) ? 1 : 0;
        }
        if (access != 1) {
            failure = ParioException.argument("open: modes must contain exactly one of RDONLY, WRONLY, RDWR, got " + m);
        } else if (m.contains(Mode.RDONLY) && (m.contains(Mode.CREATE) || m.contains(Mode.EXCL))) {
            failure = ParioException.argument("open: RDONLY cannot be combined with CREATE or EXCL, got " + m);
        }
        Storage storage = null;
        if (failure == null && !m.contains(Mode.CREATE) && !repairsOnFirstOpen(location)) {
            // nothing to create or repair: every rank opens at once, and one agreement instead of two
            try {
                storage = Storages.open(location, request(m, comm.rank() == 0, hints));
            } catch (IOException | RuntimeException e) {
                failure = IoErrors.of("open " + location, e);
            }
            agreeOrClose(comm, failure, storage);
            return new Opened(storage, m);
        }
        if (failure == null && comm.rank() == 0) {
            try {
                storage = Storages.open(location, request(m, true, hints));
            } catch (IOException | RuntimeException e) {
                failure = IoErrors.of("open " + location, e);
            }
        }
        agreeOrClose(comm, failure, storage);
        if (comm.rank() != 0) {
            try {
                storage = Storages.open(location, request(m, false, hints));
            } catch (IOException | RuntimeException e) {
                failure = IoErrors.of("open " + location, e);
            }
            agreeOrClose(comm, failure, storage);
        } else {
            agreeOrClose(comm, null, storage);
        }
        return new Opened(storage, m);
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
                if (h != null) {
                    try {
                        h.close();
                    } catch (Exception suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
            }
            throw e;
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
