//! Rendezvous of devices for the collectives: each device deposits its
//! value for the k-th collective it reaches and waits for the other
//! members of its group. (A device is a replica when there is one
//! partition; the wording below says replica for device.) A replica that finishes (or fails) without
//! reaching a collective its group waits on turns that wait into an
//! error, never a hang. Every contribution names its site (instruction,
//! computation, shape, reducer) and its group; members that meet at
//! different sites or with different groups all fail with an error naming
//! both. Contributions are dropped as soon as every member of the group
//! has read them. Only synchronisation lives here; the reduction itself is
//! done by the evaluator (or the JIT's runtime).

use crate::error::{EvalError, Result};
use rxla_ir::{
    CompId, Computation, DeviceGrid, GroupMode, Instruction, Literal, Module, Op, ReplicaGroups,
};
use std::collections::HashMap;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// One replica's contribution to one collective.
struct Part {
    /// `None` once every member of the group has read it.
    value: Option<Literal>,
    site: String,
    group: Vec<usize>,
    read: bool,
}

#[derive(Default)]
struct State {
    /// Contributions per collective sequence number, one slot per replica;
    /// a sequence number's entry goes when every replica has read there.
    slots: HashMap<u64, Vec<Option<Part>>>,
    /// Replicas that have returned (successfully or not).
    finished: Vec<bool>,
}

/// Shared by the replica threads of one `evaluate_replicated` call.
pub struct Collectives {
    replicas: usize,
    state: Mutex<State>,
    cv: Condvar,
}

/// How an all-reduce is named in rendezvous errors and matched between
/// replicas: instruction, computation, result shape and reducer.
pub fn all_reduce_site(
    module: &Module,
    comp: &Computation,
    instr: &Instruction,
    to_apply: CompId,
) -> String {
    let reducer = module
        .computations
        .get(to_apply.index())
        .map_or("?", |c| c.name.as_str());
    format!(
        "all-reduce {} in {} ({} reduced by {})",
        instr.name, comp.name, instr.shape, reducer
    )
}

/// How any collective is named in rendezvous errors and matched between
/// devices: opcode, instruction, computation and result shape (and the
/// reducer of an all-reduce, as [`all_reduce_site`]).
pub fn site(module: &Module, comp: &Computation, instr: &Instruction) -> String {
    match &instr.op {
        Op::AllReduce { to_apply, .. } => all_reduce_site(module, comp, instr, *to_apply),
        op => format!(
            "{} {} in {} ({})",
            op.opcode(),
            instr.name,
            comp.name,
            instr.shape
        ),
    }
}

/// Checks every collective's groups (and collective-permute's pairs)
/// for a run on `grid`: ids in range for the op's group mode, each id
/// once, every id in a group. Errors name the instruction.
pub fn check_module(module: &Module, grid: DeviceGrid) -> Result<()> {
    for comp in &module.computations {
        for instr in &comp.instructions {
            let fail = |e: rxla_ir::IrError| EvalError::new(format!("{}: {e}", instr.name));
            if let Some(attrs) = instr.op.collective_attrs() {
                let mode =
                    GroupMode::of(attrs, instr.op.has_global_device_ids_attr()).map_err(fail)?;
                grid.device_groups(&attrs.replica_groups, mode)
                    .map_err(fail)?;
            }
            if let Op::CollectivePermute { pairs, channel_id }
            | Op::CollectivePermuteStart { pairs, channel_id }
            | Op::CollectivePermuteInPlace {
                pairs, channel_id, ..
            } = &instr.op
            {
                grid.permute_domain(pairs, channel_id.is_some(), 0)
                    .map_err(fail)?;
            }
        }
    }
    Ok(())
}

/// Checks every all-reduce's `replica_groups` for a run of `replicas`
/// replicas and one partition (see [`check_module`]).
pub fn check_replica_groups(module: &Module, replicas: usize) -> Result<()> {
    check_module(
        module,
        DeviceGrid {
            replicas,
            partitions: 1,
        },
    )
}

