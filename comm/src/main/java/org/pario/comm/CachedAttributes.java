package org.pario.comm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The state libraries cache on one communicator (MPI's attribute caching): created on first use, closed in reverse
 * order of creation when the communicator is closed, before it is freed, as MPI runs attribute delete callbacks
 * at {@code MPI_Comm_free}.
 */
final class CachedAttributes {
    private final Map<AttributeKey<?>, Object> values = new LinkedHashMap<>();
    private boolean closed;

    synchronized <T> T get(final AttributeKey<T> key, final Supplier<? extends T> create) {
        if (closed) {
            throw new IllegalStateException("the communicator is closed");
        }
        Object v = values.get(key);
        if (v == null) {
            v = java.util.Objects.requireNonNull(create.get(), "an attribute's value");
            values.put(key, v);
        }
        return key.type().cast(v);
    }

    /** Closes every value that is {@link AutoCloseable}, newest first; the first failure is thrown after all ran. */
    void close() {
        final List<Object> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(values.values());
            values.clear();
        }
        RuntimeException failure = null;
        for (int i = toClose.size() - 1; i >= 0; i--) {
            if (toClose.get(i) instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    if (failure == null) {
                        failure = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
