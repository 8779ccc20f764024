//! Region decomposition of a data-movement root (plan time, no code):
//! the output of a kernel whose root is a tree of concatenate, pad,
//! slice, reverse, transpose, broadcast, copy and trivial reshapes is cut
//! into boxes ("regions"), each filled from one instruction ("leaf") read
//! at an affine index of the region's loop counters — a kernel input
//! (copied as wide moves), a scalar (a fill) or any other value (computed
//! by the emitter over the box). `assemble.rs` emits the loops.
//!
//! A region's output positions along dim `d` are `start[d] + step[d]·k`
//! for counters `k` in `0..count[d]`; the leaf's index along its dim `j`
//! is `c + s·k[p]` (or the constant `c`). Regions are listed in the order
//! they must be written: only a pad with interior padding overlaps (its
//! pad value first, then the operand's strided positions over it).
//! Must not emit code, nor fail on odd input: anything it does not model
//! becomes a leaf, and anything it cannot bound gives `None`.

use rxla_ir::{Computation, InstrId, Op, PadDim};

/// Most regions a kernel is cut into (beyond it the loop nest is used).
pub const MAX_REGIONS: usize = 64;

/// The index of one dimension of an instruction inside a region:
/// `c + s·k[p]`, or the constant `c` when `p` is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axis {
    pub p: Option<usize>,
    pub c: i64,
    pub s: i64,
}

/// A box of the output and the leaf that fills it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub start: Vec<i64>,
    pub step: Vec<i64>,
    pub count: Vec<i64>,
    pub leaf: InstrId,
    /// The leaf's index per leaf dimension.
    pub map: Vec<Axis>,
}

/// The regions of a root, in write order.
#[derive(Clone, Debug)]
pub struct Decomposition {
    pub regions: Vec<Region>,
    /// Whether a concatenate or pad was cut (else one region).
    pub split: bool,
}

/// Cuts the output of `root` (dims `dims`) into regions; `None` when the
/// output would need more than [`MAX_REGIONS`] or an index overflows.
pub fn decompose(
    comp: &Computation,
    root: InstrId,
    dims: &[i64],
    is_input: &dyn Fn(InstrId) -> bool,
) -> Option<Decomposition> {
    let mut w = Walk {
        comp,
        is_input,
        regions: Vec::new(),
        split: false,
    };
    let b = Bx {
        start: vec![0; dims.len()],
        step: vec![1; dims.len()],
        count: dims.to_vec(),
    };
    let map = (0..dims.len())
        .map(|d| Axis {
            p: Some(d),
            c: 0,
            s: 1,
        })
        .collect();
    w.go(root, b, map)?;
    Some(Decomposition {
        regions: w.regions,
        split: w.split,
    })
}

#[derive(Clone, Debug)]
struct Bx {
    start: Vec<i64>,
    step: Vec<i64>,
    count: Vec<i64>,
}

struct Walk<'a> {
    comp: &'a Computation,
    is_input: &'a dyn Fn(InstrId) -> bool,
    regions: Vec<Region>,
    split: bool,
}

/// `floor(a / b)` for `b > 0`.
fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// `ceil(a / b)` for `b > 0`.
fn ceil_div(a: i64, b: i64) -> i64 {
    -(-a).div_euclid(b)
}

/// The counters `k` (unbounded) with `lo <= c + s·k < hi`, `s != 0`.
fn krange(c: i64, s: i64, lo: i64, hi: i64) -> Option<(i64, i64)> {
    if s > 0 {
        Some((
            ceil_div(lo.checked_sub(c)?, s),
            ceil_div(hi.checked_sub(c)?, s),
        ))
    } else {
        let t = s.checked_neg()?;
        Some((
            floor_div(c.checked_sub(hi)?, t) + 1,
            floor_div(c.checked_sub(lo)?, t) + 1,
        ))
    }
}

/// The box and map restricted to counters `k0..k1` along output dim `d`
/// (`0 <= k0 < k1 <= count[d]`).
fn shift(b: &Bx, map: &[Axis], d: usize, k0: i64, k1: i64) -> Option<(Bx, Vec<Axis>)> {
    let mut nb = b.clone();
    nb.start[d] = nb.start[d].checked_add(nb.step[d].checked_mul(k0)?)?;
    nb.count[d] = k1 - k0;
    let mut nm = map.to_vec();
    for a in nm.iter_mut().filter(|a| a.p == Some(d)) {
        a.c = a.c.checked_add(a.s.checked_mul(k0)?)?;
    }
    Some((nb, nm))
}

