//! The road surfaces as one shape for the wheels' rays: their triangles
//! filed in a grid of square cells over the ground plan, so a wheel's
//! short, nearly vertical ray tests the few triangles of the one or two
//! cells it crosses instead of walking two trees (the tiles', then each
//! tile mesh's), which took half of the physics step on CARLA's towns.
//!
//! A triangle is filed in every cell its plan (x, y) overlaps, so a ray
//! tests every triangle its plan's bounding rectangle could meet: the hit
//! is the nearest of them, as a mesh's would be. The grid is a parry
//! [`Shape`] (`ShapeType::Custom`): the only queries asked of it are rays
//! and point projections, which it answers with parry's own triangle
//! routines.

use rapier3d::parry::bounding_volume::{Aabb, BoundingSphere};
use rapier3d::parry::mass_properties::MassProperties;
use rapier3d::parry::query::{PointProjection, PointQuery, Ray, RayCast, RayIntersection};
use rapier3d::parry::shape::{FeatureId, Shape, ShapeType, Triangle, TypedShape};
use rapier3d::prelude::{Real, Vector};
use std::ops::RangeInclusive;
use std::sync::Arc;

/// A cell's side, metres, where the ground plan allows it.
const CELL: f32 = 2.0;
/// About this many cells at most (under three times it for any plan): a
/// bigger plan gets bigger cells.
const MAX_CELLS: f32 = 1_000_000.0;
/// At most this many (cell, triangle) entries; past it the grid is not
/// built (the tiled meshes serve instead).
const MAX_ENTRIES: usize = 8_000_000;

/// The surfaces' triangles filed by cell. Cloning shares them.
#[derive(Clone)]
pub(crate) struct GroundGrid(Arc<Inner>);

struct Inner {
    tris: Vec<Triangle>,
    plan: Plan,
    /// Cell `i`'s triangles are `entries[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    entries: Vec<u32>,
    aabb: Aabb,
}

impl GroundGrid {
    /// The grid of `tris`; `None` for none, a non-finite corner, or a plan
    /// too big to file.
    pub(crate) fn new(tris: Vec<[Vector; 3]>) -> Option<GroundGrid> {
        if tris.is_empty() || tris.len() >= u32::MAX as usize {
            return None;
        }
        let mut lo = Vector::splat(f32::INFINITY);
        let mut hi = Vector::splat(f32::NEG_INFINITY);
        for p in tris.iter().flatten() {
            if !p.is_finite() {
                return None;
            }
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        let (w, h) = ((hi.x - lo.x).max(1e-3), (hi.y - lo.y).max(1e-3));
        // (w/c)(h/c), w/c and h/c all at most MAX_CELLS.
        let cell = CELL
            .max((w * h / MAX_CELLS).sqrt())
            .max(w.max(h) / MAX_CELLS);
        let plan = Plan {
            origin: [lo.x, lo.y],
            cell,
            nx: (w / cell).floor() as usize + 1,
            ny: (h / cell).floor() as usize + 1,
        };
        let cells = plan.nx * plan.ny;
        // Count, then file.
        let mut counts = vec![0u32; cells + 1];
        let mut total = 0usize;
        for t in &tris {
            plan.file(t, |i| {
                counts[i] += 1;
                total += 1;
            });
            if total > MAX_ENTRIES {
                return None;
            }
        }
        let mut starts = Vec::with_capacity(cells + 1);
        let mut at = 0u32;
        for c in &counts {
            starts.push(at);
            at += c;
        }
        starts.truncate(cells + 1);
        let mut fill: Vec<u32> = starts.clone();
        let mut entries = vec![0u32; total];
        for (k, t) in tris.iter().enumerate() {
            plan.file(t, |i| {
                entries[fill[i] as usize] = k as u32;
                fill[i] += 1;
            });
        }
        Some(GroundGrid(Arc::new(Inner {
            tris: tris
                .iter()
                .map(|t| Triangle::new(t[0], t[1], t[2]))
                .collect(),
            plan,
            starts,
            entries,
            aabb: Aabb::new(lo, hi),
        })))
    }

    /// How many triangles it files.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.tris.len()
    }
}

