package org.pario.io.array;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.pario.comm.AttributeKey;
import org.pario.comm.Communicator;
import org.pario.datatypes.Datatype;

import org.pario.datatypes.DataRepresentation;
import org.pario.io.DataPathWarmup;
import org.pario.io.ExchangeWarmup;
import org.pario.io.FileView;
import org.pario.io.Hints;

/**
 * Runs once per JVM, on a background thread, the code of a checkpoint that does not depend on the data or the other
 * ranks: the header's JSON codec, the time format, the packing and placement of this rank's data through its view
 * ({@link DataPathWarmup}), the flight-recorder event, the checksum arithmetic. A JVM's first
 * checkpoint otherwise loads and first runs all of it inside the collective call (some 2,000 classes; most of a
 * second per rank when four JVMs start at once on two cores). Started when the first distributed array is made,
 * which is usually long before the first checkpoint. A checkpoint that comes sooner stops it at its next step: from
 * then on the checkpoint loads and compiles what it needs itself, and the warm-up would only take CPU from it.
 *
 * <p>The exchange between ranks needs the peers: {@link Checkpoint#prepare} starts it, collectively, as an {@link
 * ExchangeWarmup} kept on the communicator, which a checkpoint that begins stops the same way.
 */
final class CheckpointWarmup {
    /** Where a communicator keeps its exchange warm-up; closing the communicator stops it. */
    private static final AttributeKey<ExchangeWarmup> EXCHANGE = new AttributeKey<>(ExchangeWarmup.class,
        "pario checkpoint exchange warm-up");
    /** Once per JVM: warming is idempotent, and a second run would find everything loaded. */
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    /** Set once a checkpoint call has begun in this JVM; the warm-up then stops at its next step. */
    private static volatile boolean checkpointBegun;

    private CheckpointWarmup() {
    }

