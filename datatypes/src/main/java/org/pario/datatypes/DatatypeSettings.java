package org.pario.datatypes;

/**
 * The settings of the datatype layer, read once from system properties when the layer is first used. There is one:
 * {@code pario.rawCopy=false} makes packing and unpacking take the safe copy path (through buffer views) that a
 * JVM without raw memory copies takes, which the test suite uses to run the pack/unpack properties on both paths.
 * It is a JVM-wide constant rather than an object passed in because the copy path is chosen in the innermost loop,
 * where the JIT folds a constant away.
 */
final class DatatypeSettings {
    /** Whether raw memory copies may be used where the JVM offers them. */
    static final boolean RAW_COPIES_ALLOWED = !"false".equalsIgnoreCase(System.getProperty("pario.rawCopy"));

    private DatatypeSettings() {
    }
}
