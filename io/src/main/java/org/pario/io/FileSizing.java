package org.pario.io;

import java.io.IOException;

import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.io.storage.Storage;

/**
 * The collective calls that change a file's size ({@code MPI_File_set_size}, {@code MPI_File_preallocate}):
 * the arguments are checked on every rank, rank 0 alone changes the storage, and the outcome is agreed, so every
 * rank returns or every rank fails with the same error.
 */
final class FileSizing {
    private FileSizing() {
    }

    /**
     * Truncates or extends the file to {@code size}; every rank must pass the same size.
     *
     * @param checkWritable throws when the file was not opened for writing
     */
    static void setSize(final Communicator comm, final Storage storage, final String path, final long size,
                        final Runnable checkWritable) {
        Throwable failure = null;
        final long[] range = Agreement.range(comm, size);
        if (range[0] != range[1]) {
            failure = ParioException.argument("setSize: every rank must pass the same size; got " + range[0] + " to "
                + range[1]);
        } else if (size < 0) {
            failure = ParioException.argument("setSize: size must be >= 0, got " + size);
        } else if (comm.rank() == 0) {
            try {
                checkWritable.run();
                storage.truncate(size);
            } catch (IOException | RuntimeException e) {
                failure = IoErrors.of("setSize of " + path, e);
            }
        }
        Agreement.agree(comm, failure);
    }

    /**
     * Makes the file at least {@code size} bytes long; data already written is kept and a larger file is never
     * shrunk.
     *
     * @param checkWritable throws when the file was not opened for writing
     */
    static void preallocate(final Communicator comm, final Storage storage, final String path, final long size,
                            final Runnable checkWritable) {
        Throwable failure = null;
        if (size < 0) {
            failure = ParioException.argument("preallocate: size must be >= 0, got " + size);
        } else if (comm.rank() == 0) {
            try {
                checkWritable.run();
                if (storage.size() < size) {
                    storage.truncate(size);
                }
            } catch (IOException | RuntimeException e) {
                failure = IoErrors.of("preallocate of " + path, e);
            }
        }
        Agreement.agree(comm, failure);
    }
}