    /** Starts the warm-up with {@code array}'s layout, unless it has started before in this JVM. */
    static void startOnce(final DistributedArray<?> array) {
        if (!STARTED.compareAndSet(false, true)) {
            return;
        }
        final Thread t = new Thread(() -> run(array), "pario-checkpoint-warmup");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    /** Called as a checkpoint call begins a phase: from then on the call's own work comes first. */
    static void giveWay() {
        if (!checkpointBegun) {
            checkpointBegun = true;
        }
    }

    /**
     * Starts the exchange's warm-up on {@code array}'s communicator, once per communicator ({@link
     * Checkpoint#prepare}); collective.
     */
    static void startExchange(final DistributedArray<?> array, final Hints hints) {
        final Communicator comm = array.comm();
        comm.attribute(EXCHANGE, () -> {
            final DistributedArray<?>.Local local = array.local();
            final Datatype el = array.elementType();
            final long count = ExchangeWarmup.sampleCount(comm.size(), el, local.count());
            // the rounds' file is summed as a checkpoint's is: what a checkpoint writes and what a restore reads,
            // on the threads that sum them, through the same decorators
            final List<StoredArray> summed = List.of(stored(array, WARMED_SUM_BYTES).placed(0));
            final InFlightChecksums writes = InFlightChecksums.ofWrites(summed, CheckpointWriter.CHUNK, 0);
            final InFlightChecksums reads = InFlightChecksums.ofReads(summed.get(0), CheckpointWriter.CHUNK);
            // once a checkpoint has begun in this JVM (or had run before), the rounds would only take CPU from it
            return ExchangeWarmup.start(comm, hints, new FileView(0, el, local.filetype(), DataRepresentation.NATIVE),
                array.element().allocate(count), count, el, () -> checkpointBegun,
                storage -> writes.watching(reads.watching(storage)));
        });
    }

    /** The bytes of this rank's kind of buffer that the data path's warm-up packs from and unpacks into. */
    private static final long SAMPLE_BYTES = 64 << 10;

    /** Times the header codec is run at most, and the header text it is given in all at most. */
    private static final int CODEC_RUNS = 40;
    private static final long CODEC_TEXT_BYTES = 4L << 20;

    /**
     * The file bytes the exchange warm-up's checksums cover at most: its rounds move at most 32 MiB at a time,
     * anywhere in the array's bytes; those past this bound pass the decorators unsummed, which bounds the sums kept.
     */
    private static final long WARMED_SUM_BYTES = 1L << 30;

    /** @return {@code a} as a checkpoint stores it, its bytes cut at {@code most}, not yet placed in a file */
    private static StoredArray stored(final DistributedArray<?> a, final long most) {
        final long bytes = Math.min(most, Math.multiplyExact(a.globalCount(), a.elementType().extent()));
        return new StoredArray("warm-up", a.shape(), a.elementType(), a.order(), List.of(a.dists()), a.grid(),
            Attributes.builder().put("units", "K").build(), 0, bytes,
            new long[(int) ((bytes + CheckpointWriter.CHUNK - 1) / CheckpointWriter.CHUNK)]);
    }

    private static void run(final DistributedArray<?> a) {
        try {
            if (checkpointBegun) {
                return;
            }
            final StoredArray stored = stored(a, (1L << 20) * CheckpointWriter.CHUNK);
            final CheckpointHeader planned = new CheckpointHeader(HeaderCodec.VERSION, CheckpointWriter.CHUNK,
                Instant.now().truncatedTo(ChronoUnit.MILLIS), a.comm().size(), Attributes.builder().put("step", 1)
                .put("time", 0.5).put("name", "warm-up").build(), List.of(stored));
            final String json = HeaderCodec.json(planned);
            final long first = HeaderCodec.firstOffset(json.getBytes(StandardCharsets.UTF_8).length + 64L);
            final CheckpointHeader h = planned.withArrays(List.of(stored.placed(first)));
            // every restore parses the header on every rank, a few times in a JVM's life: run the codec until the
            // compiler has its loops, or a restore's ranks parse a 1 GiB array's header (1,024 checksums) in up to
            // 20 ms, one after another across the host's cores, while rank 0 waits for them
            final ByteBuffer encoded = HeaderCodec.encode(h);
            final int codecRuns = (int) Math.max(1, Math.min(CODEC_RUNS, CODEC_TEXT_BYTES / Math.max(1,
                encoded.remaining())));
            for (int i = 0; i < codecRuns && !checkpointBegun; i++) {
                HeaderCodec.parse(HeaderCodec.json(h), encoded.remaining(), "warm-up");
            }
            if (checkpointBegun) {
                return;
            }
            final DistributedArray<?>.Local local = a.local();
            final long sampleCount = Math.min(local.count(), SAMPLE_BYTES / Math.max(1, a.elementType().size()));
            DataPathWarmup.run(new FileView(0, a.elementType(), local.filetype(), DataRepresentation.NATIVE),
                Math.multiplyExact(local.count(), a.elementType().extent()), sampleCount == 0 ? null
                : a.element().allocate(sampleCount), sampleCount, a.elementType(), () -> checkpointBegun);
            final CheckpointPhaseEvent event = new CheckpointPhaseEvent();
            event.begin();
            event.end();
            // the arithmetic that joins in-flight checksums, until the compiler has taken it; on heap pieces (HDFS)
            // and direct ones (local files) alike, or the compiled code meets the other kind in the checkpoint and
            // is compiled again
            final ByteBuffer[] pieces = {ByteBuffer.allocate(64), ByteBuffer.allocateDirect(64)};
            for (int i = 0; i < 20_000 && !checkpointBegun; i++) {
                final ByteBuffer piece = pieces[i & 1];
                Crc32c.contribution(Crc32c.of(piece), piece.remaining(), i * 4096L);
            }
        } catch (RuntimeException | Error ignored) {
            // a warm-up only: whatever fails here fails again, with its proper error, in the checkpoint itself
        }
    }
}
