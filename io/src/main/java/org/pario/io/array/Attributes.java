package org.pario.io.array;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.pario.ParioException;

/**
 * Typed attributes of a checkpoint or of one of its arrays, as HDF5 and ADIOS attach them: a step number, a time,
 * a name, a vector of parameters. Values are {@code long}, {@code double}, {@code boolean}, {@code String},
 * {@code long[]}, {@code double[]} or {@code String[]}, and come back from a checkpoint with the type they were
 * written with. Immutable; keys keep the order they were put in.
 *
 * <pre>{@code
 * Attributes a = Attributes.builder().put("step", 1000).put("dt", 0.01).put("origin", new double[] {0, 0.5})
 *     .build();
 * long step = a.getLong("step");
 * }</pre>
 */
public final class Attributes {
    /** No attributes. */
    public static final Attributes NONE = new Attributes(Map.of());

    private final Map<String, Object> values;

    private Attributes(final Map<String, Object> values) {
        this.values = values;
    }

    /** @return a builder for attributes */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * One attribute.
     *
     * @param key   its name
     * @param value a {@code Long}/{@code Integer}, {@code Double}, {@code Boolean}, {@code String}, {@code long[]},
     *              {@code double[]} or {@code String[]}
     * @return the attributes
     */
    public static Attributes of(final String key, final Object value) {
        return builder().putValue(key, value).build();
    }

    /** @return the keys, in the order they were put */
    public Set<String> keys() {
        return Collections.unmodifiableSet(values.keySet());
    }

    /** @return true when there are none */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    /**
     * @param key a key
     * @return true if it is present
     */
    public boolean has(final String key) {
        return values.containsKey(key);
    }

    /**
     * @param key a key
     * @return its value (a copy for arrays), or null if absent
     */
    public Object get(final String key) {
        return copy(values.get(key));
    }

    /**
     * @param key a key
     * @return its {@code long} value
     * @throws ParioException if absent or of another type
     */
    public long getLong(final String key) {
        return typed(key, Long.class, "a long");
    }

    /**
     * @param key a key
     * @return its {@code double} value (a {@code long} one is widened)
     * @throws ParioException if absent or of another type
     */
    public double getDouble(final String key) {
        final Object v = present(key);
        if (v instanceof Long l) {
            return l;
        }
        return typed(key, Double.class, "a double");
    }

    /**
     * @param key a key
     * @return its {@code boolean} value
     * @throws ParioException if absent or of another type
     */
    public boolean getBoolean(final String key) {
        return typed(key, Boolean.class, "a boolean");
    }

    /**
     * @param key a key
     * @return its string value
     * @throws ParioException if absent or of another type
     */
    public String getString(final String key) {
        return typed(key, String.class, "a string");
    }

    /**
     * @param key a key
     * @return its {@code long[]} value, a copy
     * @throws ParioException if absent or of another type
     */
    public long[] getLongs(final String key) {
        return typed(key, long[].class, "a long[]").clone();
    }

    /**
     * @param key a key
     * @return its {@code double[]} value, a copy
     * @throws ParioException if absent or of another type
     */
    public double[] getDoubles(final String key) {
        return typed(key, double[].class, "a double[]").clone();
    }

    /**
     * @param key a key
     * @return its {@code String[]} value, a copy
     * @throws ParioException if absent or of another type
     */
    public String[] getStrings(final String key) {
        return typed(key, String[].class, "a String[]").clone();
    }

    private Object present(final String key) {
        final Object v = values.get(key);
        if (v == null) {
            throw ParioException.argument("no attribute '" + key + "'; there are " + values.keySet());
        }
        return v;
    }

    private <V> V typed(final String key, final Class<V> type, final String name) {
        final Object v = present(key);
        if (!type.isInstance(v)) {
            throw ParioException.argument("attribute '" + key + "' is " + typeName(v) + " (" + text(v) + "), not "
                + name);
        }
        return type.cast(v);
    }

    /** @return every attribute as a map, values as {@link #get} returns them */
    public Map<String, Object> asMap() {
        final Map<String, Object> m = new LinkedHashMap<>();
        values.forEach((k, v) -> m.put(k, copy(v)));
        return Collections.unmodifiableMap(m);
    }

    static String typeName(final Object v) {
        if (v instanceof Long) {
            return "a long";
        } else if (v instanceof Double) {
            return "a double";
        } else if (v instanceof Boolean) {
            return "a boolean";
        } else if (v instanceof String) {
            return "a string";
        } else if (v instanceof long[]) {
            return "a long[]";
        } else if (v instanceof double[]) {
            return "a double[]";
        }
        return "a String[]";
    }

    /**
     * @param v a value
     * @return the value as text, arrays as {@code [a, b]}
     */
    static String text(final Object v) {
        if (v instanceof long[] a) {
            return Arrays.toString(a);
        } else if (v instanceof double[] a) {
            return Arrays.toString(a);
        } else if (v instanceof String[] a) {
            return Arrays.toString(a);
        }
        return String.valueOf(v);
    }

