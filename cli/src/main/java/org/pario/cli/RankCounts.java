package org.pario.cli;

import org.pario.ParioException;

/**
 * The rank counts the commands accept, checked before any rank starts: ranks as threads share this JVM's heap
 * and threads, ranks as JVMs this machine's memory, so a count far past what fits fails at once with one line
 * instead of running out of memory half way.
 */
final class RankCounts {
    /** The most ranks a command runs as threads of one JVM. */
    static final int MAX_THREADS = 1024;
    /** The most ranks a command starts as JVMs on this machine. */
    static final int MAX_JVMS = 256;

    private RankCounts() {
    }

    /**
     * @param option the option that gave the count ({@code -n})
     * @param n      the count
     * @return n, if it is between 1 and {@link #MAX_THREADS}
     */
    static int threads(final String option, final int n) {
        if (n < 1 || n > MAX_THREADS) {
            throw ParioException.argument(option + " " + n + ": ranks as threads of one JVM must number 1 to "
                + MAX_THREADS);
        }
        return n;
    }

    /**
     * @param option the option that gave the count ({@code -n})
     * @param n      the count
     * @param least  the fewest ranks the command needs
     * @return n, if it is between {@code least} and {@link #MAX_JVMS}
     */
    static int jvms(final String option, final int n, final int least) {
        if (n < least || n > MAX_JVMS) {
            throw ParioException.argument(option + " " + n + ": this command starts " + least + " to " + MAX_JVMS
                + " JVM ranks on this machine");
        }
        return n;
    }
}
