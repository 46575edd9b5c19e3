package org.pario.io;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;

/**
 * The two-phase planner alone, for many simulated ranks, in one JVM: no data moves and nothing is sent. For each
 * rank count it does what one rank of a collective write of a distributed array does before and between its data
 * moves, with the io module's own code: learning every rank's view from the one text the ranks agree on
 * ({@link TwoPhase#darrayTemplate}, {@link RankViews}), each rank's stream and file range, the aggregators' file
 * domains ({@link TwoPhasePlan#domains}) and rounds, and per round the pieces an aggregator receives and a rank sends
 * ({@link RoundContext#piece}). It prints per rank count the time and memory one rank spends on each, the messages
 * and bytes per aggregator and round, and the metadata ROMIO's two-phase algorithm would exchange for the same call
 * (every rank's offset-length pairs for every aggregator's domain, 16 bytes per contiguous run).
 *
 * <p>Usage: {@code java -cp bench/target/benchmarks.jar org.pario.io.PlannerSimulation block|cyclic RANKS...}
 * (BLOCK: a 3-D array of doubles on the balanced grid of the ranks, 64^3 elements, 2 MiB, a rank; CYCLIC(1): the
 * last dimension dealt element by element, 64 x 64 x 8 elements, 256 KiB, a rank). Aggregators: one per 16 ranks
 * (one per host of 16 cores, as {@code cb_config_list *:1} gives); {@code cb_buffer_size} 16 MiB.
 */
public final class PlannerSimulation {
    private static final int RANKS_PER_HOST = 16;
    private static final long WINDOW = 16L << 20;
    /** Aggregators and ranks whose rounds are walked (the first, the middle and the last). */
    private static final int SAMPLES = 3;

    private PlannerSimulation() {
    }

    public static void main(final String[] args) {
        if (args.length < 2 || !args[0].equals("block") && !args[0].equals("cyclic")) {
            System.err.println("usage: PlannerSimulation block|cyclic RANKS...");
            System.exit(2);
        }
        final boolean cyclic = args[0].equals("cyclic");
        System.out.printf(Locale.ROOT, "# pattern %s; columns: ranks aggregators rounds | per rank: views ms, views "
            + "MiB, plan ms, sending ms per call, messages sent per call | per aggregator: ms per round, messages "
            + "per round, MiB per round | ROMIO offset-length MiB per aggregator per call%n", args[0]);
        for (int i = 1; i < args.length; i++) {
            System.out.println(simulate(cyclic, Integer.parseInt(args[i])).line());
        }
    }

