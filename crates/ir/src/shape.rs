//! Shapes: an array (element type, dims, layout) or a tuple of shapes, and
//! program shapes (a computation's signature). Sizes are computed with
//! overflow checks: a product that overflows is an error, never a wrap.
//!
//! Bounded dynamic dimensions (`f32[<=4,3]`): `dims` holds the bound and
//! [`DynamicDims`] one bit per dimension saying it is dynamic. Static shapes
//! carry an empty mask (a `u64`, no allocation), so nothing changes for
//! them. [`Shape::compatible`] ignores the mask (XLA's `Compatible`);
//! [`Shape::same_dynamism`] compares it.

use crate::element_type::ElementType;
use crate::error::{IrError, Result};
use crate::layout::Layout;
use std::fmt;

/// Largest dimension size accepted anywhere (2^40); protects every later
/// allocation from sizes the text merely declares.
pub const MAX_DIM: i64 = 1 << 40;

/// Dynamic dimensions can only be among the first 64 dimensions.
pub const MAX_DYNAMIC_DIM: usize = 64;

/// Which dimensions of an array shape are bounded dynamic (`<=N`): bit `i`
/// for dimension `i`. The default (no bit) is a static shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DynamicDims(pub u64);

impl DynamicDims {
    pub const STATIC: DynamicDims = DynamicDims(0);

    pub fn is_static(self) -> bool {
        self.0 == 0
    }

    /// Is dimension `d` dynamic?
    pub fn get(self, d: usize) -> bool {
        d < MAX_DYNAMIC_DIM && self.0 >> d & 1 == 1
    }

    /// Marks dimension `d` dynamic (or static); errors past
    /// [`MAX_DYNAMIC_DIM`] when marking dynamic.
    pub fn set(&mut self, d: usize, dynamic: bool) -> Result<()> {
        if d >= MAX_DYNAMIC_DIM {
            if dynamic {
                return Err(IrError::shape(format!(
                    "dimension {d} cannot be dynamic: only the first {MAX_DYNAMIC_DIM} dimensions can"
                )));
            }
            return Ok(());
        }
        if dynamic {
            self.0 |= 1 << d;
        } else {
            self.0 &= !(1 << d);
        }
        Ok(())
    }

    /// The mask with the bit of `d` set (ignored past [`MAX_DYNAMIC_DIM`]).
    pub fn with(mut self, d: usize) -> DynamicDims {
        let _ = self.set(d, true);
        self
    }

    /// Dynamic dimension numbers, ascending.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..MAX_DYNAMIC_DIM).filter(move |&d| self.get(d))
    }

    /// Keeps only bits below `rank`.
    pub fn truncate(self, rank: usize) -> DynamicDims {
        if rank >= MAX_DYNAMIC_DIM {
            self
        } else {
            DynamicDims(self.0 & ((1u64 << rank) - 1))
        }
    }
}

/// An array shape: element type, dims (each ≥ 0; the bound of a dynamic
/// dimension), the dynamic-dimension mask and a layout.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayShape {
    pub element_type: ElementType,
    pub dims: Vec<i64>,
    pub layout: Layout,
    /// Bounded dynamic dimensions; empty for a static shape.
    pub dynamic: DynamicDims,
}

/// A shape: an array or a (possibly nested, possibly empty) tuple.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Array(ArrayShape),
    Tuple(Vec<Shape>),
}

impl ArrayShape {
    /// An array shape with the default layout. Checks dims are in
    /// `0..=MAX_DIM`; the element count is not checked here (see
    /// [`ArrayShape::element_count`]).
    pub fn new(element_type: ElementType, dims: impl Into<Vec<i64>>) -> Result<ArrayShape> {
        let dims = dims.into();
        check_dims(&dims)?;
        if element_type == ElementType::Token && !dims.is_empty() {
            return Err(IrError::shape("token shapes have no dimensions"));
        }
        let layout = Layout::default_for_rank(dims.len());
        Ok(ArrayShape {
            element_type,
            dims,
            layout,
            dynamic: DynamicDims::STATIC,
        })
    }

    /// Is any dimension dynamic?
    pub fn is_dynamic(&self) -> bool {
        !self.dynamic.is_static()
    }

    /// Is dimension `d` dynamic?
    pub fn is_dynamic_dim(&self, d: usize) -> bool {
        self.dynamic.get(d)
    }

    /// The same shape with the given dynamic mask (bits past the rank
    /// dropped).
    pub fn with_dynamic(mut self, dynamic: DynamicDims) -> ArrayShape {
        self.dynamic = dynamic.truncate(self.dims.len());
        self
    }

    /// The same shape with every dimension static.
    pub fn to_static(&self) -> ArrayShape {
        let mut s = self.clone();
        s.dynamic = DynamicDims::STATIC;
        s
    }

