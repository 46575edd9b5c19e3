package org.pario.datatypes;

/**
 * The settings of the datatype layer, read once from system properties when the layer is first used. There is one,
 * {@code pario.rawCopy}, which picks how packing and unpacking copy runs:
 * <ul>
 *   <li>unset (or {@code true}): raw memory copies, through {@code sun.misc.Unsafe} on Java 17 to 21 and through the
 *       foreign function and memory API on Java 22 and newer, where the JVM warns about Unsafe;</li>
 *   <li>{@code unsafe}: through {@code sun.misc.Unsafe} on every Java (on 22+ faster for runs of 24 to 64 bytes,
 *       see docs/benchmarks.md, and the JVM prints its warning about Unsafe once);</li>
 *   <li>{@code false}: the safe copy path (through buffer views) that a JVM without raw memory copies takes, which
 *       the test suite uses to run the pack/unpack properties on both paths.</li>
 * </ul>
 * It is a JVM-wide constant rather than an object passed in because the copy path is chosen in the innermost loop,
 * where the JIT folds a constant away.
 */
final class DatatypeSettings {
    private static final String RAW_COPY = System.getProperty("pario.rawCopy", "true").trim();

    /** Whether raw memory copies may be used where the JVM offers them. */
    static final boolean RAW_COPIES_ALLOWED = !"false".equalsIgnoreCase(RAW_COPY);
    /** Whether raw copies go through {@code sun.misc.Unsafe} on Java 22+ too. */
    static final boolean RAW_COPIES_THROUGH_UNSAFE = "unsafe".equalsIgnoreCase(RAW_COPY);

    private DatatypeSettings() {
    }
}