    private static Object copy(final Object v) {
        if (v instanceof long[] a) {
            return a.clone();
        } else if (v instanceof double[] a) {
            return a.clone();
        } else if (v instanceof String[] a) {
            return a.clone();
        }
        return v;
    }

    /** Values by key, arrays compared by content: what two ranks must agree on. */
    @Override
    public boolean equals(final Object o) {
        if (!(o instanceof Attributes other) || !other.values.keySet().equals(values.keySet())) {
            return false;
        }
        for (final Map.Entry<String, Object> e : values.entrySet()) {
            if (!Objects.deepEquals(e.getValue(), other.values.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 0;
        for (final Map.Entry<String, Object> e : values.entrySet()) {
            h += e.getKey().hashCode() ^ Arrays.deepHashCode(new Object[] {e.getValue()});
        }
        return h;
    }

    @Override
    public String toString() {
        final StringBuilder b = new StringBuilder("{");
        values.forEach((k, v) -> b.append(b.length() > 1 ? ", " : "").append(k).append('=')
            .append(v instanceof String s ? '"' + s + '"' : text(v)));
        return b.append('}').toString();
    }

    /** Collects attributes; a key put twice keeps its last value. */
    public static final class Builder {
        private final Map<String, Object> values = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * @param key   a name, not empty
         * @param value the value
         * @return this builder
         */
        public Builder put(final String key, final long value) {
            return putValue(key, value);
        }

        /**
         * @param key   a name, not empty
         * @param value the value
         * @return this builder
         */
        public Builder put(final String key, final double value) {
            return putValue(key, value);
        }

        /**
         * @param key   a name, not empty
         * @param value the value
         * @return this builder
         */
        public Builder put(final String key, final boolean value) {
            return putValue(key, value);
        }

        /**
         * @param key   a name, not empty
         * @param value the value, not null
         * @return this builder
         */
        public Builder put(final String key, final String value) {
            return putValue(key, value);
        }

        /**
         * @param key    a name, not empty
         * @param values the values (copied)
         * @return this builder
         */
        public Builder put(final String key, final long[] values) {
            return putValue(key, values);
        }

        /**
         * @param key    a name, not empty
         * @param values the values (copied)
         * @return this builder
         */
        public Builder put(final String key, final double[] values) {
            return putValue(key, values);
        }

        /**
         * @param key    a name, not empty
         * @param values the values (copied), none null
         * @return this builder
         */
        public Builder put(final String key, final String[] values) {
            return putValue(key, values);
        }

        /**
         * Every attribute of another set.
         *
         * @param other attributes
         * @return this builder
         */
        public Builder putAll(final Attributes other) {
            values.putAll(other.values);
            return this;
        }

        /**
         * A value of any supported type, for code that reads attributes from elsewhere.
         *
         * @param key   a name, not empty
         * @param value a {@code Long}/{@code Integer}, {@code Double}/{@code Float}, {@code Boolean},
         *              {@code String}, {@code long[]}, {@code int[]}, {@code double[]} or {@code String[]}
         * @return this builder
         * @throws ParioException for any other value
         */
        public Builder putValue(final String key, final Object value) {
            if (key == null || key.isEmpty()) {
                throw ParioException.argument("an attribute needs a non-empty name, got " + key);
            }
            final Object v;
            if (value instanceof Long || value instanceof Double || value instanceof Boolean
                || value instanceof String) {
                v = value;
            } else if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
                v = ((Number) value).longValue();
            } else if (value instanceof Float f) {
                v = f.doubleValue();
            } else if (value instanceof long[] a) {
                v = a.clone();
            } else if (value instanceof int[] a) {
                v = Arrays.stream(a).asLongStream().toArray();
            } else if (value instanceof double[] a) {
                v = a.clone();
            } else if (value instanceof String[] a && Arrays.stream(a).allMatch(Objects::nonNull)) {
                v = a.clone();
            } else {
                throw ParioException.argument("attribute '" + key + "' has a value of "
                    + (value == null ? "null" : value.getClass().getSimpleName()) + "; attributes are long, "
                    + "double, boolean, String, long[], double[] or String[]");
            }
            if (v instanceof Double d && !Double.isFinite(d)
                || v instanceof double[] a && !Arrays.stream(a).allMatch(Double::isFinite)) {
                throw ParioException.argument("attribute '" + key + "' holds " + text(v) + "; attribute values "
                    + "must be finite numbers");
            }
            values.put(key, v);
            return this;
        }

        /** @return the attributes */
        public Attributes build() {
            return values.isEmpty() ? NONE : new Attributes(Collections.unmodifiableMap(new LinkedHashMap<>(values)));
        }
    }
}
