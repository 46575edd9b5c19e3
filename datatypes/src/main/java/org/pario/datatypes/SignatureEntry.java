package org.pario.datatypes;

/**
 * A run of equal basic types in a type signature.
 *
 * @param type  the basic type's name
 * @param count how many times it repeats
 */
public record SignatureEntry(String type, long count) {
}
