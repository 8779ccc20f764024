//! The LAPACK custom calls behind jnp.linalg.qr / eigh / svd (geqrf,
//! orgqr, syevd, gesdd, gesvd), run through the evaluator on fixed
//! matrices: factor properties (orthogonality, reconstruction, ordering,
//! triangularity) and eigen/singular values against numpy's; the complex
//! (c64/c128) getrf, potrf, trsm and geev likewise.
//!
//! Test matrices: `a[i][j] = sin(0.37 s + 1.31 i + 0.71 j² + 0.13 i j) +
//! 0.5 / (1 + i + j)` for a seed `s` (the same formula in numpy gives the
//! reference values; `sym` is `a + aᵀ`). Tolerances: 1e-12 relative to the
//! largest value (f64), 1e-5 (f32).

use rxla_eval::RunOptions;
use rxla_eval::entry::evaluate;
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, Complex64, ElementType, Literal, parse_module};

fn mat(seed: f64, m: usize, n: usize) -> Vec<f64> {
    let mut v = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let (x, y) = (i as f64, j as f64);
            v.push(
                (seed * 0.37 + x * 1.31 + y * y * 0.71 + 0.13 * x * y).sin() + 0.5 / (1.0 + x + y),
            );
        }
    }
    v
}

fn sym(seed: f64, n: usize) -> Vec<f64> {
    let a = mat(seed, n, n);
    (0..n * n).map(|k| a[k] + a[(k % n) * n + k / n]).collect()
}

fn lit(ty: ElementType, dims: &[usize], v: &[f64]) -> Literal {
    let shape = ArrayShape::new(ty, dims.iter().map(|&d| d as i64).collect::<Vec<_>>()).unwrap();
    let data = match ty {
        ElementType::F32 => ArrayData::F32(v.iter().map(|&x| x as f32).collect()),
        _ => ArrayData::F64(v.to_vec()),
    };
    Literal::Array(ArrayLiteral {
        shape,
        data,
        runtime_sizes: Vec::new(),
    })
}

