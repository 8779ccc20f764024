//! Entry points: argument checking and relayout, the custom-call
//! pre-check, single and replicated evaluation, and the result layout.
//! The interpretation itself is in `evaluator`.

use crate::collectives::Collectives;
use crate::error::{EvalError, Result};
use crate::evaluator::{Evaluator, ReplicaCtx};
use crate::options::RunOptions;
use rxla_ir::{CompId, DeviceGrid, Literal, Module, Op, Shape};

/// Fails when a custom-call target of any computation is not registered.
pub fn check_custom_calls(module: &Module, opts: &RunOptions) -> Result<()> {
    for comp in &module.computations {
        for instr in &comp.instructions {
            if let Op::CustomCall { target, .. } = &instr.op
                && !opts.custom_calls.contains(target)
                && !crate::evaluator::is_builtin_custom_call(target)
                && !crate::kernels::linalg::is_lapack_target(target)
            {
                return Err(EvalError::new(format!(
                    "unknown custom-call target '{target}' in instruction {}",
                    instr.name
                )));
            }
        }
    }
    Ok(())
}

/// Checks the arguments against the ENTRY parameters (count, types and
/// dims) and gives each the parameter's layout. An argument of a parameter
/// with bounded dynamic dims is stored at its bounds (at most
/// `RunOptions::default().max_elements` elements; see [`check_args_with`]).
pub fn check_args(module: &Module, args: &[Literal]) -> Result<Vec<Literal>> {
    check_args_with(module, args, crate::RunOptions::default().max_elements)
}

/// [`check_args`] with the element limit of padding dynamic arguments to
/// their bounds.
pub fn check_args_with(
    module: &Module,
    args: &[Literal],
    max_elements: usize,
) -> Result<Vec<Literal>> {
    let entry = module
        .computations
        .get(module.entry.index())
        .ok_or_else(|| EvalError::new("the module has no ENTRY computation"))?;
    let params = entry.parameters();
    if args.len() != params.len() {
        return Err(EvalError::new(format!(
            "{} expects {} argument(s), got {}",
            entry.name,
            params.len(),
            args.len()
        )));
    }
    let layout = module.entry_layout.as_ref();
    params
        .iter()
        .zip(args)
        .enumerate()
        .map(|(i, (&pid, arg))| {
            let p = entry.get(pid);
            let number = match p.op {
                Op::Parameter { number } => number,
                _ => i as i64,
            };
            let want: &Shape = layout
                .and_then(|l| l.parameters.get(i))
                .filter(|s| s.compatible(&p.shape))
                .unwrap_or(&p.shape);
            if want.is_dynamic() {
                let n = want
                    .leaves()
                    .iter()
                    .map(|a| a.element_count().unwrap_or(usize::MAX))
                    .max()
                    .unwrap_or(0);
                if n > max_elements {
                    return Err(EvalError::new(format!(
                        "parameter {number} ('{}'): its bound {} has {n} elements, more than max_elements ({max_elements})",
                        p.name,
                        want.to_string_no_layout()
                    )));
                }
                if let Some(a) = crate::dynamic::argument(arg, want)? {
                    return Ok(a);
                }
            }
            if !arg.shape().compatible(want) {
                return Err(EvalError::new(format!(
                    "argument for parameter {number} ('{}') has shape {}, expected {}",
                    p.name,
                    arg.shape().to_string_no_layout(),
                    want.to_string_no_layout()
                )));
            }
            Ok(arg.relayout_to(want)?)
        })
        .collect()
}

fn result_shape(module: &Module) -> Shape {
    if let Some(l) = &module.entry_layout {
        return l.result.clone();
    }
    let e = module.entry_computation();
    e.instructions
        .get(e.root.index())
        .map(|i| i.shape.clone())
        .unwrap_or(Shape::Tuple(vec![]))
}

/// The ENTRY result in the declared layouts, dynamic leaves sliced to
/// their runtime sizes.
fn finish(module: &Module, r: Literal) -> Result<Literal> {
    let want = result_shape(module);
    let r = if r.shape().compatible(&want) {
        r.relayout_to(&want)?
    } else {
        r
    };
    crate::dynamic::result(r)
}

/// Evaluates the module's ENTRY computation on `args` (one replica).
pub fn evaluate(module: &Module, args: &[Literal], opts: &RunOptions) -> Result<Literal> {
    let replicas = opts
        .replica_count
        .unwrap_or(module.replica_count().max(1) as usize);
    if replicas > 1 {
        return Err(EvalError::new(format!(
            "the module runs on {replicas} replicas: use evaluate_replicated"
        )));
    }
    let partitions = opts
        .partition_count
        .unwrap_or(module.num_partitions().max(1) as usize);
    if partitions > 1 {
        return Err(EvalError::new(format!(
            "the module runs on {partitions} partitions: use evaluate_replicated"
        )));
    }
    check_custom_calls(module, opts)?;
    crate::collectives::check_module(module, rxla_ir::DeviceGrid::single())?;
    let depth = crate::limits::check_depth(module)?;
    let args = check_args_with(module, args, opts.max_elements)?;
    let refs: Vec<&Literal> = args.iter().collect();
    let r = crate::limits::with_stack(
        depth,
        |e| Err(EvalError::new(e)),
        || Evaluator::new(module, opts, None).eval_comp(module.entry, &refs),
    )?;
    finish(module, r)
}

