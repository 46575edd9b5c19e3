package org.pario.datatypes;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.pario.ParioException;

/**
 * An MPI derived datatype: an immutable value describing a typemap, a sequence of (basic type, byte
 * displacement) pairs, as the MPI standard defines it.
 *
 * <p>A datatype is a tree of constructor nodes and is never flattened as a whole: a {@code darray} over 10^12
 * elements is a handful of objects. Its figures ({@link #size()}, {@link #extent()}, bounds) are computed once,
 * when it is built, with MPICH's rules. Its data is walked lazily by a {@link Cursor}, which yields contiguous
 * byte runs in typemap order and seeks to any position of the packed stream in time proportional to the depth
 * of the tree. {@link Packer} moves bytes between user memory and packed streams with the cursor.
 *
 * <p>Build types with the static factories, which take MPI's arguments in MPI's order ({@link #vector},
 * {@link #darray}, ...) and reject invalid arguments at once with a {@link ParioException} that names the
 * argument; or parse the text syntax of type expressions with {@link #parse(String)}, which
 * {@link #toString()} reproduces. Equality is structural: two types are equal when they were built the same
 * way from equal arguments.
 *
 * <p>Instances are immutable and safe to share between threads. There is no commit or free.
 */
public abstract class Datatype {
    /** The {@code darg} value meaning "use the default distribution argument" ({@code MPI_DISTRIBUTE_DFLT_DARG}). */
    public static final long DISTRIBUTE_DFLT_DARG = -49767;

    private static final Map<String, Datatype> PREDEFINED = new LinkedHashMap<>();

