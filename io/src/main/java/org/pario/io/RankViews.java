package org.pario.io;

import java.util.Arrays;
import java.util.List;

/**
 * Every rank's view of a file, as the ranks told each other at {@code setView}, each parsed into a type the first
 * time a call needs it. An aggregator needs the views of the ranks whose bytes fall in its windows, and a rank only
 * its own, so with many ranks most views are never parsed: a parsed darray view holds about 2 KB, its text a tenth
 * of that (at 65,536 ranks 122 MiB a rank parsed eagerly, docs/benchmarks.md "The two-phase planner at scale").
 * Parsing is idempotent and views are immutable, so a view parsed on two threads at once is only parsed twice.
 */
final class RankViews {
    /** Each rank's text ({@link TwoPhase#viewText}), or null where the view is known already. */
    private final String[] texts;
    private final FileView[] parsed;

    private RankViews(final String[] texts, final FileView[] parsed) {
        this.texts = texts;
        this.parsed = parsed;
    }

    /** @return {@code n} ranks with the default view (the whole file as bytes) */
    static RankViews defaults(final int n) {
        final FileView[] v = new FileView[n];
        Arrays.fill(v, FileView.DEFAULT);
        return new RankViews(new String[n], v);
    }

    /** @return the views of {@code texts}, by rank; rank {@code me}'s is {@code mine}, known without parsing */
    static RankViews of(final List<String> texts, final int me, final FileView mine) {
        final String[] t = texts.toArray(new String[0]);
        final FileView[] v = new FileView[t.length];
        t[me] = null;
        v[me] = mine;
        return new RankViews(t, v);
    }

    /** @return rank r's view */
    FileView get(final int r) {
        FileView v = parsed[r];
        if (v == null) {
            v = TwoPhase.viewOf(texts[r].split("\n"));
            parsed[r] = v;
        }
        return v;
    }

    int size() {
        return parsed.length;
    }
}
