package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.pario.ParioException;

/** Hostile type expressions: each parses (and then round-trips) or is refused with Pario's own error. */
class ParserFuzzTest {
    @Test
    void everyInputParsesOrIsRefusedWithParioException() {
        final String[] seeds = {"int", "vector(3, 2, -4, int)", "struct([2,1,3], [0,16,26], [float, "
            + "resized(struct([1,1],[0,8],[double,char]), 0, 16), char])", "subarray([10,9],[5,4],[0,5],c,int)",
            "darray(6, 1, [12,10], [block,cyclic], [dflt,2], [2,3], fortran, double)",
            "hindexed([1,0,2], [8,0,-16], long_double)", "indexed_block(2, [0,5,9], short)", "resized(int, -4, 12)",
            "struct([1,1,1], [0,8,600], [lb, int, ub])", "contiguous(0, double_int)"};
        final byte[][] bytes = new byte[seeds.length][];
        for (int i = 0; i < seeds.length; i++) {
            bytes[i] = seeds[i].getBytes(StandardCharsets.UTF_8);
        }
        final Mutations m = new Mutations(42, bytes);
        int parsed = 0;
        int deep = 0;
        for (int i = 0; i < Mutations.INPUTS; i++) {
            // every other input is a structural edit: deep nesting, huge numbers, long lists
            final String text = new String(i % 2 == 0 ? m.next() : m.nextStructured(), StandardCharsets.UTF_8);
            deep += text.length() > 4000 ? 1 : 0;
            final Datatype t;
            try {
                t = Datatype.parse(text);
            } catch (ParioException refused) {
                continue;
            } catch (RuntimeException | StackOverflowError e) {
                throw new AssertionError("'" + text + "' escaped with " + e, e);
            }
            parsed++;
            assertEquals(t, Datatype.parse(t.toString()), "round trip of '" + text + "'");
        }
        System.out.println("type expressions: " + Mutations.INPUTS + " inputs (" + deep + " over 4000 characters), "
            + parsed + " parsed, the rest refused");
    }
}
