"""Structure-of-arrays (SoA) building blocks: chunks of states held as lanes, SIMD across states (:mod:`._batch`).

A chunk holds up to ``LANES`` states. Every work array carries the state within the chunk (the *lane* b) as its
last, contiguous axis — ``V[i, r, b]``, ``IA[i, k, b]``, ``R0[i, k, b]`` — and every operation loops over the
lanes innermost, so LLVM compiles it to vector instructions (AVX2 / AVX-512) across states, with no branch on the
state: the joint types and the tree are the same in every lane. The bodies' parameters (inertias, joint placements
and axes) are too, or, for runs of different models of the same structure, one set per lane (:func:`lane`). In the
hot steps (each pass at a body whose joint has one degree of freedom, and its pose) one lane loop does the whole step
with its intermediate values in registers and writes its results to a stack array (``work``), which a second loop
copies out: LLVM vectorizes a loop only when it can rule out overlap between what it writes and what it reads, and among
the arguments' many rows it gives up ("too many memory checks"), while a stack array overlaps nothing. Measured
1.7× the states per second of the same steps writing their arguments directly. The copy-out loops run over all
LANES lanes, whatever the chunk's count: with a constant length LLVM writes each row copy as a few vector moves
instead of a call to memmove (10 % of a lockstep RK4 run of the 7-link chain on an Intel Xeon, perf); lanes past the
count hold values no one reads. The steps compile without reference counting (``_nrt=False``, as the scalar kernels:
see ``_spatial_kernels.work``): each array handed to an inlined helper cost an atomic increment and decrement, 15 %
of that run. Each step asks for 512-bit vectors where the CPU has them (:func:`~._spatial_kernels.wide_vectors`:
LLVM keeps to 256 bits on Intel server cores by default).
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from ._spatial_kernels import SINCOS_RANGE, njit_without_refcounts, sin_cos, wide_vectors

LANES = 32  # states per chunk: 4 AVX2 (or 8 AVX-512) registers wide, with the work arrays of a chunk in L2
MIN_BATCH = 16  # smaller batches go state by state through the scalar kernels (less set-up)
ROW_LANES = 16  # lanes of the matrices whose row operations are written as explicit vectors (:func:`row_update`)

inline = njit(cache=True, inline="always")  # the small helpers called inside a loop over the lanes
# A whole step over the lanes is an ordinary compiled call: inlining the steps as well made the kernel take about
# 5 min to compile (measured 107 s this way) for 0–10 % more speed.
# error_model "numpy": x / 0 gives inf (caught by the final finiteness check), not a raise: the check for it would be
# an early exit that keeps a lane loop from vectorizing. fastmath "contract" (only): a × b + c as one fused
# multiply-add, rounded once: 10–12 % fewer µs per RK4 step of the 7-link chain (measured), the results still within
# round-off of the scalar kernels' (which round twice; the tests hold them to 1e-12)
step = njit_without_refcounts(cache=True, error_model="numpy", fastmath={"contract"})


def lane(x, b):
    """x at lane b: x itself where the lanes share it (a number, or a tuple of numbers), x[b] where it holds a
    value per lane (an array over the lanes, or a tuple of them). A body's parameters are ``params[i, k]``: a
    number of shared params (n, NPARAMS), the lanes' values of per-lane params (n, NPARAMS, LANES); numba
    compiles each kernel once per kind, the shared one exactly as if it read the number."""
    if isinstance(x, tuple):
        return tuple(lane(y, b) for y in x)
    return x[b] if isinstance(x, np.ndarray) else x


@overload(lane, inline="always")
def _lane(x, b):
    if isinstance(x, types.Array):
        return lambda x, b: x[b]
    if isinstance(x, types.BaseTuple) and any(isinstance(y, types.Array) for y in x):
        scope = {}
        exec("def at(x, b):\n    return (" + "".join(f"x[{k}][b], " for k in range(len(x))) + ")", scope)
        return scope["at"]
    return lambda x, b: x


def lane_params(params, b, out):
    """Lane b's params (n, NPARAMS): ``params`` itself when shared, else params[:, :, b] of per-lane params copied to
    ``out`` (n, NPARAMS), which is returned (a view would need reference counting, which the lane kernels do
    without)."""
    if params.ndim == 2:
        return params
    out[...] = params[:, :, b]
    return out


@overload(lane_params, inline="always")
def _lane_params(params, b, out):
    if params.ndim == 2:
        return lambda params, b, out: params

    def copied(params, b, out):
        for i in range(params.shape[0]):
            for k in range(params.shape[1]):
                out[i, k] = params[i, k, b]
        return out
    return copied


@inline
def lane_sines_cosines(q, iq, sc, nb):
    """sc[0, b], sc[1, b] = sin q[iq, b], cos q[iq, b] (:func:`sin_cos`; np.sin and np.cos if any angle is
    beyond SINCOS_RANGE)."""
    largest = 0.0
    for b in range(nb):
        largest = max(largest, abs(q[iq, b]))
    if largest < SINCOS_RANGE:
        for b in range(nb):
            sc[0, b], sc[1, b] = sin_cos(q[iq, b])
    else:
        for b in range(nb):
            sc[0, b], sc[1, b] = np.sin(q[iq, b]), np.cos(q[iq, b])


@step
def gather(x, b0, nb, out):
    """out[j, b] = x[b0 + b, j]: a chunk of states (B, size) as SoA (size, LANES)."""
    wide_vectors()
    for b in range(nb):
        for j in range(x.shape[1]):
            out[j, b] = x[b0 + b, j]


@step
def scatter(x, b0, nb, out):
    """out[b0 + b, j] = x[j, b]: the inverse of :func:`gather`."""
    wide_vectors()
    for b in range(nb):
        for j in range(x.shape[0]):
            out[b0 + b, j] = x[j, b]


def put(out, k, x, b):
    """out[k + r, b] = x[r] for each entry of the tuple x: the stores of a lane loop, written out one by one (a loop
    over a tuple's entries can stay a loop inside the lane loop, which then does not vectorize)."""
    for r in range(len(x)):
        out[k + r, b] = x[r]


@overload(put, inline="always")
def _put(out, k, x, b):
    scope = {}
    exec("def put(out, k, x, b):\n" + "".join(f"    out[k + {r}, b] = x[{r}]\n" for r in range(len(x))), scope)
    return scope["put"]


@inline
def lane_rotation(R0, i, b):
    """The rotation of body i's axis frame to world axes at lane b, R0[i, :, b] (row major), as a 9-tuple."""
    return (R0[i, 0, b], R0[i, 1, b], R0[i, 2, b], R0[i, 3, b], R0[i, 4, b], R0[i, 5, b], R0[i, 6, b], R0[i, 7, b],
            R0[i, 8, b])


@inline
def lane_vector(x, j, b):
    """x[j, :, b], a spatial vector of lane b, as a 6-tuple."""
    return x[j, 0, b], x[j, 1, b], x[j, 2, b], x[j, 3, b], x[j, 4, b], x[j, 5, b]


@inline
def lane_inertia(Y, j, b):
    """Y[j, :, b], a compact inertia (m, h, I) of lane b (:func:`~._batch.inertia_times`), as a 10-tuple."""
    return (Y[j, 0, b], Y[j, 1, b], Y[j, 2, b], Y[j, 3, b], Y[j, 4, b], Y[j, 5, b], Y[j, 6, b], Y[j, 7, b],
            Y[j, 8, b], Y[j, 9, b])


@inline
def lane_symmetric(S, i, b):
    """S[i, :, b], a symmetric 6×6 matrix of lane b in 21-entry storage, as a 21-tuple."""
    return (S[i, 0, b], S[i, 1, b], S[i, 2, b], S[i, 3, b], S[i, 4, b], S[i, 5, b], S[i, 6, b], S[i, 7, b],
            S[i, 8, b], S[i, 9, b], S[i, 10, b], S[i, 11, b], S[i, 12, b], S[i, 13, b], S[i, 14, b], S[i, 15, b],
            S[i, 16, b], S[i, 17, b], S[i, 18, b], S[i, 19, b], S[i, 20, b])


# Entry and row operations of a matrix (n, n) or of a matrix of lanes (n, n, lanes: one matrix per state): the tree
# factorization and solves of :mod:`._tree_factor` are written once over them and run on one state or on a chunk of
# states (every operation on a matrix of lanes loops over the lanes innermost, so it vectorizes across states).

def pivot(M, k):
    """M[k, k] ← 1 / √M[k, k] (in every lane); False if some M[k, k] is not > 0 (not positive definite)."""
    ok = bool(np.all(M[k, k] > 0.0))
    M[k, k] = 1.0 / np.sqrt(M[k, k])
    return ok


@overload(pivot, inline="always")
def _pivot(M, k):
    if M.ndim == 2:
        def matrix(M, k):
            if not M[k, k] > 0.0:
                return False
            M[k, k] = 1.0 / np.sqrt(M[k, k])
            return True
        return matrix

    def lanes(M, k):
        bad = 0
        for b in range(M.shape[2]):
            bad += not M[k, k, b] > 0.0
            M[k, k, b] = 1.0 / np.sqrt(M[k, k, b])
        return bad == 0
    return lanes


def _entry_pointer(context, builder, array_type, array, i, c):
    """A pointer to X[i, c, 0] of a matrix of lanes X (n, n, lanes), as <ROW_LANES x double>*."""
    X = context.make_array(array_type)(context, builder, array)
    pointer = cgutils.get_item_pointer2(context, builder, X.data, cgutils.unpack_tuple(builder, X.shape),
                                        cgutils.unpack_tuple(builder, X.strides), array_type.layout,
                                        [i, c, ir.Constant(ir.IntType(64), 0)])
    return builder.bitcast(pointer, ir.VectorType(ir.DoubleType(), ROW_LANES).as_pointer())


@intrinsic
def row_update(typingctx, X, j, i, L, k, m, sign, first, end):
    """X[j, c] ← X[j, c] − sign · L[k, m] · X[i, c] for c in first … end − 1, or X[j, c] ← sign · L[k, m] · X[j, c]
    where i < 0, on matrices of ROW_LANES lanes (n, n, ROW_LANES), each entry one vector of the lanes, loaded,
    combined (a fused multiply-add) and stored as such. numba leaves LLVM's straight-line (SLP) vectorizer off, and
    its loop vectorizer took the constant 16-lane loops apart into scalars, or, over a run-time lane count, checked
    the overlap of the rows and the lane count again for every entry: the solves of Talos's (nv = 38) ∂q̈/∂x took
    10.8 µs per state that way, 6.2 µs as vectors (Intel Xeon, AVX-512; the same numbers bit for bit)."""
    def codegen(context, builder, signature, args):
        X_, j_, i_, L_, k_, m_, sign_, first_, end_ = args
        vector = ir.VectorType(ir.DoubleType(), ROW_LANES)
        j_, i_, k_, m_, first_, end_ = (context.cast(builder, value, t, types.intp) for value, t in zip(
            (j_, i_, k_, m_, first_, end_), (signature.args[1], signature.args[2], signature.args[4],
                                             signature.args[5], signature.args[7], signature.args[8])))
        sign_ = context.cast(builder, sign_, signature.args[6], types.float64)
        splat = builder.insert_element(ir.Constant(vector, ir.Undefined), sign_, ir.Constant(ir.IntType(32), 0))
        splat = builder.shuffle_vector(splat, ir.Constant(vector, ir.Undefined),
                                       ir.Constant(ir.VectorType(ir.IntType(32), ROW_LANES), [0] * ROW_LANES))
        factor = builder.fmul(builder.load(_entry_pointer(context, builder, signature.args[3], L_, k_, m_), align=8),
                              splat)
        negated = builder.fneg(factor)
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vector, [vector] * 3),
                                             f"llvm.fma.v{ROW_LANES}f64")
        scale = builder.icmp_signed("<", i_, ir.Constant(ir.IntType(64), 0))
        one = ir.Constant(ir.IntType(64), 1)
        with builder.if_else(scale) as (scaled, updated):
            with scaled:
                with cgutils.for_range_slice(builder, first_, end_, one, inc=True) as (c, _):
                    row = _entry_pointer(context, builder, signature.args[0], X_, j_, c)
                    builder.store(builder.fmul(builder.load(row, align=8), factor), row, align=8)
            with updated:
                with cgutils.for_range_slice(builder, first_, end_, one, inc=True) as (c, _):
                    row = _entry_pointer(context, builder, signature.args[0], X_, j_, c)
                    other = builder.load(_entry_pointer(context, builder, signature.args[0], X_, i_, c), align=8)
                    builder.store(builder.call(fma, [negated, other, builder.load(row, align=8)]), row, align=8)
        return context.get_dummy_value()
    return types.none(X, j, i, L, k, m, sign, first, end), codegen