    private static FileView view(final boolean cyclic, final int ranks, final int rank) {
        final long[] shape;
        final Distribution[] kinds;
        final long[] dargs = {Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG,
            Datatype.DISTRIBUTE_DFLT_DARG};
        final long[] grid;
        if (cyclic) {
            shape = new long[] {64, 64, 8L * ranks};
            kinds = new Distribution[] {Distribution.NONE, Distribution.NONE, Distribution.CYCLIC};
            dargs[2] = 1;
            grid = new long[] {1, 1, ranks};
        } else {
            grid = org.pario.io.array.DistributedArray.dimsCreate(ranks, new long[3]);
            shape = new long[] {64 * grid[0], 64 * grid[1], 64 * grid[2]};
            kinds = new Distribution[] {Distribution.BLOCK, Distribution.BLOCK, Distribution.BLOCK};
        }
        return new FileView(0, Datatype.DOUBLE, Datatype.darray(ranks, rank, shape, kinds, dargs, grid, Order.C,
            Datatype.DOUBLE), DataRepresentation.NATIVE);
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        final Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    /**
     * What one simulated call costs, per rank and per aggregator.
     *
     * @param ranks               ranks
     * @param aggregators         aggregators
     * @param rounds              rounds of the call
     * @param viewsMs             a rank's time to take in the others' views at setView
     * @param viewsBytes          a rank's memory for the views: those its calls parsed
     * @param planMs              a rank's time to plan a call (its own range, the domains)
     * @param sendingMs           a rank's time to find its pieces, every round of a call
     * @param messagesSent        a rank's messages in a call
     * @param aggregatorMs        an aggregator's time to find the pieces of a round
     * @param aggregatorMessages  the pieces an aggregator receives in a round
     * @param aggregatorBytes     the bytes an aggregator receives in a round
     * @param romioMetadataBytes  the offset-length pairs ROMIO would send an aggregator for the same call
     */
    record Result(int ranks, int aggregators, long rounds, double viewsMs, long viewsBytes, double planMs,
                  double sendingMs, long messagesSent, double aggregatorMs, long aggregatorMessages,
                  long aggregatorBytes, long romioMetadataBytes) {
        String line() {
            return String.format(Locale.ROOT, "%d %d %d | %.1f %.1f %.4f %.2f %d | %.2f %d %.1f | %.1f", ranks,
                aggregators, rounds, viewsMs, viewsBytes / 1048576.0, planMs, sendingMs, messagesSent, aggregatorMs,
                aggregatorMessages, aggregatorBytes / 1048576.0, romioMetadataBytes / 1048576.0);
        }
    }

    static Result simulate(final boolean cyclic, final int ranks) {
        // what the ranks send each other at setView: one text each, which every rank keeps
        List<String> texts = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            texts.add(TwoPhase.viewText(view(cyclic, ranks, r), true));
        }
        // the allgather's results: every rank's stream and file range (each rank computes its own)
        final long[] starts = new long[ranks];
        final long[] ends = new long[ranks];
        final long[] los = new long[ranks];
        final long[] his = new long[ranks];
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        double planNanos = 0;
        for (int r = 0; r < ranks; r++) {
            final FileView v = TwoPhase.viewOf(texts.get(r).split("\n"));
            final long t0 = System.nanoTime();
            ends[r] = v.filetype().size();
            los[r] = TwoPhasePlan.fileOffsetOf(v, 0);
            his[r] = TwoPhasePlan.fileOffsetOf(v, ends[r] - 1) + 1;
            TwoPhasePlan.meanRun(v, 0, ends[r]);
            planNanos += System.nanoTime() - t0;
            min = Math.min(min, los[r]);
            max = Math.max(max, his[r]);
        }
        // one rank learns the views as TwoPhase.setViews does: every rank's view is a darray of itself, so the ranks
        // agree on one text, and a view is parsed when a call first needs it
        final FileView mine = view(cyclic, ranks, 0);
        texts = null;
        final long heapTexts = usedHeap();
        long t = System.nanoTime();
        final String[] template = TwoPhase.darrayTemplate(mine, TwoPhase.viewText(mine, true), ranks, 0);
        final RankViews views = RankViews.ofTemplate(template[0], template[1], ranks, 0, mine);
        final double viewsMs = (System.nanoTime() - t) / 1e6;
        t = System.nanoTime();
        final int k = Math.max(1, ranks / RANKS_PER_HOST);
        final long[] bounds = TwoPhasePlan.domains(min, max, k, 4096, false);
        final TwoPhasePlan plan = new TwoPhasePlan(starts, ends, los, his, bounds, WINDOW);
        final double planMs = planNanos / 1e6 / ranks + (System.nanoTime() - t) / 1e6;
        final int[] aggregators = new int[k];
        for (int a = 0; a < k; a++) {
            aggregators[a] = a * RANKS_PER_HOST;
        }
        final RoundContext c = new RoundContext(null, null, aggregators, 0, views, null, (int) WINDOW, null, null);
        // an aggregator's rounds: a piece per rank per round
        double aggregatorMs = 0;
        long aggregatorMessages = 0;
        long aggregatorBytes = 0;
        for (final int a : samples(k)) {
            long messages = 0;
            long bytes = 0;
            t = System.nanoTime();
            for (long round = 0; round < plan.rounds; round++) {
                final long ws = plan.windowStart(a, round);
                final long we = plan.windowEnd(a, round);
                for (int r = 0; r < ranks; r++) {
                    final long[] p = c.piece(plan, r, ws, we);
                    if (p[1] > p[0]) {
                        messages++;
                        bytes += p[1] - p[0];
                    }
                }
            }
            final double ms = (System.nanoTime() - t) / 1e6 / Math.max(1, plan.rounds);
            aggregatorMs = Math.max(aggregatorMs, ms);
            aggregatorMessages = Math.max(aggregatorMessages, messages / Math.max(1, plan.rounds));
            aggregatorBytes = Math.max(aggregatorBytes, bytes / Math.max(1, plan.rounds));
        }
        // a rank's sends: a piece per aggregator per round
        double rankMs = 0;
        long rankMessages = 0;
        for (final int r : samples(ranks)) {
            long messages = 0;
            t = System.nanoTime();
            for (long round = 0; round < plan.rounds; round++) {
                for (int a = 0; a < k; a++) {
                    final long[] p = c.piece(plan, r, plan.windowStart(a, round), plan.windowEnd(a, round));
                    if (p[1] > p[0]) {
                        messages++;
                    }
                }
            }
            rankMs = Math.max(rankMs, (System.nanoTime() - t) / 1e6);
            rankMessages = Math.max(rankMessages, messages);
        }
        // a rank's memory for the views: those its calls parsed (the sampled ranks' and aggregators' together: an
        // upper bound for any one of them)
        final long viewsBytes = usedHeap() - heapTexts;
        Reference.reachabilityFence(views);
        // ROMIO: every rank sends each aggregator the offset-length pairs of its runs in that aggregator's domain
        final long runBytes = cyclic ? 8 : 64 * 8;
        final long romioPerAggregator = (max - min) / k / runBytes * 16;
        return new Result(ranks, k, plan.rounds, viewsMs, viewsBytes, planMs, rankMs, rankMessages, aggregatorMs,
            aggregatorMessages, aggregatorBytes, romioPerAggregator);
    }

    private static int[] samples(final int n) {
        return n <= SAMPLES ? java.util.stream.IntStream.range(0, n).toArray() : new int[] {0, n / 2, n - 1};
    }
}
