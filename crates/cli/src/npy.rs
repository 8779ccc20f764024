//! NumPy `.npy` files and `.npz` archives ↔ literals for `rxla run --arg
//! X.npy`, `--out-npy DIR`, `--args-npz F` and `--out-npz F`, via the npyz
//! crate (arrays) and the zip crate (archives: stored, as `np.savez`
//! writes them, or deflated, as `np.savez_compressed` does). C and Fortran
//! order are read; arrays are written in C order, archives uncompressed.
//! bf16 has no NumPy dtype and is an error. Nothing here knows about
//! modules: matching arrays to parameters is `run.rs`'s job. c64/c128
//! are numpy's complex64/complex128.

use half::f16;
use npyz::{DType, NpyFile, Order, WriteOptions, WriterBuilder};
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, ElementType, Layout, Literal};
use std::path::Path;

fn element_type(dtype: &DType) -> Result<ElementType, String> {
    let DType::Plain(ts) = dtype else {
        return Err(format!("unsupported dtype {}", dtype.descr()));
    };
    use npyz::TypeChar::*;
    let t = match (ts.type_char(), ts.size_field()) {
        (Bool, 1) => ElementType::Pred,
        (Int, 1) => ElementType::S8,
        (Int, 2) => ElementType::S16,
        (Int, 4) => ElementType::S32,
        (Int, 8) => ElementType::S64,
        (Uint, 1) => ElementType::U8,
        (Uint, 2) => ElementType::U16,
        (Uint, 4) => ElementType::U32,
        (Uint, 8) => ElementType::U64,
        (Float, 2) => ElementType::F16,
        (Float, 4) => ElementType::F32,
        (Float, 8) => ElementType::F64,
        (Complex, 8) => ElementType::C64,
        (Complex, 16) => ElementType::C128,
        _ => return Err(format!("unsupported dtype {}", dtype.descr())),
    };
    Ok(t)
}

/// Reads a `.npy` file into an array literal (default layout).
pub fn read_npy(path: &Path) -> Result<Literal, String> {
    let bytes = crate::input::read_file_limited(path)?;
    npy_literal(&path.display().to_string(), &bytes)
}

/// Decodes the bytes of a `.npy` array; `name` prefixes errors.
fn npy_literal(name: &str, bytes: &[u8]) -> Result<Literal, String> {
    let file = NpyFile::new(bytes).map_err(|e| {
        format!(
            "{name}: not a .npy file: {}",
            crate::clip(&e.to_string(), 200)
        )
    })?;
    let ty = element_type(&file.dtype()).map_err(|e| format!("{name}: {e}"))?;
    let dims: Vec<i64> = file
        .shape()
        .iter()
        .map(|&d| i64::try_from(d).map_err(|_| format!("{name}: dimension {d} too large")))
        .collect::<Result<_, _>>()?;
    let order = file.order();
    let io = |e: std::io::Error| format!("{name}: {e}");
    let data = match ty {
        ElementType::Pred => ArrayData::Pred(file.into_vec::<bool>().map_err(io)?),
        ElementType::S8 => ArrayData::S8(file.into_vec::<i8>().map_err(io)?),
        ElementType::S16 => ArrayData::S16(file.into_vec::<i16>().map_err(io)?),
        ElementType::S32 => ArrayData::S32(file.into_vec::<i32>().map_err(io)?),
        ElementType::S64 => ArrayData::S64(file.into_vec::<i64>().map_err(io)?),
        ElementType::U8 => ArrayData::U8(file.into_vec::<u8>().map_err(io)?),
        ElementType::U16 => ArrayData::U16(file.into_vec::<u16>().map_err(io)?),
        ElementType::U32 => ArrayData::U32(file.into_vec::<u32>().map_err(io)?),
        ElementType::U64 => ArrayData::U64(file.into_vec::<u64>().map_err(io)?),
        ElementType::F16 => ArrayData::F16(file.into_vec::<f16>().map_err(io)?),
        ElementType::F32 => ArrayData::F32(file.into_vec::<f32>().map_err(io)?),
        ElementType::F64 => ArrayData::F64(file.into_vec::<f64>().map_err(io)?),
        ElementType::C64 => ArrayData::C64(file.into_vec::<rxla_ir::Complex32>().map_err(io)?),
        ElementType::C128 => ArrayData::C128(file.into_vec::<rxla_ir::Complex64>().map_err(io)?),
        ElementType::BF16 | ElementType::Token | rxla_ir::narrow_types!() => {
            unreachable!("not produced by element_type")
        }
    };
    let shape = ArrayShape::new(ty, dims).map_err(|e| format!("{name}: {e}"))?;
    let lit = if order == Order::Fortran && shape.rank() > 1 {
        // The file holds the column-major physical buffer.
        let cm =
            ArrayShape::with_layout(ty, shape.dims.clone(), Layout::column_major(shape.rank()))
                .map_err(|e| format!("{name}: {e}"))?;
        let a = ArrayLiteral::from_physical_bytes(cm, &data.to_le_bytes())
            .map_err(|e| format!("{name}: {e}"))?;
        a.relayout(shape.layout.clone())
            .map_err(|e| format!("{name}: {e}"))?
    } else {
        ArrayLiteral::new(shape, data).map_err(|e| format!("{name}: {e}"))?
    };
    Ok(Literal::Array(lit))
}

