//! The scene: what cameras, lidars and collisions meet. Static triangles
//! (road surfaces, curbs, sidewalks, lane marks, walls: [`surface`]),
//! static axis-aligned boxes (buildings, trees, poles, lights and signs:
//! [`props`]), the flat ground below everything, and this tick's moving
//! actors (yaw-turned boxes).
//!
//! One spatial index serves every query: a uniform 2D grid over the map
//! ([`grid`]) listing the triangles, the boxes and (rebuilt each tick)
//! the actors in each cell, with the height range of each cell's static
//! geometry. The ray caster ([`ray`]) walks it cell by cell; the
//! rasterizer takes its blocks of cells (each item once, with the block's
//! bounds) for frustum culling; spawn and collision checks look up the
//! cells a footprint covers.
//!
//! A box that contains the ray's origin is not hit (a camera inside the
//! player's car sees out of it).

pub(crate) mod build;
mod grid;
pub(crate) mod props;
mod ray;
pub(crate) mod surface;
pub(crate) mod tags;

use super::math::{scale, slab_entry, sub, v3, Rect};
use carla_server::rpc::{Weather, DEFAULT_WEATHER};
use carla_server::types::Vector3D;
use grid::{Csr, Grid};
use std::sync::Arc;
use tags::tag;

/// The nearest surface along a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Hit {
    /// Ray parameter of the hit: metres when the direction is a unit vector.
    pub distance: f32,
    pub point: Vector3D,
    /// Unit normal, facing the ray.
    pub normal: Vector3D,
    /// Internal semantic tag ([`tag`]).
    pub semantic_tag: u8,
    /// Actor id (vehicles, pedestrians, lights, signs), 0 for the map.
    pub actor_id: u32,
    /// Base colour, sRGB-ish.
    pub albedo: [u8; 3],
}

/// A static axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StaticBox {
    pub min: Vector3D,
    pub max: Vector3D,
    pub tag: u8,
    pub albedo: [u8; 3],
    /// Index of the traffic light whose state colours this box, or
    /// [`NO_LIGHT`].
    pub light: u16,
    /// The actor the box is part of (a traffic light's pole and lamp, a
    /// sign's post and board, as CARLA's light and sign actors carry their
    /// meshes), 0 for level geometry.
    pub actor: u32,
}

pub(crate) const NO_LIGHT: u16 = u16::MAX;

/// What a triangle is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Material {
    pub tag: u8,
    pub albedo: [u8; 3],
    /// Whether vehicles collide with it (walls), or drive over it (roads,
    /// curbs, marks).
    pub solid: bool,
}

/// A static triangle: a corner, the two edges from it, the unit normal
/// (facing up, or out of a wall) and its material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Tri {
    pub p0: Vector3D,
    pub e1: Vector3D,
    pub e2: Vector3D,
    pub normal: Vector3D,
    pub material: u16,
}

impl Tri {
    /// The triangle `a, b, c`, or `None` when it has no area. The normal
    /// faces up (a vertical one: to the left of `a → b` seen from above).
    pub(crate) fn new(a: Vector3D, b: Vector3D, c: Vector3D, material: u16) -> Option<Tri> {
        use super::math::{length, scale, sub};
        let (e1, e2) = (sub(b, a), sub(c, a));
        let n = v3(
            e1.y * e2.z - e1.z * e2.y,
            e1.z * e2.x - e1.x * e2.z,
            e1.x * e2.y - e1.y * e2.x,
        );
        let len = length(n);
        if len.is_nan() || len <= 1e-9 {
            return None;
        }
        let mut n = scale(n, 1.0 / len);
        if n.z < 0.0 || (n.z == 0.0 && (n.x * e1.y - n.y * e1.x) > 0.0) {
            n = scale(n, -1.0);
        }
        Some(Tri {
            p0: a,
            e1,
            e2,
            normal: n,
            material,
        })
    }

    pub(crate) fn corners(&self) -> [Vector3D; 3] {
        use super::math::add;
        [self.p0, add(self.p0, self.e1), add(self.p0, self.e2)]
    }
}

/// Everything static, before it is indexed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Statics {
    pub boxes: Vec<StaticBox>,
    /// Where the street lamps shine from.
    pub lamps: Vec<Vector3D>,
    pub tris: Vec<Tri>,
    pub materials: Vec<Material>,
    /// The ground plane's height (below every road).
    pub ground_z: f32,
    /// The ground plane's look.
    pub ground: Material,
    /// The area the grid covers, `(min, max)` in the ground plane.
    pub bounds: ((f32, f32), (f32, f32)),
}

