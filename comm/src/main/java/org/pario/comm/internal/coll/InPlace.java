package org.pario.comm.internal.coll;

/** {@code MPI_IN_PLACE}: the one object that, as a collective's send buffer, says "the data is already in place". */
public final class InPlace {
    /** The marker; {@code Communicator.IN_PLACE} is this object. */
    public static final Object MARKER = new Object() {
        @Override
        public String toString() {
            return "IN_PLACE";
        }
    };

    private InPlace() {
    }
}
