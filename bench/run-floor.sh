#!/usr/bin/env bash
# The floor under Pario's large-message times over TCP: MPICH's and Open MPI's ping-pong (bench/c/comm_bench.c,
# half a round trip of the message both ways), plain Java sockets between two JVMs from direct buffers and from a
# double[], whole or a piece at a time, or from direct buffers polled without sleeping (SocketFloor: the message one
# way, 8 B back), and Pario's own timeline of the same exchange (MessageTimeline) from a double[] and from a direct
# ByteBuffer, one after the other, for each size. Then the ping-pong itself, both ways, through Netty's epoll socket
# polled as Pario polls it with nothing else in the way (ExchangeFloor): from direct buffers, from a double[] copied
# through direct memory as Java 17 must, and, where a Java of 22 or later is found (PARIO_FLOOR_JAVA, or the newest
# under /usr/lib/jvm), from the double[] itself through the foreign function API (bench/floor/FfmExchangeFloor.java,
# a single-file program outside the Maven build). Installs MPICH and Open MPI (apt-get) when missing.
# Usage: bench/run-floor.sh [SIZE...]   (bytes; default: 1048576 16777216)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/target/comm"
mkdir -p "$out"
sizes=("$@")
[ $# -eq 0 ] && sizes=(1048576 16777216)
. "$root/bench/mpi-stacks.sh"
install_mpi_stacks
build_with_both "$root/bench/c/comm_bench.c" "$out/comm_bench"
(cd "$root" && mvn -B -q -DskipTests -pl cli,bench -am package)
jar="$root/bench/target/benchmarks.jar"
timeout 300 mpiexec.mpich -n 2 -env MPIR_CVAR_NOLOCAL 1 -env UCX_TLS tcp,self "$out/comm_bench_mpich" "MPICH" \
    2>/dev/null | grep '^pingpong' | sed 's/^/MPICH    /' || true
timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 --mca pml ob1 --mca btl tcp,self \
    "$out/comm_bench_openmpi" "Open MPI" 2>/dev/null | grep '^pingpong' | sed 's/^/Open MPI /' || true
for size in "${sizes[@]}"; do
    # Pario's exchange of 16 MiB settles only after about a thousand rounds (300: 5585 us, 600: 4679, 1000: 4362,
    # 1500: 4005-4065 per round), as its 1 MiB one does after thousands: every program gets as many
    iterations=$(( size > 4194304 ? 1500 : 3000 ))
    java -cp "$jar" org.pario.bench.SocketFloor "$size" direct "$iterations" | sed 's/^/Java     /'
    java -cp "$jar" org.pario.bench.SocketFloor "$size" heap "$iterations" | sed 's/^/Java     /'
    java -cp "$jar" org.pario.bench.SocketFloor "$size" pieces "$iterations" | sed 's/^/Java     /'
    java -cp "$jar" org.pario.bench.SocketFloor "$size" spin "$iterations" | sed 's/^/Java     /'
    java -jar "$root/cli/target/pario.jar" launch -n 2 -- java -Xmx2g -Dpario.sharedMemory=false -cp "$jar" \
        org.pario.bench.MessageTimeline "$size" "$iterations" | sed 's/^\[0\] /Pario    /'
    java -jar "$root/cli/target/pario.jar" launch -n 2 -- java -Xmx2g -Dpario.sharedMemory=false -cp "$jar" \
        org.pario.bench.MessageTimeline "$size" "$iterations" direct | sed 's/^\[0\] /Pario    /'
done
# the newest Java of 22 or later, for the floor without Java 17's copies
java22=${PARIO_FLOOR_JAVA:-}
if [ -z "$java22" ]; then
    for home in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -V -r); do
        version=$("$home/bin/java" -XshowSettings:properties -version 2>&1 | awk '/java.specification.version/ {print $3}')
        if [ -n "$version" ] && [ "${version%%.*}" -ge 22 ] 2>/dev/null; then
            java22="$home/bin/java"
            break
        fi
    done
fi
for size in "${sizes[@]}"; do
    iterations=$(( size > 4194304 ? 200 : 2000 ))
    java -cp "$jar" org.pario.bench.ExchangeFloor "$size" direct "$iterations" | tail -1 | sed 's/^/Java     /'
    java -cp "$jar" org.pario.bench.ExchangeFloor "$size" heap "$iterations" | tail -1 | sed 's/^/Java     /'
    if [ -n "$java22" ]; then
        "$java22" --enable-native-access=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
            "$root/bench/floor/FfmExchangeFloor.java" "$size" "$iterations" | tail -1 | sed 's/^/Java 22+ /'
    else
        echo "Java 22+ (no Java of 22 or later found: set PARIO_FLOOR_JAVA for the floor without Java 17's copies)"
    fi
done
