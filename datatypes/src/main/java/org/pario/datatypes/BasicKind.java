package org.pario.datatypes;

/**
 * The MPI category of a predefined basic type, which decides the reduction operations that apply to it
 * (MPI's "C integer", "Fortran integer", "floating point", "logical", "complex" and "byte" groups).
 */
public enum BasicKind {
    /** Signed C integers: {@code signed_char}, {@code short}, {@code int}, {@code long}, {@code int64_t}, ... */
    SIGNED_INTEGER,
    /** Unsigned C integers: {@code unsigned_char}, {@code unsigned}, {@code uint64_t}, ... */
    UNSIGNED_INTEGER,
    /** Fortran {@code INTEGER}. */
    FORTRAN_INTEGER,
    /** {@code float}, {@code double}, {@code real}, {@code double_precision}. */
    FLOATING,
    /** x87 {@code long double}: stored and moved, but no arithmetic in Pario. */
    EXTENDED_FLOATING,
    /** {@code c_bool} and Fortran {@code LOGICAL}. */
    LOGICAL,
    /** Complex numbers: two floating-point values. */
    COMPLEX,
    /** {@code byte} (and {@code packed}). */
    BYTE,
    /** Characters: {@code char}, {@code character}, {@code wchar}; not allowed in reductions. */
    CHARACTER
}