    /** {@code char}: one byte. */
    public static final Datatype CHAR = basic("char", 1, 1, BasicType.Conversion.COPY, BasicKind.CHARACTER);
    /** {@code signed char}. */
    public static final Datatype SIGNED_CHAR = basic("signed_char", 1, 1, BasicType.Conversion.COPY, BasicKind.SIGNED_INTEGER);
    /** {@code unsigned char}. */
    public static final Datatype UNSIGNED_CHAR = basic("unsigned_char", 1, 1, BasicType.Conversion.COPY, BasicKind.UNSIGNED_INTEGER);
    /** {@code MPI_BYTE}: an uninterpreted byte. */
    public static final Datatype BYTE = basic("byte", 1, 1, BasicType.Conversion.COPY, BasicKind.BYTE);
    /** {@code int8_t}. */
    public static final Datatype INT8_T = basic("int8_t", 1, 1, BasicType.Conversion.COPY, BasicKind.SIGNED_INTEGER);
    /** {@code uint8_t}. */
    public static final Datatype UINT8_T = basic("uint8_t", 1, 1, BasicType.Conversion.COPY, BasicKind.UNSIGNED_INTEGER);
    /** C {@code _Bool}. */
    public static final Datatype C_BOOL = basic("c_bool", 1, 1, BasicType.Conversion.COPY, BasicKind.LOGICAL);
    /** Fortran {@code CHARACTER}. */
    public static final Datatype CHARACTER = basic("character", 1, 1, BasicType.Conversion.COPY, BasicKind.CHARACTER);
    /** {@code MPI_PACKED}: a byte of a packed stream. */
    public static final Datatype PACKED = basic("packed", 1, 1, BasicType.Conversion.COPY, BasicKind.BYTE);
    /** {@code short}. */
    public static final Datatype SHORT = basic("short", 2, 2, BasicType.Conversion.SWAP, BasicKind.SIGNED_INTEGER);
    /** {@code unsigned short}. */
    public static final Datatype UNSIGNED_SHORT = basic("unsigned_short", 2, 2, BasicType.Conversion.SWAP, BasicKind.UNSIGNED_INTEGER);
    /** {@code int16_t}. */
    public static final Datatype INT16_T = basic("int16_t", 2, 2, BasicType.Conversion.SWAP, BasicKind.SIGNED_INTEGER);
    /** {@code uint16_t}. */
    public static final Datatype UINT16_T = basic("uint16_t", 2, 2, BasicType.Conversion.SWAP, BasicKind.UNSIGNED_INTEGER);
    /** {@code int}. */
    public static final Datatype INT = basic("int", 4, 4, BasicType.Conversion.SWAP, BasicKind.SIGNED_INTEGER);
    /** {@code unsigned}. */
    public static final Datatype UNSIGNED = basic("unsigned", 4, 4, BasicType.Conversion.SWAP, BasicKind.UNSIGNED_INTEGER);
    /** {@code int32_t}. */
    public static final Datatype INT32_T = basic("int32_t", 4, 4, BasicType.Conversion.SWAP, BasicKind.SIGNED_INTEGER);
    /** {@code uint32_t}. */
    public static final Datatype UINT32_T = basic("uint32_t", 4, 4, BasicType.Conversion.SWAP, BasicKind.UNSIGNED_INTEGER);
    /** {@code float}. */
    public static final Datatype FLOAT = basic("float", 4, 4, BasicType.Conversion.SWAP, BasicKind.FLOATING);
    /** {@code wchar_t}: 4 bytes here, 2 in external32. */
    public static final Datatype WCHAR = basic("wchar", 4, 2, BasicType.Conversion.NARROW_UNSIGNED, BasicKind.CHARACTER);
    /** Fortran {@code INTEGER}. */
    public static final Datatype INTEGER = basic("integer", 4, 4, BasicType.Conversion.SWAP, BasicKind.FORTRAN_INTEGER);
    /** Fortran {@code REAL}. */
    public static final Datatype REAL = basic("real", 4, 4, BasicType.Conversion.SWAP, BasicKind.FLOATING);
    /** Fortran {@code LOGICAL}. */
    public static final Datatype LOGICAL = basic("logical", 4, 4, BasicType.Conversion.SWAP, BasicKind.LOGICAL);
    /** {@code long}: 8 bytes here, 4 in external32. */
    public static final Datatype LONG = basic("long", 8, 4, BasicType.Conversion.NARROW_SIGNED, BasicKind.SIGNED_INTEGER);
    /** {@code unsigned long}: 8 bytes here, 4 in external32. */
    public static final Datatype UNSIGNED_LONG = basic("unsigned_long", 8, 4, BasicType.Conversion.NARROW_UNSIGNED, BasicKind.UNSIGNED_INTEGER);
    /** {@code long long}. */
    public static final Datatype LONG_LONG = basic("long_long", 8, 8, BasicType.Conversion.SWAP, BasicKind.SIGNED_INTEGER);
    /** {@code unsigned long long}. */
    public static final Datatype UNSIGNED_LONG_LONG = basic("unsigned_long_long", 8, 8, BasicType.Conversion.SWAP, BasicKind.UNSIGNED_INTEGER);
    /** {@code int64_t}. */
    public static final Datatype INT64_T = basic("int64_t", 8, 8, BasicType.Conversion.SWAP, BasicKind.SIGNED_INTEGER);
    /** {@code uint64_t}. */
    public static final Datatype UINT64_T = basic("uint64_t", 8, 8, BasicType.Conversion.SWAP, BasicKind.UNSIGNED_INTEGER);
    /** {@code double}. */
    public static final Datatype DOUBLE = basic("double", 8, 8, BasicType.Conversion.SWAP, BasicKind.FLOATING);
    /** {@code MPI_Aint}. */
    public static final Datatype AINT = basic("aint", 8, 8, BasicType.Conversion.SWAP, BasicKind.SIGNED_INTEGER);
    /** {@code MPI_Offset}. */
    public static final Datatype OFFSET = basic("offset", 8, 8, BasicType.Conversion.SWAP, BasicKind.SIGNED_INTEGER);
    /** {@code MPI_Count}. */
    public static final Datatype COUNT = basic("count", 8, 8, BasicType.Conversion.SWAP, BasicKind.SIGNED_INTEGER);
    /** Fortran {@code DOUBLE PRECISION}. */
    public static final Datatype DOUBLE_PRECISION = basic("double_precision", 8, 8, BasicType.Conversion.SWAP, BasicKind.FLOATING);
    /** C {@code float _Complex}. */
    public static final Datatype C_FLOAT_COMPLEX = complex("c_float_complex", 8);
    /** Fortran {@code COMPLEX}. */
    public static final Datatype COMPLEX = complex("complex", 8);
    /** {@code long double}: x87 extended precision in 16 bytes here, IEEE binary128 in external32. */
    public static final Datatype LONG_DOUBLE = register(new BasicType("long_double", 16, 16, 16,
        BasicType.Conversion.X87, 16, BasicKind.EXTENDED_FLOATING));
    /** C {@code double _Complex}. */
    public static final Datatype C_DOUBLE_COMPLEX = complex("c_double_complex", 16);
    /** Fortran {@code DOUBLE COMPLEX}. */
    public static final Datatype DOUBLE_COMPLEX = complex("double_complex", 16);
    /** C {@code long double _Complex}. */
    public static final Datatype C_LONG_DOUBLE_COMPLEX = register(new BasicType("c_long_double_complex", 32, 32,
        16, BasicType.Conversion.X87, 16, BasicKind.COMPLEX));

