package org.pario.it;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.pario.datatypes.Combiner;
import org.pario.datatypes.Contents;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;

/**
 * Writes a C program that builds datatypes through MPICH's own constructors, from Pario's description of how
 * each type was built ({@link Datatype#contents()}), and prints MPICH's figures and a hash of what
 * {@code MPI_Pack} and {@code MPI_Pack_external} produce from a patterned buffer.
 *
 * <p>Output, one line per type: {@code T<i> size lb extent true_lb true_extent packed_bytes pack_hash
 * ext32_bytes ext32_hash} (the external32 pair is {@code - -} unless asked for). The program's argument is
 * the one type to report: MPICH 4.0 corrupts its own state on some types, so each type gets a fresh process.
 */
final class MpichTypeProgram {
    /** Number of elements packed per type. */
    static final int COUNT = 2;

    private final StringBuilder body = new StringBuilder();
    private final Map<Datatype, String> names = new HashMap<>();
    private int next;

    static String source(final List<Datatype> types, final List<Boolean> external32) {
        final MpichTypeProgram p = new MpichTypeProgram();
        for (int i = 0; i < types.size(); i++) {
            p.names.clear();
            p.body.append("  if (only == ").append(i).append(") {\n");
            final String t = p.build(types.get(i));
            p.body.append("  report(").append(i).append(", ").append(t).append(", ")
                .append(external32.get(i) ? 1 : 0).append(");\n  }\n");
        }
        return PRELUDE + "int main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n"
            + "  int only = argc > 1 ? atoi(argv[1]) : 0;\n  setvbuf(stdout, NULL, _IOLBF, 0);\n" + p.body
            + "  MPI_Finalize();\n  return 0;\n}\n";
    }

    /** The byte every test buffer holds at offset {@code off} from its origin; Pario's side uses the same. */
    static byte pattern(final long off) {
        return (byte) Math.floorMod(off * 31 + 7, 251);
    }

    /** FNV-1a over a byte sequence, as the C side computes it. */
    static long fnv(final byte[] bytes) {
        long h = 0xcbf29ce484222325L;
        for (final byte b : bytes) {
            h ^= b & 0xFF;
            h *= 0x100000001b3L;
        }
        return h;
    }

    private String build(final Datatype t) {
        final String known = names.get(t);
        if (known != null) {
            return known;
        }
        final Contents c = t.contents();
        if (c.combiner() == Combiner.NAMED) {
            return "MPI_" + t.toString().toUpperCase(Locale.ROOT);
        }
        final List<Datatype> old = c.datatypes();
        final String[] olds = new String[old.size()];
        for (int i = 0; i < olds.length; i++) {
            olds[i] = build(old.get(i));
        }
        final long[] ints = c.integers();
        final long[] addr = c.addresses();
        final String v = "t" + next++;
        body.append("  MPI_Datatype ").append(v).append(";\n");
        switch (c.combiner()) {
            case DUP -> call("MPI_Type_dup(" + olds[0] + ", &" + v + ")");
            case CONTIGUOUS -> call("MPI_Type_contiguous(" + ints[0] + ", " + olds[0] + ", &" + v + ")");
            case VECTOR -> call("MPI_Type_vector(" + ints[0] + ", " + ints[1] + ", " + ints[2] + ", " + olds[0]
                + ", &" + v + ")");
            case HVECTOR -> call("MPI_Type_create_hvector(" + ints[0] + ", " + ints[1] + ", " + addr[0] + ", "
                + olds[0] + ", &" + v + ")");
            case INDEXED -> {
                final int n = (int) ints[0];
                final String bl = array("int", ints, 1, n);
                final String d = array("int", ints, 1 + n, n);
                call("MPI_Type_indexed(" + n + ", " + bl + ", " + d + ", " + olds[0] + ", &" + v + ")");
            }
            case HINDEXED -> {
                final int n = (int) ints[0];
                final String bl = array("int", ints, 1, n);
                final String d = array("MPI_Aint", addr, 0, n);
                call("MPI_Type_create_hindexed(" + n + ", " + bl + ", " + d + ", " + olds[0] + ", &" + v + ")");
            }
            case INDEXED_BLOCK -> {
                final int n = (int) ints[0];
                final String d = array("int", ints, 2, n);
                call("MPI_Type_create_indexed_block(" + n + ", " + ints[1] + ", " + d + ", " + olds[0] + ", &" + v
                    + ")");
            }
            case HINDEXED_BLOCK -> {
                final int n = (int) ints[0];
                final String d = array("MPI_Aint", addr, 0, n);
                call("MPI_Type_create_hindexed_block(" + n + ", " + ints[1] + ", " + d + ", " + olds[0] + ", &" + v
                    + ")");
            }
            case STRUCT -> {
                final int n = (int) ints[0];
                final String bl = array("int", ints, 1, n);
                final String d = array("MPI_Aint", addr, 0, n);
                final String ty = "ty" + next++;
                body.append("  MPI_Datatype ").append(ty).append("[").append(Math.max(1, n)).append("] = {");
                for (int i = 0; i < n; i++) {
                    body.append(i > 0 ? ", " : "").append(olds[i]);
                }
                body.append(n == 0 ? "MPI_INT" : "").append("};\n");
                final boolean legacy = old.contains(Datatype.LB) || old.contains(Datatype.UB);
                call((legacy ? "MPI_Type_struct(" : "MPI_Type_create_struct(") + n + ", " + bl + ", " + d + ", " + ty
                    + ", &" + v + ")");
            }
            case SUBARRAY -> {
                final int n = (int) ints[0];
                call("MPI_Type_create_subarray(" + n + ", " + array("int", ints, 1, n) + ", "
                    + array("int", ints, 1 + n, n) + ", " + array("int", ints, 1 + 2 * n, n) + ", "
                    + order(ints[1 + 3 * n]) + ", " + olds[0] + ", &" + v + ")");
            }
            case DARRAY -> {
                final int n = (int) ints[2];
                final long[] distribs = new long[n];
                final StringBuilder ds = new StringBuilder();
                final String da = "da" + next++;
                body.append("  int ").append(da).append("[] = {");
                for (int i = 0; i < n; i++) {
                    distribs[i] = ints[3 + n + i];
                    final long darg = ints[3 + 2 * n + i];
                    ds.append(i > 0 ? ", " : "").append("MPI_DISTRIBUTE_")
                        .append(Distribution.values()[(int) distribs[i]].name());
                    body.append(i > 0 ? ", " : "")
                        .append(darg == Datatype.DISTRIBUTE_DFLT_DARG ? "MPI_DISTRIBUTE_DFLT_DARG" : Long.toString(darg));
                }
                body.append("};\n");
                final String di = "di" + next++;
                body.append("  int ").append(di).append("[] = {").append(ds).append("};\n");
                call("MPI_Type_create_darray(" + ints[0] + ", " + ints[1] + ", " + n + ", " + array("int", ints, 3, n)
                    + ", " + di + ", " + da + ", " + array("int", ints, 3 + 3 * n, n) + ", " + order(ints[3 + 4 * n])
                    + ", " + olds[0] + ", &" + v + ")");
            }
            case RESIZED -> call("MPI_Type_create_resized(" + olds[0] + ", " + addr[0] + ", " + addr[1] + ", &" + v + ")");
            default -> throw new IllegalStateException(c.combiner().toString());
        }
        call("MPI_Type_commit(&" + v + ")");
        names.put(t, v);
        return v;
    }