fn vals(l: &Literal) -> Vec<f64> {
    match &l.as_array().unwrap().data {
        ArrayData::F32(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::F64(v) => v.clone(),
        ArrayData::S32(v) => v.iter().map(|&x| x as f64).collect(),
        other => panic!("unexpected data {other:?}"),
    }
}

fn shape(ty: &str, dims: &[usize]) -> String {
    let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
    format!("{ty}[{}]", d.join(","))
}

/// Runs one custom call on `a` and returns its result leaves.
fn call(
    target: &str,
    config: &str,
    ty: ElementType,
    a: (&[usize], &[f64]),
    result: &str,
) -> Vec<Literal> {
    try_call(target, config, ty, a, result).unwrap_or_else(|e| panic!("{e}"))
}

fn try_call(
    target: &str,
    config: &str,
    ty: ElementType,
    a: (&[usize], &[f64]),
    result: &str,
) -> Result<Vec<Literal>, String> {
    let t = if ty == ElementType::F32 { "f32" } else { "f64" };
    let text = format!(
        "HloModule m\n\nENTRY main {{\n  a = {} parameter(0)\n  ROOT r = {result} custom-call(a), custom_call_target=\"{target}\", api_version=API_VERSION_TYPED_FFI, backend_config={config}\n}}\n",
        shape(t, a.0)
    );
    let m = parse_module(&text, "t.hlo").map_err(|e| e.to_string())?;
    let out =
        evaluate(&m, &[lit(ty, a.0, a.1)], &RunOptions::default()).map_err(|e| e.to_string())?;
    match out {
        Literal::Tuple(t) => Ok(t),
        l => Ok(vec![l]),
    }
}

fn close(x: &[f64], y: &[f64], tol: f64, what: &str) {
    assert_eq!(x.len(), y.len(), "{what}");
    for (k, (a, b)) in x.iter().zip(y).enumerate() {
        assert!((a - b).abs() <= tol, "{what}[{k}]: {a} vs {b} (tol {tol})");
    }
}

/// `cᵀc` of the row-major `rows×cols` matrix `c` is the identity.
fn orthonormal_columns(c: &[f64], rows: usize, cols: usize, tol: f64, what: &str) {
    for p in 0..cols {
        for q in 0..cols {
            let d: f64 = (0..rows).map(|i| c[i * cols + p] * c[i * cols + q]).sum();
            let want = if p == q { 1.0 } else { 0.0 };
            assert!((d - want).abs() <= tol, "{what}: column {p}·{q} = {d}");
        }
    }
}

fn transpose(a: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    (0..rows * cols)
        .map(|k| a[(k % rows) * cols + k / rows])
        .collect()
}

#[test]
fn qr_factors_reconstruct_and_are_orthogonal() {
    for (m, n, ty, tol) in [
        (7, 4, ElementType::F64, 1e-13),
        (4, 7, ElementType::F64, 1e-13),
        (5, 5, ElementType::F32, 1e-5),
        (30, 12, ElementType::F64, 1e-12),
    ] {
        let t = if ty == ElementType::F32 {
            ("f32", "s")
        } else {
            ("f64", "d")
        };
        let a = mat(m as f64, m, n);
        let k = m.min(n);
        let out = call(
            &format!("lapack_{}geqrf_ffi", t.1),
            "{}",
            ty,
            (&[m, n], &a),
            &format!("({}, {})", shape(t.0, &[m, n]), shape(t.0, &[k])),
        );
        let (qr, tau) = (vals(&out[0]), vals(&out[1]));
        assert!(
            tau.iter().all(|&x| (0.0..=2.0).contains(&x)),
            "tau in [0, 2]: {tau:?}"
        );
        // Q (m×k) from the first k columns of the reflectors.
        let head: Vec<f64> = (0..m * k).map(|x| qr[(x / k) * n + x % k]).collect();
        let text = format!(
            "HloModule m\n\nENTRY main {{\n  a = {} parameter(0)\n  tau = {} parameter(1)\n  ROOT q = {} custom-call(a, tau), custom_call_target=\"lapack_{}orgqr_ffi\", backend_config={{}}\n}}\n",
            shape(t.0, &[m, k]),
            shape(t.0, &[k]),
            shape(t.0, &[m, k]),
            t.1
        );
        let module = parse_module(&text, "q.hlo").unwrap();
        let q = vals(
            &evaluate(
                &module,
                &[lit(ty, &[m, k], &head), lit(ty, &[k], &tau)],
                &RunOptions::default(),
            )
            .unwrap(),
        );
        orthonormal_columns(&q, m, k, tol, "Q");
        for i in 0..m {
            for j in 0..n {
                let x: f64 = (0..=j.min(k - 1))
                    .map(|l| q[i * k + l] * qr[l * n + j])
                    .sum();
                assert!(
                    (x - a[i * n + j]).abs() <= tol * 4.0,
                    "QR[{i}][{j}] = {x} vs {}",
                    a[i * n + j]
                );
            }
        }
    }
}

#[test]
fn eigh_matches_numpy_and_diagonalizes() {
    // numpy.linalg.eigvalsh(sym(1, 6)), eigvalsh(sym(2, 30)).
    let want6 = [
        -2.885279179153502,
        -1.4826048462615893,
        -0.8410685353338403,
        0.7376696972234273,
        2.8982663665282256,
        5.266635614541532,
    ];
    let want30_ends = [-10.073517970457068, -9.72321540947436, 10.666421481235108];
    for (seed, n) in [(1.0, 6), (2.0, 30)] {
        for (ty, tol) in [(ElementType::F64, 1e-12), (ElementType::F32, 1e-5)] {
            let (t, c) = if ty == ElementType::F32 {
                ("f32", "s")
            } else {
                ("f64", "d")
            };
            let s = sym(seed, n);
            for uplo in ['L', 'U'] {
                // Garbage in the triangle the call must not read.
                let mut a = s.clone();
                for i in 0..n {
                    for j in 0..n {
                        if (uplo == 'L' && j > i) || (uplo == 'U' && j < i) {
                            a[i * n + j] = 1e3;
                        }
                    }
                }
                let out = call(
                    &format!("lapack_{c}syevd_ffi"),
                    &format!("{{mode = 86 : ui8, uplo = {} : ui8}}", uplo as u32),
                    ty,
                    (&[n, n], &a),
                    &format!("({}, {}, s32[])", shape(t, &[n, n]), shape(t, &[n])),
                );
                let (v, w, info) = (vals(&out[0]), vals(&out[1]), vals(&out[2]));
                assert_eq!(info, vec![0.0]);
                let scale = w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                if n == 6 {
                    close(&w, &want6, tol * scale, "eigenvalues");
                } else {
                    close(
                        &[w[0], w[1], w[29]],
                        &want30_ends,
                        tol * scale,
                        "eigenvalues",
                    );
                }
                assert!(w.windows(2).all(|p| p[0] <= p[1]), "ascending");
                orthonormal_columns(&v, n, n, tol * n as f64, "V");
                // S v_j = w_j v_j.
                for j in 0..n {
                    for i in 0..n {
                        let sv: f64 = (0..n).map(|k| s[i * n + k] * v[k * n + j]).sum();
                        assert!(
                            (sv - w[j] * v[i * n + j]).abs() <= tol * scale * n as f64,
                            "S v = w v"
                        );
                    }
                }
            }
        }
    }
}

/// u diag(s) vt = a, orthonormal factors, s descending and equal to `want`.
fn check_svd(target: &str, mode: char, seed: f64, m: usize, n: usize, want: &[f64]) {
    let k = m.min(n);
    let full = mode == 'A';
    let (uc, vr) = if full { (m, n) } else { (k, k) };
    let a = mat(seed, m, n);
    for (ty, tol) in [(ElementType::F64, 1e-12), (ElementType::F32, 1e-5)] {
        let (t, c) = if ty == ElementType::F32 {
            ("f32", "s")
        } else {
            ("f64", "d")
        };
        let out = call(
            &format!("lapack_{c}{target}_ffi"),
            &format!("{{mode = {} : ui8}}", mode as u32),
            ty,
            (&[m, n], &a),
            &format!(
                "({}, {}, {}, {}, s32[])",
                shape(t, &[m, n]),
                shape(t, &[k]),
                shape(t, &[m, uc]),
                shape(t, &[vr, n])
            ),
        );
        let (s, u, vt, info) = (vals(&out[1]), vals(&out[2]), vals(&out[3]), vals(&out[4]));
        assert_eq!(info, vec![0.0]);
        close(&s, want, tol * want[0], "singular values");
        assert!(s.windows(2).all(|p| p[0] >= p[1]), "descending");
        orthonormal_columns(&u, m, uc, tol * 10.0, "U");
        orthonormal_columns(&transpose(&vt, vr, n), n, vr, tol * 10.0, "V");
        for i in 0..m {
            for j in 0..n {
                let x: f64 = (0..k).map(|l| u[i * uc + l] * s[l] * vt[l * n + j]).sum();
                assert!((x - a[i * n + j]).abs() <= tol * 10.0, "U S Vᵀ");
            }
        }
    }
}

#[test]
fn svd_matches_numpy_and_reconstructs() {
    // numpy.linalg.svd(mat(s, m, n), compute_uv=False).
    let s7x4 = [
        3.492613526054214,
        1.8457401478405395,
        0.84254246083047,
        0.46722883173578456,
    ];
    let s3x5 = [2.9306497536948393, 1.0667320903148494, 0.5828546232943208];
    let s40x25 = [
        6.880427242119879,
        6.824025560987156,
        6.7270944253781195,
        6.529746304771596,
        6.168610429995923,
        5.954975305365143,
        5.748692801386822,
        5.310288473517568,
        4.952477124101847,
        4.897037779573922,
        4.791799759385509,
        4.715421034317224,
        4.2783364626826526,
        3.9250186201010817,
        3.8559027667261536,
        3.52807807884846,
        3.0144789168232684,
        2.2700997011786312,
        2.068902952221643,
        1.8029937741729338,
        1.2542710858406163,
        1.0235303431975054,
        0.31348940625900173,
        0.13748457212780602,
        0.08309430622991111,
    ];
    for target in ["gesdd", "gesvd"] {
        for mode in ['A', 'S'] {
            check_svd(target, mode, 3.0, 7, 4, &s7x4);
            check_svd(target, mode, 4.0, 3, 5, &s3x5);
        }
    }
    check_svd("gesdd", 'S', 5.0, 40, 25, &s40x25);
}

#[test]
fn svd_of_a_rank_deficient_matrix_completes_u() {
    // Rank 1 (every row a multiple of the first): U's extra columns complete
    // an orthonormal basis.
    let a: Vec<f64> = (0..12)
        .map(|k| ((k / 3) as f64 + 1.0) * [1.0, -2.0, 0.5][k % 3])
        .collect();
    let out = call(
        "lapack_dgesdd_ffi",
        "{mode = 65 : ui8}",
        ElementType::F64,
        (&[4, 3], &a),
        "(f64[4,3], f64[3], f64[4,4], f64[3,3], s32[])",
    );
    let (s, u) = (vals(&out[1]), vals(&out[2]));
    assert!(s[1].abs() < 1e-14 && s[2].abs() < 1e-14, "{s:?}");
    orthonormal_columns(&u, 4, 4, 1e-13, "U");
}

#[test]
fn nan_input_and_bad_configs() {
    let a = [1.0, f64::NAN, 2.0, 3.0];
    let svd = "(f64[2,2], f64[2], f64[2,2], f64[2,2], s32[])";
    let out = call(
        "lapack_dgesdd_ffi",
        "{mode = 65 : ui8}",
        ElementType::F64,
        (&[2, 2], &a),
        svd,
    );
    assert_eq!(vals(&out[4]), vec![-4.0]);
    assert!(vals(&out[1]).iter().all(|x| x.is_nan()));
    let out = call(
        "lapack_dgesvd_ffi",
        "{mode = 65 : ui8}",
        ElementType::F64,
        (&[2, 2], &a),
        svd,
    );
    assert_eq!(vals(&out[4]), vec![0.0]);
    let eig = "(f64[2,2], f64[2], s32[])";
    // The NaN is in the upper triangle: uplo=U reads it, uplo=L does not.
    let upper = "{mode = 86 : ui8, uplo = 85 : ui8}";
    let out = call(
        "lapack_dsyevd_ffi",
        upper,
        ElementType::F64,
        (&[2, 2], &a),
        eig,
    );
    assert_eq!(vals(&out[2]), vec![0.0]);
    assert!(vals(&out[1]).iter().all(|x| x.is_nan()));
    let out = call(
        "lapack_dgeev_ffi",
        "{compute_left = 78 : ui8, compute_right = 86 : ui8}",
        ElementType::F64,
        (&[2, 2], &a),
        "(f64[2], f64[2], c128[2,2], c128[2,2], s32[])",
    );
    assert_eq!(vals(&out[4]), vec![0.0]);
    assert!(vals(&out[0]).iter().all(|x| x.is_nan()));
    let lower = "{mode = 86 : ui8, uplo = 76 : ui8}";
    let out = call(
        "lapack_dsyevd_ffi",
        lower,
        ElementType::F64,
        (&[2, 2], &a),
        eig,
    );
    assert!(vals(&out[1]).iter().all(|x| x.is_finite()));
    let e = try_call(
        "lapack_dsyevd_ffi",
        "{uplo = 76 : ui8}",
        ElementType::F64,
        (&[2, 2], &a),
        eig,
    )
    .unwrap_err();
    assert!(e.contains("mode"), "{e}");
    let e = try_call(
        "lapack_dgesdd_ffi",
        "{mode = 88 : ui8}",
        ElementType::F64,
        (&[2, 2], &a),
        svd,
    )
    .unwrap_err();
    assert!(e.contains("mode"), "{e}");
}

#[test]
fn absurd_sizes_are_errors() {
    // A 1 x 5000 matrix: above the per-dimension limit, refused before any work.
    let a = vec![1.0; 5000];
    let e = try_call(
        "lapack_dgeqrf_ffi",
        "{}",
        ElementType::F64,
        (&[1, 5000], &a),
        "(f64[1,5000], f64[1])",
    )
    .unwrap_err();
    assert!(e.contains("limit"), "{e}");
}

#[test]
fn empty_matrices_and_batches() {
    let f64s = ElementType::F64;
    let out = call(
        "lapack_dgeqrf_ffi",
        "{}",
        f64s,
        (&[0, 3], &[]),
        "(f64[0,3], f64[0])",
    );
    assert!(vals(&out[1]).is_empty());
    let out = call(
        "lapack_dsyevd_ffi",
        "{mode = 86 : ui8, uplo = 76 : ui8}",
        f64s,
        (&[0, 2, 2], &[]),
        "(f64[0,2,2], f64[0,2], s32[0])",
    );
    assert!(vals(&out[2]).is_empty());
    let out = call(
        "lapack_dgesdd_ffi",
        "{mode = 65 : ui8}",
        f64s,
        (&[3, 0], &[]),
        "(f64[3,0], f64[0], f64[3,3], f64[0,0], s32[])",
    );
    // U of an empty matrix: the identity basis completion.
    orthonormal_columns(&vals(&out[2]), 3, 3, 1e-15, "U");
}

/// Runs geev on `mat(seed, n, n)`: sorted eigenvalues against numpy's,
/// residuals of the right and left vectors, unit norms with the largest
/// component real and positive.
fn check_geev(seed: f64, n: usize, want: &[(f64, f64)], tol: f64) {
    let a = mat(seed, n, n);
    let out = call(
        "lapack_dgeev_ffi",
        "{compute_left = 86 : ui8, compute_right = 86 : ui8}",
        ElementType::F64,
        (&[n, n], &a),
        &format!("(f64[{n}], f64[{n}], c128[{n},{n}], c128[{n},{n}], s32[])"),
    );
    let (wr, wi) = (vals(&out[0]), vals(&out[1]));
    let cvals = |l: &Literal| match &l.as_array().unwrap().data {
        ArrayData::C128(v) => v.clone(),
        other => panic!("c128 expected, got {other:?}"),
    };
    let (vl, vr) = (cvals(&out[2]), cvals(&out[3]));
    assert_eq!(vals(&out[4]), vec![0.0]);
    let w: Vec<Complex64> = wr
        .iter()
        .zip(&wi)
        .map(|(&r, &i)| Complex64::new(r, i))
        .collect();
    let mut sorted = w.clone();
    sorted.sort_by(|x, y| x.re.total_cmp(&y.re).then(x.im.total_cmp(&y.im)));
    for (x, (r, i)) in sorted.iter().zip(want) {
        assert!(
            (x - Complex64::new(*r, *i)).norm() <= tol,
            "{x} vs ({r}, {i})"
        );
    }
    for j in 0..n {
        let (mut nl, mut nr) = (0.0, 0.0);
        let (mut big, mut pivot) = (0.0, Complex64::new(0.0, 0.0));
        for i in 0..n {
            let av: Complex64 = (0..n).map(|k| vr[k * n + j] * a[i * n + k]).sum();
            assert!((av - w[j] * vr[i * n + j]).norm() <= tol, "A v = λ v");
            let ua: Complex64 = (0..n).map(|k| vl[k * n + j].conj() * a[k * n + i]).sum();
            assert!(
                (ua - w[j] * vl[i * n + j].conj()).norm() <= tol,
                "uᴴ A = λ uᴴ"
            );
            nl += vl[i * n + j].norm_sqr();
            nr += vr[i * n + j].norm_sqr();
            if vr[i * n + j].norm() > big {
                big = vr[i * n + j].norm();
                pivot = vr[i * n + j];
            }
        }
        assert!((nl - 1.0).abs() < 1e-13 && (nr - 1.0).abs() < 1e-13);
        assert!(pivot.im == 0.0 && pivot.re > 0.0, "{pivot}");
    }
}

#[test]
fn geev_matches_numpy_and_satisfies_its_equations() {
    // numpy.linalg.eigvals(mat(6, n, n)), sorted by (real, imaginary).
    let want8 = [
        (-0.6177490569577873, -0.34378745151304646),
        (-0.6177490569577873, 0.34378745151304646),
        (-0.5889239053366594, 0.0),
        (-0.040131639553419605, -0.22519903102717342),
        (-0.040131639553419605, 0.22519903102717342),
        (0.5129298823317765, 0.0),
        (2.1193503739481083, 0.0),
        (3.1321900023898817, 0.0),
    ];
    check_geev(6.0, 8, &want8, 1e-12);
    let want30 = [
        (-3.544015934326241, -0.6250092068794361),
        (-3.544015934326241, 0.6250092068794361),
        (-2.219193323149984, -2.13579775026888),
        (-2.219193323149984, 2.13579775026888),
        (-1.688434896870198, -0.4936268377492552),
        (-1.688434896870198, 0.4936268377492552),
        (-0.8173134313239563, -2.9088376948436507),
        (-0.8173134313239563, 2.9088376948436507),
        (-0.7886614153908882, -3.7457310946711395),
        (-0.7886614153908882, 3.7457310946711395),
        (-0.23090678976805287, 0.0),
        (-0.026787489622686345, -0.014678527530855924),
        (-0.026787489622686345, 0.014678527530855924),
        (-0.0008477259799818933, 0.0),
        (-9.709777797754729e-05, 0.0),
        (-2.6466597602819368e-06, 0.0),
        (0.00011587374493794588, 0.0),
        (0.0043860342937854435, 0.0),
        (0.08430272153985954, -1.0544793750523125),
        (0.08430272153985954, 1.0544793750523125),
        (0.13938047998207972, 0.0),
        (0.8123342760649248, -1.9368207064755176),
        (0.8123342760649248, 1.9368207064755176),
        (1.0406301898032082, -0.31818438689177325),
        (1.0406301898032082, 0.31818438689177325),
        (1.666568626685962, 0.0),
        (2.6768665046665845, -1.7960121177990673),
        (2.6768665046665845, 1.7960121177990673),
        (3.262580361753184, 0.0),
        (4.510862848180625, 0.0),
    ];
    check_geev(6.0, 30, &want30, 1e-10);
}

fn cmat(seed: f64, m: usize, n: usize) -> Vec<Complex64> {
    let (re, im) = (mat(seed, m, n), mat(seed + 0.5, m, n));
    re.iter()
        .zip(&im)
        .map(|(&r, &i)| Complex64::new(r, i))
        .collect()
}

fn clit(ty: ElementType, dims: &[usize], v: &[Complex64]) -> Literal {
    let shape = ArrayShape::new(ty, dims.iter().map(|&d| d as i64).collect::<Vec<_>>()).unwrap();
    let data = match ty {
        ElementType::C64 => ArrayData::C64(
            v.iter()
                .map(|c| rxla_ir::Complex32::new(c.re as f32, c.im as f32))
                .collect(),
        ),
        _ => ArrayData::C128(v.to_vec()),
    };
    Literal::Array(ArrayLiteral {
        shape,
        data,
        runtime_sizes: Vec::new(),
    })
}

fn cvals(l: &Literal) -> Vec<Complex64> {
    match &l.as_array().unwrap().data {
        ArrayData::C64(v) => v
            .iter()
            .map(|c| Complex64::new(c.re as f64, c.im as f64))
            .collect(),
        ArrayData::C128(v) => v.clone(),
        other => panic!("complex data expected, got {other:?}"),
    }
}

/// Runs one complex custom call on `args` (c64 or c128 per `ty`) and
/// returns its result leaves.
fn ccall(
    target: &str,
    config: &str,
    ty: ElementType,
    args: &[(&[usize], &[Complex64])],
    result: &str,
) -> Vec<Literal> {
    let t = if ty == ElementType::C64 {
        "c64"
    } else {
        "c128"
    };
    let params: String = args
        .iter()
        .enumerate()
        .map(|(k, a)| format!("  p{k} = {} parameter({k})\n", shape(t, a.0)))
        .collect();
    let names: Vec<String> = (0..args.len()).map(|k| format!("p{k}")).collect();
    let text = format!(
        "HloModule m\n\nENTRY main {{\n{params}  ROOT r = {result} custom-call({}), custom_call_target=\"{target}\", api_version=API_VERSION_TYPED_FFI, backend_config={config}\n}}\n",
        names.join(", ")
    );
    let m = parse_module(&text, "t.hlo").unwrap_or_else(|e| panic!("{e}"));
    let inputs: Vec<Literal> = args.iter().map(|a| clit(ty, a.0, a.1)).collect();
    match evaluate(&m, &inputs, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}")) {
        Literal::Tuple(t) => t,
        l => vec![l],
    }
}