    /** {@code MPI_FLOAT_INT}: {@code {float; int}}, size 8, extent 8. */
    public static final Datatype FLOAT_INT = pair("float_int", FLOAT, INT);
    /** {@code MPI_DOUBLE_INT}: {@code {double; int}}, size 12, extent 16. */
    public static final Datatype DOUBLE_INT = pair("double_int", DOUBLE, INT);
    /** {@code MPI_LONG_INT}: {@code {long; int}}, size 12, extent 16. */
    public static final Datatype LONG_INT = pair("long_int", LONG, INT);
    /** {@code MPI_2INT}: {@code {int; int}}, size 8, extent 8. */
    public static final Datatype TWO_INT = pair("2int", INT, INT);
    /** {@code MPI_SHORT_INT}: {@code {short; int}}, size 6, extent 8. */
    public static final Datatype SHORT_INT = pair("short_int", SHORT, INT);
    /** {@code MPI_LONG_DOUBLE_INT}: {@code {long double; int}}, size 20, extent 32. */
    public static final Datatype LONG_DOUBLE_INT = pair("long_double_int", LONG_DOUBLE, INT);
    /** {@code MPI_2INTEGER}: two Fortran integers. */
    public static final Datatype TWO_INTEGER = pair("2integer", INTEGER, INTEGER);
    /** {@code MPI_2REAL}: two Fortran reals. */
    public static final Datatype TWO_REAL = pair("2real", REAL, REAL);
    /** {@code MPI_2DOUBLE_PRECISION}: two Fortran double precision values. */
    public static final Datatype TWO_DOUBLE_PRECISION = pair("2double_precision", DOUBLE_PRECISION, DOUBLE_PRECISION);

    /** The legacy {@code MPI_LB} marker, allowed only as a struct member. */
    public static final Datatype LB = register(new MarkerType(false));
    /** The legacy {@code MPI_UB} marker, allowed only as a struct member. */
    public static final Datatype UB = register(new MarkerType(true));

    static {
        alias("long_long_int", LONG_LONG);
        alias("unsigned_long_long_int", UNSIGNED_LONG_LONG);
        alias("c_complex", C_FLOAT_COMPLEX);
        alias("signed", INT);
        alias("unsigned_int", UNSIGNED);
    }

    final long size;
    final long externalSize;
    final long entries;
    final long lb;
    final long ub;
    final long extent;
    final long trueLb;
    final long trueUb;
    final int alignment;
    final boolean singleRun;
    final long runStart;
    final BasicType homogeneous;
    final int depth;
    private int hash;

    /**
     * How deep constructors may nest. Walks of a type (printing, comparing, cursors) recurse once per level, so
     * the bound keeps them inside any thread's stack; real types nest a handful of levels.
     */
    public static final int MAX_DEPTH = 256;

    Datatype(final Figures f) {
        if (f.depth > MAX_DEPTH) {
            throw ParioException.argument("a datatype may nest at most " + MAX_DEPTH + " constructors deep; this one "
                + "nests " + f.depth);
        }
        this.size = f.size;
        this.externalSize = f.externalSize;
        this.entries = f.entries;
        this.lb = f.lb;
        this.ub = f.ub;
        this.extent = Checks.sub("extent", f.ub, f.lb);
        this.trueLb = f.trueLb;
        this.trueUb = f.trueUb;
        this.alignment = f.alignment;
        this.singleRun = f.singleRun;
        this.runStart = f.runStart;
        this.homogeneous = this instanceof BasicType b ? b : f.homogeneous;
        this.depth = f.depth;
    }

    // ------------------------------------------------------------------ figures

    /** @return the number of data bytes in one element (MPI_Type_size), in the native representation */
    public final long size() {
        return size;
    }

    /**
     * @param representation a data representation
     * @return the number of bytes one element occupies in a packed stream of that representation
     */
    public final long size(final DataRepresentation representation) {
        return representation == DataRepresentation.EXTERNAL32 ? externalSize : size;
    }

    /** @return the lower bound in bytes (MPI_Type_get_extent) */
    public final long lb() {
        return lb;
    }

    /** @return the upper bound in bytes: {@code lb() + extent()} */
    public final long ub() {
        return ub;
    }

