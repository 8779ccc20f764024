"""Writes the linalg filetests in this directory from numpy (f64) values.

    /work/venv/bin/python tests/filetests/linalg/gen.py

cholesky_*.hlo and triangular_solve_*.hlo: every attribute combination,
batched, f32 and f64; the triangle of `a` the op must not read holds
garbage (and so does the diagonal for unit_diagonal). jax_*.hlo: modules
as JAX 0.10.2 lowers jnp.linalg.cholesky and
jax.scipy.linalg.solve_triangular and jnp.linalg.solve on CPU (LAPACK
custom calls), with the
values JAX (XLA:CPU) computes.
"""
import os
import itertools
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(22)


def fmt(x, dt):
    if np.iscomplexobj(x):
        x = np.asarray(x)
        if x.ndim == 0:
            return f"({fmt(x.real, dt)}, {fmt(x.imag, dt)})"
        return "{ " + ", ".join(fmt(e, dt) for e in x) + " }"
    if np.asarray(x).dtype == np.bool_:
        x = np.asarray(x)
        if x.ndim == 0:
            return "true" if x else "false"
        return "{ " + ", ".join(fmt(e, dt) for e in x) + " }"
    x = np.asarray(x, dtype=dt)
    if x.ndim == 0:
        v = x.item()
        if np.isnan(v):
            return "nan"
        return repr(float(np.float32(v))) if dt == np.float32 else repr(float(v))
    return "{ " + ", ".join(fmt(e, dt) for e in x) + " }"


def shp(dt, dims):
    t = "f32" if dt == np.float32 else "f64"
    return f"{t}[{','.join(map(str, dims))}]"


def spd(batch, m):
    g = rng.normal(size=(batch, m, m))
    return g @ np.swapaxes(g, -1, -2) + m * np.eye(m)


