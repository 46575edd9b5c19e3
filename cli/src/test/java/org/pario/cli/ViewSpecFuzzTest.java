package org.pario.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.datatypes.Mutations;

/** Hostile view specs: each is read or refused with Pario's own error; one that reads can also be mapped. */
class ViewSpecFuzzTest {
    @TempDir
    Path dir;

    @Test
    void mutatedSpecsAreReadOrRefused() throws Exception {
        final String[] seeds = {
            "{\"ranks\": 4, \"disp\": 0, \"etype\": \"int\", \"datarep\": \"native\", \"filetypes\": "
                + "[\"subarray([10,9],[5,5],[0,0],c,int)\", \"subarray([10,9],[5,4],[0,5],c,int)\", "
                + "\"subarray([10,9],[5,5],[5,0],c,int)\", \"subarray([10,9],[5,4],[5,5],c,int)\"], "
                + "\"counts\": [25, 20, 25, 20], \"offsets\": [1, 2, 3, 4], \"hints\": {\"cb_nodes\": \"2\"}}",
            "{\"ranks\": 2, \"disps\": [0, 4], \"etype\": \"int\", \"filetypes\": [\"resized(int, 0, 8)\"], "
                + "\"counts\": [3, 2]}"};
        final Mutations m = new Mutations(3, seeds[0].getBytes(StandardCharsets.UTF_8),
            seeds[1].getBytes(StandardCharsets.UTF_8));
        final Path spec = dir.resolve("spec.json");
        int read = 0;
        for (int i = 0; i < Mutations.INPUTS; i++) {
            // every other input is a structural edit: deep nesting, huge numbers, long lists, deep JSON
            final byte[] input = i % 2 == 0 ? m.next() : m.nextStructured();
            Files.write(spec, input);
            try {
                final ViewSpec s = ViewSpec.read(spec);
                read++;
                for (int r = 0; r < s.ranks() && r < 8; r++) {
                    ViewCommand.ranges(s, r);
                }
            } catch (ParioException refused) {
                // the expected outcome for most
            } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
                throw new AssertionError("spec " + new String(input, StandardCharsets.UTF_8) + " escaped with " + e, e);
            }
        }
        System.out.println("view specs: " + Mutations.INPUTS + " inputs, " + read + " read, the rest refused");
    }
}
