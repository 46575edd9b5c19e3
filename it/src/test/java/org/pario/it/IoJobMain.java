package org.pario.it;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;

import org.pario.comm.Communicator;
import org.pario.comm.Pario;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;

/**
 * A rank of a multi-JVM file test. Modes, each on the file named by the second argument:
 * {@code interleave} — rank r of n writes ints {@code (r+1)*1000000 + k} at positions {@code r + k*n},
 * {@code INTS} of them, independently and all at once, through small sieve windows (many read-modify-write
 * cycles that contend for the same bytes); {@code shared} — every rank appends {@code RECORDS} records of
 * {@code 2 + r} ints through the shared file pointer. Prints {@code rank R ok} or {@code rank R failed: ...}.
 */
public final class IoJobMain {
    static final int INTS = 100_000;
    static final int RECORDS = 200;

    private IoJobMain() {
    }

    public static void main(final String[] args) {
        int rank = -1;
        try (Communicator world = Pario.init()) {
            rank = world.rank();
            final int r = rank;
            final int n = world.size();
            final Hints hints = Hints.of(Map.of("ind_wr_buffer_size", "4096"));
            try (ParallelFile f = ParallelFile.open(world, args[1], EnumSet.of(Mode.RDWR, Mode.CREATE), hints)) {
                if (args[0].equals("interleave")) {
                    f.setView(4L * r, Datatype.INT, Datatype.resized(Datatype.INT, 0, 4L * n),
                        DataRepresentation.NATIVE);
                    final int[] mine = new int[INTS];
                    Arrays.setAll(mine, k -> (r + 1) * 1_000_000 + k);
                    world.barrier();
                    f.write(mine, INTS, Datatype.INT);
                } else {
                    f.setView(0, Datatype.INT, Datatype.INT, DataRepresentation.NATIVE);
                    world.barrier();
                    for (int i = 0; i < RECORDS; i++) {
                        final int[] record = new int[2 + r];
                        Arrays.fill(record, r * 1000 + i);
                        record[0] = r;
                        record[1] = i;
                        f.writeShared(record, record.length, Datatype.INT);
                    }
                }
            }
            System.out.println("rank " + rank + " ok");
        } catch (RuntimeException e) {
            System.out.println("rank " + rank + " failed: " + e);
            System.exit(1);
        }
    }
}