BLOCK = 8  # an 8 × 8 block of entries, transposed in registers by scatter_matrices


def _transposed(builder, rows):
    """The columns of a BLOCK × BLOCK block given as its rows (BLOCK vectors <BLOCK x double>): three butterfly
    stages, stage k swapping the entries (j, i + k) and (j + k, i) of each 2 × 2 grid of k × k sub-blocks, as
    shuffles of two vectors each (one instruction each with AVX-512)."""
    rows, k, mask = list(rows), 1, ir.VectorType(ir.IntType(32), BLOCK)
    while k < BLOCK:
        for j in (j for j in range(BLOCK) if not j & k):
            upper, lower = rows[j], rows[j + k]
            rows[j] = builder.shuffle_vector(upper, lower, ir.Constant(mask, [
                i if not i & k else BLOCK + i - k for i in range(BLOCK)]))
            rows[j + k] = builder.shuffle_vector(upper, lower, ir.Constant(mask, [
                i + k if not i & k else BLOCK + i for i in range(BLOCK)]))
        k *= 2
    return rows


@intrinsic
def scatter_matrices(typingctx, X, out, b0, nonfinite, on_path):
    """out[b0 + b, r, c] = X[r, c, b] for every entry of a matrix of ROW_LANES lanes X (n, m, ROW_LANES) and every
    lane b, and nonfinite[b] += X[r, c, b] · 0 (NaN once an entry of lane b is not finite), out (B, n, m). Where
    out is C-contiguous, each row's columns go BLOCK at a time: the BLOCK entries' lanes, loaded as vectors of BLOCK
    lanes, transposed in registers (:func:`_transposed`) into BLOCK consecutive columns of each lane's row, stored
    as one vector; the row's last m mod BLOCK columns as one more block ending at column m − 1 (its first columns
    written twice, the same values) where they are at least BLOCK / 2 and m ≥ BLOCK, else lane by lane (Talos's
    m = 38: 2.6 → 2.4 µs per state for three matrices). Storing each entry's lanes one by one instead left
    each state's cache line of out partly written while the other lanes' were touched: where out's matrices lie a
    multiple of 4 KiB apart (m = n = 32: 8 KiB) all the lanes' lines fall in one set of the L1 cache, which
    evicted them unfinished, 11.4 µs per state for three 32 × 32 matrices against 2.4 µs this way (Intel Xeon,
    AVX-512; Talos's three 38 × 38 matrices: 2.4 µs a state, where a plain fill of the same 35 KB takes 1.75).
    ``on_path`` (n, m): 1 where an entry may be nonzero, a block of zeros there stored as zeros without reading X
    (:func:`~._tree_factor.path_pairs`: ∂τ/∂x and M of a tree, 37 % of Talos's blocks; 2.1 → 1.8 µs a state);
    none (0 rows) reads every block."""
    def codegen(context, builder, signature, args):
        X_, out_, b0_, nonfinite_, on_path_ = args
        Xt, outt, b0t, nft, Pt = signature.args
        block, intp = ir.VectorType(ir.DoubleType(), BLOCK), ir.IntType(64)
        b0_ = context.cast(builder, b0_, b0t, types.intp)
        X, out = context.make_array(Xt)(context, builder, X_), context.make_array(outt)(context, builder, out_)
        finite = context.make_array(nft)(context, builder, nonfinite_)
        X_shape, X_strides = cgutils.unpack_tuple(builder, X.shape), cgutils.unpack_tuple(builder, X.strides)
        out_shape, out_strides = cgutils.unpack_tuple(builder, out.shape), cgutils.unpack_tuple(builder, out.strides)
        rows, columns = X_shape[:2]
        P = context.make_array(Pt)(context, builder, on_path_)
        P_shape, P_strides = cgutils.unpack_tuple(builder, P.shape), cgutils.unpack_tuple(builder, P.strides)
        dense = builder.icmp_unsigned("==", P_shape[0], ir.Constant(intp, 0))  # (no on_path: every block read)
        halves = range(ROW_LANES // BLOCK)
        totals = [cgutils.alloca_once_value(builder, ir.Constant(block, [0.0] * BLOCK)) for _ in halves]

        def lanes(r, c, h):  # X[r, c, h·BLOCK … h·BLOCK + BLOCK − 1], summed into the finiteness of those lanes
            pointer = cgutils.get_item_pointer2(context, builder, X.data, X_shape, X_strides, Xt.layout,
                                                [r, c, ir.Constant(intp, h * BLOCK)])
            x = builder.load(builder.bitcast(pointer, block.as_pointer()), align=8)
            builder.store(builder.fadd(builder.load(totals[h]), builder.fmul(x, ir.Constant(block, [0.0] * BLOCK))),
                          totals[h])
            return x

        def target(b, r, c):  # a pointer to out[b0 + b, r, c]
            return cgutils.get_item_pointer2(context, builder, out.data, out_shape, out_strides, outt.layout,
                                             [builder.add(b0_, ir.Constant(intp, b)), r, c])

        def block_at(r, c):  # the columns c … c + BLOCK − 1 of row r of every lane, as zeros if off the paths
            with builder.if_else(builder.or_(dense, on_a_path(r, c))) as (read, zeros):
                with read:
                    transposed_block(r, c)
                with zeros:
                    for b in range(ROW_LANES):
                        builder.store(ir.Constant(block, [0.0] * BLOCK),
                                      builder.bitcast(target(b, r, c), block.as_pointer()), align=8)

        def on_a_path(r, c):  # whether any of on_path[r, c … c + BLOCK − 1] is nonzero
            flags = builder.load(builder.bitcast(cgutils.get_item_pointer2(
                context, builder, P.data, P_shape, P_strides, Pt.layout, [r, c]), block.as_pointer()), align=8)
            nonzero = builder.fcmp_unordered("!=", flags, ir.Constant(block, [0.0] * BLOCK))
            return builder.icmp_unsigned("!=", builder.bitcast(nonzero, ir.IntType(BLOCK)), ir.Constant(
                ir.IntType(BLOCK), 0))

        def transposed_block(r, c):
            for h in halves:
                block_columns = _transposed(builder, [lanes(r, builder.add(c, ir.Constant(intp, j)), h)
                                                      for j in range(BLOCK)])
                for b, x in enumerate(block_columns):
                    builder.store(x, builder.bitcast(target(h * BLOCK + b, r, c), block.as_pointer()), align=8)
        size = ir.Constant(intp, BLOCK)
        whole = (builder.mul(builder.udiv(columns, size), size)
                 if outt.layout == "C" else ir.Constant(intp, 0))  # (blocks need out's rows contiguous)
        overlapping = builder.and_(builder.icmp_unsigned(">=", whole, size), builder.icmp_unsigned(
            ">=", builder.sub(columns, whole), ir.Constant(intp, BLOCK // 2)))  # (the last block: see the docstring)
        with cgutils.for_range(builder, rows) as row:
            r = row.index
            with cgutils.for_range_slice(builder, ir.Constant(intp, 0), whole, size) as (c, _):
                block_at(r, c)
            with builder.if_else(overlapping) as (last_block, one_by_one):
                with last_block:
                    block_at(r, builder.sub(columns, size))
                with one_by_one:
                    with cgutils.for_range_slice(builder, whole, columns, ir.Constant(intp, 1)) as (c, _):
                        for h in halves:
                            x = lanes(r, c, h)
                            for b in range(BLOCK):
                                builder.store(builder.extract_element(x, ir.Constant(ir.IntType(32), b)),
                                              target(h * BLOCK + b, r, c), align=8)
        for h in halves:
            sums = builder.bitcast(cgutils.get_item_pointer2(
                context, builder, finite.data, cgutils.unpack_tuple(builder, finite.shape),
                cgutils.unpack_tuple(builder, finite.strides), nft.layout, [ir.Constant(intp, h * BLOCK)]),
                block.as_pointer())
            builder.store(builder.fadd(builder.load(sums, align=8), builder.load(totals[h])), sums, align=8)
        return context.get_dummy_value()
    return types.none(X, out, b0, nonfinite, on_path), codegen


ANCESTOR_COLUMNS = 4  # entries of a row held in registers at once by :func:`ancestors_subtracted`


@intrinsic
def ancestors_subtracted(typingctx, X, i, L, lam, first, end):
    """X[i, c] ← (X[i, c] − Σ_j L[i, j] X[j, c]) · L[i, i] for c in first … end − 1, the sum over the ancestors j of
    i (j = lam[i], lam[j], … while ≥ 0, in that order), on matrices of ROW_LANES lanes (n, n, ROW_LANES): the same
    fused multiply-adds, in the same order, as a :func:`row_update` per ancestor and one to scale, but with
    ANCESTOR_COLUMNS entries of row i held in registers across the ancestors, so that each ancestor's entry is
    loaded once and row i's stored once (a row update loads and stores row i's entry again for every ancestor).
    With :func:`~._tree_factor.column_block`, the factorization and solves of Talos's (nv = 38) ∂q̈/∂x and M⁻¹ went
    from 6.4 to 5.8 µs per state (one core's CPU time, 2-vCPU Intel Xeon with AVX-512; the same numbers bit for
    bit). Other arrays (never given it: :func:`less_ancestors`) compile to nothing."""
    def codegen(context, builder, signature, args):
        if not (signature.args[0].ndim == signature.args[2].ndim == 3):
            return context.get_dummy_value()
        X_, i_, L_, lam_, first_, end_ = args
        Xt, it, Lt, lamt, firstt, endt = signature.args
        vector, intp = ir.VectorType(ir.DoubleType(), ROW_LANES), ir.IntType(64)
        i_, first_, end_ = (context.cast(builder, value, t, types.intp) for value, t in zip(
            (i_, first_, end_), (it, firstt, endt)))
        lam = context.make_array(lamt)(context, builder, lam_)
        lam_shape, lam_strides = cgutils.unpack_tuple(builder, lam.shape), cgutils.unpack_tuple(builder, lam.strides)

        def parent(k):
            pointer = cgutils.get_item_pointer2(context, builder, lam.data, lam_shape, lam_strides, lamt.layout, [k])
            return builder.fptosi(builder.load(pointer), intp)
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vector, [vector] * 3),
                                             f"llvm.fma.v{ROW_LANES}f64")
        sums = [cgutils.alloca_once(builder, vector) for _ in range(ANCESTOR_COLUMNS)]  # (registers, after mem2reg)
        ancestor = cgutils.alloca_once(builder, intp)
        scale = builder.load(_entry_pointer(context, builder, Lt, L_, i_, i_), align=8)
        width = ir.Constant(intp, ANCESTOR_COLUMNS)
        blocked = builder.add(first_, builder.mul(builder.sdiv(builder.sub(end_, first_), width), width))

        def columns(start, stop, count):
            with cgutils.for_range_slice(builder, start, stop, ir.Constant(intp, count), inc=True) as (c, _):
                entries = [builder.add(c, ir.Constant(intp, k)) for k in range(count)]
                for k in range(count):
                    row = _entry_pointer(context, builder, Xt, X_, i_, entries[k])
                    builder.store(builder.load(row, align=8), sums[k])
                builder.store(parent(i_), ancestor)
                test, body, done = (builder.append_basic_block(f"ancestors.{name}")
                                    for name in ("test", "body", "done"))
                builder.branch(test)
                builder.position_at_end(test)
                j = builder.load(ancestor)
                builder.cbranch(builder.icmp_signed(">=", j, ir.Constant(intp, 0)), body, done)
                builder.position_at_end(body)
                negated = builder.fneg(builder.load(_entry_pointer(context, builder, Lt, L_, i_, j), align=8))
                for k in range(count):
                    other = builder.load(_entry_pointer(context, builder, Xt, X_, j, entries[k]), align=8)
                    builder.store(builder.call(fma, [negated, other, builder.load(sums[k])]), sums[k])
                builder.store(parent(j), ancestor)
                builder.branch(test)
                builder.position_at_end(done)
                for k in range(count):
                    builder.store(builder.fmul(builder.load(sums[k]), scale),
                                  _entry_pointer(context, builder, Xt, X_, i_, entries[k]), align=8)
        columns(first_, blocked, ANCESTOR_COLUMNS)
        columns(blocked, end_, 1)
        return context.get_dummy_value()
    return types.none(X, i, L, lam, first, end), codegen


def in_vectors(X, L):
    """Whether X and L are matrices of ROW_LANES lanes (n, n, ROW_LANES), whose entries the intrinsics
    (:func:`row_update`, :func:`ancestors_subtracted`) take as vectors."""
    return X.ndim == L.ndim == 3 and X.shape[2] == L.shape[2] == ROW_LANES


@overload(in_vectors, inline="always")
def _in_vectors(X, L):
    if X.ndim == 2:
        return lambda X, L: False
    return lambda X, L: (X.shape[2] == ROW_LANES) & (L.shape[2] == ROW_LANES)  # (&: an inlined `and` made numba warn)


@inline
def less_ancestors(X, i, L, lam, first, end):
    """X[i, c] ← (X[i, c] − Σ_j L[i, j] X[j, c]) · L[i, i] for c in first … end − 1 over the ancestors j of i along
    lam, nearest first (in every lane): a row of the solve L Y = Z from the root, L's diagonal held as reciprocals.
    A row update per ancestor (:func:`subtract_row`), then one to scale; on matrices of ROW_LANES lanes the same in
    registers (:func:`ancestors_subtracted`)."""
    if in_vectors(X, L):
        ancestors_subtracted(X, i, L, lam, first, end)
        return
    j = int(lam[i])
    while j >= 0:
        subtract_row(X, i, j, 1.0, L, i, j, first, end)
        j = int(lam[j])
    scale_row(X, i, 1.0, L, i, i, first, end)


def scale_row(X, i, sign, L, k, m, first, end):
    """X[i, c] *= sign · L[k, m] for c in first … end − 1 (in every lane)."""
    X[i, first:end] *= sign * L[k, m]


@overload(scale_row, inline="always")
def _scale_row(X, i, sign, L, k, m, first, end):
    if X.ndim == 2:
        def matrix(X, i, sign, L, k, m, first, end):
            s = sign * L[k, m]
            for c in range(first, end):
                X[i, c] *= s
        return matrix

    def lanes(X, i, sign, L, k, m, first, end):
        if X.shape[2] == ROW_LANES and L.shape[2] == ROW_LANES:
            row_update(X, i, -1, L, k, m, sign, first, end)
            return
        for c in range(first, end):
            for b in range(X.shape[2]):
                X[i, c, b] *= sign * L[k, m, b]
    return lanes


def subtract_row(X, j, i, sign, L, k, m, first, end):
    """X[j, c] −= sign · L[k, m] · X[i, c] for c in first … end − 1 (in every lane); i ≥ 0."""
    X[j, first:end] -= sign * L[k, m] * X[i, first:end]


@overload(subtract_row, inline="always")
def _subtract_row(X, j, i, sign, L, k, m, first, end):
    if X.ndim == 2:
        def matrix(X, j, i, sign, L, k, m, first, end):
            s = sign * L[k, m]
            for c in range(first, end):
                X[j, c] -= s * X[i, c]
        return matrix

    def lanes(X, j, i, sign, L, k, m, first, end):
        if X.shape[2] == ROW_LANES and L.shape[2] == ROW_LANES:
            row_update(X, j, i, L, k, m, sign, first, end)
            return
        for c in range(first, end):
            for b in range(X.shape[2]):
                X[j, c, b] -= sign * L[k, m, b] * X[i, c, b]
    return lanes


def set_entry(X, i, c, value):
    """X[i, c] = value (in every lane)."""
    X[i, c] = value


@overload(set_entry, inline="always")
def _set_entry(X, i, c, value):
    if X.ndim == 2:
        def matrix(X, i, c, value):
            X[i, c] = value
        return matrix

    def lanes(X, i, c, value):
        for b in range(X.shape[2]):
            X[i, c, b] = value
    return lanes


def add_to_entry(X, i, c, value):
    """X[i, c] += value (in every lane)."""
    X[i, c] += value


@overload(add_to_entry, inline="always")
def _add_to_entry(X, i, c, value):
    if X.ndim == 2:
        def matrix(X, i, c, value):
            X[i, c] += value
        return matrix

    def lanes(X, i, c, value):
        for b in range(X.shape[2]):
            X[i, c, b] += value
    return lanes


def mirror_entry(X, i, c):
    """X[i, c] = X[c, i] (in every lane)."""
    X[i, c] = X[c, i]


@overload(mirror_entry, inline="always")
def _mirror_entry(X, i, c):
    if X.ndim == 2:
        def matrix(X, i, c):
            X[i, c] = X[c, i]
        return matrix

    def lanes(X, i, c):
        for b in range(X.shape[2]):
            X[i, c, b] = X[c, i, b]
    return lanes


def add_row(X, to, row):
    """X[to] += X[row]: a row of per-body values (any trailing axes, the lanes last) added into another's."""
    X[to] += X[row]


@overload(add_row, inline="always")
def _add_row(X, to, row):
    if X.ndim == 2:
        def rows(X, to, row):
            for r in range(X.shape[1]):
                X[to, r] += X[row, r]
        return rows
    if X.ndim == 3:
        def matrices(X, to, row):
            for r in range(X.shape[1]):
                for c in range(X.shape[2]):
                    X[to, r, c] += X[row, r, c]
        return matrices

    def lanes(X, to, row):
        for r in range(X.shape[1]):
            for c in range(X.shape[2]):
                for b in range(X.shape[3]):
                    X[to, r, c, b] += X[row, r, c, b]
    return lanes