/// Runs c/zgeev on `cmat(seed, n, n)`: sorted eigenvalues against numpy's,
/// residuals of the right and left vectors, unit norms with the largest
/// component real and positive.
fn check_cgeev(ty: ElementType, seed: f64, n: usize, want: &[(f64, f64)], tol: f64) {
    let a = cmat(seed, n, n);
    let (t, p) = if ty == ElementType::C64 {
        ("c64", "c")
    } else {
        ("c128", "z")
    };
    let out = ccall(
        &format!("lapack_{p}geev_ffi"),
        "{compute_left = 86 : ui8, compute_right = 86 : ui8}",
        ty,
        &[(&[n, n], &a)],
        &format!("({t}[{n}], {t}[{n},{n}], {t}[{n},{n}], s32[])"),
    );
    let (w, vl, vr) = (cvals(&out[0]), cvals(&out[1]), cvals(&out[2]));
    assert_eq!(vals(&out[3]), vec![0.0]);
    let mut sorted = w.clone();
    sorted.sort_by(|x, y| x.re.total_cmp(&y.re).then(x.im.total_cmp(&y.im)));
    for (x, (r, i)) in sorted.iter().zip(want) {
        assert!(
            (x - Complex64::new(*r, *i)).norm() <= tol,
            "{x} vs ({r}, {i})"
        );
    }
    for j in 0..n {
        let (mut nl, mut nr) = (0.0, 0.0);
        let (mut big, mut pivot) = (0.0, Complex64::new(0.0, 0.0));
        for i in 0..n {
            let av: Complex64 = (0..n).map(|k| a[i * n + k] * vr[k * n + j]).sum();
            assert!((av - w[j] * vr[i * n + j]).norm() <= tol, "A v = λ v");
            let ua: Complex64 = (0..n).map(|k| vl[k * n + j].conj() * a[k * n + i]).sum();
            assert!(
                (ua - w[j] * vl[i * n + j].conj()).norm() <= tol,
                "uᴴ A = λ uᴴ"
            );
            nl += vl[i * n + j].norm_sqr();
            nr += vr[i * n + j].norm_sqr();
            if vr[i * n + j].norm() > big {
                big = vr[i * n + j].norm();
                pivot = vr[i * n + j];
            }
        }
        assert!((nl - 1.0).abs() < tol && (nr - 1.0).abs() < tol);
        assert!(pivot.im == 0.0 && pivot.re > 0.0, "{pivot}");
    }
}

