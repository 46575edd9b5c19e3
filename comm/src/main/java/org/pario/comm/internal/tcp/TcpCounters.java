package org.pario.comm.internal.tcp;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What a rank's TCP transport has done, counted as it runs: which paths its messages took. The counters are cheap
 * (one atomic add per message on its path) and always on; benchmarks and tests read them to see that a message took
 * the path meant for it, and a user can read them to see why a transfer runs as it does ({@code
 * TcpFabric.counters()}). Counts start at zero when the rank starts.
 */
public final class TcpCounters {
    final AtomicLong landedInPlace = new AtomicLong();
    final AtomicLong readInPlace = new AtomicLong();
    final AtomicLong sentInPlace = new AtomicLong();
    final AtomicLong sentEagerInPlace = new AtomicLong();
    final AtomicLong sentEagerInPieces = new AtomicLong();
    final AtomicLong eagerPiecesFilledSocket = new AtomicLong();
    final AtomicLong packedLate = new AtomicLong();
    final AtomicLong sentFromArrays = new AtomicLong();
    final AtomicLong readIntoArrays = new AtomicLong();
    private final LongSupplier arraysKept;
    private final LongSupplier parked;

    TcpCounters(final LongSupplier arraysKept, final LongSupplier parked) {
        this.arraysKept = arraysKept;
        this.parked = parked;
    }

    /** @return how many eager messages were unpacked into an already posted receive as they arrived */
    public long messagesLandedInPlace() {
        return landedInPlace.get();
    }

    /** @return how many bytes of message data the sockets read straight into receive memory, with no copy after */
    public long bytesReadInPlace() {
        return readInPlace.get();
    }

    /** @return how many bytes of message data collectives sent straight from the caller's memory, unpacked */
    public long bytesSentInPlace() {
        return sentInPlace.get();
    }

    /** @return how many bytes of eager messages were written straight from the caller's direct memory */
    public long bytesSentEagerInPlace() {
        return sentEagerInPlace.get();
    }

    /** @return how many bytes of eager messages were packed in pieces as they were written */
    public long bytesSentEagerInPieces() {
        return sentEagerInPieces.get();
    }

    /** @return how many eager messages sent in pieces filled their socket part way, their rest going through Netty */
    public long eagerMessagesThatFilledTheSocket() {
        return eagerPiecesFilledSocket.get();
    }

    /** @return bytes of collectives' messages packed piece by piece as the socket took them */
    public long bytesPackedLate() {
        return packedLate.get();
    }

    /**
     * @return bytes of message data the sockets took straight from the caller's Java arrays, with no packing (Java
     *     22+)
     */
    public long bytesSentFromArrays() {
        return sentFromArrays.get();
    }

    /** @return bytes of message data the sockets read straight into the receivers' Java arrays (Java 22+) */
    public long bytesReadIntoArrays() {
        return readIntoArrays.get();
    }

    /** @return bytes of arrays kept now for eager messages that arrive before their receive */
    public long arraysKeptForMessages() {
        return arraysKept.getAsLong();
    }

    /** @return how many messages' data waits here now for their receivers to ask for it */
    public long parkedMessages() {
        return parked.getAsLong();
    }
}