    private static String order(final long ordinal) {
        return ordinal == Order.C.ordinal() ? "MPI_ORDER_C" : "MPI_ORDER_FORTRAN";
    }

    private String array(final String ctype, final long[] values, final int from, final int n) {
        final String name = "a" + next++;
        body.append("  ").append(ctype).append(' ').append(name).append('[').append(Math.max(1, n)).append("] = {");
        for (int i = 0; i < n; i++) {
            body.append(i > 0 ? ", " : "").append(values[from + i]);
        }
        body.append(n == 0 ? "0" : "").append("};\n");
        return name;
    }

    private void call(final String statement) {
        body.append("  CHECK(").append(statement).append(");\n");
    }

    private static final String PRELUDE = """
        #include <mpi.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <stdint.h>
        #define CHECK(x) do { int rc_ = (x); if (rc_ != MPI_SUCCESS) { \\
            fprintf(stderr, "MPI error %d at line %d\\n", rc_, __LINE__); exit(2); } } while (0)
        #define COUNT @COUNT@
        static unsigned long long fnv(const unsigned char *p, long n) {
            unsigned long long h = 0xcbf29ce484222325ULL;
            for (long i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ULL; }
            return h;
        }
        static void report(int id, MPI_Datatype t, int ext32) {
            MPI_Count size, lb, extent, tlb, textent;
            CHECK(MPI_Type_size_x(t, &size));
            CHECK(MPI_Type_get_extent_x(t, &lb, &extent));
            CHECK(MPI_Type_get_true_extent_x(t, &tlb, &textent));
            long lo = tlb, hi = tlb + textent;
            long shift = (long) (COUNT - 1) * extent;
            if (tlb + shift < lo) lo = tlb + shift;
            if (tlb + textent + shift > hi) hi = tlb + textent + shift;
            if (lo > 0) lo = 0;
            if (hi < 0) hi = 0;
            long span = hi - lo + 1;
            unsigned char *mem = malloc(span);
            for (long i = 0; i < span; i++) {
                long off = lo + i;
                long v = (off * 31 + 7) % 251;
                if (v < 0) v += 251;
                mem[i] = (unsigned char) v;
            }
            unsigned char *origin = mem - lo;
            int packsize;
            CHECK(MPI_Pack_size(COUNT, t, MPI_COMM_SELF, &packsize));
            unsigned char *out = malloc(packsize + 1);
            int position = 0;
            if (size > 0) CHECK(MPI_Pack(origin, COUNT, t, out, packsize, &position, MPI_COMM_SELF));
            printf("T%d %lld %lld %lld %lld %lld %d %llu", id, (long long) size, (long long) lb,
                   (long long) extent, (long long) tlb, (long long) textent, position, fnv(out, position));
            if (ext32 && size == 0) {
                printf(" 0 %llu\\n", fnv(out, 0));
            } else if (ext32) {
                MPI_Aint esize, epos = 0;
                CHECK(MPI_Pack_external_size("external32", COUNT, t, &esize));
                unsigned char *eout = malloc(esize + 1);
                if (size > 0) CHECK(MPI_Pack_external("external32", origin, COUNT, t, eout, esize, &epos));
                printf(" %ld %llu\\n", (long) epos, fnv(eout, epos));
                free(eout);
            } else {
                printf(" - -\\n");
            }
            free(out);
            free(mem);
        }
        """.replace("@COUNT@", Integer.toString(COUNT));
}
