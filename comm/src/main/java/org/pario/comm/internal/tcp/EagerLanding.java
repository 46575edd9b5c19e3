package org.pario.comm.internal.tcp;

import org.pario.comm.internal.Endpoint;

/**
 * An eager message a posted receive took when its envelope arrived: its bytes are unpacked into that receive's
 * buffer as they come, with no copy held in between. Its credit goes back once the receive has it.
 */
final class EagerLanding extends Unpacking {
    final Endpoint.Claim claim;
    private final Arrivals arrivals;

    EagerLanding(final int peer, final Endpoint.Claim claim, final long total, final Arrivals arrivals) {
        super(peer, claim.target().memory(), claim.target().type(), claim.target().count(), total);
        this.claim = claim;
        this.arrivals = arrivals;
    }

    @Override
    void complete(final RuntimeException failure) {
        arrivals.landed(this);
        final long cost = Credit.returned(total);
        if (failure != null) {
            arrivals.credit().consumed(peer, cost);
            claim.failed(failure);
        } else {
            claim.landed(() -> arrivals.credit().consumed(peer, cost));
        }
    }
}
