"""The tree-sparse factorization M = Lᵀ L of a joint-space inertia matrix and its solves (RBDA §6.5, Tables 6.3–6.4).

M couples two velocities only when one's joint is an ancestor of (or is) the other's; factored from the leaves as
M = Lᵀ L with L lower triangular, L keeps exactly that sparsity (no fill-in), so the factorization and each solve
walk a velocity's ancestors only: O(nv · depth) per column instead of O(nv²). Written once over the entry and row
operations of :mod:`._lanes`, which take one matrix (nv, nv) or a matrix of lanes (nv, nv, lanes: one matrix per
state, the state last), so that the same functions serve one state (:func:`~._derivatives.aba_derivatives`, the
contact step's compliance) and a chunk of states held as lanes (:mod:`._derivatives_lanes`). The tree's velocity
parents ``lam`` and subtree ends ``last`` (float64 vectors, :func:`dof_parents`, :func:`subtree_ends`) describe the
sparsity.
"""
from numba.extending import overload

from ._lanes import less_ancestors, mirror_entry, pivot, scale_row, set_entry, subtract_row
from ._spatial_kernels import IV, NVJ, PARENT, inline


@inline
def dof_parents(topology, lam):
    """lam[k] = the velocity index whose joint moves the body before velocity k's along the tree (the previous entry
    of the same joint, else the last of the nearest ancestor joint with velocities), −1 at a root: the sparsity of
    M, which couples two velocities only when one's joint is an ancestor of (or is) the other's (RBDA §6.5).
    Stored as float64 (a :func:`~._spatial_kernels.work` array)."""
    for i in range(topology.shape[0]):
        above = topology[i, PARENT]
        while above >= 0 and topology[above, NVJ] == 0:
            above = topology[above, PARENT]
        last = topology[above, IV] + topology[above, NVJ] - 1 if above >= 0 else -1
        for k in range(topology[i, NVJ]):
            lam[topology[i, IV] + k] = last if k == 0 else topology[i, IV] + k - 1


@inline
def subtree_ends(lam, last):
    """last[k] = the largest velocity index among k and its descendants (lam: :func:`dof_parents`; a descendant's
    index is above its ancestors'). Row k of ∂τ/∂x is zero past it: τ_k couples only to velocities on one path
    with k (its ancestors, below k, and its subtree)."""
    for k in range(lam.shape[0]):
        last[k] = k
    for k in range(lam.shape[0] - 1, -1, -1):
        p = int(lam[k])
        if p >= 0 and last[k] > last[p]:
            last[p] = last[k]


@inline
def path_pairs(lam, on_path):
    """on_path[k, j] = 1 where velocities k and j lie on one path of the tree (one's joint an ancestor of, or, the
    other's: the entries M, ∂τ/∂x and L may hold), else 0 (lam: :func:`dof_parents`)."""
    on_path[:] = 0.0
    for k in range(lam.shape[0]):
        j = k
        while j >= 0:
            on_path[k, j] = on_path[j, k] = 1.0
            j = int(lam[j])


@inline
def tree_factor(M, lam):
    """M = Lᵀ L by the sparse LTL factorization (RBDA Table 6.3: L lower triangular with M's tree sparsity, no
    fill-in), in place in M's lower triangle, L's diagonal held as its reciprocals 1 / L_kk (the solves multiply by
    them); only entries on one path of the tree are written (the callers read no others). M (nv, nv), or a matrix of
    lanes (nv, nv, lanes) factored lane by lane (:func:`~._lanes.pivot`). Returns False if M is not positive
    definite (in some lane)."""
    for k in range(M.shape[0] - 1, -1, -1):
        if not pivot(M, k):  # L_kk = √M_kk, held as 1 / L_kk
            return False
        i = int(lam[k])
        while i >= 0:  # L_ki = M_ki / L_kk
            scale_row(M, k, 1.0, M, k, k, i, i + 1)
            i = int(lam[i])
        i = int(lam[k])
        while i >= 0:  # M_ij −= L_ki L_kj for the ancestors i, j of k (j an ancestor of i)
            j = i
            while j >= 0:
                subtract_row(M, i, k, 1.0, M, k, i, j, j + 1)
                j = int(lam[j])
            i = int(lam[i])
    return True


