package org.pario.io;

import java.util.Arrays;
import java.util.List;

/**
 * Every rank's view of a file, as the ranks told each other at {@code setView} (each its own text, or one text for
 * all where every view is a darray of its rank), each parsed into a type the first time a call needs it. An
 * aggregator needs the views of the ranks whose bytes fall in its windows, and a rank only its own, so with many
 * ranks most views are never parsed: a parsed darray view holds about ten times its text
 * (docs/benchmarks.md, "The two-phase planner at scale"). Parsing is idempotent and views are immutable, so a view
 * parsed on two threads at once is only parsed twice.
 */
final class RankViews {
    /** Each rank's text ({@link TwoPhase#viewText}), or null: the view known already, or all from the template. */
    private final String[] texts;
    private final FileView[] parsed;
    /** Rank r's text is {@code before + r + after} where every rank's view is the same darray but for the rank. */
    private final String before;
    private final String after;

    private RankViews(final String[] texts, final FileView[] parsed, final String before, final String after) {
        this.texts = texts;
        this.parsed = parsed;
        this.before = before;
        this.after = after;
    }

    /** @return {@code n} ranks with the default view (the whole file as bytes) */
    static RankViews defaults(final int n) {
        final FileView[] v = new FileView[n];
        Arrays.fill(v, FileView.DEFAULT);
        return new RankViews(new String[n], v, null, null);
    }

    /** @return the views of {@code texts}, by rank; rank {@code me}'s is {@code mine}, known without parsing */
    static RankViews of(final List<String> texts, final int me, final FileView mine) {
        final String[] t = texts.toArray(new String[0]);
        final FileView[] v = new FileView[t.length];
        t[me] = null;
        v[me] = mine;
        return new RankViews(t, v, null, null);
    }

    /**
     * @return the views of {@code n} ranks whose texts are {@code before + r + after}: a darray of each rank, the
     *     same but for the rank; rank {@code me}'s is {@code mine}. Nothing per rank is kept but what is parsed.
     */
    static RankViews ofTemplate(final String before, final String after, final int n, final int me,
                                final FileView mine) {
        final FileView[] v = new FileView[n];
        v[me] = mine;
        return new RankViews(null, v, before, after);
    }

    /** @return rank r's view */
    FileView get(final int r) {
        FileView v = parsed[r];
        if (v == null) {
            v = TwoPhase.viewOf((texts != null ? texts[r] : before + r + after).split("\n"));
            parsed[r] = v;
        }
        return v;
    }

    /** @return whether every rank's view comes from one template */
    boolean fromTemplate() {
        return before != null;
    }

    int size() {
        return parsed.length;
    }
}
