package org.pario.datatypes;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The arguments a datatype was built with, in MPI's order ({@code MPI_Type_get_contents} with large counts):
 * integers (counts, block lengths, displacements in extents, sizes, enum values), addresses (byte strides and
 * displacements, lb and extent of {@code resized}) and the datatypes it was built from. Enum arguments are
 * encoded as {@link Order#ordinal()} and {@link Distribution#ordinal()}; a default darray argument as
 * {@link Datatype#DISTRIBUTE_DFLT_DARG}.
 *
 * @param combiner  the constructor used
 * @param integers  integer arguments, in MPI order
 * @param addresses address arguments, in MPI order
 * @param datatypes the old types
 */
public record Contents(Combiner combiner, long[] integers, long[] addresses, List<Datatype> datatypes) {
    /** Validates and defensively copies the arguments. */
    public Contents {
        Objects.requireNonNull(combiner, "combiner");
        integers = integers.clone();
        addresses = addresses.clone();
        datatypes = List.copyOf(datatypes);
    }

    @Override
    public long[] integers() {
        return integers.clone();
    }

    @Override
    public long[] addresses() {
        return addresses.clone();
    }

    /** @return MPI's envelope: the combiner and how many arguments of each kind */
    public Envelope envelope() {
        return new Envelope(combiner, integers.length, addresses.length, datatypes.size());
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof Contents c && combiner == c.combiner && Arrays.equals(integers, c.integers)
            && Arrays.equals(addresses, c.addresses) && datatypes.equals(c.datatypes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(combiner, Arrays.hashCode(integers), Arrays.hashCode(addresses), datatypes);
    }

    @Override
    public String toString() {
        return combiner + Arrays.toString(integers) + Arrays.toString(addresses) + datatypes;
    }

    /**
     * MPI's envelope of a datatype ({@code MPI_Type_get_envelope_c}).
     *
     * @param combiner     the constructor used
     * @param numIntegers  number of integer arguments
     * @param numAddresses number of address arguments
     * @param numDatatypes number of datatype arguments
     */
    public record Envelope(Combiner combiner, int numIntegers, int numAddresses, int numDatatypes) {
    }
}