/// The `replica_groups` of instruction `name` for a cross-replica run of
/// `replicas` replicas: ids in `0..replicas`, each replica once, every
/// replica in a group.
pub fn check_groups(name: &str, groups: &ReplicaGroups, replicas: usize) -> Result<()> {
    let grid = DeviceGrid {
        replicas,
        partitions: 1,
    };
    grid.device_groups(groups, GroupMode::CrossReplica)
        .map(|_| ())
        .map_err(|e| EvalError::new(format!("{name}: {e}")))
}

impl Collectives {
    pub fn new(replicas: usize) -> Collectives {
        Collectives {
            replicas,
            state: Mutex::new(State {
                slots: HashMap::new(),
                finished: vec![false; replicas],
            }),
            cv: Condvar::new(),
        }
    }

    pub fn replica_count(&self) -> usize {
        self.replicas
    }

    /// Contributions still held (for tests: 0 after a run whose
    /// collectives all completed).
    pub fn pending(&self) -> usize {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.slots
            .values()
            .flatten()
            .flatten()
            .filter(|p| p.value.is_some())
            .count()
    }

    /// Marks `replica` as done; wakes waiters so they can fail if they
    /// were waiting on it.
    pub fn finish(&self, replica: usize) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = st.finished.get_mut(replica) {
            *f = true;
        }
        self.cv.notify_all();
    }

    /// Deposits `value` as `replica`'s contribution to collective number
    /// `seq` and returns the contributions of `group` (in group order)
    /// once all are present. `site` names the instruction (see
    /// [`all_reduce_site`]); every member must be at the same site with
    /// the same group.
    pub fn exchange(
        &self,
        replica: usize,
        seq: u64,
        value: Literal,
        group: &[usize],
        site: &str,
    ) -> Result<Vec<Literal>> {
        let n = self.replicas;
        if replica >= n {
            return Err(EvalError::new(format!(
                "{site}: replica {replica} but there are {n} replicas"
            )));
        }
        if let Some(&bad) = group.iter().find(|&&r| r >= n) {
            return Err(EvalError::new(format!(
                "{site}: replica group names replica {bad} but there are {n} replicas"
            )));
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.slots
            .entry(seq)
            .or_insert_with(|| std::iter::repeat_with(|| None).take(n).collect())[replica] =
            Some(Part {
                value: Some(value),
                site: site.to_string(),
                group: group.to_vec(),
                read: false,
            });
        self.cv.notify_all();
        loop {
            let State { slots, finished } = &mut *st;
            let Some(slot) = slots.get_mut(&seq) else {
                return Err(EvalError::new(format!(
                    "{site}: collective #{seq} was released before replica {replica} read it"
                )));
            };
            // A member at another instruction or with another group fails
            // the rendezvous for every member that sees it (each member
            // checks the others, so all of them report it, none waits).
            for &r in group {
                if let Some(p) = &slot[r]
                    && (p.site != site || p.group != group)
                {
                    let e = if p.site != site {
                        format!(
                            "replica {replica} reached {site} but replica {r} reached {} as its collective #{seq}",
                            p.site
                        )
                    } else {
                        format!(
                            "{site}: replica {replica} has replica group {group:?} but replica {r} has {:?}",
                            p.group
                        )
                    };
                    return Err(EvalError::new(e));
                }
            }
            if group
                .iter()
                .all(|&r| slot[r].as_ref().is_some_and(|p| p.value.is_some()))
            {
                let parts: Vec<Literal> = group
                    .iter()
                    .filter_map(|&r| slot[r].as_ref().and_then(|p| p.value.clone()))
                    .collect();
                if let Some(p) = slot[replica].as_mut() {
                    p.read = true;
                }
                // Every member has read: drop the values.
                if group
                    .iter()
                    .all(|&r| slot[r].as_ref().is_some_and(|p| p.read))
                {
                    for &r in group {
                        if let Some(p) = slot[r].as_mut() {
                            p.value = None;
                        }
                    }
                    if slot.iter().all(|p| p.as_ref().is_some_and(|p| p.read)) {
                        slots.remove(&seq);
                    }
                }
                return Ok(parts);
            }
            if let Some(&r) = group.iter().find(|&&r| slot[r].is_none() && finished[r]) {
                return Err(EvalError::new(format!(
                    "{site}: replica {r} finished without reaching this collective (collective #{seq})"
                )));
            }
            st = self
                .cv
                .wait_timeout(st, Duration::from_millis(200))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
