package org.pario.comm.internal;

import java.util.Arrays;

import org.pario.comm.settings.CommSettings;

/** Ranks that are threads of one JVM: a send hands the message straight to the destination's endpoint. */
public final class LocalFabric extends Fabric {
    private final Endpoint[] endpoints;

    /**
     * @param size     number of ranks
     * @param settings how waiting ranks behave
     */
    public LocalFabric(final int size, final CommSettings settings) {
        super(size, settings.spinNanos());
        endpoints = new Endpoint[size];
        for (int r = 0; r < size; r++) {
            endpoints[r] = new Endpoint(r, this);
        }
    }

    @Override
    public Endpoint endpoint(final int worldRank) {
        return endpoints[worldRank];
    }

    @Override
    protected Iterable<Endpoint> localEndpoints() {
        return Arrays.asList(endpoints);
    }

    @Override
    public void send(final int worldDest, final Message m, final int[] group) {
        checkAlive(worldDest);
        endpoints[worldDest].deliver(m);
    }
}
