package org.pario.comm.internal.tcp;

import io.netty.channel.Channel;

/** What a rank's connection handlers tell it: peers that introduce themselves, frames they send, peers that go. */
interface PeerEvents {
    /** @return this rank */
    int rank();

    /** @return the job's token, which every connection must present */
    byte[] token();

    /** @return whether this rank has closed its connections (a closing connection then proves nothing) */
    boolean closed();

    /** @return whether {@code peer} has departed */
    boolean departed(int peer);

    /** {@code peer} departed: finished when {@code why} is null, failed otherwise. */
    void depart(int peer, Throwable why);

    /**
     * A connection presented a hello with the job's token, claiming to be {@code peer}.
     *
     * @return whether it is accepted (a rank of this job, not this one, not connected already), the connection
     *     then known as {@code peer}'s ({@link InboundHandler#peerIs})
     */
    boolean hello(int peer, Channel ch);

    /** A frame from {@code peer}: a message, an announcement, a request for data, or credit. */
    void received(int peer, Object frame);
}