/// Encodes `v` as a C-order `.npy` array.
fn encode_vec<T: npyz::AutoSerialize + Copy>(dims: &[u64], v: &[T]) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut w = WriteOptions::new()
        .default_dtype()
        .shape(dims)
        .writer(std::io::Cursor::new(&mut bytes))
        .begin_nd()?;
    w.extend(v.iter().copied())?;
    w.finish()?;
    Ok(bytes)
}

/// The `.npy` bytes of an array literal (C order); `name` prefixes errors.
fn encode_npy(name: &str, lit: &ArrayLiteral) -> Result<Vec<u8>, String> {
    let dims: Vec<u64> = lit.shape.dims.iter().map(|&d| d as u64).collect();
    let r = match &lit.data {
        ArrayData::Pred(v) => encode_vec(&dims, v),
        ArrayData::S8(v) => encode_vec(&dims, v),
        ArrayData::S16(v) => encode_vec(&dims, v),
        ArrayData::S32(v) => encode_vec(&dims, v),
        ArrayData::S64(v) => encode_vec(&dims, v),
        ArrayData::U8(v) => encode_vec(&dims, v),
        ArrayData::U16(v) => encode_vec(&dims, v),
        ArrayData::U32(v) => encode_vec(&dims, v),
        ArrayData::U64(v) => encode_vec(&dims, v),
        ArrayData::F16(v) => encode_vec(&dims, v),
        ArrayData::F32(v) => encode_vec(&dims, v),
        ArrayData::F64(v) => encode_vec(&dims, v),
        ArrayData::C64(v) => encode_vec(&dims, v),
        ArrayData::C128(v) => encode_vec(&dims, v),
        ArrayData::BF16(_) => {
            return Err(format!(
                "{name}: bf16 has no NumPy dtype; use --output json"
            ));
        }
        ArrayData::Narrow(t, _) => {
            return Err(format!("{name}: {t} has no NumPy dtype; use --output json"));
        }
        ArrayData::Token(_) => {
            return Err(format!("{name}: a token has no data to write"));
        }
    };
    r.map_err(|e| format!("{name}: cannot encode: {e}"))
}

/// Writes `bytes` to `path`; a failed write (a full disk) removes the
/// partial file instead of leaving a truncated one.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let r = std::fs::File::create(path).and_then(|mut f| {
        use std::io::Write;
        f.write_all(bytes)?;
        f.sync_all()
    });
    if r.is_err() {
        let _ = std::fs::remove_file(path);
    }
    r.map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

/// Writes an array literal as a C-order `.npy` file.
pub fn write_npy(path: &Path, lit: &ArrayLiteral) -> Result<(), String> {
    let bytes = encode_npy(&path.display().to_string(), lit)?;
    write_file(path, &bytes)
}

/// Reads every array of a `.npz` archive, in archive order, with its name
/// (the member name without `.npy`, as `np.load` names them). Members
/// that are not `.npy` files are an error; each member's uncompressed
/// size counts against `--max-input`.
pub fn read_npz(path: &Path) -> Result<Vec<(String, Literal)>, String> {
    use std::io::Read;
    let name = path.display().to_string();
    let bytes = crate::input::read_file_limited(path)?;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| {
        format!(
            "{name}: not a .npz archive (a ZIP file of .npy arrays): {}",
            crate::clip(&e.to_string(), 200)
        )
    })?;
    let limit = crate::input::max_input();
    let mut out = Vec::with_capacity(zip.len().min(1024));
    for i in 0..zip.len() {
        let mut member = zip
            .by_index(i)
            .map_err(|e| format!("{name}: member {i}: {}", crate::clip(&e.to_string(), 200)))?;
        let member_name = member
            .name()
            .map_err(|e| format!("{name}: member {i}: {e}"))?
            .into_owned();
        let Some(array) = member_name.strip_suffix(".npy") else {
            return Err(format!(
                "{name}: member `{}` is not a .npy array",
                crate::clip(&member_name, 100)
            ));
        };
        let array = array.to_string();
        let mut data = Vec::new();
        (&mut member)
            .take(limit.saturating_add(1))
            .read_to_end(&mut data)
            .map_err(|e| format!("{name}: array `{array}`: cannot read: {e}"))?;
        if data.len() as u64 > limit {
            return Err(format!(
                "{name}: array `{array}` is larger than --max-input ({limit} bytes)"
            ));
        }
        let lit = npy_literal(&format!("{name}: array `{array}`"), &data)?;
        out.push((array, lit));
    }
    Ok(out)
}

