package org.pario.datatypes;

/** How {@code darray} distributes one dimension over the process grid ({@code MPI_DISTRIBUTE_*}). */
public enum Distribution {
    /** Contiguous blocks, one per process ({@code MPI_DISTRIBUTE_BLOCK}). */
    BLOCK,
    /** Blocks of {@code darg} elements dealt round-robin ({@code MPI_DISTRIBUTE_CYCLIC}). */
    CYCLIC,
    /** Not distributed: every process holds the whole dimension ({@code MPI_DISTRIBUTE_NONE}). */
    NONE
}