/// Whether triangle `t`'s plan overlaps the rectangle `[x0, y0, x1, y1]`
/// (separating axes: the rectangle's two and the triangle's three edges).
fn overlaps(t: &[Vector; 3], r: [f32; 4]) -> bool {
    let [x0, y0, x1, y1] = r;
    let corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
    for i in 0..3 {
        let (a, b, c) = (t[i], t[(i + 1) % 3], t[(i + 2) % 3]);
        // The edge's normal in the plan, and the side the third corner is
        // on: the rectangle wholly on the other side separates them.
        let (nx, ny) = (b.y - a.y, a.x - b.x);
        let side = nx * (c.x - a.x) + ny * (c.y - a.y);
        if side == 0.0 {
            continue; // a degenerate plan (a vertical triangle): no axis
        }
        if corners
            .iter()
            .all(|p| (nx * (p[0] - a.x) + ny * (p[1] - a.y)) * side < 0.0)
        {
            return false;
        }
    }
    true
}

/// The grid over the ground plan: its corner (x, y), the cell's side and
/// the cells along x and y.
#[derive(Clone, Copy)]
struct Plan {
    origin: [f32; 2],
    cell: f32,
    nx: usize,
    ny: usize,
}

impl Plan {
    /// The cells (column and row ranges) under the plan of the box from
    /// `lo` to `hi`, within the grid; `None` when it lies outside.
    fn cells(
        &self,
        lo: Vector,
        hi: Vector,
    ) -> Option<(RangeInclusive<usize>, RangeInclusive<usize>)> {
        let f = |v: f32, o: f32| (v - o) / self.cell;
        let (x0, x1) = (f(lo.x, self.origin[0]), f(hi.x, self.origin[0]));
        let (y0, y1) = (f(lo.y, self.origin[1]), f(hi.y, self.origin[1]));
        let (nx, ny) = (self.nx as f32, self.ny as f32);
        if !(x1 >= 0.0 && y1 >= 0.0 && x0 < nx && y0 < ny) {
            return None;
        }
        let i = |v: f32, n: usize| (v.floor().max(0.0) as usize).min(n - 1);
        Some((
            i(x0, self.nx)..=i(x1, self.nx),
            i(y0, self.ny)..=i(y1, self.ny),
        ))
    }

    /// Hands `file` the index of every cell triangle `t`'s plan overlaps.
    fn file(&self, t: &[Vector; 3], mut file: impl FnMut(usize)) {
        let (lo, hi) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
        let Some((xs, ys)) = self.cells(lo, hi) else {
            return;
        };
        for cy in ys {
            for cx in xs.clone() {
                let x = self.origin[0] + cx as f32 * self.cell;
                let y = self.origin[1] + cy as f32 * self.cell;
                if overlaps(t, [x, y, x + self.cell, y + self.cell]) {
                    file(cy * self.nx + cx);
                }
            }
        }
    }
}

impl RayCast for GroundGrid {
    fn cast_local_ray_and_get_normal(
        &self,
        ray: &Ray,
        max_time_of_impact: Real,
        solid: bool,
    ) -> Option<RayIntersection> {
        let g = &*self.0;
        if !(max_time_of_impact.is_finite() && ray.origin.is_finite() && ray.dir.is_finite()) {
            return None;
        }
        let end = ray.point_at(max_time_of_impact);
        let (xs, ys) = g.plan.cells(ray.origin.min(end), ray.origin.max(end))?;
        let mut best: Option<RayIntersection> = None;
        let mut reach = max_time_of_impact;
        for cy in ys {
            for cx in xs.clone() {
                let i = cy * g.plan.nx + cx;
                let (s, e) = (g.starts[i] as usize, g.starts[i + 1] as usize);
                for &k in &g.entries[s..e] {
                    let tri = &g.tris[k as usize];
                    if let Some(hit) = tri.cast_local_ray_and_get_normal(ray, reach, solid) {
                        if best.is_none_or(|b| hit.time_of_impact < b.time_of_impact) {
                            reach = hit.time_of_impact;
                            best = Some(RayIntersection {
                                feature: FeatureId::Face(k),
                                ..hit
                            });
                        }
                    }
                }
            }
        }
        best
    }
}

