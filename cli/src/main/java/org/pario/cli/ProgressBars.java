package org.pario.cli;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import org.pario.io.Progress;

/** Progress bars with throughput for long collective writes and reads, shown by one rank only. */
final class ProgressBars implements Progress, AutoCloseable {
    private final ProgressBar bar;

    private ProgressBars(final String task) {
        // started now, so that elapsed time and throughput count from the start of the operation
        this.bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(-1).setUnit(" MiB", 1).showSpeed()
            .setStyle(ProgressBarStyle.ASCII).setMaxRenderedLength(100).setUpdateIntervalMillis(200)
            .continuousUpdate().build();
    }

    /**
     * @param show whether this rank shows the bar (rank 0)
     * @param task what the bar says
     * @return a progress listener that draws a bar on standard error, or one that does nothing
     */
    static ProgressBars on(final boolean show, final String task) {
        return show ? new ProgressBars(task) : null;
    }

    /** @return the listener to hand to Pario, which draws nothing when {@code bars} is null */
    static Progress of(final ProgressBars bars) {
        return bars == null ? Progress.NONE : bars;
    }

    @Override
    public void update(final long doneBytes, final long totalBytes) {
        bar.maxHint(Math.max(1, totalBytes >> 20));
        bar.stepTo(doneBytes >> 20);
    }

    @Override
    public void close() {
        bar.close();
    }
}