def column_block(X):
    """The columns of X that :func:`tree_solve` and :func:`tree_inverse` take at a time: all of a matrix (n, m),
    COLUMN_BLOCK of a matrix of lanes (n, m, lanes), whose rows' blocks then stay in the core's caches through both
    solves instead of coming from L2 once per ancestor (the columns are independent: the same operations per entry,
    in the same order). For Talos (nv = 38), blocks of 8 to 20 columns took ~0.5 µs per state less than whole rows
    (of ~6 µs for the factorization and solves of ∂q̈/∂x and M⁻¹), blocks of 4 as long (one core, Intel Xeon with
    AVX-512)."""
    return X.shape[1] if X.ndim == 2 else min(COLUMN_BLOCK, X.shape[1])


COLUMN_BLOCK = 16


@overload(column_block, inline="always")
def _column_block(X):
    if X.ndim == 2:
        return lambda X: X.shape[1]
    return lambda X: min(COLUMN_BLOCK, X.shape[1])


@inline
def tree_solve(L, lam, last, X, sign):
    """X ← sign · M⁻¹ X for M = Lᵀ L (:func:`tree_factor`), sign ±1, in place, by the two sparse triangular solves of
    RBDA Table 6.4 applied to X's rows: Lᵀ Z = X from the leaves (z_i = x_i / L_ii, then x_j −= L_ij z_i for the
    ancestors j of i), then L Y = Z from the root (y_i = (z_i − Σ L_ij y_j) / L_ii: :func:`~._lanes.less_ancestors`).
    Each step of the first is a row times a number added to another row of the same array (vector instructions
    along the row, and across the lanes of a matrix of lanes). X (nv, m) has row i zero past column last[i] (∂τ/∂x:
    :func:`subtree_ends`; a dense X: m − 1), which the first solve keeps: it works on columns 0 … last[i]. The sign
    enters the first solve (z_i = sign x_i / L_ii, x_j −= sign L_ij z_i: exact for ±1), so that −M⁻¹ X costs no
    extra pass. Both solves run on a block of columns at a time (:func:`column_block`)."""
    nv, m = X.shape[0], X.shape[1]
    width = column_block(X)
    for c0 in range(0, m, width):
        c1 = min(c0 + width, m)
        for i in range(nv - 1, -1, -1):
            end = min(int(last[i]) + 1, c1)
            if end > c0:
                scale_row(X, i, sign, L, i, i, c0, end)
                j = int(lam[i])
                while j >= 0:
                    subtract_row(X, j, i, sign, L, i, j, c0, end)
                    j = int(lam[j])
        for i in range(nv):
            less_ancestors(X, i, L, lam, c0, c1)


@inline
def tree_inverse(L, lam, last, Minv):
    """Minv = M⁻¹ for M = Lᵀ L: the solves of :func:`tree_solve` on the identity, upper triangle only, then the
    lower by symmetry. Lᵀ Z = 1 leaves row i of Z nonzero in the columns of i's subtree only (i … last[i]); in
    L Y = Z each column is solved on its own, and row i's columns c ≥ i need only its ancestors' (rows j < i) columns
    c ≥ i, in their upper triangles too. A block of columns at a time (:func:`column_block`)."""
    nv = Minv.shape[0]
    for r in range(nv):
        set_entry(Minv, r, r, 1.0)
        for c in range(r + 1, nv):
            set_entry(Minv, r, c, 0.0)
    width = column_block(Minv)
    for c0 in range(0, nv, width):
        c1 = min(c0 + width, nv)
        for i in range(c1 - 1, -1, -1):
            first, end = max(i, c0), min(int(last[i]) + 1, c1)
            if end > first:
                scale_row(Minv, i, 1.0, L, i, i, first, end)
                j = int(lam[i])
                while j >= 0:
                    subtract_row(Minv, j, i, 1.0, L, i, j, first, end)
                    j = int(lam[j])
        for i in range(c1):
            less_ancestors(Minv, i, L, lam, max(i, c0), c1)
    for i in range(nv):
        for c in range(i):
            mirror_entry(Minv, i, c)
