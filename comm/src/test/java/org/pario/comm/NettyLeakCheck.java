package org.pario.comm;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class after which Netty reported a leaked buffer (one collected without being released), with the
 * leak's access records. Registered for every comm test class (junit-platform.properties); the test JVM runs Netty's
 * leak detection at the level the build sets ({@code advanced}: a sample of buffers, with where each was touched).
 * Installed before any buffer exists, so every detector Netty makes reports here as well as to its log.
 */
public final class NettyLeakCheck implements BeforeAllCallback, AfterAllCallback {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    static {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(final Class<T> resource,
                                                                       final int samplingInterval,
                                                                       final long maxActive) {
                return new ResourceLeakDetector<T>(resource, samplingInterval) {
                    @Override
                    protected void reportTracedLeak(final String resourceType, final String records) {
                        LEAKS.add(resourceType + " leaked:" + records);
                        super.reportTracedLeak(resourceType, records);
                    }

                    @Override
                    protected void reportUntracedLeak(final String resourceType) {
                        LEAKS.add(resourceType + " leaked (no records)");
                        super.reportUntracedLeak(resourceType);
                    }
                };
            }
        });
    }

    @Override
    public void beforeAll(final ExtensionContext context) {
        LEAKS.clear();
    }

    @Override
    public void afterAll(final ExtensionContext context) throws InterruptedException {
        // leaks are found when their buffers are collected and a later buffer is tracked: collect, wait until the
        // collection's references are enqueued (a sentinel's is, with theirs), then track some buffers
        final ReferenceQueue<Object> queue = new ReferenceQueue<>();
        final WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
        Reference<?> enqueued = null;
        for (int tries = 0; tries < 50 && enqueued == null; tries++) {
            System.gc();
            enqueued = queue.remove(100);
        }
        if (enqueued != sentinel) {
            throw new AssertionError("no collection cleared a weak reference within 5 s; leaks not checked");
        }
        for (int i = 0; i < 1024; i++) {
            ByteBufAllocator.DEFAULT.directBuffer(8).release();
        }
        if (!LEAKS.isEmpty()) {
            throw new AssertionError(LEAKS.size() + " Netty buffer(s) leaked in " + context.getDisplayName() + ":\n"
                + String.join("\n", LEAKS));
        }
    }
}
