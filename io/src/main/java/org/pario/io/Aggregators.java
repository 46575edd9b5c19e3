package org.pario.io;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.pario.ParioException;
import org.pario.comm.AttributeKey;
import org.pario.comm.Communicator;
import org.pario.datatypes.Datatype;

/**
 * Which ranks aggregate collective I/O: {@code cb_config_list} in ROMIO's grammar picks ranks per host, in rank
 * order within each host ({@code host:N} the first N ranks of that host, {@code *:N} the first N of every host not
 * named before, {@code *:*} all of them), and Pario's count {@code auto}, the default: half the host's ranks, at
 * least one and at most {@link #AUTO_MOST}; {@code cb_nodes} then caps the count, taking hosts in turn so that a
 * cap spreads aggregators over hosts.
 */
final class Aggregators {
    /** One entry of the list: a host name or {@code *}, and a count ({@code -1} for {@code *}, {@link #AUTO}). */
    record Entry(String host, int count) {
    }

    /** The count {@code auto}. */
    static final int AUTO = -3;

    /**
     * The most aggregators {@code auto} picks on one host. One a host (ROMIO's default) leaves the placing of every
     * byte of the host to one rank's two threads: at 4 JVM ranks on 2 cores, two aggregators wrote a CYCLIC(1)
     * array 25-40% faster and a BLOCK one of 2 KiB runs 20% faster (docs/benchmarks.md), while at 2 ranks a second
     * aggregator wrote 11% slower. Past a few a host, each more multiplies the pieces every rank sends per round
     * (a CYCLIC(1) rank sends one to every aggregator) without a core to place them on.
     */
    static final int AUTO_MOST = 4;

    private Aggregators() {
    }

    /** Parses {@code cb_config_list}; throws Pario's argument error for anything else. */
    static List<Entry> parseConfigList(final String list) {
        final List<Entry> out = new ArrayList<>();
        for (final String raw : list.split(",")) {
            final String item = raw.trim();
            final int colon = item.lastIndexOf(':');
            final String host = colon < 0 ? item : item.substring(0, colon).trim();
            final String n = colon < 0 ? "1" : item.substring(colon + 1).trim();
            int count;
            try {
                count = n.equals("*") ? -1 : n.equalsIgnoreCase("auto") ? AUTO : Integer.parseInt(n);
            } catch (NumberFormatException e) {
                count = -2;
            }
            // a number written as -1 or -3 is no count, whatever it stands for inside
            if (host.isEmpty() || count == -2 || n.startsWith("-")) {
                throw ParioException.argument("hint cb_config_list: '" + item + "' is not host:N, *:N, *:* or "
                    + "*:auto (in '" + list + "')");
            }
            out.add(new Entry(host, count));
        }
        return out;
    }

    /** Where a communicator keeps its ranks' hosts, learnt at its first file's open. */
    private static final AttributeKey<Hosts> HOSTS = new AttributeKey<>(Hosts.class, "pario file hosts");

    /** Every rank's host, in rank order. */
    private record Hosts(List<String> names) {
    }

    /**
     * Every rank's host: collective the first time a communicator asks (every rank asks at the same point, as it
     * opens a file), then kept on it, since a rank stays on its host; each file's open was two allgathers more.
     *
     * @return the host of each rank of {@code comm}, in rank order
     */
    static List<String> hosts(final Communicator comm) {
        return comm.attribute(HOSTS, () -> new Hosts(allgatherStrings(comm, FileOpening.hostName()))).names();
    }

    /**
     * Collective: every rank learns every rank's host and computes the same aggregator list.
     *
     * @return the aggregating ranks of {@code comm}, in increasing rank order
     */
    static int[] choose(final Communicator comm, final Hints hints, final String myHost) {
        return choose(allgatherStrings(comm, myHost), hints);
    }

    /**
     * The aggregator list for ranks on {@code hosts}, the same on every rank given the same hosts.
     *
     * @return the aggregating ranks, in increasing rank order
     */
    static int[] choose(final List<String> hosts, final Hints hints) {
        final Map<String, List<Integer>> byHost = new LinkedHashMap<>();
        for (int r = 0; r < hosts.size(); r++) {
            byHost.computeIfAbsent(hosts.get(r).toLowerCase(Locale.ROOT), h -> new ArrayList<>()).add(r);
        }
        final Map<String, Integer> perHost = new LinkedHashMap<>();
        for (final Entry e : parseConfigList(hints.get("cb_config_list"))) {
            if (e.host().equals("*")) {
                for (final String h : byHost.keySet()) {
                    perHost.putIfAbsent(h, e.count());
                }
            } else {
                perHost.putIfAbsent(e.host().toLowerCase(Locale.ROOT), e.count());
            }
        }
        final List<List<Integer>> chosen = new ArrayList<>();
        for (final Map.Entry<String, List<Integer>> h : byHost.entrySet()) {
            final Integer n = perHost.get(h.getKey());
            if (n != null && n != 0) {
                final List<Integer> ranks = h.getValue();
                final int take = n == AUTO ? Math.max(1, Math.min(ranks.size() / 2, AUTO_MOST))
                    : n < 0 ? ranks.size() : Math.min(n, ranks.size());
                chosen.add(ranks.subList(0, take));
            }
        }
        long cap = hints.get("cb_nodes") == null ? Long.MAX_VALUE : hints.number("cb_nodes");
        final List<Integer> out = new ArrayList<>();
        for (int i = 0; cap > 0; i++) {
            boolean any = false;
            for (final List<Integer> ranks : chosen) {
                if (i < ranks.size() && cap > 0) {
                    out.add(ranks.get(i));
                    cap--;
                    any = true;
                }
            }
            if (!any) {
                break;
            }
        }
        if (out.isEmpty()) {
            // a list that names no host of this job: ROMIO falls back to one aggregator, and so does Pario
            out.add(0);
        }
        return out.stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    /** @return every rank's string, in rank order */
    static List<String> allgatherStrings(final Communicator comm, final String mine) {
        final byte[] bytes = mine.getBytes(StandardCharsets.UTF_8);
        final int n = comm.size();
        final long[] lengths = new long[n];
        comm.allgather(new long[] {bytes.length}, 1, Datatype.LONG, lengths, 1, Datatype.LONG);
        final long[] displs = new long[n];
        long total = 0;
        for (int r = 0; r < n; r++) {
            displs[r] = total;
            total += lengths[r];
        }
        final byte[] all = new byte[Math.toIntExact(total)];
        comm.allgatherv(bytes, bytes.length, Datatype.BYTE, all, lengths, displs, Datatype.BYTE);
        final List<String> out = new ArrayList<>(n);
        for (int r = 0; r < n; r++) {
            out.add(new String(all, (int) displs[r], (int) lengths[r], StandardCharsets.UTF_8));
        }
        return out;
    }
}
