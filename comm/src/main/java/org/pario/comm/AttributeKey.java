package org.pario.comm;

import java.util.Objects;

/**
 * A key under which a library caches state on communicators ({@code MPI_Comm_create_keyval}); see
 * {@link Communicator#attribute}. Keys are compared by identity: keep one in a constant.
 *
 * @param type the class of the values
 * @param name for messages
 * @param <T>  the value type
 */
public record AttributeKey<T>(Class<T> type, String name) {
    /** Checks the fields. */
    public AttributeKey {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public boolean equals(final Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