    /** @return the extent in bytes: the distance between consecutive elements of this type; may be negative */
    public final long extent() {
        return extent;
    }

    /** @return the lowest byte displacement holding data (MPI_Type_get_true_extent) */
    public final long trueLb() {
        return trueLb;
    }

    /** @return the span from the lowest to one past the highest byte holding data */
    public final long trueExtent() {
        return trueUb - trueLb;
    }

    /** @return the number of basic entries in the typemap, legacy markers excluded */
    public final long typemapLength() {
        return entries;
    }

    /**
     * @return true when consecutive elements of this type form one gap-free run of bytes in memory order, so
     *     {@code count} elements can be copied as one block
     */
    public final boolean isContiguous() {
        return singleRun && size == extent && runStart == lb;
    }

    // ------------------------------------------------------------------ construction description

    /** @return how this type was built */
    public abstract Combiner combiner();

    /** @return the arguments this type was built with, in MPI's order ({@code MPI_Type_get_contents}) */
    public abstract Contents contents();

    /** @return MPI's envelope: the combiner and the number of arguments of each kind */
    public final Contents.Envelope envelope() {
        return contents().envelope();
    }

    /**
     * @return the basic type shared by every typemap entry (a pair type counts as its value type only if both
     *     halves are of it), or empty when they differ
     */
    public final Optional<Datatype> homogeneousBasicType() {
        return Optional.ofNullable(homogeneous);
    }

    /**
     * @return the name of {@link #homogeneousBasicType()} ({@code "double"}, ...), or null when the entries' types
     *     differ; the same string object every time, for checks made once per message
     */
    public final String homogeneousBasicName() {
        return homogeneous == null ? null : homogeneous.name;
    }

    /** @return the MPI category of this type if it is a predefined basic type, else empty */
    public final Optional<BasicKind> basicKind() {
        return this instanceof BasicType b ? Optional.of(b.kind) : Optional.empty();
    }

    /**
     * @return for a predefined pair type ({@code double_int}, ...), its value and index types in that order;
     *     otherwise empty
     */
    public final Optional<List<Datatype>> pairComponents() {
        return this instanceof PairType p ? Optional.of(List.of(p.value, p.index)) : Optional.empty();
    }

    // ------------------------------------------------------------------ typemap and signature

    /**
     * The typemap of one element, computed lazily in typemap order.
     *
     * @return an iterable over the (basic type, displacement) entries; legacy markers are not listed
     */
    public final Iterable<TypemapEntry> typemap() {
        return () -> new TypemapWalk.Entries(new Cursor(this, 1, DataRepresentation.NATIVE, true));
    }

    /**
     * The type signature of one element, run-length encoded: consecutive equal basic types are merged.
     * A type of one basic type answers at once; others are walked lazily, in time proportional to the number
     * of runs of one basic type, not to the number of entries.
     *
     * @return the signature entries in order
     */
    public final Iterable<SignatureEntry> signature() {
        if (homogeneous != null || entries == 0) {
            return entries == 0 ? List.of() : List.of(new SignatureEntry(homogeneous.name, entries));
        }
        return () -> new TypemapWalk.Signature(new Cursor(this, 1, DataRepresentation.NATIVE, true));
    }

    /**
     * Creates a cursor over the contiguous byte runs of {@code count} elements of this type in the native
     * representation, adjacent runs merged.
     *
     * @param count number of elements, each one extent after the previous
     * @return a new cursor positioned before the first run
     */
    public final Cursor cursor(final long count) {
        return new Cursor(this, Checks.nonNegative("cursor", "count", count), DataRepresentation.NATIVE, false);
    }

    // ------------------------------------------------------------------ factories

    /**
     * {@code MPI_Type_contiguous}: {@code count} copies of {@code oldtype}, each one extent after the previous.
     *
     * @param count   number of copies, {@code >= 0}
     * @param oldtype the replicated type
     * @return the new type
     */
    public static Datatype contiguous(final long count, final Datatype oldtype) {
        return new ContiguousType(count, oldtype);
    }

    /**
     * {@code MPI_Type_vector}: {@code count} blocks of {@code blocklength} copies of {@code oldtype}, block
     * starts {@code stride} extents apart (stride may be negative).
     *
     * @param count       number of blocks, {@code >= 0}
     * @param blocklength copies per block, {@code >= 0}
     * @param stride      distance between block starts, in extents of oldtype
     * @param oldtype     the replicated type
     * @return the new type
     */
    public static Datatype vector(final long count, final long blocklength, final long stride, final Datatype oldtype) {
        return new VectorType(count, blocklength, stride, false, oldtype);
    }

