package org.pario.comm.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Whether ranks outnumber cores is judged by the host's CPUs as the launcher gives them, not by a bound JVM's. */
@Timeout(10)
class HostCpusTest {
    @Test
    void theLaunchersCountWinsOverWhatABoundJvmSees() {
        assertEquals(2, TcpMesh.hostCpus("2", 1), "a rank bound to one of 2 cores");
        assertEquals(8, TcpMesh.hostCpus(" 8 ", 2));
    }

    @Test
    void withoutAValidCountTheJvmsViewStands() {
        assertEquals(4, TcpMesh.hostCpus(null, 4), "not started by pario launch");
        assertEquals(4, TcpMesh.hostCpus("", 4));
        assertEquals(4, TcpMesh.hostCpus("two", 4));
        assertEquals(4, TcpMesh.hostCpus("0", 4));
        assertEquals(4, TcpMesh.hostCpus("-3", 4));
    }
}