def cholesky_file(dt):
    t = "f32" if dt == np.float32 else "f64"
    B, m = 2, 4
    a = spd(B, m)
    a = a.astype(dt).astype(np.float64)
    lo = np.linalg.cholesky(a)
    up = np.swapaxes(lo, -1, -2)
    # Not positive definite (batch 1): the whole factor triangle is NaN.
    bad = a.copy()
    bad[1] = np.array([[1, 2, 0, 0], [2, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    lo_bad = np.linalg.cholesky(bad[:1])
    nan_lo = np.concatenate([lo_bad, np.where(np.tril(np.ones((1, m, m))) > 0, np.nan, 0.0)])
    S = shp(dt, [B, m, m])
    text = f"""// cholesky ({t}, batched): lower=true / lower=false of an SPD batch
// (zeros in the triangle not computed), and a batch whose second matrix is
// not positive definite (its factor triangle is NaN, the first is normal).
// Values: numpy (gen.py), in f64 rounded to {t}.
// test: interp, jit-fallback, roundtrip, opt --pipeline=O2
// run: ({fmt(a, dt)}, {fmt(bad, dt)}) ~= ({fmt(lo, dt)}, {fmt(up, dt)}, {fmt(nan_lo, dt)})
HloModule cholesky_{t}

ENTRY main {{
  a = {S}{{2,1,0}} parameter(0)
  bad = {S}{{2,1,0}} parameter(1)
  l = {S}{{2,1,0}} cholesky(a), lower=true
  u = {S}{{2,1,0}} cholesky(a), lower=false
  n = {S}{{2,1,0}} cholesky(bad), lower=true
  ROOT t = ({S}{{2,1,0}}, {S}{{2,1,0}}, {S}{{2,1,0}}) tuple(l, u, n)
}}
"""
    open(os.path.join(HERE, f"cholesky_{t}.hlo"), "w").write(text)


def tri_file(dt, left):
    t = "f32" if dt == np.float32 else "f64"
    B, m, n = 2, 3, 2
    a = rng.normal(size=(B, m, m)) + 4 * np.eye(m)
    a = a.astype(dt).astype(np.float64)
    b = rng.normal(size=(B, m, n) if left else (B, n, m)).astype(dt).astype(np.float64)
    outs, lines = [], []
    for k, (lower, unit, tr) in enumerate(itertools.product(
            [True, False], [False, True], ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"])):
        tri = np.tril(a) if lower else np.triu(a)
        if unit:
            tri = tri - np.einsum("bii->bi", tri)[..., None] * np.eye(m) + np.eye(m)
        op = tri if tr == "NO_TRANSPOSE" else np.swapaxes(tri, -1, -2)
        if left:
            x = np.linalg.solve(op, b)
        else:
            x = np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
        outs.append(x)
        bs = shp(dt, b.shape)
        lines.append(
            f"  x{k} = {bs}{{2,1,0}} triangular-solve(a, b), left_side={'true' if left else 'false'}, "
            f"lower={'true' if lower else 'false'}, unit_diagonal={'true' if unit else 'false'}, transpose_a={tr}")
    bs = shp(dt, b.shape)
    side = "left" if left else "right"
    body = "\n".join(lines)
    tup = ", ".join([f"{bs}{{2,1,0}}"] * len(outs))
    names = ", ".join(f"x{k}" for k in range(len(outs)))
    exp = "(" + ", ".join(fmt(x, dt) for x in outs) + ")"
    text = f"""// triangular-solve ({t}, batched, left_side={'true' if left else 'false'}): every
// lower x unit_diagonal x transpose_a combination on one a whose other
// triangle (and, for unit_diagonal, diagonal) the op must ignore.
// Values: numpy.linalg.solve on the masked matrix (gen.py), f64 rounded to {t}.
// test: interp, jit-fallback, roundtrip, opt --pipeline=O2
// run: ({fmt(a, dt)}, {fmt(b, dt)}) ~= {exp}
HloModule triangular_solve_{t}_{side}

ENTRY main {{
  a = {shp(dt, a.shape)}{{2,1,0}} parameter(0)
  b = {bs}{{2,1,0}} parameter(1)
{body}
  ROOT t = ({tup}) tuple({names})
}}
"""
    open(os.path.join(HERE, f"triangular_solve_{t}_{side}.hlo"), "w").write(text)


def jax_files():
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    def emit(name, what, f, args, dt, tolerance=None, note=None):
        text = jax.jit(f).lower(*args).compiler_ir("hlo").as_hlo_text()
        out = jax.jit(f)(*args)
        outs = out if isinstance(out, tuple) else (out,)
        run_args = ", ".join(fmt(np.asarray(x), dt) for x in args)
        exp = fmt(np.asarray(outs[0]), dt) if len(outs) == 1 else "(" + ", ".join(fmt(np.asarray(o), dt) for o in outs) + ")"
        hdr = (f"// {what}, as JAX {jax.__version__} lowers it on CPU (LAPACK custom call),\n"
               f"// with the values JAX (XLA:CPU) returns. Generated by gen.py.\n")
        if note:
            hdr += "".join(f"// {line}\n" for line in note.splitlines())
        hdr += "// test: interp, jit-fallback, opt --pipeline=O2\n"
        if tolerance:
            hdr += f"// tolerance: {tolerance}\n"
        hdr += f"// run: ({run_args}) ~= {exp}\n"
        open(os.path.join(HERE, name), "w").write(hdr + text)

    for dt in (np.float32, np.float64):
        t = "f32" if dt == np.float32 else "f64"
        a = spd(2, 3).astype(dt)
        emit(f"jax_cholesky_{t}.hlo", f"jnp.linalg.cholesky ({t}, batch 2)", jnp.linalg.cholesky, (a,), dt)
        # A non-positive-definite matrix: NaN in the lower triangle.
        bad = np.array([[1, 2, 0], [2, 1, 0], [0, 0, 1]], dtype=dt)
        emit(f"jax_cholesky_nan_{t}.hlo", f"jnp.linalg.cholesky of a non-PD matrix ({t})",
             jnp.linalg.cholesky, (bad,), dt)
        tri = (rng.normal(size=(2, 3, 3)) + 4 * np.eye(3)).astype(dt)
        b = rng.normal(size=(2, 3, 2)).astype(dt)
        emit(f"jax_solve_triangular_{t}.hlo", f"jax.scipy.linalg.solve_triangular lower=True ({t}, batch 2)",
             lambda a, b: jsl.solve_triangular(a, b, lower=True), (tri, b), dt)
        emit(f"jax_solve_triangular_upper_t_{t}.hlo",
             f"jax.scipy.linalg.solve_triangular lower=False trans=1 unit_diagonal=True ({t})",
             lambda a, b: jsl.solve_triangular(a, b, lower=False, trans=1, unit_diagonal=True), (tri[0], b[0]), dt)
        g = (rng.normal(size=(2, 3, 3)) + 2 * np.eye(3)).astype(dt)
        rhs = rng.normal(size=(2, 3, 2)).astype(dt)
        emit(f"jax_solve_{t}.hlo", f"jnp.linalg.solve ({t}, batch 2: getrf + trsm)",
             jnp.linalg.solve, (g, rhs), dt)
        bt = rng.normal(size=(2, 2, 3)).astype(dt)
        emit(f"jax_lax_triangular_solve_right_{t}.hlo",
             f"lax.linalg.triangular_solve left_side=False lower=False transpose_a=True ({t})",
             lambda a, b: jax.lax.linalg.triangular_solve(a, b, left_side=False, lower=False, transpose_a=True),
             (tri, bt), dt)

    decomposition_files(emit)
    complex_jax_files(emit)


def decomposition_files(emit):
    """qr (geqrf + orgqr), eigh (syevd) and svd (gesdd, gesvd). Outputs are
    chosen sign-invariant where LAPACK's signs are implementation-defined:
    eigenvectors and singular vectors appear as |V| and as reconstructions
    (V diag(w) Vᵀ, U diag(s) Vᵀ, U Uᵀ); Q and R are unique (LAPACK's
    Householder sign convention) and appear as they are."""
    import jax
    import jax.numpy as jnp
    from jax.lax.linalg import SvdAlgorithm

    sw = lambda x: jnp.swapaxes(x, -1, -2)
    tols = {np.float32: "rtol=1e-5 atol=1e-6", np.float64: "rtol=1e-12 atol=1e-13"}
    inv_note = "Sign-invariant outputs (signs of eigen/singular vectors are implementation-defined)."
    for dt in (np.float32, np.float64):
        t = "f32" if dt == np.float32 else "f64"
        tol = tols[dt]
        tall = rng.normal(size=(4, 3)).astype(dt)
        wide = rng.normal(size=(2, 3, 4)).astype(dt)
        for mode in ("reduced", "complete", "r"):
            emit(f"jax_qr_{mode}_{t}.hlo", f"jnp.linalg.qr mode={mode!r} ({t}, 4x3)",
                 lambda a, mode=mode: jnp.linalg.qr(a, mode=mode), (tall,), dt, tol)
        emit(f"jax_qr_wide_batched_{t}.hlo", f"jnp.linalg.qr ({t}, batch 2 of 3x4)",
             jnp.linalg.qr, (wide,), dt, tol)
        emit(f"jax_qr_complete_wide_{t}.hlo", f"jnp.linalg.qr mode='complete' ({t}, 2x4 with a zero column)",
             lambda a: jnp.linalg.qr(a, mode="complete"),
             (np.array([[0, 1, 2, 3], [0, -1, 4, 1]], dtype=dt),), dt, tol)

        def eigh_inv(a):
            w, v = jnp.linalg.eigh(a)
            return w, (v * w[..., None, :]) @ sw(v), jnp.abs(v)
        sym = rng.normal(size=(2, 4, 4))
        sym = (sym + sw(sym)).astype(dt)
        emit(f"jax_eigh_{t}.hlo", f"jnp.linalg.eigh ({t}, batch 2 of 4x4): w, V diag(w) Vᵀ, |V|",
             eigh_inv, (sym,), dt, tol, inv_note)

        def lax_eigh_upper(a):
            v, w = jax.lax.linalg.eigh(a, lower=False, symmetrize_input=False)
            return w, (v * w[..., None, :]) @ sw(v), jnp.abs(v)
        ns = rng.normal(size=(3, 3)).astype(dt)
        emit(f"jax_lax_eigh_upper_{t}.hlo",
             f"jax.lax.linalg.eigh lower=False symmetrize_input=False ({t}, 3x3 not symmetric: "
             "only the upper triangle is read)", lax_eigh_upper, (ns,), dt, tol, inv_note)
        emit(f"jax_eigvalsh_{t}.hlo", f"jnp.linalg.eigvalsh ({t}, 5x5 with a repeated eigenvalue)",
             jnp.linalg.eigvalsh, (np.diag([2, -1, 2, 0, 3]).astype(dt) + np.ones((5, 5), dt) * 0.5,), dt, tol)

        def svd_inv(a, full):
            u, s, vt = jnp.linalg.svd(a, full_matrices=full)
            k = s.shape[-1]
            return (s, (u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :], jnp.abs(u[..., :, :k]),
                    jnp.abs(vt[..., :k, :]), u @ sw(u), sw(vt) @ vt)
        emit(f"jax_svd_{t}.hlo", f"jnp.linalg.svd full_matrices=False ({t}, 4x3): s, U diag(s) Vᵀ, |U|, |Vᵀ|, U Uᵀ, V Vᵀ",
             lambda a: svd_inv(a, False), (tall,), dt, tol, inv_note)
        emit(f"jax_svd_full_batched_{t}.hlo",
             f"jnp.linalg.svd full_matrices=True ({t}, batch 2 of 3x4): s, U diag(s) Vᵀ, |U|, |Vᵀ[:k]|, U Uᵀ, V Vᵀ",
             lambda a: svd_inv(a, True), (wide,), dt, tol, inv_note)
        emit(f"jax_svdvals_{t}.hlo", f"jnp.linalg.svd compute_uv=False ({t}, 4x3 of rank 2)",
             lambda a: jnp.linalg.svd(a, compute_uv=False),
             (np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 0, -1]], dtype=dt),), dt, tol)

        def gesvd_inv(a):
            u, s, vt = jax.lax.linalg.svd(a, full_matrices=True, algorithm=SvdAlgorithm.QR)
            return s, (u[:, :3] * s) @ vt, jnp.abs(u[:, :3]), jnp.abs(vt), u @ u.T
        emit(f"jax_lax_svd_qr_{t}.hlo",
             f"jax.lax.linalg.svd algorithm=QR full_matrices=True ({t}, 4x3; gesvd)",
             gesvd_inv, (tall,), dt, tol, inv_note)
        if dt == np.float64:
            # The same calls read from StableHLO text (mhlo.backend_config).
            def all3(a):
                q, r = jnp.linalg.qr(a)
                w, v = jnp.linalg.eigh(a @ a.T)
                u, s, vt = jnp.linalg.svd(a, full_matrices=False)
                return q, r, w, (v * w) @ v.T, s, (u * s) @ vt
            text = jax.jit(all3).lower(tall).as_text()
            outs = jax.jit(all3)(tall)
            exp = "(" + ", ".join(fmt(np.asarray(o), dt) for o in outs) + ")"
            hdr = (f"// qr, eigh and svd (f64, 4x3) as StableHLO text from JAX {jax.__version__}\n"
                   f"// (stablehlo.custom_call with mhlo.backend_config), with XLA:CPU's values.\n"
                   f"// Generated by gen.py. Sign-invariant outputs for eigh and svd.\n"
                   f"// test: interp, jit-fallback\n// tolerance: {tol}\n// run: ({fmt(tall, dt)}) ~= {exp}\n")
            open(os.path.join(HERE, "jax_decompositions_f64.mlir"), "w").write(hdr + text)
        nan = np.array([[1, np.nan], [2, 3]], dtype=dt)
        emit(f"jax_decompositions_nan_{t}.hlo", f"qr, eigh and svd of a matrix holding a NaN ({t})",
             lambda a: (*jnp.linalg.qr(a), *jnp.linalg.eigh(a), *jnp.linalg.svd(a)), (nan,), dt)
    # After the loop above, so its random inputs stay the same.
    for dt in (np.float32, np.float64):
        eig_files(emit, dt, tols[dt])
    # Complex QR (lapack_{c,z}geqrf_ffi, lapack_{c,z}ungqr_ffi); values are
    # formatted with the real part type.
    for dt, ct in ((np.float32, np.complex64), (np.float64, np.complex128)):
        t = "c64" if ct == np.complex64 else "c128"
        a = (rng.normal(size=(4, 3)) + 1j * rng.normal(size=(4, 3))).astype(ct)
        emit(f"jax_qr_{t}.hlo", f"jnp.linalg.qr ({t}, 4x3)", jnp.linalg.qr, (a,), dt, tols[dt])
        b = (rng.normal(size=(2, 2, 3)) + 1j * rng.normal(size=(2, 2, 3))).astype(ct)
        emit(f"jax_qr_complete_batched_{t}.hlo", f"jnp.linalg.qr mode='complete' ({t}, batch 2 of 2x3)",
             lambda a: jnp.linalg.qr(a, mode="complete"), (b,), dt, tols[dt])
    # Complex Hermitian eigh (heevd) and SVD (gesdd): phase-invariant outputs.
    note = "Phase-invariant outputs (eigen/singular vector phases are implementation-defined)."
    cj = lambda x: jnp.conj(jnp.swapaxes(x, -1, -2))

    def heigh_inv(a):
        w, v = jnp.linalg.eigh(a)
        return w, (v * w[..., None, :]) @ cj(v), jnp.abs(v)

    def csvd_inv(a, full):
        u, s, vt = jnp.linalg.svd(a, full_matrices=full)
        k = s.shape[-1]
        return (s, (u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :], jnp.abs(u[..., :, :k]),
                jnp.abs(vt[..., :k, :]), u @ cj(u), cj(vt) @ vt)
    for dt, ct in ((np.float32, np.complex64), (np.float64, np.complex128)):
        t = "c64" if ct == np.complex64 else "c128"
        g = rng.normal(size=(2, 3, 3)) + 1j * rng.normal(size=(2, 3, 3))
        h = (g + np.conj(np.swapaxes(g, -1, -2))).astype(ct)
        emit(f"jax_eigh_{t}.hlo", f"jnp.linalg.eigh ({t}, batch 2 of 3x3 Hermitian): w, V diag(w) Vᴴ, |V|",
             heigh_inv, (h,), dt, tols[dt], note)
        a = (rng.normal(size=(4, 3)) + 1j * rng.normal(size=(4, 3))).astype(ct)
        emit(f"jax_svd_{t}.hlo", f"jnp.linalg.svd full_matrices=False ({t}, 4x3): s, U diag(s) Vᴴ, |U|, |Vᴴ|, U Uᴴ, Vᴴ V",
             lambda a: csvd_inv(a, False), (a,), dt, tols[dt], note)
        b = (rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))).astype(ct)
        emit(f"jax_svd_full_wide_{t}.hlo", f"jnp.linalg.svd full_matrices=True ({t}, 3x4): s, U diag(s) Vᴴ, |U|, |Vᴴ[:k]|, U Uᴴ, Vᴴ V",
             lambda a: csvd_inv(a, True), (b,), dt, tols[dt], note)


