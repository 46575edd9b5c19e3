package org.pario;

import java.util.Objects;

/**
 * The one unchecked exception family of Pario. Every failure carries an {@link ErrorCategory}; messages name
 * the offending parameter and its value, so a log line alone tells what went wrong.
 */
public class ParioException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCategory category;
    private final boolean agreed;

    /**
     * Creates an exception of the given category.
     *
     * @param category what kind of failure this is
     * @param message  what went wrong, naming the parameter and value involved
     */
    public ParioException(final ErrorCategory category, final String message) {
        super(message);
        this.category = Objects.requireNonNull(category, "category");
        this.agreed = false;
    }

    /**
     * Creates an exception of the given category with a cause.
     *
     * @param category what kind of failure this is
     * @param message  what went wrong
     * @param cause    the underlying failure
     */
    public ParioException(final ErrorCategory category, final String message, final Throwable cause) {
        this(category, message, cause, false);
    }

    /**
     * Creates an exception of the given category with a cause.
     *
     * @param category what kind of failure this is
     * @param message  what went wrong
     * @param cause    the underlying failure
     * @param agreed   true when every rank of a collective operation raises this same error
     */
    public ParioException(final ErrorCategory category, final String message, final Throwable cause,
                          final boolean agreed) {
        super(message, cause);
        this.category = Objects.requireNonNull(category, "category");
        this.agreed = agreed;
    }

    /**
     * @return true when every rank of a collective operation raised this same error: an orderly outcome, not a
     *     rank failing on its own
     */
    public boolean agreed() {
        return agreed;
    }

    /** @return what kind of failure this is */
    public ErrorCategory category() {
        return category;
    }

    /**
     * Shorthand for an {@link ErrorCategory#ARGUMENT} failure.
     *
     * @param message what is wrong with the argument
     * @return the exception, for the caller to throw
     */
    public static ParioException argument(final String message) {
        return new ParioException(ErrorCategory.ARGUMENT, message);
    }
}
