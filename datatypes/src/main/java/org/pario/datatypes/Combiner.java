package org.pario.datatypes;

/** How a datatype was built: MPI's combiner, as returned by {@code MPI_Type_get_envelope}. */
public enum Combiner {
    /** A predefined type (basic, pair or marker). */
    NAMED,
    /** {@code dup(oldtype)}. */
    DUP,
    /** {@code contiguous(count, oldtype)}. */
    CONTIGUOUS,
    /** {@code vector(count, blocklength, stride, oldtype)}, stride in extents. */
    VECTOR,
    /** {@code hvector(count, blocklength, stride, oldtype)}, stride in bytes. */
    HVECTOR,
    /** {@code indexed(blocklengths, displacements, oldtype)}, displacements in extents. */
    INDEXED,
    /** {@code hindexed(blocklengths, displacements, oldtype)}, displacements in bytes. */
    HINDEXED,
    /** {@code indexed_block(blocklength, displacements, oldtype)}, displacements in extents. */
    INDEXED_BLOCK,
    /** {@code hindexed_block(blocklength, displacements, oldtype)}, displacements in bytes. */
    HINDEXED_BLOCK,
    /** {@code struct(blocklengths, displacements, types)}, displacements in bytes. */
    STRUCT,
    /** {@code subarray(sizes, subsizes, starts, order, oldtype)}. */
    SUBARRAY,
    /** {@code darray(size, rank, gsizes, distribs, dargs, psizes, order, oldtype)}. */
    DARRAY,
    /** {@code resized(oldtype, lb, extent)}. */
    RESIZED
}