/// Where axis `a` lies in `lo..hi`: `Ok(None)` never, else the box and
/// map restricted to it, with the counter range along the axis's dim.
type Restricted = Option<(Bx, Vec<Axis>, Option<(usize, i64, i64)>)>;

fn restrict(b: &Bx, map: &[Axis], a: Axis, lo: i64, hi: i64) -> Option<Restricted> {
    let Some(d) = a.p else {
        return Some((a.c >= lo && a.c < hi).then(|| (b.clone(), map.to_vec(), None)));
    };
    let (k0, k1) = krange(a.c, a.s, lo, hi)?;
    let (k0, k1) = (k0.max(0), k1.min(b.count[d]));
    if k0 >= k1 {
        return Some(None);
    }
    let (nb, nm) = shift(b, map, d, k0, k1)?;
    Some(Some((nb, nm, Some((d, k0, k1)))))
}

impl Walk<'_> {
    fn dims(&self, id: InstrId) -> Option<Vec<i64>> {
        Some(self.comp.get(id).shape.as_array().ok()?.dims.clone())
    }

    fn leaf(&mut self, id: InstrId, b: Bx, map: Vec<Axis>) -> Option<()> {
        if self.regions.len() >= MAX_REGIONS {
            return None;
        }
        self.regions.push(Region {
            start: b.start,
            step: b.step,
            count: b.count,
            leaf: id,
            map,
        });
        Some(())
    }

    fn go(&mut self, id: InstrId, b: Bx, map: Vec<Axis>) -> Option<()> {
        if b.count.iter().any(|&n| n <= 0) {
            return Some(());
        }
        if (self.is_input)(id) {
            return self.leaf(id, b, map);
        }
        let i = self.comp.get(id);
        let dims = self.dims(id)?;
        if dims.len() != map.len() {
            return None;
        }
        let operand = |k: usize| i.operands.get(k).copied();
        match &i.op {
            Op::Slice {
                starts, strides, ..
            } => {
                let mut om = Vec::with_capacity(map.len());
                for (d, a) in map.iter().enumerate() {
                    let (st, sd) = (*starts.get(d)?, *strides.get(d)?);
                    om.push(Axis {
                        p: a.p,
                        c: st.checked_add(sd.checked_mul(a.c)?)?,
                        s: sd.checked_mul(a.s)?,
                    });
                }
                self.go(operand(0)?, b, om)
            }
            Op::Reverse { dimensions } => {
                let mut om = map.clone();
                for &d in dimensions {
                    let a = om.get_mut(d as usize)?;
                    a.c = dims[d as usize] - 1 - a.c;
                    a.s = -a.s;
                }
                self.go(operand(0)?, b, om)
            }
            Op::Transpose { permutation } => {
                let mut om = map.clone();
                for (k, &p) in permutation.iter().enumerate() {
                    *om.get_mut(p as usize)? = map[k];
                }
                self.go(operand(0)?, b, om)
            }
            Op::Broadcast { dimensions } => {
                let om = dimensions
                    .iter()
                    .map(|&d| map.get(d as usize).copied())
                    .collect::<Option<Vec<_>>>()?;
                self.go(operand(0)?, b, om)
            }
            Op::Copy => self.go(operand(0)?, b, map),
            Op::Bitcast | Op::Reshape => {
                let o = operand(0)?;
                let os = self.comp.get(o).shape.as_array().ok()?;
                let me = i.shape.as_array().ok()?;
                let same = os.dims == me.dims
                    && os.layout.minor_to_major == me.layout.minor_to_major
                    && os.layout.padded_dimensions == me.layout.padded_dimensions;
                if os.element_type != me.element_type {
                    return self.leaf(id, b, map);
                }
                if same {
                    return self.go(o, b, map);
                }
                // Only size-1 dims differ (a renaming of dims).
                let row_major = matches!(i.op, Op::Reshape)
                    || (os.layout.is_default() && me.layout.is_default());
                let nz_in: Vec<usize> = (0..os.rank()).filter(|&d| os.dims[d] != 1).collect();
                let nz_out: Vec<usize> = (0..me.rank()).filter(|&d| me.dims[d] != 1).collect();
                let trivial = row_major
                    && nz_in.len() == nz_out.len()
                    && nz_in
                        .iter()
                        .zip(&nz_out)
                        .all(|(&a, &c)| os.dims[a] == me.dims[c]);
                if !trivial {
                    let dims_in = os.dims.clone();
                    return match row_major.then(|| merges(&dims_in, &me.dims)).flatten() {
                        Some(groups) => self.merged(id, o, &dims_in, &groups, b, map),
                        None => self.leaf(id, b, map),
                    };
                }
                let mut om = vec![
                    Axis {
                        p: None,
                        c: 0,
                        s: 0
                    };
                    os.rank()
                ];
                for (&a, &c) in nz_in.iter().zip(&nz_out) {
                    om[a] = map[c];
                }
                self.go(o, b, om)
            }
            Op::Concatenate { dimension } => {
                let dim = *dimension as usize;
                let a = *map.get(dim)?;
                self.split = true;
                let mut off = 0i64;
                for &o in &i.operands {
                    let n = *self.dims(o)?.get(dim)?;
                    if n > 0
                        && let Some((nb, mut nm, _)) = restrict(&b, &map, a, off, off + n)?
                    {
                        nm[dim].c -= off;
                        self.go(o, nb, nm)?;
                    }
                    off = off.checked_add(n)?;
                }
                Some(())
            }
            Op::Pad { config } => self.pad(id, config, b, map),
            _ => self.leaf(id, b, map),
        }
    }

    /// A reshape that only merges dims (`groups[o]`: the operand dims
    /// merged into output dim `o`): each merged dim is cut where the
    /// operand's outer index changes (`jnp.tile`), when that gives few
    /// pieces; else the reshape is a leaf.
    fn merged(
        &mut self,
        id: InstrId,
        o: InstrId,
        dims_in: &[i64],
        groups: &[Vec<usize>],
        b: Bx,
        map: Vec<Axis>,
    ) -> Option<()> {
        let mut pieces: i64 = 1;
        for (od, ins) in groups.iter().enumerate() {
            if ins.len() >= 2 {
                let (lo, hi) = self.quotients(&b, map[od], dims_in[*ins.last()?])?;
                pieces = pieces.saturating_mul(hi - lo + 1);
            }
        }
        if pieces <= 0 || self.regions.len() as i64 + pieces > MAX_REGIONS as i64 {
            return self.leaf(id, b, map);
        }
        self.split |= pieces > 1;
        self.merged_from(o, dims_in, groups, 0, &mut Vec::new(), b, map)
    }

    /// The range of `t / n` over the box for the output index `t` of axis `a`.
    fn quotients(&self, b: &Bx, a: Axis, n: i64) -> Option<(i64, i64)> {
        let (t0, t1) = match a.p {
            None => (a.c, a.c),
            Some(d) => {
                let last = a.c.checked_add(a.s.checked_mul(b.count[d] - 1)?)?;
                (a.c.min(last), a.c.max(last))
            }
        };
        (n > 0 && t0 >= 0).then(|| (t0 / n, t1 / n))
    }

    /// Cuts merged group `g` onwards (`qs`: the outer quotient chosen per
    /// earlier merged group), then reads the operand.
    #[allow(clippy::too_many_arguments)]
    fn merged_from(
        &mut self,
        o: InstrId,
        dims_in: &[i64],
        groups: &[Vec<usize>],
        g: usize,
        qs: &mut Vec<(usize, i64)>,
        b: Bx,
        map: Vec<Axis>,
    ) -> Option<()> {
        let Some(ins) = groups.get(g) else {
            // The operand index: single dims as they are, merged ones split.
            let mut om = vec![
                Axis {
                    p: None,
                    c: 0,
                    s: 0
                };
                dims_in.len()
            ];
            for (od, ins) in groups.iter().enumerate() {
                let a = map[od];
                let Some((&inner, outer)) = ins.split_last() else {
                    continue;
                };
                let q = qs.iter().find(|(d, _)| *d == od).map_or(0, |&(_, q)| q);
                let mut r = q;
                for &dim in outer.iter().rev() {
                    om[dim].c = r % dims_in[dim];
                    r /= dims_in[dim];
                }
                om[inner] = Axis {
                    p: a.p,
                    c: a.c - q * dims_in[inner],
                    s: a.s,
                };
            }
            return self.go(o, b, om);
        };
        if ins.len() < 2 {
            return self.merged_from(o, dims_in, groups, g + 1, qs, b, map);
        }
        let n = dims_in[*ins.last()?];
        let (lo, hi) = self.quotients(&b, map[g], n)?;
        for q in lo..=hi {
            let lim = q.checked_mul(n)?;
            if let Some((nb, nm, _)) = restrict(&b, &map, map[g], lim, lim.checked_add(n)?)? {
                qs.push((g, q));
                let r = self.merged_from(o, dims_in, groups, g + 1, qs, nb, nm);
                qs.pop();
                r?;
            }
        }
        Some(())
    }

    /// A pad: the operand's positions and the pad value's, disjoint boxes
    /// without interior padding; with it the pad value over the whole box
    /// first, then the operand's strided positions.
    fn pad(&mut self, id: InstrId, config: &[PadDim], b: Bx, map: Vec<Axis>) -> Option<()> {
        let i = self.comp.get(id);
        let (o, pv) = (*i.operands.first()?, *i.operands.get(1)?);
        let n = self.dims(o)?;
        if config.len() != map.len() || n.len() != map.len() {
            return None;
        }
        let interior = config.iter().any(|p| p.interior != 0);
        if interior
            && config
                .iter()
                .zip(&map)
                .any(|(p, a)| p.interior != 0 && a.p.is_some() && a.s.abs() != 1)
        {
            return self.leaf(id, b, map);
        }
        self.split = true;
        // The operand's box, and per output dim the counter range it keeps.
        let (mut ob, mut om) = (b.clone(), map.clone());
        let mut kept: Vec<(usize, i64, i64)> = Vec::new();
        let mut empty = n.contains(&0);
        for (j, p) in config.iter().enumerate() {
            if empty {
                break;
            }
            let g = p.interior.checked_add(1)?;
            let reach = p
                .low
                .checked_add(g.checked_mul(n[j] - 1)?)?
                .checked_add(1)?;
            match restrict(&ob, &om, om[j], p.low, reach)? {
                None => empty = true,
                Some((nb, nm, r)) => {
                    (ob, om) = (nb, nm);
                    if let Some(r) = r {
                        kept.push(r);
                    }
                }
            }
            if empty {
                break;
            }
            let a = om[j];
            match a.p {
                _ if g == 1 => om[j].c = a.c - p.low,
                None => {
                    let t = a.c - p.low;
                    if t % g != 0 {
                        empty = true;
                    } else {
                        om[j].c = t / g;
                    }
                }
                Some(d) => {
                    // |s| = 1: the counters k ≡ s·(low − c) (mod g).
                    let k0 = (a.s.checked_mul(p.low.checked_sub(a.c)?)?).rem_euclid(g);
                    if k0 >= ob.count[d] {
                        empty = true;
                        continue;
                    }
                    let cnt = (ob.count[d] - k0 + g - 1) / g;
                    ob.start[d] = ob.start[d].checked_add(ob.step[d].checked_mul(k0)?)?;
                    ob.step[d] = ob.step[d].checked_mul(g)?;
                    ob.count[d] = cnt;
                    om[j] = Axis {
                        p: Some(d),
                        c: (a.c + a.s * k0 - p.low) / g,
                        s: a.s,
                    };
                }
            }
        }
        if empty {
            return self.go(pv, b, Vec::new());
        }
        if interior {
            self.go(pv, b, Vec::new())?;
            return self.go(o, ob, om);
        }
        // The rest of the box around the operand's: before and after its
        // range along each cut dim, the earlier dims kept to their ranges.
        let mut cur = b;
        for &(d, k0, k1) in &kept {
            let full = cur.count[d];
            if k0 > 0 {
                let (before, _) = shift(&cur, &[], d, 0, k0)?;
                self.go(pv, before, Vec::new())?;
            }
            if k1 < full {
                let (after, _) = shift(&cur, &[], d, k1, full)?;
                self.go(pv, after, Vec::new())?;
            }
            cur = shift(&cur, &[], d, k0, k1)?.0;
        }
        self.go(o, ob, om)
    }
}

/// Per output dim of a row-major reshape from `dims_in` to `dims_out`,
/// the operand dims merged into it (size-1 dims aside; empty for a size-1
/// output dim); `None` when some output dim is not such a merge.
fn merges(dims_in: &[i64], dims_out: &[i64]) -> Option<Vec<Vec<usize>>> {
    let mut groups = vec![Vec::new(); dims_out.len()];
    let mut nz_in = (0..dims_in.len()).filter(|&d| dims_in[d] != 1).peekable();
    for (od, &n) in dims_out.iter().enumerate() {
        if n == 1 {
            continue;
        }
        let mut prod: i64 = 1;
        while prod < n {
            let d = nz_in.next()?;
            prod = prod.checked_mul(dims_in[d])?;
            groups[od].push(d);
        }
        if prod != n {
            return None;
        }
    }
    nz_in.peek().is_none().then_some(groups)
}