    /**
     * {@code MPI_Type_create_hvector}: like {@link #vector} with the stride in bytes.
     *
     * @param count       number of blocks, {@code >= 0}
     * @param blocklength copies per block, {@code >= 0}
     * @param stride      distance between block starts, in bytes
     * @param oldtype     the replicated type
     * @return the new type
     */
    public static Datatype hvector(final long count, final long blocklength, final long stride, final Datatype oldtype) {
        return new VectorType(count, blocklength, stride, true, oldtype);
    }

    /**
     * {@code MPI_Type_indexed}: blocks of varying length at displacements given in extents of oldtype.
     *
     * @param blocklengths  copies per block, each {@code >= 0}
     * @param displacements block displacements in extents of oldtype, any sign and order
     * @param oldtype       the replicated type
     * @return the new type
     */
    public static Datatype indexed(final long[] blocklengths, final long[] displacements, final Datatype oldtype) {
        return IndexedType.create(Combiner.INDEXED, Checks.notNull("indexed", "blocklengths", blocklengths), 0,
            displacements, oldtype);
    }

    /**
     * {@code MPI_Type_create_hindexed}: like {@link #indexed} with displacements in bytes.
     *
     * @param blocklengths  copies per block, each {@code >= 0}
     * @param displacements block displacements in bytes
     * @param oldtype       the replicated type
     * @return the new type
     */
    public static Datatype hindexed(final long[] blocklengths, final long[] displacements, final Datatype oldtype) {
        return IndexedType.create(Combiner.HINDEXED, Checks.notNull("hindexed", "blocklengths", blocklengths), 0,
            displacements, oldtype);
    }

    /**
     * {@code MPI_Type_create_indexed_block}: blocks of one length at displacements in extents of oldtype.
     *
     * @param blocklength   copies per block, {@code >= 0}
     * @param displacements block displacements in extents of oldtype
     * @param oldtype       the replicated type
     * @return the new type
     */
    public static Datatype indexedBlock(final long blocklength, final long[] displacements, final Datatype oldtype) {
        return IndexedType.create(Combiner.INDEXED_BLOCK, null, blocklength, displacements, oldtype);
    }

    /**
     * {@code MPI_Type_create_hindexed_block}: blocks of one length at byte displacements.
     *
     * @param blocklength   copies per block, {@code >= 0}
     * @param displacements block displacements in bytes
     * @param oldtype       the replicated type
     * @return the new type
     */
    public static Datatype hindexedBlock(final long blocklength, final long[] displacements, final Datatype oldtype) {
        return IndexedType.create(Combiner.HINDEXED_BLOCK, null, blocklength, displacements, oldtype);
    }

    /**
     * {@code MPI_Type_create_struct}: blocks of different types at byte displacements. The legacy markers
     * {@link #LB} and {@link #UB} may appear as members; they fix the lower and upper bound.
     *
     * @param blocklengths  copies per block, each {@code >= 0}
     * @param displacements block displacements in bytes
     * @param types         the type of each block
     * @return the new type
     */
    public static Datatype struct(final long[] blocklengths, final long[] displacements, final List<Datatype> types) {
        return new StructType(blocklengths, displacements, types);
    }

    /**
     * {@code MPI_Type_create_subarray}: an n-dimensional subarray of an n-dimensional array.
     *
     * @param sizes    elements of oldtype in each dimension of the full array, each {@code > 0}
     * @param subsizes elements in each dimension of the subarray, each in {@code [1, sizes[i]]}
     * @param starts   start of the subarray in each dimension, each in {@code [0, sizes[i] - subsizes[i]]}
     * @param order    storage order of the array
     * @param oldtype  the array element type
     * @return the new type, with lb 0 and the extent of the full array
     */
    public static Datatype subarray(final long[] sizes, final long[] subsizes, final long[] starts, final Order order,
                                    final Datatype oldtype) {
        return new SubarrayType(sizes, subsizes, starts, order, oldtype);
    }

