package org.pario.cli;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import org.pario.io.Progress;
import org.pario.io.array.CheckpointListener;

/** A progress bar with throughput for long collective writes and reads, drawn by one rank only. */
final class ProgressBars implements Progress, CheckpointListener, AutoCloseable {
    /** The bar, or null on the ranks that draw nothing. */
    private final ProgressBar bar;

    private ProgressBars(final ProgressBar bar) {
        this.bar = bar;
    }

    /**
     * @param show whether this rank draws the bar (rank 0)
     * @param task what the bar says
     * @return a progress listener that draws a bar on standard error, or one that does nothing
     */
    static ProgressBars on(final boolean show, final String task) {
        // started now, so that elapsed time and throughput count from the start of the operation
        return new ProgressBars(show ? new ProgressBarBuilder().setTaskName(task).setInitialMax(-1)
            .setUnit(" MiB", 1).showSpeed().setStyle(ProgressBarStyle.ASCII).setMaxRenderedLength(100)
            .setUpdateIntervalMillis(200).continuousUpdate().build() : null);
    }

    @Override
    public void update(final long doneBytes, final long totalBytes) {
        if (bar != null) {
            bar.maxHint(Math.max(1, totalBytes >> 20));
            bar.stepTo(doneBytes >> 20);
        }
    }

    /** Shows a checkpoint's phase beside the bar; each phase fills it anew. */
    @Override
    public void progress(final Phase phase, final long doneBytes, final long totalBytes) {
        if (bar != null) {
            bar.setExtraMessage(" " + phase.name().toLowerCase(java.util.Locale.ROOT));
            update(doneBytes, totalBytes);
        }
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }
}