/// A moving actor: a box turned by its yaw, standing on `z0..z1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ActorBox {
    pub id: u32,
    pub rect: Rect,
    pub z0: f32,
    pub z1: f32,
    pub tag: u8,
    pub albedo: [u8; 3],
    /// Side faces above this height are drawn as windows (dark).
    pub window_z: f32,
    /// Its shape in pieces, `parts[start..end]` of the scene's; none: the
    /// box itself. The pieces lie inside the box.
    pub parts: (u32, u32),
}

/// A piece of an actor's shape (a walker's limb, a car's wheel or lamp):
/// a box centred at `c` with half sizes `half` along unit axes `axes`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Part {
    pub c: Vector3D,
    pub axes: [Vector3D; 3],
    pub half: [f32; 3],
    pub albedo: [u8; 3],
    /// Its internal tag: the actor's, or [`tag::VEHICLE_LAMPS`] for a lit
    /// lamp (its colour at any hour).
    pub tag: u8,
}

impl Part {
    /// Its corner at `-half` and its three edges (for a box drawer).
    pub(crate) fn edges(&self) -> (Vector3D, [Vector3D; 3]) {
        let e = std::array::from_fn(|k| scale(self.axes[k], 2.0 * self.half[k]));
        let p = (0..3).fold(self.c, |p, k| sub(p, scale(self.axes[k], self.half[k])));
        (p, e)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Found {
    Nothing,
    Ground,
    /// Static box index and the axis of the face hit.
    Static(u32, u8),
    /// Triangle index.
    Tri(u32),
    /// Actor index and the local axis of the face hit.
    Actor(u32, u8),
    /// Actor index, the index of its piece in the scene's and the piece's
    /// axis of the face hit.
    Part(u32, u32, u8),
}

/// Default grid cell, metres.
pub(crate) const CELL: f32 = 8.0;

/// Cells of a rendering block, per side.
pub(crate) const BLOCK: usize = 8;

/// A flat convex polygon for the rasterizer: a triangle, or two of the
/// scene's triangles that share an edge, a material and a plane (a road's
/// strips are made of such pairs), drawn as one face.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Poly {
    /// Corners in order round it; the fourth is unused in a triangle.
    pub corners: [Vector3D; 4],
    pub n: u8,
    /// Unit normal, the first triangle's.
    pub normal: Vector3D,
    pub material: u16,
}

impl Poly {
    pub(crate) fn of(t: &Tri) -> Poly {
        let [a, b, c] = t.corners();
        Poly {
            corners: [a, b, c, c],
            n: 3,
            normal: t.normal,
            material: t.material,
        }
    }

    /// `t` and `u` as one quad when `u` follows `t` round their shared
    /// edge (`t` = a b c, `u` = a c d), with the same material and normal
    /// (to 1e-6) and a convex outline a b c d.
    pub(crate) fn pair(t: &Tri, u: &Tri) -> Option<Poly> {
        use super::math::{cross, dot, sub};
        let [a, b, c] = t.corners();
        let [a2, c2, d] = u.corners();
        let dn = sub(t.normal, u.normal);
        let same_plane = dn.x.abs() <= 1e-6 && dn.y.abs() <= 1e-6 && dn.z.abs() <= 1e-6;
        if a2 != a || c2 != c || t.material != u.material || !same_plane {
            return None;
        }
        let q = [a, b, c, d];
        let turn = |k: usize| {
            let (p0, p1, p2) = (q[k], q[(k + 1) % 4], q[(k + 2) % 4]);
            dot(t.normal, cross(sub(p1, p0), sub(p2, p1)))
        };
        let turns = [turn(0), turn(1), turn(2), turn(3)];
        let convex = turns.iter().all(|&x| x > 0.0) || turns.iter().all(|&x| x < 0.0);
        convex.then_some(Poly {
            corners: q,
            n: 4,
            normal: t.normal,
            material: t.material,
        })
    }

    /// Its corners.
    pub(crate) fn points(&self) -> &[Vector3D] {
        &self.corners[..usize::from(self.n)]
    }
}

/// A block of the grid for the rasterizer: the triangles and boxes whose
/// centre lies in it, and their bounds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Block {
    pub min: Vector3D,
    pub max: Vector3D,
    /// Its triangles, paired into quads where they can be, in the scene's
    /// order: copies, so a block's set-up reads them in a row (by index,
    /// from the whole scene's list, most of a far block's time went in
    /// cache misses), and half as many faces to set up and draw.
    pub polys: Vec<Poly>,
    pub boxes: Vec<u32>,
}

