//! Builder calls for the cross-device ops: all-reduce with full group
//! attributes, all-gather, reduce-scatter, all-to-all, collective-permute,
//! collective-broadcast, the async start/done pairs, replica-id and
//! partition-id. A `declared` shape is needed only where the group size
//! is not static (empty groups, or groups spanning partitions).

use super::{ComputationBuilder, Value};
use crate::collective::CollectiveAttrs;
use crate::error::Result;
use crate::ops::{CompId, Op};
use crate::shape::Shape;

impl ComputationBuilder<'_> {
    /// `all-reduce(operands...)` with every group attribute.
    pub fn all_reduce_with(
        &mut self,
        operands: &[Value],
        f: CompId,
        attrs: CollectiveAttrs,
    ) -> Result<Value> {
        let op = Op::AllReduce { to_apply: f, attrs };
        self.push("all-reduce", op, operands, None)
    }

    /// `all-reduce-start(operands...)`; take the value with
    /// [`ComputationBuilder::all_reduce_done`].
    pub fn all_reduce_start(
        &mut self,
        operands: &[Value],
        f: CompId,
        attrs: CollectiveAttrs,
    ) -> Result<Value> {
        let op = Op::AllReduceStart { to_apply: f, attrs };
        self.push("all-reduce-start", op, operands, None)
    }

    pub fn all_reduce_done(&mut self, start: Value) -> Result<Value> {
        self.push("all-reduce-done", Op::AllReduceDone, &[start], None)
    }

    /// `all-gather(operands...), dimensions={dimension}`.
    pub fn all_gather(
        &mut self,
        operands: &[Value],
        dimension: i64,
        attrs: CollectiveAttrs,
        declared: Option<Shape>,
    ) -> Result<Value> {
        let op = Op::AllGather { dimension, attrs };
        self.push("all-gather", op, operands, declared)
    }

    /// `all-gather-start(...)`: `(operand, result)`.
    pub fn all_gather_start(
        &mut self,
        operands: &[Value],
        dimension: i64,
        attrs: CollectiveAttrs,
        declared: Option<Shape>,
    ) -> Result<Value> {
        let op = Op::AllGatherStart { dimension, attrs };
        self.push("all-gather-start", op, operands, declared)
    }

    pub fn all_gather_done(&mut self, start: Value) -> Result<Value> {
        self.push("all-gather-done", Op::AllGatherDone, &[start], None)
    }

    /// `reduce-scatter(operands...), dimensions={dimension}, to_apply=f`.
    pub fn reduce_scatter(
        &mut self,
        operands: &[Value],
        dimension: i64,
        f: CompId,
        attrs: CollectiveAttrs,
        declared: Option<Shape>,
    ) -> Result<Value> {
        let op = Op::ReduceScatter {
            dimension,
            to_apply: f,
            attrs,
        };
        self.push("reduce-scatter", op, operands, declared)
    }

    /// `all-to-all`: the array form with `Some(dimension)` (one operand),
    /// the tuple form with `None`.
    pub fn all_to_all(
        &mut self,
        operands: &[Value],
        dimension: Option<i64>,
        attrs: CollectiveAttrs,
    ) -> Result<Value> {
        let op = Op::AllToAll { dimension, attrs };
        self.push("all-to-all", op, operands, None)
    }

    /// `collective-permute(x), source_target_pairs=...`.
    pub fn collective_permute(
        &mut self,
        x: Value,
        pairs: Vec<(i64, i64)>,
        channel_id: Option<i64>,
    ) -> Result<Value> {
        let op = Op::CollectivePermute { pairs, channel_id };
        self.push("collective-permute", op, &[x], None)
    }

    /// `collective-permute-start(x)`: `(x, result, u32[], u32[])`.
    pub fn collective_permute_start(
        &mut self,
        x: Value,
        pairs: Vec<(i64, i64)>,
        channel_id: Option<i64>,
    ) -> Result<Value> {
        let op = Op::CollectivePermuteStart { pairs, channel_id };
        self.push("collective-permute-start", op, &[x], None)
    }

    pub fn collective_permute_done(&mut self, start: Value) -> Result<Value> {
        let op = Op::CollectivePermuteDone;
        self.push("collective-permute-done", op, &[start], None)
    }

    /// `collective-broadcast(operands...)`: group member 0's value.
    pub fn collective_broadcast(
        &mut self,
        operands: &[Value],
        attrs: CollectiveAttrs,
    ) -> Result<Value> {
        let op = Op::CollectiveBroadcast { attrs };
        self.push("collective-broadcast", op, operands, None)
    }

    /// `replica-id()`: `u32[]`.
    pub fn replica_id(&mut self) -> Result<Value> {
        self.push("replica-id", Op::ReplicaId, &[], None)
    }

    /// `partition-id()`: `u32[]`.
    pub fn partition_id(&mut self) -> Result<Value> {
        self.push("partition-id", Op::PartitionId, &[], None)
    }
}