impl PointQuery for GroundGrid {
    /// A surface has no inside: `solid` changes nothing.
    fn project_local_point(&self, pt: Vector, _solid: bool) -> PointProjection {
        self.project_local_point_and_get_feature(pt).0
    }

    /// The nearest point of any triangle (every one is looked at: the
    /// wheels never ask this).
    fn project_local_point_and_get_feature(&self, pt: Vector) -> (PointProjection, FeatureId) {
        let mut best = (
            PointProjection::new(false, pt + Vector::Z * 1e6),
            FeatureId::Unknown,
        );
        let mut far = f32::INFINITY;
        for (k, t) in self.0.tris.iter().enumerate() {
            let p = t.project_local_point(pt, false);
            let d = (p.point - pt).length_squared();
            if d < far {
                far = d;
                best = (p, FeatureId::Face(k as u32));
            }
        }
        best
    }
}

impl Shape for GroundGrid {
    fn compute_local_aabb(&self) -> Aabb {
        self.0.aabb
    }

    fn compute_local_bounding_sphere(&self) -> BoundingSphere {
        self.0.aabb.bounding_sphere()
    }

    fn clone_dyn(&self) -> Box<dyn Shape> {
        Box::new(self.clone())
    }

    fn scale_dyn(&self, _scale: Vector, _num_subdivisions: u32) -> Option<Box<dyn Shape>> {
        None
    }

    fn mass_properties(&self, _density: Real) -> MassProperties {
        MassProperties::new(Vector::ZERO, 0.0, Vector::ZERO)
    }

    fn shape_type(&self) -> ShapeType {
        ShapeType::Custom
    }

