//! Attributes of the cross-device ops (all-reduce, all-gather,
//! reduce-scatter, all-to-all, collective-permute, collective-broadcast and
//! the async `*-start` forms): replica groups in XLA's list form
//! `{{0,1},{2,3}}` or iota form `[2,2]<=[4]` / `[2,2]<=[2,2]T(1,0)`,
//! `channel_id`, `use_global_device_ids`, and XLA's group modes, which
//! decide what the ids in a group mean. Also the participant computation
//! (who exchanges with whom on an R×P device grid), shared by the
//! evaluator and the JIT so they cannot disagree. Pure data; no I/O.

use crate::error::{IrError, Result};

/// Most ids an iota group list may hold (2^20 devices).
pub const MAX_IOTA_IDS: i64 = 1 << 20;

/// `[num_groups, group_size] <= [reshape_dims] T(transpose)`: the device
/// ids `0..num_groups·group_size` reshaped to `reshape_dims`, transposed
/// by `transpose`, flattened and cut into `num_groups` groups.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IotaGroups {
    pub num_groups: i64,
    pub group_size: i64,
    pub reshape_dims: Vec<i64>,
    /// Empty or the identity: no transpose (printed without `T(...)`).
    pub transpose: Vec<i64>,
}

/// `replica_groups=` as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReplicaGroups {
    List(Vec<Vec<i64>>),
    Iota(IotaGroups),
}

impl Default for ReplicaGroups {
    fn default() -> Self {
        ReplicaGroups::List(Vec::new())
    }
}

impl From<Vec<Vec<i64>>> for ReplicaGroups {
    fn from(v: Vec<Vec<i64>>) -> Self {
        ReplicaGroups::List(v)
    }
}

