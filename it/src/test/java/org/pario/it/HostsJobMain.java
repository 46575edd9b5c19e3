package org.pario.it;

import java.util.EnumSet;
import java.util.Map;

import org.pario.comm.Communicator;
import org.pario.comm.Pario;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;

/**
 * A rank of the several-hosts test ({@code NetworkNamespacesTest}): prints its host name, then for each
 * {@code cb_config_list} given writes a CYCLIC(1) array of ints collectively, reads it back with another rank's
 * part and prints {@code rank R list L cb_nodes N ok}; a wrong value ends it with {@code rank R wrong: ...}.
 */
public final class HostsJobMain {
    private HostsJobMain() {
    }

    public static void main(final String[] args) throws Exception {
        final String file = args[0];
        try (Communicator world = Pario.init()) {
            final int r = world.rank();
            final int n = world.size();
            System.out.println("rank " + r + " host " + java.net.InetAddress.getLocalHost().getHostName());
            for (int i = 1; i < args.length; i++) {
                final Hints hints = Hints.of(Map.of("cb_config_list", args[i], "romio_cb_write", "enable",
                    "romio_cb_read", "enable", "cb_buffer_size", "65536"));
                final int elements = 1 << 18;
                try (ParallelFile f = ParallelFile.open(world, file, EnumSet.of(Mode.CREATE, Mode.RDWR), hints)) {
                    final int[] mine = new int[elements / n + (r < elements % n ? 1 : 0)];
                    for (int k = 0; k < mine.length; k++) {
                        mine[k] = i * 10_000_000 + k * n + r;
                    }
                    f.setView(0, Datatype.INT, cyclic(n, r, elements), DataRepresentation.NATIVE);
                    f.writeAll(mine, mine.length, Datatype.INT);
                    // read back the part of the next rank, which another host wrote
                    final int other = (r + 1) % n;
                    final int[] back = new int[elements / n + (other < elements % n ? 1 : 0)];
                    f.setView(0, Datatype.INT, cyclic(n, other, elements), DataRepresentation.NATIVE);
                    f.readAll(back, back.length, Datatype.INT);
                    for (int k = 0; k < back.length; k++) {
                        if (back[k] != i * 10_000_000 + k * n + other) {
                            System.out.println("rank " + r + " wrong: element " + (k * n + other) + " is " + back[k]);
                            System.exit(4);
                        }
                    }
                    System.out.println("rank " + r + " list " + args[i] + " cb_nodes " + f.hints().asMap().get("cb_nodes")
                        + " ok");
                }
            }
        }
    }

    private static Datatype cyclic(final int n, final int r, final int elements) {
        return Datatype.darray(n, r, new long[] {elements}, new Distribution[] {Distribution.CYCLIC},
            new long[] {Datatype.DISTRIBUTE_DFLT_DARG}, new long[] {n}, Order.C, Datatype.INT);
    }
}
