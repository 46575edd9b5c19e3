package org.pario.it;

import java.util.concurrent.CountDownLatch;

import org.pario.comm.Communicator;
import org.pario.comm.Pario;

/**
 * A rank that hangs: it joins the job, prints {@code rank R pid P ready}, then waits forever, and its shutdown
 * hook waits forever too, so SIGTERM alone never ends it (as a rank stuck in native code or a deadlock would not).
 */
public final class HungRankMain {
    private HungRankMain() {
    }

    public static void main(final String[] args) throws Exception {
        final CountDownLatch never = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        try (Communicator world = Pario.init()) {
            world.barrier();
            System.out.println("rank " + world.rank() + " pid " + ProcessHandle.current().pid() + " ready");
            System.out.flush();
            never.await();
        }
    }
}
