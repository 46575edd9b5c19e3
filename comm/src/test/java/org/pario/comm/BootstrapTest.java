package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.pario.ParioException;

/** Every launcher's environment names the same rank, size and job. */
class BootstrapTest {
    @Test
    void eachLaunchersVariablesAreRecognised() {
        assertEquals(3, Bootstrap.fromEnvironment(Map.of("PARIO_RANK", "3", "PARIO_SIZE", "8")).rank());
        final Bootstrap ompi = Bootstrap.fromEnvironment(Map.of("OMPI_COMM_WORLD_RANK", "1",
            "OMPI_COMM_WORLD_SIZE", "4", "PMIX_NAMESPACE", "prterun-vm-1234@1"));
        assertEquals(1, ompi.rank());
        assertEquals(4, ompi.size());
        assertEquals("pmix-prterun-vm-1234@1", ompi.job());
        final Bootstrap hydra = Bootstrap.fromEnvironment(Map.of("PMI_RANK", "2", "PMI_SIZE", "5"));
        assertEquals(2, hydra.rank());
        assertTrue(hydra.job().startsWith("ppid-"), hydra.job());
        final Bootstrap slurm = Bootstrap.fromEnvironment(Map.of("SLURM_PROCID", "6", "SLURM_NTASKS", "16",
            "SLURM_JOB_ID", "4242", "SLURM_STEP_ID", "3"));
        assertEquals(6, slurm.rank());
        assertEquals(16, slurm.size());
        assertEquals("slurm-4242.3", slurm.job());
        final Bootstrap torch = Bootstrap.fromEnvironment(Map.of("RANK", "0", "WORLD_SIZE", "2",
            "MASTER_ADDR", "node7", "MASTER_PORT", "29500"));
        assertEquals("node7:29500", torch.coordinator());
        final Bootstrap k8s = Bootstrap.fromEnvironment(Map.of("JOB_COMPLETION_INDEX", "9", "PARIO_SIZE", "12",
            "PARIO_COORDINATOR", "solver-0.solver:7000"));
        assertEquals(9, k8s.rank());
        assertEquals("solver-0.solver:7000", k8s.coordinator());
        assertNull(hydra.coordinator());
    }

    @Test
    void pariosOwnVariablesWinAndTokensFollowTheJob() {
        final Bootstrap b = Bootstrap.fromEnvironment(Map.of("PARIO_RANK", "1", "PARIO_SIZE", "2", "PMI_RANK", "7",
            "PMI_SIZE", "9", "PARIO_JOB", "a"));
        assertEquals(1, b.rank());
        final Bootstrap other = Bootstrap.fromEnvironment(Map.of("PARIO_RANK", "1", "PARIO_SIZE", "2", "PARIO_JOB", "b"));
        assertNotEquals(b.token(), other.token(), "another job's ranks are refused");
        assertEquals("s3cret", Bootstrap.fromEnvironment(Map.of("PARIO_RANK", "0", "PARIO_SIZE", "1",
            "PARIO_TOKEN", "s3cret")).token());
    }

    @Test
    void missingOrInvalidVariablesAreClearErrors() {
        assertTrue(assertThrows(ParioException.class, () -> Bootstrap.fromEnvironment(Map.of())).getMessage()
            .contains("no rank found in the environment"));
        assertTrue(assertThrows(ParioException.class, () -> Bootstrap.fromEnvironment(
            Map.of("PARIO_RANK", "x", "PARIO_SIZE", "2"))).getMessage().contains("PARIO_RANK must be an integer"));
        assertThrows(ParioException.class, () -> Bootstrap.fromEnvironment(Map.of("PARIO_RANK", "2", "PARIO_SIZE", "2")));
    }
}