/// The scene's static part, shared by every episode of a map.
pub(crate) struct Fixed {
    grid: Grid,
    boxes: Vec<[f32; 6]>,
    meta: Vec<StaticBox>,
    tris: Vec<Tri>,
    materials: Vec<Material>,
    ground_z: f32,
    ground: Material,
    /// Static boxes, triangles and solid triangles (walls) per cell; a
    /// cell's triangles highest first, with their `[top, bottom]` heights
    /// alongside (`tri_z`, in the order of `tri_cells.all()`), so a ray
    /// passing above a cell's ground stops looking at its first low one.
    box_cells: Csr,
    tri_cells: Csr,
    tri_z: Vec<[f32; 2]>,
    solid_cells: Csr,
    /// Height range of each cell's static geometry.
    cell_low: Vec<f32>,
    cell_top: Vec<f32>,
    static_top: f32,
    blocks: Vec<Block>,
    /// The street lamps, and by cell those within [`LAMP_REACH`] of it.
    lamps: Vec<Vector3D>,
    lamp_cells: Csr,
}

/// How far a street lamp lights, metres.
pub(crate) const LAMP_REACH: f32 = 14.0;

/// The scene: static geometry plus this tick's actors and light states.
pub(crate) struct Scene {
    fixed: Arc<Fixed>,
    actors: Vec<ActorBox>,
    /// The actors' pieces ([`ActorBox::parts`]).
    parts: Vec<Part>,
    actor_cells: Csr,
    actor_top: f32,
    /// Buffers of the per-tick rebuild (kept to avoid allocating).
    spans: Vec<[usize; 4]>,
    light_albedo: Vec<[u8; 3]>,
    /// The weather the cameras light the scene by.
    weather: Weather,
}

impl std::ops::Deref for Scene {
    type Target = Fixed;
    fn deref(&self) -> &Fixed {
        &self.fixed
    }
}

impl Fixed {
    /// Indexes `statics` in a grid of `cell` metres.
    pub(crate) fn new(statics: Statics, cell: f32) -> Fixed {
        let ((x0, y0), (x1, y1)) = statics.bounds;
        let grid = Grid::new((x0, y0), (x1, y1), cell);
        let boxes: Vec<[f32; 6]> = statics
            .boxes
            .iter()
            .map(|b| [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z])
            .collect();
        let box_spans: Vec<[usize; 4]> = boxes
            .iter()
            .map(|b| grid.span(b[0], b[1], b[3], b[4]))
            .collect();
        let tri_spans: Vec<[usize; 4]> = statics
            .tris
            .iter()
            .map(|t| {
                let c = t.corners();
                let (lx, hx) = min_max([c[0].x, c[1].x, c[2].x]);
                let (ly, hy) = min_max([c[0].y, c[1].y, c[2].y]);
                grid.span(lx, ly, hx, hy)
            })
            .collect();
        let box_cells = Csr::build(grid.cells(), &box_spans, grid.nx);
        let heights: Vec<[f32; 2]> = statics
            .tris
            .iter()
            .map(|t| {
                let c = t.corners();
                let (low, top) = min_max([c[0].z, c[1].z, c[2].z]);
                [top, low]
            })
            .collect();
        let mut tri_cells = Csr::build(grid.cells(), &tri_spans, grid.nx);
        tri_cells.sort_each_by_desc(|i| heights[i as usize][0]);
        let tri_z = tri_cells
            .all()
            .iter()
            .map(|&i| heights[i as usize])
            .collect();
        // Solid triangles only: what a vehicle's footprint may hit.
        let no_cells = [usize::MAX, usize::MAX, 0, 0];
        let solid_spans: Vec<[usize; 4]> = statics
            .tris
            .iter()
            .zip(&tri_spans)
            .map(|(t, span)| {
                if statics.materials[t.material as usize].solid {
                    *span
                } else {
                    no_cells
                }
            })
            .collect();
        let solid_cells = Csr::build(grid.cells(), &solid_spans, grid.nx);
        let n = grid.cells();
        let mut cell_low = vec![f32::INFINITY; n];
        let mut cell_top = vec![f32::NEG_INFINITY; n];
        for c in 0..n {
            for &i in box_cells.items(c) {
                cell_low[c] = cell_low[c].min(boxes[i as usize][2]);
                cell_top[c] = cell_top[c].max(boxes[i as usize][5]);
            }
            for &i in tri_cells.items(c) {
                for p in statics.tris[i as usize].corners() {
                    cell_low[c] = cell_low[c].min(p.z);
                    cell_top[c] = cell_top[c].max(p.z);
                }
            }
        }
        let static_top = cell_top.iter().copied().fold(statics.ground_z, f32::max);
        let blocks = grid::blocks(&grid, &statics.tris, &boxes);
        let r = LAMP_REACH;
        let lamp_spans: Vec<[usize; 4]> = statics
            .lamps
            .iter()
            .map(|l| grid.span(l.x - r, l.y - r, l.x + r, l.y + r))
            .collect();
        let lamp_cells = Csr::build(grid.cells(), &lamp_spans, grid.nx);
        Fixed {
            grid,
            boxes,
            meta: statics.boxes,
            tris: statics.tris,
            materials: statics.materials,
            ground_z: statics.ground_z,
            ground: statics.ground,
            box_cells,
            tri_cells,
            tri_z,
            solid_cells,
            cell_low,
            cell_top,
            static_top,
            blocks,
            lamps: statics.lamps,
            lamp_cells,
        }
    }

