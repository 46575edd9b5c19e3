package org.pario;

/**
 * What kind of failure a {@link ParioException} reports, so callers can react to a class of errors without
 * parsing messages. The categories follow MPI's error classes where MPI has them.
 */
public enum ErrorCategory {
    /** An argument is invalid: a negative count, an unknown name, a value out of range. */
    ARGUMENT,
    /** Two sides disagree: type signatures, counts or collective arguments that must match. */
    MISMATCH,
    /** Data does not fit: a message longer than the receive buffer, a value outside a representation's range. */
    TRUNCATE,
    /** A peer or connection failed. */
    TRANSPORT,
    /** An operation did not complete within its bound. */
    TIMEOUT,
    /** Storage failed or refused an operation. */
    IO,
    /** Memory the operation needs could not be had: direct memory to hold a message, say (MPI_ERR_NO_MEM). */
    MEMORY
}