    /// Like [`ArrayShape::new`] with an explicit layout, validated.
    pub fn with_layout(
        element_type: ElementType,
        dims: impl Into<Vec<i64>>,
        layout: Layout,
    ) -> Result<ArrayShape> {
        let mut s = ArrayShape::new(element_type, dims)?;
        layout.validate(&s.dims)?;
        layout.validate_element_size(element_type)?;
        s.layout = layout;
        Ok(s)
    }

    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Number of dimensions of size > 1.
    pub fn true_rank(&self) -> usize {
        self.dims.iter().filter(|&&d| d > 1).count()
    }

    /// Product of dims, checked: an overflow (or more than i64::MAX
    /// elements) is an error.
    pub fn element_count(&self) -> Result<usize> {
        checked_product(&self.dims)
    }

    /// Number of elements in the physical buffer (padded dims included).
    pub fn physical_element_count(&self) -> Result<usize> {
        checked_product(&self.layout.physical_dims(&self.dims))
    }

    /// Size of the physical buffer in bytes, checked: XLA's size, so a
    /// packed layout (`E(4)` on s4, [`crate::Layout::packed_bits`]) takes
    /// ceil(n * bits / 8) bytes for n physical elements.
    pub fn byte_size(&self) -> Result<usize> {
        let n = self.physical_element_count()?;
        let bytes = match self.layout.packed_bits(self.element_type) {
            Some(bits) => Some(crate::narrow::packed_len(n, bits)),
            None => n.checked_mul(self.element_type.byte_size()),
        };
        bytes
            .filter(|&b| b <= i64::MAX as usize)
            .ok_or_else(|| IrError::shape(format!("byte size of {self} overflows")))
    }

    /// Bits per element of a packed physical buffer (`E(2)`/`E(4)` on
    /// s2/u2/s4/u4), else `None`.
    pub fn packed_bits(&self) -> Option<u32> {
        self.layout.packed_bits(self.element_type)
    }

    /// Resolves a dimension number: negative numbers count from the end
    /// (-1 = last). Errors when out of range.
    pub fn resolve_dim(&self, d: i64) -> Result<usize> {
        resolve_dim(d, self.rank())
    }

    /// Same element type and dims (layout and dynamism ignored, like
    /// XLA's `ShapeUtil::Compatible`; a dynamic dim compares its bound).
    pub fn compatible(&self, other: &ArrayShape) -> bool {
        self.element_type == other.element_type && self.dims == other.dims
    }

    pub fn is_scalar(&self) -> bool {
        self.dims.is_empty()
    }

    /// Same dims and type, with the default layout.
    pub fn with_default_layout(&self) -> ArrayShape {
        ArrayShape {
            element_type: self.element_type,
            dims: self.dims.clone(),
            layout: Layout::default_for_rank(self.dims.len()),
            dynamic: self.dynamic,
        }
    }

