"""Layout of the compiled model's arrays, shared by every target's kernels (see :mod:`._spatial_kernels`).

``topology`` columns: parent index (−1 = world), joint type code, first index in q, first index in v, joint nq,
joint nv. ``params`` column offsets F_*: see :mod:`._spatial_kernels`. Symmetric 6 × 6 matrices
[[A, B], [Bᵀ, C]] (the articulated-body inertias) are stored as 21 entries: A and C as (xx, yy, zz, xy, xz, yz),
B row major (SYM_*).
"""
PARENT, JTYPE, IQ, IV, NQJ, NVJ = range(6)
F_RTREE, F_PTREE, F_AXIS, F_INERTIA, F_S, F_MASS, F_COM, F_ARMATURE = 0, 9, 12, 15, 51, 87, 88, 91
F_ZRTREE, F_ZPTREE, F_ZCENTRAL, F_ZCOM, F_ZINERTIA, F_ZAXES, NPARAMS = 97, 106, 109, 115, 118, 124, 133
SYM_A, SYM_B, SYM_C, NSYM = 0, 6, 15, 21
