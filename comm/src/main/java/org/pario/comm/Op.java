package org.pario.comm;

import java.nio.ByteBuffer;
import java.util.Objects;

import org.pario.comm.internal.coll.Reduction;
import org.pario.datatypes.Datatype;

/**
 * A reduction operation ({@code MPI_Op}): the predefined ones, and user-defined ones, commutative or not.
 *
 * <p>Operations work on the packed native bytes of a reduction's elements. Predefined operations apply to the
 * basic types MPI allows for them (MAX and MIN to integers and floating point, SUM and PROD also to complex,
 * the logical ones to C integers and logicals, the bitwise ones to integers and bytes, MINLOC and MAXLOC to the
 * pair types); any other use is an error naming the operation and the type. MINLOC and MAXLOC give ties to
 * the lowest index, as the standard defines. Non-commutative operations are always combined in rank order.
 */
public final class Op {
    /** Maximum. */
    public static final Op MAX = new Op("MAX", true, null);
    /** Minimum. */
    public static final Op MIN = new Op("MIN", true, null);
    /** Sum. */
    public static final Op SUM = new Op("SUM", true, null);
    /** Product. */
    public static final Op PROD = new Op("PROD", true, null);
    /** Logical and. */
    public static final Op LAND = new Op("LAND", true, null);
    /** Logical or. */
    public static final Op LOR = new Op("LOR", true, null);
    /** Logical exclusive or. */
    public static final Op LXOR = new Op("LXOR", true, null);
    /** Bitwise and. */
    public static final Op BAND = new Op("BAND", true, null);
    /** Bitwise or. */
    public static final Op BOR = new Op("BOR", true, null);
    /** Bitwise exclusive or. */
    public static final Op BXOR = new Op("BXOR", true, null);
    /** Minimum value and the lowest index holding it, on pair types. */
    public static final Op MINLOC = new Op("MINLOC", true, null);
    /** Maximum value and the lowest index holding it, on pair types. */
    public static final Op MAXLOC = new Op("MAXLOC", true, null);
    /** The later operand replaces the earlier one ({@code MPI_REPLACE}); defined for every basic type. */
    public static final Op REPLACE = new Op("REPLACE", false, null);

    /**
     * A user-defined operation: combines {@code count} elements of {@code in} into {@code inout}, so that
     * {@code inout[i] = in[i] op inout[i]}. As in MPI, {@code elementType} and {@code count} are the datatype and
     * count the reduction was called with; the buffers hold those elements packed (each
     * {@code elementType.size()} bytes, native little-endian, no holes), starting at index 0.
     */
    @FunctionalInterface
    public interface Function {
        /**
         * @param in          the left operand
         * @param inout       the right operand; receives the result
         * @param count       number of elements
         * @param elementType the type of each element
         */
        void apply(ByteBuffer in, ByteBuffer inout, long count, Datatype elementType);
    }

    private final String name;
    private final boolean commutative;
    private final Function function;
    private final Reduction reduction;

    private Op(final String name, final boolean commutative, final Function function) {
        this.name = name;
        this.commutative = commutative;
        this.function = function;
        this.reduction = new Reduction(name, commutative, function == null ? null : function::apply);
    }

    /**
     * Creates a user-defined operation ({@code MPI_Op_create}).
     *
     * @param name        a name for error messages
     * @param commutative whether operands may be combined in any order; if false they are combined in rank order
     * @param function    the combining function
     * @return the operation
     */
    public static Op create(final String name, final boolean commutative, final Function function) {
        return new Op(Objects.requireNonNull(name, "name"), commutative, Objects.requireNonNull(function, "function"));
    }

    /** @return the operation's name */
    public String name() {
        return name;
    }

    /** @return whether operands may be combined in any order */
    public boolean commutative() {
        return commutative;
    }

    /** @return true for {@code MPI_Op_create} operations */
    public boolean userDefined() {
        return function != null;
    }

    /** @return the user function, or null for predefined operations */
    public Function function() {
        return function;
    }

    @Override
    public String toString() {
        return name;
    }

    /** @return this operation as the collective algorithms take it */
    Reduction reduction() {
        return reduction;
    }
}