/// Evaluates one computation of the module on `args` with default options
/// (used for sub-computations and tests).
pub fn evaluate_computation(module: &Module, comp: CompId, args: &[Literal]) -> Result<Literal> {
    let c = module
        .computations
        .get(comp.index())
        .ok_or_else(|| EvalError::new(format!("computation {comp} does not exist")))?;
    let n = c.parameters().len();
    if args.len() != n {
        return Err(EvalError::new(format!(
            "{} expects {n} argument(s), got {}",
            c.name,
            args.len()
        )));
    }
    let opts = RunOptions::default();
    let depth = crate::limits::check_depth(module)?;
    let refs: Vec<&Literal> = args.iter().collect();
    crate::limits::with_stack(
        depth,
        |e| Err(EvalError::new(e)),
        || Evaluator::new(module, &opts, None).eval_comp(comp, &refs),
    )
}

struct FinishGuard<'c>(&'c Collectives, usize);

impl Drop for FinishGuard<'_> {
    fn drop(&mut self) {
        self.0.finish(self.1);
    }
}

/// The device grid of a multi-device run over `lists` argument lists:
/// partitions from `opts`, else the module's `num_partitions`, else 1;
/// replicas from `opts`, else the lists per partition. The module's
/// declared `replica_count` / `num_partitions` must agree.
pub fn device_grid(module: &Module, lists: usize, opts: &RunOptions) -> Result<DeviceGrid> {
    let p = opts
        .partition_count
        .unwrap_or(module.num_partitions().max(1) as usize);
    if p == 0 {
        return Err(EvalError::new("the partition count must be at least 1"));
    }
    let r = opts.replica_count.unwrap_or(lists / p);
    if r == 0 || r.checked_mul(p) != Some(lists) {
        return Err(EvalError::new(format!(
            "{r} replica(s) × {p} partition(s) but {lists} argument list(s) (one per device)"
        )));
    }
    if module.attr("replica_count").is_some() && module.replica_count() != r as i64 {
        return Err(EvalError::new(format!(
            "the module declares replica_count={} but {r} replicas were requested",
            module.replica_count()
        )));
    }
    if module.attr("num_partitions").is_some() && module.num_partitions() != p as i64 {
        return Err(EvalError::new(format!(
            "the module declares num_partitions={} but {p} partitions were requested",
            module.num_partitions()
        )));
    }
    Ok(DeviceGrid {
        replicas: r,
        partitions: p,
    })
}

/// How device `id` is named in errors: `replica r` with one partition,
/// else `device d (replica r, partition p)`.
pub fn device_label(grid: DeviceGrid, id: usize) -> String {
    if grid.partitions == 1 {
        format!("replica {id}")
    } else {
        let (r, p) = grid.coords(id);
        format!("device {id} (replica {r}, partition {p})")
    }
}

/// Evaluates every device of a replicas × partitions grid (one thread
/// each, all running the same module; every collective is a rendezvous
/// of its group, see `collectives`). `args_per_device[d]` are device
/// `d = replica · partitions + partition`'s arguments; the grid comes
/// from [`device_grid`]. Returns one result per device, in device order.
pub fn evaluate_replicated(
    module: &Module,
    args_per_replica: &[Vec<Literal>],
    opts: &RunOptions,
) -> Result<Vec<Literal>> {
    let grid = device_grid(module, args_per_replica.len(), opts)?;
    let n = grid.devices();
    check_custom_calls(module, opts)?;
    crate::collectives::check_module(module, grid)?;
    let depth = crate::limits::check_depth(module)?;
    let checked = args_per_replica
        .iter()
        .enumerate()
        .map(|(r, a)| {
            check_args_with(module, a, opts.max_elements)
                .map_err(|e| e.context(device_label(grid, r)))
        })
        .collect::<Result<Vec<_>>>()?;
    let coll = Collectives::new(n);
    let results: Vec<Result<Literal>> = std::thread::scope(|s| {
        let handles: Vec<_> = checked
            .iter()
            .enumerate()
            .map(|(id, args)| {
                let coll = &coll;
                let mut b = std::thread::Builder::new();
                if depth > 8 {
                    b = b.stack_size(crate::limits::stack_for_depth(depth));
                }
                b.spawn_scoped(s, move || {
                    let ctx = ReplicaCtx {
                        id,
                        grid,
                        collectives: coll,
                    };
                    // Marks the replica finished even if it panics, so no peer waits forever.
                    let _guard = FinishGuard(coll, id);
                    let refs: Vec<&Literal> = args.iter().collect();
                    Evaluator::new(module, opts, Some(ctx)).eval_comp(module.entry, &refs)
                })
                // A replica that never started is finished: no peer waits on it.
                .inspect_err(|_| coll.finish(id))
            })
            .collect();
        handles
            .into_iter()
            .enumerate()
            .map(|(id, h)| match h {
                Ok(h) => h.join().unwrap_or_else(|_| {
                    Err(EvalError::new(format!(
                        "{} panicked",
                        device_label(grid, id)
                    )))
                }),
                Err(e) => Err(EvalError::new(format!(
                    "{}: cannot start its thread: {e}",
                    device_label(grid, id)
                ))),
            })
            .collect()
    });
    results
        .into_iter()
        .enumerate()
        .map(|(id, r)| finish(module, r.map_err(|e| e.context(device_label(grid, id)))?))
        .collect()
}