    /// The street lamps that may light ground point `(x, y)`: those within
    /// [`LAMP_REACH`] of its cell (none outside the grid).
    #[inline]
    pub(crate) fn lamps_near(&self, x: f32, y: f32) -> impl Iterator<Item = &Vector3D> {
        let (ix, iy) = self.grid.cell_of(x, y);
        self.lamp_cells
            .items(iy * self.grid.nx + ix)
            .iter()
            .map(|&i| &self.lamps[i as usize])
    }

    /// The static boxes, `[min x, min y, min z, max x, max y, max z]` each.
    pub(crate) fn static_bounds(&self) -> &[[f32; 6]] {
        &self.boxes
    }

    /// The static triangles and their materials.
    pub(crate) fn tris(&self) -> &[Tri] {
        &self.tris
    }

    /// The rendering blocks.
    pub(crate) fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The ground plane's height and look.
    pub(crate) fn ground(&self) -> (f32, &Material) {
        (self.ground_z, &self.ground)
    }

    /// The actor static box `i` is part of (0: level geometry).
    pub(crate) fn static_actor(&self, i: usize) -> u32 {
        self.meta[i].actor
    }

    /// Static box `i`'s internal tag.
    pub(crate) fn static_tag(&self, i: usize) -> u8 {
        self.meta[i].tag
    }

    /// The triangles' materials, by [`Tri::material`].
    pub(crate) fn materials(&self) -> &[Material] {
        &self.materials
    }
}

impl Scene {
    /// A scene of `fixed` with no actors yet.
    pub(crate) fn new(fixed: Arc<Fixed>) -> Scene {
        let mut s = Scene {
            fixed,
            actors: Vec::new(),
            parts: Vec::new(),
            actor_cells: Csr::default(),
            actor_top: f32::NEG_INFINITY,
            spans: Vec::new(),
            light_albedo: Vec::new(),
            weather: DEFAULT_WEATHER,
        };
        s.set_actors(&[], &[]);
        s
    }

    /// A scene of `statics` alone (tests, benchmarks).
    #[allow(dead_code)]
    pub(crate) fn of(statics: Statics) -> Scene {
        Scene::new(Arc::new(Fixed::new(statics, CELL)))
    }

    /// Replaces the moving actors and their pieces (no allocation once
    /// warmed up).
    pub(crate) fn set_actors(&mut self, actors: &[ActorBox], parts: &[Part]) {
        self.actors.clear();
        self.actors.extend_from_slice(actors);
        self.parts.clear();
        self.parts.extend_from_slice(parts);
        self.actor_top = actors
            .iter()
            .map(|a| a.z1)
            .fold(f32::NEG_INFINITY, f32::max);
        self.spans.clear();
        let grid = self.fixed.grid;
        self.spans.extend(actors.iter().map(|a| {
            let (lo, hi) = a.rect.bounds();
            grid.span(lo.0, lo.1, hi.0, hi.1)
        }));
        self.actor_cells.rebuild(grid.cells(), &self.spans, grid.nx);
    }

    /// This tick's moving actors.
    pub(crate) fn actors(&self) -> &[ActorBox] {
        &self.actors
    }

    /// The pieces of actor `a` (none: it is its box).
    pub(crate) fn parts_of(&self, a: &ActorBox) -> &[Part] {
        self.parts
            .get(a.parts.0 as usize..a.parts.1 as usize)
            .unwrap_or(&[])
    }

    pub(crate) fn material(&self, i: u16) -> &Material {
        &self.materials[i as usize]
    }

