package org.pario.datatypes;

/** Storage order of a multi-dimensional array, as in {@code MPI_ORDER_C} and {@code MPI_ORDER_FORTRAN}. */
public enum Order {
    /** Row-major: the last dimension varies fastest. */
    C,
    /** Column-major: the first dimension varies fastest. */
    FORTRAN
}