/// Writes arrays as an uncompressed `.npz` archive (`np.load` reads it):
/// `arrays` are (name, value) pairs, each stored as `name.npy`.
pub fn write_npz(path: &Path, arrays: &[(String, &ArrayLiteral)]) -> Result<(), String> {
    use std::io::Write;
    let name = path.display().to_string();
    let zip_err = |e: zip::result::ZipError| format!("{name}: cannot write: {e}");
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (array, lit) in arrays {
        let bytes = encode_npy(&format!("{name}: array `{array}`"), lit)?;
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        zip.start_file(format!("{array}.npy"), opts)
            .map_err(zip_err)?;
        zip.write_all(&bytes)
            .map_err(|e| format!("{name}: cannot write: {e}"))?;
    }
    let bytes = zip.finish().map_err(zip_err)?.into_inner();
    write_file(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_f32_and_pred() {
        let dir = std::env::temp_dir().join(format!("rxla-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let m = Literal::mat(&[&[1.5f32, -2.0, 3.0], &[4.0, 5.0, f32::INFINITY]]).unwrap();
        let p = dir.join("m.npy");
        write_npy(&p, m.as_array().unwrap()).unwrap();
        assert_eq!(read_npy(&p).unwrap(), m);
        let b = Literal::vec1(vec![true, false, true]);
        let p = dir.join("b.npy");
        write_npy(&p, b.as_array().unwrap()).unwrap();
        assert_eq!(read_npy(&p).unwrap(), b);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn npz_round_trip() {
        let dir = std::env::temp_dir().join(format!("rxla-npz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let m = Literal::mat(&[&[1.5f32, -2.0], &[4.0, 5.0]]).unwrap();
        let i = Literal::vec1(vec![7i64, -3]);
        let p = dir.join("a.npz");
        write_npz(
            &p,
            &[
                ("arr_0".to_string(), m.as_array().unwrap()),
                ("arr_1".to_string(), i.as_array().unwrap()),
            ],
        )
        .unwrap();
        let back = read_npz(&p).unwrap();
        assert_eq!(
            back,
            vec![("arr_0".to_string(), m), ("arr_1".to_string(), i)]
        );
        // Damaged archives are errors, never panics: every truncation and
        // every single flipped byte of a numpy-written archive.
        let good = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/npz/named.npz"
        ))
        .unwrap();
        let q = dir.join("damaged.npz");
        for n in 0..good.len() {
            std::fs::write(&q, &good[..n]).unwrap();
            assert!(read_npz(&q).is_err(), "truncated to {n} bytes");
            let mut flipped = good.clone();
            flipped[n] ^= 0x5a;
            std::fs::write(&q, &flipped).unwrap();
            let _ = read_npz(&q);
        }
        std::fs::write(dir.join("bad.npz"), b"not a zip").unwrap();
        let e = read_npz(&dir.join("bad.npz")).unwrap_err();
        assert!(e.contains("not a .npz archive"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn round_trip_complex() {
        let dir = std::env::temp_dir().join(format!("rxla-npy-c-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let c = Literal::vec1(vec![
            rxla_ir::Complex32::new(1.0, -2.0),
            rxla_ir::Complex32::new(f32::NAN, 0.5),
        ]);
        let p = dir.join("c.npy");
        write_npy(&p, c.as_array().unwrap()).unwrap();
        let back = read_npy(&p).unwrap();
        assert_eq!(back.shape(), c.shape());
        assert_eq!(back.to_text(), "{(1, -2), (nan, 0.5)}");
        let z = Literal::scalar(rxla_ir::Complex64::new(0.25, 3.0));
        let p = dir.join("z.npy");
        write_npy(&p, z.as_array().unwrap()).unwrap();
        assert_eq!(read_npy(&p).unwrap(), z);
        std::fs::remove_dir_all(&dir).ok();
    }
}