impl IotaGroups {
    /// Checks the sizes and the permutation.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(IrError::shape(format!("iota replica groups: {m}")));
        if self.num_groups < 1 || self.group_size < 1 {
            return bad(format!(
                "[{},{}] needs at least one group of at least one id",
                self.num_groups, self.group_size
            ));
        }
        if self.reshape_dims.is_empty() || self.reshape_dims.iter().any(|&d| d < 1) {
            return bad(format!(
                "reshape dims [{}] must be positive",
                crate::text::attrs::join_ints(&self.reshape_dims)
            ));
        }
        let total = self.num_groups.checked_mul(self.group_size);
        let prod = self
            .reshape_dims
            .iter()
            .try_fold(1i64, |a, &d| a.checked_mul(d));
        if total.is_some_and(|t| t > MAX_IOTA_IDS) && total == prod {
            return bad(format!(
                "[{},{}] holds more than {MAX_IOTA_IDS} ids",
                self.num_groups, self.group_size
            ));
        }
        if total.is_none() || total != prod || total.is_some_and(|t| t > MAX_IOTA_IDS) {
            return bad(format!(
                "[{},{}] holds {} ids but the reshape dims [{}] hold {}",
                self.num_groups,
                self.group_size,
                total.map_or("too many".to_string(), |t| t.to_string()),
                crate::text::attrs::join_ints(&self.reshape_dims),
                prod.map_or("too many".to_string(), |t| t.to_string()),
            ));
        }
        if !self.transpose.is_empty() {
            let n = self.reshape_dims.len();
            let mut seen = vec![false; n];
            if self.transpose.len() != n {
                return bad(format!(
                    "T({}) must have {n} entries, one per reshape dim",
                    crate::text::attrs::join_ints(&self.transpose)
                ));
            }
            for &p in &self.transpose {
                match usize::try_from(p).ok().and_then(|i| seen.get_mut(i)) {
                    Some(s) if !*s => *s = true,
                    _ => {
                        return bad(format!(
                            "T({}) is not a permutation of 0..{n}",
                            crate::text::attrs::join_ints(&self.transpose)
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The groups as lists.
    pub fn expand(&self) -> Result<Vec<Vec<i64>>> {
        self.validate()?;
        let dims = &self.reshape_dims;
        let n = dims.len();
        let perm: Vec<usize> = if self.transpose.is_empty() {
            (0..n).collect()
        } else {
            self.transpose.iter().map(|&p| p as usize).collect()
        };
        // Row-major strides of the reshaped iota.
        let mut strides = vec![1i64; n];
        for i in (0..n.saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * dims[i + 1];
        }
        let out_dims: Vec<i64> = perm.iter().map(|&p| dims[p]).collect();
        let total = self.num_groups * self.group_size;
        let mut ids = Vec::with_capacity(total as usize);
        let mut idx = vec![0i64; n];
        for _ in 0..total {
            ids.push(
                idx.iter()
                    .zip(&perm)
                    .map(|(&i, &p)| i * strides[p])
                    .sum::<i64>(),
            );
            for k in (0..n).rev() {
                idx[k] += 1;
                if idx[k] < out_dims[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        Ok(ids
            .chunks(self.group_size as usize)
            .map(|c| c.to_vec())
            .collect())
    }

    /// Whether the transpose is absent or the identity.
    pub fn is_identity_transpose(&self) -> bool {
        self.transpose
            .iter()
            .enumerate()
            .all(|(i, &p)| p == i as i64)
    }
}

impl ReplicaGroups {
    /// The groups as lists (the iota form expanded).
    pub fn groups(&self) -> Result<Vec<Vec<i64>>> {
        match self {
            ReplicaGroups::List(v) => Ok(v.clone()),
            ReplicaGroups::Iota(i) => i.expand(),
        }
    }

    /// No groups given (`{}`): one group of every participant.
    pub fn is_empty(&self) -> bool {
        match self {
            ReplicaGroups::List(v) => v.iter().all(|g| g.is_empty()),
            ReplicaGroups::Iota(_) => false,
        }
    }

    /// The size every group has, when the groups are given and all the
    /// same size (`None` for `{}`); an error when sizes differ.
    pub fn uniform_size(&self) -> Result<Option<usize>> {
        if self.is_empty() {
            return Ok(None);
        }
        if let ReplicaGroups::Iota(i) = self {
            i.validate()?;
            return Ok(Some(i.group_size as usize));
        }
        let g = self.groups()?;
        let s = g[0].len();
        if let Some(bad) = g.iter().find(|x| x.len() != s) {
            return Err(IrError::shape(format!(
                "replica groups have different sizes ({s} and {})",
                bad.len()
            )));
        }
        Ok(Some(s))
    }
}

/// `replica_groups`, `channel_id` and `use_global_device_ids` of a
/// grouped collective. `constrain_layout` is not modelled (layouts are
/// never changed across devices here); it stays a verbatim attribute.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CollectiveAttrs {
    pub replica_groups: ReplicaGroups,
    pub channel_id: Option<i64>,
    pub use_global_device_ids: bool,
}

impl CollectiveAttrs {
    /// Groups without a channel: cross-replica.
    pub fn groups(g: Vec<Vec<i64>>) -> CollectiveAttrs {
        CollectiveAttrs {
            replica_groups: ReplicaGroups::List(g),
            ..Default::default()
        }
    }
}

/// XLA's `CollectiveOpGroupMode`: what the ids of a replica group are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupMode {
    /// No channel id: ids are replica ids; a group is those replicas of
    /// the caller's partition.
    CrossReplica,
    /// Channel id, no `use_global_device_ids` attribute (all-to-all,
    /// collective-permute, collective-broadcast): ids are partition ids
    /// within the caller's replica.
    CrossPartition,
    /// Channel id, `use_global_device_ids=false` on an op that has the
    /// attribute (all-reduce, all-gather, reduce-scatter): ids are replica
    /// ids, and every partition of those replicas joins (replica-major).
    CrossReplicaAndPartition,
    /// Channel id and `use_global_device_ids=true`: ids are global device
    /// ids `replica·P + partition`.
    FlattenedId,
}

impl GroupMode {
    /// XLA's rule (`GetCollectiveOpGroupMode`). `has_global_attr`: the op
    /// has a `use_global_device_ids` attribute (all-reduce, all-gather,
    /// reduce-scatter and their start forms).
    pub fn of(attrs: &CollectiveAttrs, has_global_attr: bool) -> Result<GroupMode> {
        match (attrs.channel_id.is_some(), attrs.use_global_device_ids) {
            (false, false) => Ok(GroupMode::CrossReplica),
            (false, true) => Err(IrError::shape(
                "use_global_device_ids=true needs a channel_id (XLA's rule)",
            )),
            (true, true) => Ok(GroupMode::FlattenedId),
            (true, false) if has_global_attr => Ok(GroupMode::CrossReplicaAndPartition),
            (true, false) => Ok(GroupMode::CrossPartition),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            GroupMode::CrossReplica => "cross-replica",
            GroupMode::CrossPartition => "cross-partition",
            GroupMode::CrossReplicaAndPartition => "cross-replica-and-partition",
            GroupMode::FlattenedId => "flattened-id",
        }
    }
}

/// A grid of `replicas × partitions` devices; device id `r·P + p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceGrid {
    pub replicas: usize,
    pub partitions: usize,
}

impl DeviceGrid {
    pub fn single() -> DeviceGrid {
        DeviceGrid {
            replicas: 1,
            partitions: 1,
        }
    }

    pub fn devices(self) -> usize {
        self.replicas * self.partitions
    }

    /// (replica, partition) of a device id.
    pub fn coords(self, device: usize) -> (usize, usize) {
        (
            device / self.partitions.max(1),
            device % self.partitions.max(1),
        )
    }

    pub fn device(self, replica: usize, partition: usize) -> usize {
        replica * self.partitions + partition
    }

    /// How many ids a group may name in `mode`.
    fn id_space(self, mode: GroupMode) -> (usize, &'static str) {
        match mode {
            GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => {
                (self.replicas, "replica")
            }
            GroupMode::CrossPartition => (self.partitions, "partition"),
            GroupMode::FlattenedId => (self.devices(), "device"),
        }
    }

    /// Every group of devices (global ids, in XLA's participant order) of
    /// a collective with `groups` in `mode`. Errors name what is wrong: an
    /// id out of range, an id twice, a device in no group.
    pub fn device_groups(self, groups: &ReplicaGroups, mode: GroupMode) -> Result<Vec<Vec<usize>>> {
        let (n, what) = self.id_space(mode);
        let lists: Vec<Vec<usize>> = if groups.is_empty() {
            if mode == GroupMode::FlattenedId {
                return Err(IrError::shape(
                    "use_global_device_ids=true needs non-empty replica_groups",
                ));
            }
            vec![(0..n).collect()]
        } else {
            let mut seen = vec![false; n];
            let mut out = Vec::new();
            for g in groups.groups()? {
                let mut v = Vec::with_capacity(g.len());
                for id in g {
                    match usize::try_from(id).ok().filter(|&i| i < n) {
                        None => {
                            return Err(IrError::shape(format!(
                                "replica_groups names {what} {id} but there are {n} {what}s (ids 0..{})",
                                n.saturating_sub(1)
                            )));
                        }
                        Some(i) if seen[i] => {
                            return Err(IrError::shape(format!(
                                "{what} {id} appears more than once in replica_groups"
                            )));
                        }
                        Some(i) => {
                            seen[i] = true;
                            v.push(i);
                        }
                    }
                }
                out.push(v);
            }
            if let Some(miss) = seen.iter().position(|s| !s) {
                return Err(IrError::shape(format!(
                    "{what} {miss} is in no replica group (the groups must cover all {n} {what}s)"
                )));
            }
            out
        };
        let mut out = Vec::new();
        match mode {
            GroupMode::CrossReplica => {
                for l in &lists {
                    for p in 0..self.partitions {
                        out.push(l.iter().map(|&r| self.device(r, p)).collect());
                    }
                }
            }
            GroupMode::CrossPartition => {
                for l in &lists {
                    for r in 0..self.replicas {
                        out.push(l.iter().map(|&p| self.device(r, p)).collect());
                    }
                }
            }
            GroupMode::CrossReplicaAndPartition => {
                for l in &lists {
                    out.push(
                        l.iter()
                            .flat_map(|&r| (0..self.partitions).map(move |p| (r, p)))
                            .map(|(r, p)| self.device(r, p))
                            .collect(),
                    );
                }
            }
            GroupMode::FlattenedId => out = lists,
        }
        Ok(out)
    }

    /// The group of `device` and its position in it.
    pub fn group_of(
        self,
        groups: &ReplicaGroups,
        mode: GroupMode,
        device: usize,
    ) -> Result<(Vec<usize>, usize)> {
        for g in self.device_groups(groups, mode)? {
            if let Some(k) = g.iter().position(|&d| d == device) {
                return Ok((g, k));
            }
        }
        Err(IrError::shape(format!("device {device} is in no group")))
    }

    /// Collective-permute: the devices of `device`'s permutation domain
    /// (its partition's replicas without a channel, its replica's
    /// partitions with one), indexed by the ids `source_target_pairs`
    /// uses; and the checked pairs (ids in range, each source and each
    /// target at most once).
    pub fn permute_domain(
        self,
        pairs: &[(i64, i64)],
        cross_partition: bool,
        device: usize,
    ) -> Result<Vec<usize>> {
        let (r, p) = self.coords(device);
        let (n, what) = if cross_partition {
            (self.partitions, "partition")
        } else {
            (self.replicas, "replica")
        };
        let mut src = vec![false; n];
        let mut dst = vec![false; n];
        for &(s, t) in pairs {
            for (id, seen, role) in [(s, &mut src, "source"), (t, &mut dst, "target")] {
                match usize::try_from(id).ok().filter(|&i| i < n) {
                    None => {
                        return Err(IrError::shape(format!(
                            "source_target_pairs names {what} {id} but there are {n} {what}s"
                        )));
                    }
                    Some(i) if seen[i] => {
                        return Err(IrError::shape(format!(
                            "{what} {id} is a {role} more than once in source_target_pairs"
                        )));
                    }
                    Some(i) => seen[i] = true,
                }
            }
        }
        Ok(if cross_partition {
            (0..n).map(|q| self.device(r, q)).collect()
        } else {
            (0..n).map(|q| self.device(q, p)).collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota(g: i64, s: i64, d: &[i64], t: &[i64]) -> Vec<Vec<i64>> {
        IotaGroups {
            num_groups: g,
            group_size: s,
            reshape_dims: d.to_vec(),
            transpose: t.to_vec(),
        }
        .expand()
        .unwrap()
    }

    #[test]
    fn iota_forms() {
        assert_eq!(iota(2, 2, &[4], &[]), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(iota(2, 2, &[2, 2], &[1, 0]), vec![vec![0, 2], vec![1, 3]]);
        assert_eq!(iota(1, 4, &[4], &[]), vec![vec![0, 1, 2, 3]]);
        // [2,4]<=[2,2,2]T(2,1,0): ids (a,b,c) = 4a+2b+c read in (c,b,a) order.
        assert_eq!(
            iota(2, 4, &[2, 2, 2], &[2, 1, 0]),
            vec![vec![0, 4, 2, 6], vec![1, 5, 3, 7]]
        );
        assert!(
            IotaGroups {
                num_groups: 2,
                group_size: 2,
                reshape_dims: vec![3],
                transpose: vec![]
            }
            .expand()
            .is_err()
        );
    }

    #[test]
    fn modes_and_groups() {
        let grid = DeviceGrid {
            replicas: 2,
            partitions: 2,
        };
        let g = ReplicaGroups::List(vec![vec![0, 1]]);
        assert_eq!(
            grid.device_groups(&g, GroupMode::CrossReplica).unwrap(),
            vec![vec![0, 2], vec![1, 3]]
        );
        assert_eq!(
            grid.device_groups(&g, GroupMode::CrossPartition).unwrap(),
            vec![vec![0, 1], vec![2, 3]]
        );
        assert_eq!(
            grid.device_groups(&g, GroupMode::CrossReplicaAndPartition)
                .unwrap(),
            vec![vec![0, 1, 2, 3]]
        );
        let f = ReplicaGroups::List(vec![vec![3, 0], vec![1, 2]]);
        assert_eq!(
            grid.device_groups(&f, GroupMode::FlattenedId).unwrap(),
            vec![vec![3, 0], vec![1, 2]]
        );
        assert!(
            grid.device_groups(&ReplicaGroups::List(vec![vec![0]]), GroupMode::CrossReplica)
                .is_err()
        );
        assert!(
            grid.device_groups(
                &ReplicaGroups::List(vec![vec![0, 2]]),
                GroupMode::CrossReplica
            )
            .is_err()
        );
    }
}
