//! Rendezvous of replicas for `all-reduce`: each replica deposits its
//! value for the k-th collective it reaches and waits for the other
//! members of its group. A replica that finishes (or fails) without
//! reaching a collective its group waits on turns that wait into an
//! error, never a hang. Only synchronisation lives here; the reduction
//! itself is done by the evaluator.

use crate::error::{EvalError, Result};
use rxla_ir::Literal;
use std::collections::HashMap;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

#[derive(Default)]
struct State {
    /// Contributions per collective sequence number, one slot per replica.
    slots: HashMap<u64, Vec<Option<Literal>>>,
    /// Replicas that have returned (successfully or not).
    finished: Vec<bool>,
}

/// Shared by the replica threads of one `evaluate_replicated` call.
pub struct Collectives {
    replicas: usize,
    state: Mutex<State>,
    cv: Condvar,
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
    /// once all are present. `what` names the instruction for errors.
    pub fn exchange(
        &self,
        replica: usize,
        seq: u64,
        value: Literal,
        group: &[usize],
        what: &str,
    ) -> Result<Vec<Literal>> {
        if let Some(&bad) = group.iter().find(|&&r| r >= self.replicas) {
            return Err(EvalError::new(format!(
                "{what}: replica group names replica {bad} but there are {} replicas",
                self.replicas
            )));
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let n = self.replicas;
        st.slots.entry(seq).or_insert_with(|| vec![None; n])[replica] = Some(value);
        self.cv.notify_all();
        loop {
            let slot = &st.slots[&seq];
            if group.iter().all(|&r| slot[r].is_some()) {
                return Ok(group
                    .iter()
                    .map(|&r| slot[r].clone().expect("present"))
                    .collect());
            }
            if let Some(&r) = group.iter().find(|&&r| slot[r].is_none() && st.finished[r]) {
                return Err(EvalError::new(format!(
                    "{what}: replica {r} finished without reaching this all-reduce (collective #{seq})"
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
