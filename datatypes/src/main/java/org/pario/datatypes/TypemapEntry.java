package org.pario.datatypes;

/**
 * One entry of a typemap: a basic type at a byte displacement from the buffer address.
 *
 * @param type         the basic type's name, as in type expressions ({@code "double"})
 * @param displacement byte displacement, possibly negative
 */
public record TypemapEntry(String type, long displacement) {
    @Override
    public String toString() {
        return "(" + type + ", " + displacement + ")";
    }
}
