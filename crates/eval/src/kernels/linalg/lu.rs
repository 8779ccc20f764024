//! LU with partial pivoting (LAPACK getf2's conventions), behind the
//! getrf custom call; real and complex.

use super::Scalar;

/// LU with partial pivoting of one `m×n` row-major matrix in place
/// (LAPACK's unblocked getf2: the pivot is the first largest `|a[i][j]|`
/// — `|re| + |im|` for complex, as izamax — whole rows swapped, the column
/// divided by the pivot, the trailing block updated). Returns the 1-based
/// pivot rows and info (1-based column of the first exact zero pivot, 0 if
/// none).
pub(super) fn lu<T: Scalar>(a: &mut [T], m: usize, n: usize) -> (Vec<i32>, i32) {
    let k = m.min(n);
    let mut ipiv = Vec::with_capacity(k);
    let mut info = 0;
    for j in 0..k {
        // i?amax: the first index of the largest magnitude (NaN never wins
        // after the first).
        let mut p = j;
        let mut best = a[j * n + j].abs1();
        for i in j + 1..m {
            let v = a[i * n + j].abs1();
            if v > best {
                best = v;
                p = i;
            }
        }
        ipiv.push((p + 1) as i32);
        if a[p * n + j] != T::ZERO {
            if p != j {
                for c in 0..n {
                    a.swap(j * n + c, p * n + c);
                }
            }
            let d = a[j * n + j];
            for i in j + 1..m {
                a[i * n + j] = a[i * n + j].quot(d);
            }
        } else if info == 0 {
            info = (j + 1) as i32;
        }
        for i in j + 1..m {
            let l = a[i * n + j];
            for c in j + 1..n {
                let u = a[j * n + c];
                a[i * n + c] -= l * u;
            }
        }
    }
    (ipiv, info)
}