    /// Writes `f32[2,3]` / `f32[<=4,3]` (no layout).
    pub fn fmt_no_layout(&self, f: &mut impl fmt::Write) -> fmt::Result {
        write!(f, "{}[", self.element_type)?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if self.dynamic.get(i) {
                f.write_str("<=")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// Checks every dim is in `0..=MAX_DIM`.
pub fn check_dims(dims: &[i64]) -> Result<()> {
    for (i, &d) in dims.iter().enumerate() {
        if d < 0 {
            return Err(IrError::shape(format!(
                "dimension {i} has negative size {d}"
            )));
        }
        if d > MAX_DIM {
            return Err(IrError::shape(format!(
                "dimension {i} has size {d}, above the limit {MAX_DIM}"
            )));
        }
    }
    Ok(())
}

/// Product of dims as usize, erroring on overflow past i64::MAX.
pub fn checked_product(dims: &[i64]) -> Result<usize> {
    let mut n: i64 = 1;
    for &d in dims {
        if d < 0 {
            return Err(IrError::shape(format!("negative dimension size {d}")));
        }
        n = n.checked_mul(d).ok_or_else(|| {
            IrError::shape(format!("element count of dims {dims:?} overflows i64"))
        })?;
    }
    usize::try_from(n).map_err(|_| IrError::shape("element count does not fit usize"))
}

/// Resolves a possibly negative dimension number against `rank`.
pub fn resolve_dim(d: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    let x = if d < 0 { d + r } else { d };
    if x < 0 || x >= r {
        Err(IrError::shape(format!(
            "dimension {d} is out of range for rank {rank}"
        )))
    } else {
        Ok(x as usize)
    }
}

impl Shape {
    /// An array shape with the default layout.
    pub fn array(element_type: ElementType, dims: impl Into<Vec<i64>>) -> Result<Shape> {
        Ok(Shape::Array(ArrayShape::new(element_type, dims)?))
    }

    /// A scalar shape (`f32[]`).
    pub fn scalar(element_type: ElementType) -> Shape {
        Shape::Array(ArrayShape {
            element_type,
            dims: Vec::new(),
            layout: Layout::default_for_rank(0),
            dynamic: DynamicDims::STATIC,
        })
    }

    pub fn token() -> Shape {
        Shape::scalar(ElementType::Token)
    }

    pub fn tuple(elements: Vec<Shape>) -> Shape {
        Shape::Tuple(elements)
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Shape::Array(_))
    }

    pub fn is_tuple(&self) -> bool {
        matches!(self, Shape::Tuple(_))
    }

    pub fn is_token(&self) -> bool {
        matches!(self, Shape::Array(a) if a.element_type == ElementType::Token)
    }

    /// The array shape, or an error naming this shape.
    pub fn as_array(&self) -> Result<&ArrayShape> {
        match self {
            Shape::Array(a) => Ok(a),
            Shape::Tuple(_) => Err(IrError::shape(format!(
                "expected an array shape, got {self}"
            ))),
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            Shape::Tuple(_) => None,
        }
    }

    pub fn tuple_elements(&self) -> Option<&[Shape]> {
        match self {
            Shape::Tuple(t) => Some(t),
            Shape::Array(_) => None,
        }
    }

    /// Element type of an array shape.
    pub fn element_type(&self) -> Option<ElementType> {
        match self {
            Shape::Array(a) => Some(a.element_type),
            Shape::Tuple(_) => None,
        }
    }

    /// Dims of an array shape (empty for tuples).
    pub fn dims(&self) -> &[i64] {
        match self {
            Shape::Array(a) => &a.dims,
            Shape::Tuple(_) => &[],
        }
    }

    /// Equal up to layouts (recursively for tuples).
    pub fn compatible(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.compatible(b),
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.compatible(y))
            }
            _ => false,
        }
    }

    /// Same dynamic dimensions (recursively for tuples; tuple structure
    /// and ranks are assumed compatible).
    pub fn same_dynamism(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.dynamic == b.dynamic,
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_dynamism(y))
            }
            _ => false,
        }
    }

    /// Compatible and with the same dynamic dimensions.
    pub fn compatible_dynamic(&self, other: &Shape) -> bool {
        self.compatible(other) && self.same_dynamism(other)
    }

    /// Does any array leaf have a dynamic dimension?
    pub fn is_dynamic(&self) -> bool {
        match self {
            Shape::Array(a) => a.is_dynamic(),
            Shape::Tuple(t) => t.iter().any(Shape::is_dynamic),
        }
    }

    /// Validates dims and layouts recursively.
    pub fn validate(&self) -> Result<()> {
        match self {
            Shape::Array(a) => {
                check_dims(&a.dims)?;
                if a.dynamic.truncate(a.dims.len()) != a.dynamic {
                    return Err(IrError::shape(format!(
                        "dynamic dimension mask of {a} names a dimension past its rank"
                    )));
                }
                a.layout.validate(&a.dims)?;
                a.layout.validate_element_size(a.element_type)?;
                a.element_count()?;
                a.byte_size()?;
                Ok(())
            }
            Shape::Tuple(t) => t.iter().try_for_each(Shape::validate),
        }
    }

    /// Total bytes of all array leaves (physical), checked.
    pub fn byte_size(&self) -> Result<usize> {
        match self {
            Shape::Array(a) => a.byte_size(),
            Shape::Tuple(t) => t.iter().try_fold(0usize, |acc, s| {
                acc.checked_add(s.byte_size()?)
                    .ok_or_else(|| IrError::shape("tuple byte size overflows"))
            }),
        }
    }

    /// The same shape with every layout reset to the default.
    pub fn with_default_layouts(&self) -> Shape {
        match self {
            Shape::Array(a) => Shape::Array(a.with_default_layout()),
            Shape::Tuple(t) => Shape::Tuple(t.iter().map(Shape::with_default_layouts).collect()),
        }
    }

    /// The sub-shape at a tuple index path.
    pub fn subshape(&self, index: &[usize]) -> Option<&Shape> {
        match index.split_first() {
            None => Some(self),
            Some((&i, rest)) => self.tuple_elements()?.get(i)?.subshape(rest),
        }
    }

    /// Array leaves depth-first.
    pub fn leaves(&self) -> Vec<&ArrayShape> {
        let mut out = Vec::new();
        fn go<'a>(s: &'a Shape, out: &mut Vec<&'a ArrayShape>) {
            match s {
                Shape::Array(a) => out.push(a),
                Shape::Tuple(t) => t.iter().for_each(|x| go(x, out)),
            }
        }
        go(self, &mut out);
        out
    }

    /// Writes the shape without layouts (`(f32[2], s32[])`).
    pub fn fmt_no_layout(&self, f: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Shape::Array(a) => a.fmt_no_layout(f),
            Shape::Tuple(t) => {
                f.write_str("(")?;
                for (i, s) in t.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    s.fmt_no_layout(f)?;
                }
                f.write_str(")")
            }
        }
    }

    pub fn to_string_no_layout(&self) -> String {
        let mut s = String::new();
        let _ = self.fmt_no_layout(&mut s);
        s
    }
}