def eig_files(emit, dt, tol):
    """geev (jnp.linalg.eig, eigvals, lax.linalg.eig with left vectors).
    LAPACK's eigenvalue order (its Schur form after balancing) and the
    vectors' phases are not reproduced, so the outputs are order-free: the
    sorted eigenvalues, whether the residuals ‖A v - λ v‖ (and ‖uᴴA - λuᴴ‖)
    are small, and the vectors' norms."""
    import jax
    import jax.numpy as jnp
    t = "f32" if dt == np.float32 else "f64"
    small = 1e-4 if dt == np.float32 else 1e-11
    note = "Order-free outputs: LAPACK's eigenvalue order and eigenvector phases are implementation-defined."

    def eig_inv(a):
        w, v = jnp.linalg.eig(a)
        res = a.astype(v.dtype) @ v - v * w[..., None, :]
        ok = jnp.max(jnp.abs(res), axis=(-2, -1)) < small * jnp.max(jnp.abs(a), axis=(-2, -1))
        return jnp.sort(w), ok, jnp.linalg.norm(v, axis=-2)
    a = rng.normal(size=(2, 4, 4)).astype(dt)
    emit(f"jax_eig_{t}.hlo", f"jnp.linalg.eig ({t}, batch 2 of 4x4): sort(w), residual small, |v| = 1",
         eig_inv, (a,), dt, tol, note)

    def lax_eig_left(a):
        w, vl, vr = jax.lax.linalg.eig(a)
        rr = a.astype(vr.dtype) @ vr - vr * w[None, :]
        rl = jnp.conj(vl.T) @ a.astype(vl.dtype) - w[:, None] * jnp.conj(vl.T)
        scale = small * jnp.max(jnp.abs(a))
        return (jnp.sort(w), jnp.max(jnp.abs(rr)) < scale, jnp.max(jnp.abs(rl)) < scale,
                jnp.linalg.norm(vl, axis=0), jnp.linalg.norm(vr, axis=0))
    rot = np.array([[0, -2, 1, 0, 0], [2, 0, 0, 1, 0], [0, 0, 1, 3, 0], [0, 0, -1, 1, 0], [1, 0, 0, 0, 5]], dtype=dt)
    emit(f"jax_lax_eig_left_{t}.hlo",
         f"jax.lax.linalg.eig with left and right vectors ({t}, 5x5 with two complex pairs)",
         lax_eig_left, (rot,), dt, tol, note)
    emit(f"jax_eigvals_{t}.hlo", f"sorted jnp.linalg.eigvals ({t}, 3x3)",
         lambda a: jnp.sort(jnp.linalg.eigvals(a)), (rng.normal(size=(3, 3)).astype(dt),), dt, tol)


