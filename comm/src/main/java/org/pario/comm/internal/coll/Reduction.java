package org.pario.comm.internal.coll;

import java.nio.ByteBuffer;

import org.pario.comm.internal.Reductions;
import org.pario.datatypes.Datatype;

/**
 * A reduction operation as the algorithms see it: its name, whether operands may be combined in any order, and how
 * it combines packed elements (a predefined kernel, or the user's function).
 */
public final class Reduction {
    private final String name;
    private final boolean commutative;
    private final Reductions.UserFunction function;

    /**
     * @param name        the operation's name (a predefined one's, or the user's for messages)
     * @param commutative whether operands may be combined in any order
     * @param function    the user's function, or null for a predefined operation
     */
    public Reduction(final String name, final boolean commutative, final Reductions.UserFunction function) {
        this.name = name;
        this.commutative = commutative;
        this.function = function;
    }

    /** @return the operation's name */
    public String name() {
        return name;
    }

    /** @return whether operands may be combined in any order */
    public boolean commutative() {
        return commutative;
    }

    /** @return the user's function, or null for a predefined operation */
    public Reductions.UserFunction function() {
        return function;
    }

    /**
     * @return the element {@code count} x {@code type} are reduced as
     * @throws org.pario.ParioException (ARGUMENT) naming both when the operation does not apply to the type
     */
    public Reductions.Element element(final Datatype type, final long count) {
        return Reductions.element(name, function != null, type, count);
    }

    /** {@code inout[i] = in[i] op inout[i]} for every element. */
    public static void combine(final Reduction op, final ByteBuffer in, final ByteBuffer inout,
                               final Reductions.Element element) {
        Reductions.combine(op.name, op.function, in, inout, element);
    }

    @Override
    public String toString() {
        return name;
    }
}