impl From<ArrayShape> for Shape {
    fn from(a: ArrayShape) -> Shape {
        Shape::Array(a)
    }
}

impl fmt::Display for ArrayShape {
    /// `f32[2,3]{1,0}`; scalars and tokens print without a layout unless
    /// it says more than the default (`s4[]{:E(4)}`, as XLA prints it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_no_layout(f)?;
        if !self.dims.is_empty() || !self.layout.is_default() {
            write!(f, "{}", self.layout)?;
        }
        Ok(())
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Array(a) => write!(f, "{a}"),
            Shape::Tuple(t) => {
                f.write_str("(")?;
                for (i, s) in t.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{s}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A computation's signature: parameter shapes and result shape.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramShape {
    pub parameters: Vec<Shape>,
    pub result: Shape,
}

impl ProgramShape {
    pub fn compatible(&self, other: &ProgramShape) -> bool {
        self.parameters.len() == other.parameters.len()
            && self
                .parameters
                .iter()
                .zip(&other.parameters)
                .all(|(a, b)| a.compatible(b))
            && self.result.compatible(&other.result)
    }

    /// Compatible, and with the same dynamic dimensions everywhere.
    pub fn compatible_dynamic(&self, other: &ProgramShape) -> bool {
        self.compatible(other)
            && self
                .parameters
                .iter()
                .zip(&other.parameters)
                .all(|(a, b)| a.same_dynamism(b))
            && self.result.same_dynamism(&other.result)
    }
}

impl fmt::Display for ProgramShape {
    /// `(f32[2]{0}, s32[])->f32[2]{0}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, p) in self.parameters.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, ")->{}", self.result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_overflow() {
        let s = ArrayShape::new(ElementType::F32, vec![2, 3, 1]).unwrap();
        assert_eq!(s.element_count().unwrap(), 6);
        assert_eq!(s.byte_size().unwrap(), 24);
        assert_eq!(s.true_rank(), 2);
        assert_eq!(s.to_string(), "f32[2,3,1]{2,1,0}");
        let big = ArrayShape::new(ElementType::F32, vec![MAX_DIM, MAX_DIM]).unwrap();
        assert!(big.element_count().is_err());
        assert!(ArrayShape::new(ElementType::F32, vec![-1]).is_err());
        assert!(ArrayShape::new(ElementType::F32, vec![MAX_DIM + 1]).is_err());
        let near = ArrayShape::new(ElementType::F64, vec![1 << 31, 1 << 30]).unwrap();
        assert_eq!(near.element_count().unwrap(), 1usize << 61);
        assert!(near.byte_size().is_err());
    }

    #[test]
    fn negative_dims_resolve() {
        let s = ArrayShape::new(ElementType::F32, vec![2, 3, 4]).unwrap();
        assert_eq!(s.resolve_dim(-1).unwrap(), 2);
        assert_eq!(s.resolve_dim(-3).unwrap(), 0);
        assert!(s.resolve_dim(-4).is_err());
        assert!(s.resolve_dim(3).is_err());
    }

    #[test]
    fn dynamic_dims_print_and_compare() {
        let s = ArrayShape::new(ElementType::F32, vec![4, 3])
            .unwrap()
            .with_dynamic(DynamicDims::STATIC.with(0));
        assert_eq!(s.to_string(), "f32[<=4,3]{1,0}");
        assert!(s.is_dynamic_dim(0) && !s.is_dynamic_dim(1));
        let st = ArrayShape::new(ElementType::F32, vec![4, 3]).unwrap();
        assert!(s.compatible(&st));
        assert!(!Shape::Array(s.clone()).same_dynamism(&Shape::Array(st.clone())));
        assert_eq!(s.to_static(), st);
        let mut m = DynamicDims::STATIC;
        assert!(m.set(64, true).is_err());
        assert!(m.set(63, true).is_ok());
        assert_eq!(m.iter().collect::<Vec<_>>(), vec![63]);
    }

    #[test]
    fn tuple_display() {
        let t = Shape::tuple(vec![
            Shape::array(ElementType::F32, vec![2]).unwrap(),
            Shape::scalar(ElementType::S32),
            Shape::tuple(vec![]),
        ]);
        assert_eq!(t.to_string(), "(f32[2]{0}, s32[], ())");
        assert_eq!(t.to_string_no_layout(), "(f32[2], s32[], ())");
    }
}