def cshp(ct, dims):
    t = "c64" if ct == np.complex64 else "c128"
    return f"{t}[{','.join(map(str, dims))}]"


def crandn(r, shape, ct):
    return (r.normal(size=shape) + 1j * r.normal(size=shape)).astype(ct)


def complex_op_files():
    """cholesky_{c64,c128}.hlo and triangular_solve_{c64,c128}_{left,right}.hlo:
    the HLO ops on complex operands (A = L Lᴴ; ADJOINT conjugates), numpy
    values. Their own random generator, so the real files stay the same."""
    r = np.random.default_rng(2202)
    for dt, ct in ((np.float32, np.complex64), (np.float64, np.complex128)):
        t = "c64" if ct == np.complex64 else "c128"
        B, m = 2, 3
        g = crandn(r, (B, m, m), np.complex128)
        a = (g @ np.conj(np.swapaxes(g, -1, -2)) + m * np.eye(m)).astype(ct).astype(np.complex128)
        # Exactly Hermitian after rounding (a real diagonal).
        a = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
        lo = np.linalg.cholesky(a)
        up = np.conj(np.swapaxes(lo, -1, -2))
        bad = a.copy()
        bad[1] = np.array([[1, 2j, 0], [-2j, 1, 0], [0, 0, 1]])
        nan_lo = np.concatenate([lo[:1], np.where(np.tril(np.ones((1, m, m))) > 0, complex(np.nan, np.nan), 0.0)])
        # The triangle cholesky must not read holds garbage.
        ga = a.copy()
        junk = crandn(r, (B, m, m), np.complex128) * 9
        ga_lo = np.where(np.triu(np.ones((m, m)), 1) > 0, junk, a)
        ga_up = np.where(np.tril(np.ones((m, m)), -1) > 0, junk, a)
        S = cshp(ct, [B, m, m])
        tol = "rtol=1e-5 atol=1e-6" if dt == np.float32 else "rtol=1e-12 atol=1e-13"
        text = f"""// cholesky ({t}, batched): A = L Lᴴ. lower=true / lower=false of a Hermitian
// positive definite batch whose other triangle holds garbage (the op reads only
// one triangle; zeros in the triangle not computed, the diagonal real), and a
// batch whose second matrix is not positive definite (its factor triangle is NaN).
// Values: numpy (gen.py), in complex128 rounded to {t}.
// test: interp, jit-fallback, roundtrip, opt --pipeline=O2
// tolerance: {tol}
// run: ({fmt(ga_lo, dt)}, {fmt(ga_up, dt)}, {fmt(bad, dt)}) ~= ({fmt(lo, dt)}, {fmt(up, dt)}, {fmt(nan_lo, dt)})
HloModule cholesky_{t}

ENTRY main {{
  a = {S}{{2,1,0}} parameter(0)
  au = {S}{{2,1,0}} parameter(1)
  bad = {S}{{2,1,0}} parameter(2)
  l = {S}{{2,1,0}} cholesky(a), lower=true
  u = {S}{{2,1,0}} cholesky(au), lower=false
  n = {S}{{2,1,0}} cholesky(bad), lower=true
  ROOT t = ({S}{{2,1,0}}, {S}{{2,1,0}}, {S}{{2,1,0}}) tuple(l, u, n)
}}
"""
        open(os.path.join(HERE, f"cholesky_{t}.hlo"), "w").write(text)
        for left in (True, False):
            n = 2
            a = (crandn(r, (B, m, m), np.complex128) + 4 * np.eye(m)).astype(ct).astype(np.complex128)
            b = crandn(r, (B, m, n) if left else (B, n, m), ct).astype(np.complex128)
            outs, lines = [], []
            for k, (lower, unit, tr) in enumerate(itertools.product(
                    [True, False], [False, True], ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"])):
                tri = np.tril(a) if lower else np.triu(a)
                if unit:
                    tri = tri - np.einsum("bii->bi", tri)[..., None] * np.eye(m) + np.eye(m)
                op = {"NO_TRANSPOSE": tri, "TRANSPOSE": np.swapaxes(tri, -1, -2),
                      "ADJOINT": np.conj(np.swapaxes(tri, -1, -2))}[tr]
                if left:
                    x = np.linalg.solve(op, b)
                else:
                    x = np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
                outs.append(x)
                lines.append(
                    f"  x{k} = {cshp(ct, b.shape)}{{2,1,0}} triangular-solve(a, b), left_side={'true' if left else 'false'}, "
                    f"lower={'true' if lower else 'false'}, unit_diagonal={'true' if unit else 'false'}, transpose_a={tr}")
            bs = cshp(ct, b.shape)
            side = "left" if left else "right"
            tup = ", ".join([f"{bs}{{2,1,0}}"] * len(outs))
            names = ", ".join(f"x{k}" for k in range(len(outs)))
            exp = "(" + ", ".join(fmt(x, dt) for x in outs) + ")"
            body = "\n".join(lines)
            text = f"""// triangular-solve ({t}, batched, left_side={'true' if left else 'false'}): every
// lower x unit_diagonal x transpose_a combination (ADJOINT conjugates, TRANSPOSE
// does not) on one a whose other triangle (and, for unit_diagonal, diagonal)
// the op must ignore.
// Values: numpy.linalg.solve on the masked matrix (gen.py), complex128 rounded to {t}.
// test: interp, jit-fallback, roundtrip, opt --pipeline=O2
// tolerance: {tol}
// run: ({fmt(a, dt)}, {fmt(b, dt)}) ~= {exp}
HloModule triangular_solve_{t}_{side}

ENTRY main {{
  a = {cshp(ct, a.shape)}{{2,1,0}} parameter(0)
  b = {bs}{{2,1,0}} parameter(1)
{body}
  ROOT t = ({tup}) tuple({names})
}}
"""
            open(os.path.join(HERE, f"triangular_solve_{t}_{side}.hlo"), "w").write(text)


def complex_jax_files(emit):
    """The complex (c64, c128) forms of cholesky (lapack_{c,z}potrf_ffi),
    solve_triangular / lax triangular_solve (lapack_{c,z}trsm_ffi, trans_x
    'C' for the adjoint), solve, inv, det and lu (lapack_{c,z}getrf_ffi +
    trsm) and eig / eigvals (lapack_{c,z}geev_ffi, order-free outputs), with
    singular / non-positive-definite / NaN cases. Their own random
    generator, so the other files stay the same."""
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl
    r = np.random.default_rng(2203)
    tols = {np.float32: "rtol=1e-5 atol=1e-6", np.float64: "rtol=1e-12 atol=1e-13"}
    cj = lambda x: jnp.conj(jnp.swapaxes(x, -1, -2))
    for dt, ct in ((np.float32, np.complex64), (np.float64, np.complex128)):
        t = "c64" if ct == np.complex64 else "c128"
        tol = tols[dt]
        small = 1e-4 if dt == np.float32 else 1e-11
        g = crandn(r, (2, 3, 3), np.complex128)
        hpd = (g @ np.conj(np.swapaxes(g, -1, -2)) + 3 * np.eye(3)).astype(ct)
        emit(f"jax_cholesky_{t}.hlo", f"jnp.linalg.cholesky ({t}, batch 2 of 3x3 Hermitian positive definite)",
             jnp.linalg.cholesky, (hpd,), dt, tol)
        bad = np.array([[1, 2j, 0], [-2j, 1, 0], [0, 0, 1]], dtype=ct)
        emit(f"jax_cholesky_nan_{t}.hlo", f"jnp.linalg.cholesky of a Hermitian matrix that is not positive definite ({t}): NaN",
             jnp.linalg.cholesky, (bad,), dt)
        tri = (crandn(r, (2, 3, 3), np.complex128) + 4 * np.eye(3)).astype(ct)
        b = crandn(r, (2, 3, 2), ct)
        emit(f"jax_solve_triangular_{t}.hlo", f"jax.scipy.linalg.solve_triangular lower=True ({t}, batch 2)",
             lambda a, b: jsl.solve_triangular(a, b, lower=True), (tri, b), dt, tol)
        emit(f"jax_solve_triangular_adjoint_{t}.hlo",
             f"jax.scipy.linalg.solve_triangular lower=True trans=2 (aᴴ x = b; trans_x 'C') ({t}, batch 2)",
             lambda a, b: jsl.solve_triangular(a, b, lower=True, trans=2), (tri, b), dt, tol)
        emit(f"jax_solve_triangular_upper_t_{t}.hlo",
             f"jax.scipy.linalg.solve_triangular lower=False trans=1 unit_diagonal=True ({t})",
             lambda a, b: jsl.solve_triangular(a, b, lower=False, trans=1, unit_diagonal=True), (tri[0], b[0]), dt, tol)
        bt = crandn(r, (2, 2, 3), ct)
        emit(f"jax_lax_triangular_solve_right_{t}.hlo",
             f"lax.linalg.triangular_solve left_side=False lower=False transpose_a=True conjugate_a=True ({t}: x aᴴ = b)",
             lambda a, b: jax.lax.linalg.triangular_solve(a, b, left_side=False, lower=False, transpose_a=True,
                                                          conjugate_a=True),
             (tri, bt), dt, tol)
        gen = (crandn(r, (2, 3, 3), np.complex128) + 2 * np.eye(3)).astype(ct)
        rhs = crandn(r, (2, 3, 2), ct)
        emit(f"jax_solve_{t}.hlo", f"jnp.linalg.solve ({t}, batch 2: getrf + trsm)", jnp.linalg.solve, (gen, rhs), dt, tol)
        emit(f"jax_inv_{t}.hlo", f"jnp.linalg.inv ({t}, batch 2: getrf + trsm)", jnp.linalg.inv, (gen,), dt, tol)
        g4 = crandn(r, (2, 4, 4), ct)
        emit(f"jax_det_{t}.hlo", f"jnp.linalg.det and slogdet ({t}, batch 2 of 4x4: getrf)",
             lambda a: (jnp.linalg.det(a), *jnp.linalg.slogdet(a)), (g4,), dt, tol)
        emit(f"jax_lu_{t}.hlo", f"jax.scipy.linalg.lu ({t}, 4x3: p, l, u)",
             jsl.lu, (crandn(r, (4, 3), ct),), dt, tol)
        sing = np.array([[1, 2j, 0, 1], [2, 4j, 0, 0], [0, 0, 1, 1j], [1, 2j, 0, 1]], dtype=ct)
        emit(f"jax_singular_{t}.hlo",
             f"A singular {t} matrix: jnp.linalg.det (0), jax.scipy.linalg.lu (a zero pivot, no error), "
             "jnp.linalg.solve (NaN where the zero pivot divides)",
             lambda a, b: (jnp.linalg.det(a), *jsl.lu(a), jnp.linalg.solve(a, b)),
             (sing, np.array([[1], [1], [1], [1]], dtype=ct)), dt)
        note = "Order-free outputs: LAPACK's eigenvalue order and eigenvector phases are implementation-defined."

        def eig_inv(a):
            w, v = jnp.linalg.eig(a)
            res = a @ v - v * w[..., None, :]
            ok = jnp.max(jnp.abs(res), axis=(-2, -1)) < small * jnp.max(jnp.abs(a), axis=(-2, -1))
            return jnp.sort(w), ok, jnp.linalg.norm(v, axis=-2)
        emit(f"jax_eig_{t}.hlo", f"jnp.linalg.eig ({t}, batch 2 of 4x4): sort(w), residual small, |v| = 1",
             eig_inv, (crandn(r, (2, 4, 4), ct),), dt, tol, note)

        def lax_eig_left(a):
            w, vl, vr = jax.lax.linalg.eig(a)
            rr = a @ vr - vr * w[None, :]
            rl = cj(vl) @ a - w[:, None] * cj(vl)
            scale = small * jnp.max(jnp.abs(a))
            return (jnp.sort(w), jnp.max(jnp.abs(rr)) < scale, jnp.max(jnp.abs(rl)) < scale,
                    jnp.linalg.norm(vl, axis=0), jnp.linalg.norm(vr, axis=0))
        herm_ish = crandn(r, (5, 5), ct)
        emit(f"jax_lax_eig_left_{t}.hlo", f"jax.lax.linalg.eig with left and right vectors ({t}, 5x5)",
             lax_eig_left, (herm_ish,), dt, tol, note)
        emit(f"jax_eigvals_{t}.hlo", f"sorted jnp.linalg.eigvals ({t}, 3x3)",
             lambda a: jnp.sort(jnp.linalg.eigvals(a)), (crandn(r, (3, 3), ct),), dt, tol)
        emit(f"jax_eig_nan_{t}.hlo", f"jnp.linalg.eig of a matrix holding a NaN ({t}): all NaN",
             jnp.linalg.eig, (np.array([[1, np.nan], [2j, 3]], dtype=ct),), dt)


if __name__ == "__main__":
    for dt in (np.float32, np.float64):
        cholesky_file(dt)
        tri_file(dt, True)
        tri_file(dt, False)
    jax_files()
    complex_op_files()