    fn as_typed_shape(&self) -> TypedShape<'_> {
        TypedShape::Custom(self)
    }

    fn ccd_thickness(&self) -> Real {
        0.0
    }

    fn ccd_angular_thickness(&self) -> Real {
        std::f32::consts::PI
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rapier3d::parry::shape::TriMesh;

    /// A bumpy, overlapping set of triangles: a sheet of 30 m strips at
    /// slants, with a second layer 0.5 m up over part of it (a bridge).
    fn triangles() -> Vec<[Vector; 3]> {
        let mut tris = Vec::new();
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32
        };
        for i in 0..40 {
            for j in 0..8 {
                let (x, y) = (i as f32 * 2.5 - 10.0, j as f32 * 4.0 + 3.0 * next());
                let z = 0.3 * next();
                let a = Vector::new(x, y, z);
                let b = Vector::new(x + 2.5 + 20.0 * next(), y + 1.0, z + 0.1 * next());
                let c = Vector::new(x + 1.0, y + 4.0 + 2.0 * next(), z);
                tris.push([a, b, c]);
            }
        }
        tris.push([
            Vector::new(0.0, 0.0, 0.5),
            Vector::new(40.0, 5.0, 0.5),
            Vector::new(0.0, 10.0, 0.6),
        ]);
        tris
    }

    #[test]
    fn rays_hit_what_the_mesh_they_came_from_hits() {
        let tris = triangles();
        let grid = GroundGrid::new(tris.clone()).expect("a grid");
        assert_eq!(grid.len(), tris.len());
        let vertices: Vec<Vector> = tris.iter().flatten().copied().collect();
        let indices: Vec<[u32; 3]> = (0..tris.len() as u32)
            .map(|k| [3 * k, 3 * k + 1, 3 * k + 2])
            .collect();
        let mesh = TriMesh::new(vertices, indices).unwrap();
        let mut hits = 0;
        for i in 0..120 {
            for j in 0..40 {
                let (x, y) = (i as f32 * 0.53 - 12.0, j as f32 * 0.91 - 2.0);
                // Wheel rays (down, a little tilted, 0.65 m) and long
                // slanted ones.
                for (o, d, len) in [
                    (Vector::new(x, y, 1.0), Vector::new(0.0, 0.0, -1.0), 0.65),
                    (Vector::new(x, y, 1.2), Vector::new(0.1, -0.05, -1.0), 1.0),
                    (Vector::new(x, y, 3.0), Vector::new(3.0, 1.0, -1.0), 5.0),
                ] {
                    let ray = Ray::new(o, d);
                    let want = mesh.cast_local_ray_and_get_normal(&ray, len, true);
                    let got = grid.cast_local_ray_and_get_normal(&ray, len, true);
                    match (want, got) {
                        (None, None) => {}
                        (Some(w), Some(g)) => {
                            hits += 1;
                            assert!(
                                (w.time_of_impact - g.time_of_impact).abs() < 1e-5,
                                "{ray:?}"
                            );
                            assert!((w.normal - g.normal).length() < 1e-4, "{ray:?}");
                        }
                        (w, g) => panic!("{ray:?}: mesh {w:?}, grid {g:?}"),
                    }
                }
            }
        }
        assert!(hits > 5000, "{hits} hits");
    }

    #[test]
    fn a_slanted_triangle_is_filed_only_where_it_lies() {
        // A thin diagonal triangle: its bounding box covers the square
        // (0, 0)-(20, 20), the triangle only the band along the diagonal.
        let t = [
            Vector::new(0.0, 0.0, 0.0),
            Vector::new(20.0, 20.0, 0.0),
            Vector::new(20.0, 19.0, 0.0),
        ];
        assert!(overlaps(&t, [9.0, 9.0, 11.0, 11.0]));
        assert!(!overlaps(&t, [0.0, 16.0, 2.0, 18.0]));
        assert!(!overlaps(&t, [16.0, 0.0, 18.0, 2.0]));
        let g = GroundGrid::new(vec![t]).unwrap();
        let filed = g.0.entries.len();
        assert!(filed < 40, "{filed} of {} cells", g.0.plan.nx * g.0.plan.ny);
        // A ray beside it, inside its box, finds nothing.
        let ray = Ray::new(Vector::new(3.0, 15.0, 1.0), Vector::new(0.0, 0.0, -1.0));
        assert!(g.cast_local_ray_and_get_normal(&ray, 2.0, true).is_none());
    }

    #[test]
    fn bad_input_builds_no_grid() {
        assert!(GroundGrid::new(Vec::new()).is_none());
        let nan = Vector::new(f32::NAN, 0.0, 0.0);
        assert!(GroundGrid::new(vec![[nan, Vector::X, Vector::Y]]).is_none());
        // A plan kilometres wide gets cells big enough to stay bounded.
        let far = [
            Vector::new(-1e5, -1e5, 0.0),
            Vector::new(1e5, -1e5, 0.0),
            Vector::new(0.0, 1e5, 0.0),
        ];
        let g = GroundGrid::new(vec![far]).unwrap();
        assert!(
            g.0.plan.nx * g.0.plan.ny <= 1_100_000,
            "{} cells",
            g.0.plan.nx * g.0.plan.ny
        );
        let ray = Ray::new(Vector::new(0.0, 0.0, 1.0), Vector::new(0.0, 0.0, -1.0));
        let hit = g.cast_local_ray_and_get_normal(&ray, 2.0, true).unwrap();
        assert!((hit.time_of_impact - 1.0).abs() < 1e-6);
        // So does a long, thin one.
        let thin = [
            Vector::new(-1e6, 0.0, 0.0),
            Vector::new(1e6, 0.0, 0.0),
            Vector::new(0.0, 1e-4, 0.0),
        ];
        let g = GroundGrid::new(vec![thin]).unwrap();
        assert!(
            g.0.plan.nx * g.0.plan.ny <= 3_000_001,
            "{} cells",
            g.0.plan.nx * g.0.plan.ny
        );
    }
}