#[test]
fn complex_geev_matches_numpy_and_satisfies_its_equations() {
    // numpy.linalg.eigvals(mat(6, n, n) + 1j * mat(6.5, n, n)), sorted by
    // (real, imaginary).
    let want8 = [
        (-0.9268489981033736, -0.575026756879029),
        (-0.5229971040031633, -0.33395370478697944),
        (-0.3605813104319497, -1.2009660187757802),
        (-0.2288154449332786, 0.23086439461790753),
        (0.15007573731505916, -0.22545640389999735),
        (0.5150363898115744, 0.49091360417930585),
        (2.096343082397365, 1.8925142965817414),
        (3.1375726082584583, 2.9944603942704298),
    ];
    check_cgeev(ElementType::C128, 6.0, 8, &want8, 1e-12);
    check_cgeev(ElementType::C64, 6.0, 8, &want8, 1e-5);
    let want30 = [
        (-4.290547935299553, 2.308340518913788),
        (-4.283169140048216, -0.6193722839367226),
        (-4.268798045499826, -2.8142667179262),
        (-4.223189471980527, 3.419840022223573),
        (-2.8484761714535347, -4.095626438823827),
        (-2.2133184549596567, -0.6730459542774013),
        (-1.9522257212835155, 0.816996493798785),
        (-1.270274774434777, -2.6561163730296093),
        (-0.3847133549728825, -0.36984285582711274),
        (-0.30870916010310734, -4.861681590325099),
        (-0.1630800468502932, 3.001201221154682),
        (-0.0785698695600587, 0.12552304103353),
        (-0.02387471910857041, -0.03406617415430759),
        (-4.309249843834545e-05, -1.6958223012804806e-05),
        (-1.9255120185412937e-06, 2.8637970839052526e-06),
        (0.00020335338266085336, 0.00014133139457589016),
        (0.0023371773816902135, 0.0009253580398400037),
        (0.008900060846127775, 0.006395819845864545),
        (0.12017665832667662, 0.05167008888187824),
        (0.9656377799096283, 1.905720369226461),
        (0.988989406521264, 4.351726235921683),
        (1.210235933995705, 0.910389314688949),
        (1.452430921800358, 1.516606112082417),
        (1.6383322972932497, -1.6074226921238932),
        (1.8643374367318, -0.45114821281144446),
        (2.377863808664806, -4.65345396085016),
        (3.490132568969907, -3.427011732939974),
        (3.574036064820161, 1.856391085752583),
        (4.4073663785415755, 0.7522613683557745),
        (4.619506403615343, 4.983201081455322),
    ];
    check_cgeev(ElementType::C128, 6.0, 30, &want30, 1e-10);
}

