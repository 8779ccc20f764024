//! `all-reduce` across replicas (`Executable::run_replicated`): each
//! replica thread deposits its operand leaves for the k-th collective it
//! reaches in the evaluator's rendezvous (`rxla_eval::collectives`), waits
//! for its replica group, and folds the contributions in group order
//! (`acc = f(acc, next)`, element by element in row-major order) with the
//! reducer compiled as a rank-0 kernel — the evaluator's order, so results
//! are bit-identical to `rxla_eval::evaluate_replicated`. A single-replica
//! run never gets here (the value is its own all-reduce).

use crate::codegen::KernelFn;
use crate::error::{JitError, Result};
use rxla_eval::collectives::Collectives;
use rxla_ir::{ArrayData, ArrayLiteral, ArrayShape, Literal};
use std::sync::Mutex;

/// A planned all-reduce: result leaf shapes, the reducer kernel of each
/// leaf (`None` when it did not compile: replicated runs then fail), the
/// replica groups, the instruction's name and its rendezvous site
/// (`rxla_eval::collectives::all_reduce_site`: every replica of a group
/// must meet at the same one).
pub struct AllReduceStep {
    pub leaves: Vec<ArrayShape>,
    pub reducers: Vec<Option<usize>>,
    pub groups: Vec<Vec<i64>>,
    pub name: String,
    pub site: String,
}

/// The replica a run executes as.
pub struct ReplicaRun<'a> {
    pub id: usize,
    pub collectives: &'a Collectives,
    /// Collectives this replica has reached so far.
    pub seq: Mutex<u64>,
}

/// The members of `id`'s replica group (all replicas when none is given).
fn group(step: &AllReduceStep, id: usize, n: usize) -> Result<Vec<usize>> {
    if step.groups.iter().all(|g| g.is_empty()) {
        return Ok((0..n).collect());
    }
    step.groups
        .iter()
        .find(|g| g.contains(&(id as i64)))
        .map(|g| g.iter().map(|&r| r.max(0) as usize).collect())
        .ok_or_else(|| {
            JitError::input(format!(
                "{}: replica {id} is in no replica group",
                step.name
            ))
        })
}

/// Runs one replica's all-reduce: `ins` its operand leaves, `outs` the
/// reduced leaves.
pub fn all_reduce(
    step: &AllReduceStep,
    replica: &ReplicaRun,
    fns: &[KernelFn],
    ins: &[&[u8]],
    outs: &mut [&mut [u8]],
) -> Result<()> {
    let n = step.leaves.len();
    if ins.len() != n || outs.len() != n {
        return Err(JitError::input("all-reduce: leaf count"));
    }
    let mut mine = Vec::with_capacity(n);
    for (b, s) in ins.iter().zip(&step.leaves) {
        mine.push(Literal::Array(ArrayLiteral::from_physical_bytes(
            s.clone(),
            b,
        )?));
    }
    let members = group(step, replica.id, replica.collectives.replica_count())?;
    let seq = {
        let mut s = replica.seq.lock().unwrap_or_else(|e| e.into_inner());
        *s += 1;
        *s - 1
    };
    let parts = replica.collectives.exchange(
        replica.id,
        seq,
        Literal::Tuple(mine),
        &members,
        &step.site,
    )?;
    for (k, (shape, out)) in step.leaves.iter().zip(outs.iter_mut()).enumerate() {
        let leaf = |p: &Literal| -> Result<Vec<u8>> {
            match p {
                Literal::Tuple(t) => match t.get(k) {
                    Some(Literal::Array(a)) => Ok(a.data.to_le_bytes()),
                    _ => Err(JitError::input("all-reduce contributions differ in shape")),
                },
                _ => Err(JitError::input("all-reduce contribution")),
            }
        };
        let mut acc = leaf(&parts[0])?;
        if parts.len() > 1 {
            let f = step
                .reducers
                .get(k)
                .copied()
                .flatten()
                .and_then(|i| fns.get(i).copied())
                .ok_or_else(|| {
                    JitError::unsupported(format!(
                        "{}: the reducer does not compile as a scalar kernel",
                        step.name
                    ))
                })?;
            let e = shape.element_type.byte_size().max(1);
            let mut r = vec![0u8; e.max(8)];
            for p in &parts[1..] {
                let next = leaf(p)?;
                if next.len() != acc.len() {
                    return Err(JitError::input("all-reduce contributions differ in size"));
                }
                for (a, b) in acc.chunks_exact_mut(e).zip(next.chunks_exact(e)) {
                    let ins = [a.as_ptr(), b.as_ptr()];
                    let os = [r.as_mut_ptr()];
                    // SAFETY: a rank-0 kernel reading one element behind
                    // each input pointer and writing one into `r`.
                    unsafe { f(ins.as_ptr(), os.as_ptr(), 0, 1) };
                    a.copy_from_slice(&r[..e]);
                }
            }
        }
        let data = ArrayData::from_le_bytes(shape.element_type, &acc)?;
        let lit = ArrayLiteral::new(shape.clone(), data)?;
        let bytes = lit.to_physical_bytes()?;
        if bytes.len() != out.len() {
            return Err(JitError::input("all-reduce: result buffer size"));
        }
        out.copy_from_slice(&bytes);
    }
    Ok(())
}