    /// The finer internal tag (lamp housings are [`tag::TRAFFIC_LIGHTS`])
    /// and the base colour (a lamp's: its light's) of static box `i`.
    pub(crate) fn static_look(&self, i: usize) -> (u8, [u8; 3]) {
        let m = &self.meta[i];
        match self.light_albedo.get(m.light as usize) {
            Some(&c) if m.light != NO_LIGHT => (tag::TRAFFIC_LIGHTS, c),
            _ if m.light != NO_LIGHT => (tag::TRAFFIC_LIGHTS, m.albedo),
            _ => (m.tag, m.albedo),
        }
    }

    /// The id of an actor whose box contains `p`, or 0.
    pub(crate) fn actor_containing(&self, p: Vector3D) -> u32 {
        let inside = |a: &&ActorBox| {
            let r = &a.rect;
            let (dx, dy) = (p.x - r.cx, p.y - r.cy);
            (dx * r.cos + dy * r.sin).abs() <= r.hx
                && (-dx * r.sin + dy * r.cos).abs() <= r.hy
                && (a.z0..=a.z1).contains(&p.z)
        };
        self.actors.iter().find(inside).map_or(0, |a| a.id)
    }

    /// The weather the cameras light the scene by (CARLA's ClearNoon at
    /// first).
    pub(crate) fn weather(&self) -> &Weather {
        &self.weather
    }

    /// Sets the weather the cameras light the scene by.
    pub(crate) fn set_weather(&mut self, w: Weather) {
        self.weather = w;
    }

    /// Colours of the traffic-light lamps, by light index.
    pub(crate) fn set_light_colours(&mut self, colours: impl Iterator<Item = [u8; 3]>) {
        self.light_albedo.clear();
        self.light_albedo.extend(colours);
    }

    /// What a ground rectangle standing on `z0..z1` overlaps of the static
    /// boxes and solid triangles: (internal tag, actor).
    pub(crate) fn static_overlap(&self, r: &Rect, z0: f32, z1: f32) -> Option<(u8, u32)> {
        let (lo, hi) = r.bounds();
        let [x0, y0, x1, y1] = self.grid.span(lo.0, lo.1, hi.0, hi.1);
        for iy in y0..=y1 {
            for ix in x0..=x1 {
                let c = iy * self.grid.nx + ix;
                for &i in self.box_cells.items(c) {
                    let b = &self.boxes[i as usize];
                    let aabb = Rect::axis_aligned((b[0], b[1]), (b[3], b[4]));
                    if b[2] < z1 && b[5] > z0 && aabb.overlaps(r) {
                        let m = &self.meta[i as usize];
                        return Some((m.tag, m.actor));
                    }
                }
                for &i in self.solid_cells.items(c) {
                    let t = &self.tris[i as usize];
                    if tri_meets(t, r, z0, z1) {
                        return Some((self.materials[t.material as usize].tag, 0));
                    }
                }
            }
        }
        None
    }

    /// The height of the highest surface under `(x, y)` at most `reach`
    /// above `z` (the ground plane if nothing else), and its normal.
    pub(crate) fn ground_at(&self, x: f32, y: f32, z: f32, reach: f32) -> (f32, Vector3D) {
        let top = z + reach;
        let down = v3(0.0, 0.0, -1.0);
        match self.cast_static(v3(x, y, top), down, f32::INFINITY) {
            Some(h) => (h.point.z, h.normal),
            None => (self.ground_z, v3(0.0, 0.0, 1.0)),
        }
    }
}

fn min_max(v: [f32; 3]) -> (f32, f32) {
    (v[0].min(v[1]).min(v[2]), v[0].max(v[1]).max(v[2]))
}

/// Whether a solid (vertical) triangle crosses a ground rectangle within
/// heights `z0..z1`: any of its edges, seen from above, meets the
/// rectangle, and its height range overlaps.
fn tri_meets(t: &Tri, r: &Rect, z0: f32, z1: f32) -> bool {
    let c = t.corners();
    let (lo, hi) = min_max([c[0].z, c[1].z, c[2].z]);
    if hi <= z0 || lo >= z1 {
        return false;
    }
    // In the rectangle's frame: a segment against a box, by clipping.
    let local = |p: Vector3D| {
        let (dx, dy) = (p.x - r.cx, p.y - r.cy);
        (dx * r.cos + dy * r.sin, -dx * r.sin + dy * r.cos)
    };
    let pts = c.map(local);
    (0..3).any(|k| {
        let (a, b) = (pts[k], pts[(k + 1) % 3]);
        slab_entry(a, b, r.hx, r.hy).is_some()
    })
}

#[cfg(test)]
mod tests;
