package org.pario.io;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;

import org.pario.ErrorCategory;
import org.pario.ParioException;

/** Storage failures as Pario's errors, with the common causes said in words. */
final class IoErrors {
    private IoErrors() {
    }

    /**
     * @param what the operation and its file, as "open /data/x"
     * @param e    what the storage threw
     * @return {@code e} itself when it is already Pario's, else an {@link ErrorCategory#IO} error naming the cause
     */
    static ParioException of(final String what, final Throwable e) {
        if (e instanceof ParioException p) {
            return p;
        }
        final String detail = e instanceof FileAlreadyExistsException ? "the file exists (EXCL)"
            : e instanceof NoSuchFileException ? "no such file"
            : e instanceof AccessDeniedException ? "permission denied" : e.toString();
        return new ParioException(ErrorCategory.IO, what + ": " + detail, e);
    }
}