    /**
     * {@code MPI_Type_create_darray}: the part of an HPF-style distributed array that process {@code rank} of
     * a row-major process grid owns.
     *
     * @param size          number of processes; the product of {@code psizes}
     * @param rank          this process, in {@code [0, size)}
     * @param gsizes        elements of oldtype in each dimension of the global array
     * @param distribs      distribution of each dimension
     * @param dargs         distribution argument of each dimension, or {@link #DISTRIBUTE_DFLT_DARG}
     * @param psizes        processes in each dimension of the grid
     * @param order         storage order of the global array
     * @param oldtype       the array element type
     * @return the new type, with lb 0 and the extent of the global array
     */
    public static Datatype darray(final long size, final long rank, final long[] gsizes,
                                  final Distribution[] distribs, final long[] dargs, final long[] psizes,
                                  final Order order, final Datatype oldtype) {
        return DarrayType.create(size, rank, gsizes, distribs, dargs, psizes, order, oldtype);
    }

    /**
     * {@code MPI_Type_create_resized}: the same typemap with lower bound {@code lb} and the given extent.
     *
     * @param oldtype the type to resize
     * @param lb      the new lower bound in bytes
     * @param extent  the new extent in bytes (may be negative or zero)
     * @return the new type
     */
    public static Datatype resized(final Datatype oldtype, final long lb, final long extent) {
        return new ResizedType(oldtype, lb, extent);
    }

    /**
     * {@code MPI_Type_dup}: a type with the same typemap that records it was duplicated.
     *
     * @param oldtype the type to duplicate
     * @return the new type
     */
    public static Datatype dup(final Datatype oldtype) {
        return new DupType(oldtype);
    }

    /**
     * Looks up a predefined type by name: case-insensitive, with or without an {@code MPI_} prefix.
     *
     * @param name for example {@code "double"}, {@code "MPI_DOUBLE_INT"}
     * @return the predefined type
     * @throws ParioException if no predefined type has that name
     */
    public static Datatype predefined(final String name) {
        final Datatype t = PREDEFINED.get(normalizeName(name));
        if (t == null) {
            throw ParioException.argument("unknown datatype name '" + name + "'");
        }
        return t;
    }

    /** @return the names of every predefined type, in declaration order (aliases included) */
    public static List<String> predefinedNames() {
        return Collections.unmodifiableList(new ArrayList<>(PREDEFINED.keySet()));
    }

    /**
     * Parses a type expression (see {@code docs/datatypes.md}).
     *
     * @param expression for example {@code "vector(3, 1, -2, double)"}
     * @return the datatype
     * @throws ParioException with the position and the problem when the expression is invalid
     */
    public static Datatype parse(final String expression) {
        return new TypeParser(expression).parse();
    }

    static String normalizeName(final String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        if (n.startsWith("mpi_")) {
            n = n.substring(4);
        }
        return n;
    }

    // ------------------------------------------------------------------ internals

    /** @return the node a cursor iterates for this type: itself, or what it delegates to */
    Datatype layout() {
        return this;
    }

    abstract void appendExpression(StringBuilder out);

    /** @return true when {@code other} (of the same class) was built from equal arguments */
    abstract boolean sameArguments(Datatype other);

    /** @return the type expression of this type, which {@link #parse(String)} turns back into an equal type */
    @Override
    public final String toString() {
        final StringBuilder out = new StringBuilder();
        appendExpression(out);
        return out.toString();
    }

    @Override
    public final boolean equals(final Object o) {
        if (this == o) {
            return true;
        }
        return o instanceof Datatype d && d.getClass() == getClass() && d.hashCode() == hashCode()
            && sameArguments(d);
    }

    @Override
    public final int hashCode() {
        int h = hash;
        if (h == 0) {
            h = contents().hashCode();
            if (this instanceof BasicType || this instanceof PairType || this instanceof MarkerType) {
                h = toString().hashCode();
            }
            hash = h == 0 ? 1 : h;
            h = hash;
        }
        return h;
    }

    private static Datatype basic(final String name, final int size, final int externalSize,
                                  final BasicType.Conversion conversion, final BasicKind kind) {
        return register(new BasicType(name, size, externalSize, size, conversion, size, kind));
    }

    private static Datatype complex(final String name, final int size) {
        return register(new BasicType(name, size, size, size / 2, BasicType.Conversion.SWAP, size / 2,
            BasicKind.COMPLEX));
    }

    private static Datatype pair(final String name, final Datatype value, final Datatype index) {
        return register(new PairType(name, (BasicType) value, (BasicType) index));
    }

    private static Datatype register(final Datatype t) {
        PREDEFINED.put(t.toString(), t);
        return t;
    }

    private static void alias(final String name, final Datatype t) {
        PREDEFINED.put(name, t);
    }
}