#[test]
fn complex_getrf_det_matches_numpy_and_lu_is_pa() {
    let n = 6;
    let a = cmat(3.0, n, n);
    let out = ccall(
        "lapack_zgetrf_ffi",
        "{}",
        ElementType::C128,
        &[(&[n, n], &a)],
        &format!("(c128[{n},{n}], s32[{n}], s32[])"),
    );
    let (lu, ipiv) = (cvals(&out[0]), vals(&out[1]));
    assert_eq!(vals(&out[2]), vec![0.0]);
    // numpy.linalg.det(mat(3, 6, 6) + 1j * mat(3.5, 6, 6)).
    let want = Complex64::new(-0.1462843404384553, 0.37900339153110524);
    let mut det = Complex64::new(1.0, 0.0);
    for i in 0..n {
        det *= lu[i * n + i];
        if ipiv[i] != (i + 1) as f64 {
            det = -det;
        }
    }
    assert!((det - want).norm() <= 1e-13, "det {det} vs {want}");
    // P A = L U, with P from the row swaps in order.
    let mut pa = a.clone();
    for (i, &p) in ipiv.iter().enumerate() {
        let p = p as usize - 1;
        for c in 0..n {
            pa.swap(i * n + c, p * n + c);
        }
    }
    for i in 0..n {
        for j in 0..n {
            let x: Complex64 = (0..=i.min(j))
                .map(|k| {
                    let l = if k == i {
                        Complex64::new(1.0, 0.0)
                    } else {
                        lu[i * n + k]
                    };
                    l * lu[k * n + j]
                })
                .sum();
            assert!((x - pa[i * n + j]).norm() <= 1e-13, "LU[{i}][{j}]");
        }
    }
    // The pivot is the largest |re| + |im| of its column (izamax).
    let l_ok = (0..n).all(|j| (j + 1..n).all(|i| lu[i * n + j].l1_norm() <= 1.0 + 1e-15));
    assert!(l_ok, "|l| <= 1 in the 1-norm");
}

