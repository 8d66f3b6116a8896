//! The scene's static geometry as rapier colliders, built once per town
//! (the shapes are shared by every episode's physics): the surfaces the
//! wheels roll on as triangle meshes (and, for the wheels' rays, as one
//! [`GroundGrid`]), each solid material's walls as others, each static
//! box (poles, signs, buildings, props) as a cuboid, and the ground plane
//! below everything.

use super::ground_grid::GroundGrid;
use super::Part;
use crate::world::scene::Fixed;
use rapier3d::prelude::*;

/// The side of a tile of the static meshes, metres.
const TILE: f32 = 32.0;

/// Shapes, where they stand and what they are.
pub(crate) struct Statics {
    shapes: Vec<(SharedShape, Vector, Part)>,
    /// The surface meshes' triangles filed for the wheels' rays (`None`
    /// when there are none or too many: the meshes serve then).
    grid: Option<GroundGrid>,
}

impl Statics {
    /// The colliders of `fixed`.
    pub(crate) fn of(fixed: &Fixed) -> Statics {
        let mut shapes = Vec::new();
        let materials = fixed.materials();
        // One mesh per tile and kind (surfaces, each wall tag): a car's box
        // then meets the broad phase's box of the few tiles under it, and
        // on flat ground (its box starts above the road) none.
        type Mesh = (Part, (i32, i32), Vec<Vector>, Vec<[u32; 3]>);
        let mut meshes: Vec<Mesh> = Vec::new();
        let mut index: std::collections::BTreeMap<(Part, (i32, i32)), usize> = Default::default();
        for t in fixed.tris() {
            let m = materials
                .get(t.material as usize)
                .copied()
                .unwrap_or_default();
            let part = if m.solid {
                Part::Static(m.tag, 0)
            } else {
                Part::Surface
            };
            let c = t.corners();
            let (cx, cy) = (
                (c[0].x + c[1].x + c[2].x) / 3.0,
                (c[0].y + c[1].y + c[2].y) / 3.0,
            );
            let tile = ((cx / TILE).floor() as i32, (cy / TILE).floor() as i32);
            let i = *index.entry((part, tile)).or_insert_with(|| {
                meshes.push((part, tile, Vec::new(), Vec::new()));
                meshes.len() - 1
            });
            let (_, _, vs, ix) = &mut meshes[i];
            let base = vs.len() as u32;
            vs.extend(c.map(|p| Vector::new(p.x, p.y, p.z)));
            ix.push([base, base + 1, base + 2]);
        }
        for (part, _, vs, ix) in meshes {
            if let Ok(mesh) = SharedShape::trimesh(vs, ix) {
                shapes.push((mesh, Vector::ZERO, part));
            }
        }
        for (i, b) in fixed.static_bounds().iter().enumerate() {
            let half = Vector::new(b[3] - b[0], b[4] - b[1], b[5] - b[2]) * 0.5;
            let centre = Vector::new(b[3] + b[0], b[4] + b[1], b[5] + b[2]) * 0.5;
            if half.is_finite() && half.min_element() > 0.0 {
                let part = Part::Static(fixed.static_tag(i), fixed.static_actor(i));
                shapes.push((SharedShape::cuboid(half.x, half.y, half.z), centre, part));
            }
        }
        let (ground_z, _) = fixed.ground();
        shapes.push((
            SharedShape::halfspace(Vector::Z),
            Vector::new(0.0, 0.0, ground_z),
            Part::Surface,
        ));
        Statics::filed(shapes)
    }

    /// `shapes`, their surface meshes also filed in a grid.
    fn filed(shapes: Vec<(SharedShape, Vector, Part)>) -> Statics {
        let mut tris = Vec::new();
        for (shape, at, part) in &shapes {
            if let (Part::Surface, Some(mesh)) = (part, shape.as_trimesh()) {
                tris.extend(mesh.triangles().map(|t| [t.a + *at, t.b + *at, t.c + *at]));
            }
        }
        let grid = GroundGrid::new(tris);
        Statics { shapes, grid }
    }

    /// Level ground at `z` and nothing else, plus `extra` shapes (tests).
    #[cfg(test)]
    pub(crate) fn with(z: f32, extra: Vec<(SharedShape, Vector, Part)>) -> Statics {
        let mut shapes = extra;
        shapes.push((
            SharedShape::halfspace(Vector::Z),
            Vector::new(0.0, 0.0, z),
            Part::Surface,
        ));
        Statics::filed(shapes)
    }

    /// Adds the colliders to `colliders` (no parent body: fixed); with
    /// `surfaces_only`, only what wheels roll on, the surface meshes as
    /// their grid when there is one.
    pub(super) fn insert(&self, colliders: &mut ColliderSet, surfaces_only: bool) {
        let grid = self.grid.as_ref().filter(|_| surfaces_only);
        if let Some(g) = grid {
            colliders.insert(
                ColliderBuilder::new(SharedShape::new(g.clone())).user_data(Part::Surface.data()),
            );
        }
        for (shape, at, part) in &self.shapes {
            if surfaces_only && *part != Part::Surface {
                continue;
            }
            if grid.is_some() && shape.as_trimesh().is_some() && *part == Part::Surface {
                continue;
            }
            colliders.insert(
                ColliderBuilder::new(shape.clone())
                    .translation(*at)
                    .friction(0.8)
                    .user_data(part.data()),
            );
        }
    }
}
