package org.pario.comm;

import org.pario.datatypes.Datatype;

/**
 * What a completed receive got ({@code MPI_Status}): who sent it, with which tag, and how many bytes.
 *
 * @param source the sender's rank in the communicator
 * @param tag    the message's tag
 * @param bytes  the number of data bytes received
 */
public record Status(int source, int tag, long bytes) {
    /** What {@link #count(Datatype)} returns when the bytes are not a whole number of elements. */
    public static final long UNDEFINED = -32766;

    /**
     * {@code MPI_Get_count}: how many elements of a type the message held.
     *
     * @param type the element type
     * @return the count, or {@link #UNDEFINED} if the bytes are not a whole number of elements
     */
    public long count(final Datatype type) {
        if (type.size() == 0) {
            return bytes == 0 ? 0 : UNDEFINED;
        }
        return bytes % type.size() == 0 ? bytes / type.size() : UNDEFINED;
    }
}