#[test]
fn complex_potrf_matches_numpy_and_trsm_solves_with_it() {
    let n = 5;
    let g = cmat(2.0, n, n);
    // h = g gᴴ + I (Hermitian positive definite).
    let mut h = vec![Complex64::new(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..n {
            h[i * n + j] = (0..n).map(|k| g[i * n + k] * g[j * n + k].conj()).sum();
        }
        h[i * n + i] += 1.0;
    }
    // numpy.linalg.cholesky(h)'s (real) diagonal.
    let want = [
        3.0483249122377143,
        2.320819221029743,
        1.5581247909151186,
        1.4172083688562582,
        1.622746473639101,
    ];
    for (uplo, lower) in [(76, true), (85, false)] {
        let out = ccall(
            "lapack_zpotrf_ffi",
            &format!("{{uplo = {uplo} : ui8}}"),
            ElementType::C128,
            &[(&[n, n], &h)],
            &format!("(c128[{n},{n}], s32[])"),
        );
        let f = cvals(&out[0]);
        assert_eq!(vals(&out[1]), vec![0.0]);
        // L (lower) from the factor triangle; the other triangle is h's.
        let l = |i: usize, j: usize| {
            if j > i {
                Complex64::new(0.0, 0.0)
            } else if lower {
                f[i * n + j]
            } else {
                f[j * n + i].conj()
            }
        };
        for i in 0..n {
            assert!((l(i, i) - Complex64::new(want[i], 0.0)).norm() <= 1e-13);
            for j in 0..n {
                let x: Complex64 = (0..n).map(|k| l(i, k) * l(j, k).conj()).sum();
                assert!((x - h[i * n + j]).norm() <= 1e-12, "L Lᴴ[{i}][{j}]");
                let untouched = if lower { j > i } else { j < i };
                if untouched {
                    assert_eq!(f[i * n + j], h[i * n + j]);
                }
            }
        }
        if !lower {
            continue;
        }
        // h x = b: L y = b, then Lᴴ x = y (trans_x 'C').
        let b = cmat(9.0, n, 2);
        let trsm = |trans: u8, rhs: &[Complex64]| {
            cvals(
                &ccall(
                    "lapack_ztrsm_ffi",
                    &format!(
                        "{{diag = 78 : ui8, side = 76 : ui8, trans_x = {trans} : ui8, uplo = 76 : ui8}}"
                    ),
                    ElementType::C128,
                    &[(&[n, n], &f), (&[n, 2], rhs)],
                    &format!("c128[{n},2]"),
                )[0],
            )
        };
        let x = trsm(67, &trsm(78, &b));
        for i in 0..n {
            for c in 0..2 {
                let hx: Complex64 = (0..n).map(|k| h[i * n + k] * x[k * 2 + c]).sum();
                assert!((hx - b[i * 2 + c]).norm() <= 1e-12, "h x = b [{i}][{c}]");
            }
        }
    }
}
