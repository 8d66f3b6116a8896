//! Ray queries against the town: the flat ground (classified by position),
//! the static boxes (buildings, poles, lamps, signs, trees, fences, walls)
//! and the moving actors (yaw-oriented boxes).
//!
//! Both kinds of boxes are registered in a uniform 2D grid over the town
//! (static: once; actors: rebuilt each tick), traversed cell by cell along
//! the ray (Amanatides–Woo DDA). A cell is skipped without testing its boxes
//! when the ray stays above the tallest static box of the cell; the
//! traversal stops at the first cell that ends past the nearest hit so far,
//! at the ground hit, or where the ray climbs above everything.
//!
//! A box that contains the ray's origin is not hit (a camera inside the
//! player's car sees out of it).

use super::geometry::{StaticBox, NO_LIGHT};
use super::math::{v3, Rect};
use super::town;
use carla_server::types::Vector3D;

/// The nearest surface along a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Hit {
    /// Ray parameter of the hit: metres when the direction is a unit vector.
    pub distance: f32,
    pub point: Vector3D,
    /// Unit outward normal.
    pub normal: Vector3D,
    /// CARLA semantic tag.
    pub semantic_tag: u8,
    /// Actor id (vehicles, pedestrians, the player), 0 for the map.
    pub actor_id: u32,
    /// Base colour, sRGB-ish.
    pub albedo: [u8; 3],
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
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Found {
    Nothing,
    Ground,
    /// Static box index and the axis of the face hit.
    Static(u32, u8),
    /// Actor index and the local axis of the face hit.
    Actor(u32, u8),
}

/// Default grid cell, metres.
pub(crate) const CELL: f32 = 8.0;

/// The scene: static geometry plus this tick's actors and light states.
pub(crate) struct Scene {
    x0: f32,
    y0: f32,
    cell: f32,
    nx: i32,
    ny: i32,
    boxes: Vec<[f32; 6]>,
    meta: Vec<StaticBox>,
    /// CSR over cells: `items[cells[c]..cells[c + 1]]` are the boxes of `c`.
    cells: Vec<u32>,
    items: Vec<u32>,
    cell_top: Vec<f32>,
    static_top: f32,
    actors: Vec<ActorBox>,
    actor_cells: Vec<u32>,
    actor_items: Vec<u32>,
    actor_top: f32,
    /// Buffers of the per-tick rebuild (kept to avoid allocating).
    spans: Vec<(i32, i32, i32, i32)>,
    cursor: Vec<u32>,
    light_albedo: Vec<[u8; 3]>,
}

impl Scene {
    /// A scene over `boxes` with the town's extent and grid `cell` size.
    pub(crate) fn new(boxes: Vec<StaticBox>, cell: f32) -> Scene {
        let lo = -town::WALL - 1.0;
        let size = town::LAST + 2.0 * (town::WALL + 1.0);
        let n = (size / cell).ceil() as i32;
        let mut s = Scene {
            x0: lo,
            y0: lo,
            cell,
            nx: n,
            ny: n,
            boxes: boxes
                .iter()
                .map(|b| [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z])
                .collect(),
            static_top: boxes.iter().map(|b| b.max.z).fold(0.0, f32::max),
            cells: Vec::new(),
            items: Vec::new(),
            cell_top: vec![f32::NEG_INFINITY; (n * n) as usize],
            actors: Vec::new(),
            actor_cells: Vec::new(),
            actor_items: Vec::new(),
            actor_top: 0.0,
            spans: Vec::new(),
            cursor: Vec::new(),
            light_albedo: Vec::new(),
            meta: boxes,
        };
        s.spans = s.meta.iter().map(|b| s.cell_span(b.min, b.max)).collect();
        let (mut cells, mut items) = (Vec::new(), Vec::new());
        s.fill(&mut cells, &mut items);
        for (c, top) in s.cell_top.iter_mut().enumerate() {
            for &i in &items[cells[c] as usize..cells[c + 1] as usize] {
                *top = top.max(s.meta[i as usize].max.z);
            }
        }
        (s.cells, s.items) = (cells, items);
        s.set_actors(&[]);
        s
    }

    /// Cells `(ix0, iy0, ix1, iy1)` (inclusive, clamped) covering a box.
    fn cell_span(&self, min: Vector3D, max: Vector3D) -> (i32, i32, i32, i32) {
        let ix = |x: f32| (((x - self.x0) / self.cell).floor() as i32).clamp(0, self.nx - 1);
        let iy = |y: f32| (((y - self.y0) / self.cell).floor() as i32).clamp(0, self.ny - 1);
        (ix(min.x), iy(min.y), ix(max.x), iy(max.y))
    }

    /// Builds a CSR cell → item list from the inclusive cell spans in
    /// `self.spans`.
    fn fill(&mut self, cells: &mut Vec<u32>, items: &mut Vec<u32>) {
        let n = (self.nx * self.ny) as usize;
        let nx = self.nx;
        let spans = &self.spans;
        let each = |f: &mut dyn FnMut(usize, usize)| {
            for (i, &(x0, y0, x1, y1)) in spans.iter().enumerate() {
                for iy in y0..=y1 {
                    for ix in x0..=x1 {
                        f(i, (iy * nx + ix) as usize);
                    }
                }
            }
        };
        cells.clear();
        cells.resize(n + 1, 0);
        each(&mut |_, c| cells[c + 1] += 1);
        for c in 0..n {
            cells[c + 1] += cells[c];
        }
        items.clear();
        items.resize(cells[n] as usize, 0);
        // Fill back to front so each cursor ends at its cell's start.
        let cursor = &mut self.cursor;
        cursor.clear();
        cursor.extend_from_slice(&cells[1..]);
        each(&mut |i, c| {
            cursor[c] -= 1;
            items[cursor[c] as usize] = i as u32;
        });
    }

    /// Replaces the moving actors (no allocation once warmed up).
    pub(crate) fn set_actors(&mut self, actors: &[ActorBox]) {
        self.actors.clear();
        self.actors.extend_from_slice(actors);
        self.actor_top = actors.iter().map(|a| a.z1).fold(0.0, f32::max);
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        spans.extend(actors.iter().map(|a| {
            let (lo, hi) = a.rect.bounds();
            self.cell_span(v3(lo.0, lo.1, 0.0), v3(hi.0, hi.1, 0.0))
        }));
        self.spans = spans;
        let mut cells = std::mem::take(&mut self.actor_cells);
        let mut items = std::mem::take(&mut self.actor_items);
        self.fill(&mut cells, &mut items);
        (self.actor_cells, self.actor_items) = (cells, items);
    }

    /// This tick's moving actors.
    pub(crate) fn actors(&self) -> &[ActorBox] {
        &self.actors
    }

    /// The static boxes, `[min x, min y, min z, max x, max y, max z]` each.
    pub(crate) fn static_bounds(&self) -> &[[f32; 6]] {
        &self.boxes
    }

    /// The actor static box `i` is part of (0: level geometry).
    pub(crate) fn static_actor(&self, i: usize) -> u32 {
        self.meta[i].actor
    }

    /// The finer internal tag (lamp housings are
    /// [`town::tag::TRAFFIC_LIGHTS`]) and the base colour (a lamp's: its
    /// light's) of static box `i`.
    pub(crate) fn static_look(&self, i: usize) -> (u8, [u8; 3]) {
        let m = &self.meta[i];
        match self.light_albedo.get(m.light as usize) {
            Some(&c) if m.light != NO_LIGHT => (town::tag::TRAFFIC_LIGHTS, c),
            _ if m.light != NO_LIGHT => (town::tag::TRAFFIC_LIGHTS, m.albedo),
            _ => (m.tag, m.albedo),
        }
    }

    /// Calls `f(footprint, top)` for every static box and every actor but
    /// `ignore`.
    pub(crate) fn for_each_footprint(&self, ignore: u32, mut f: impl FnMut(&Rect, f32)) {
        for b in &self.boxes {
            f(&Rect::axis_aligned((b[0], b[1]), (b[3], b[4])), b[5]);
        }
        for a in self.actors.iter().filter(|a| a.id != ignore) {
            f(&a.rect, a.z1);
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

    /// Colours of the traffic-light lamps, by light index.
    pub(crate) fn set_light_colours(&mut self, colours: impl Iterator<Item = [u8; 3]>) {
        self.light_albedo.clear();
        self.light_albedo.extend(colours);
    }

    /// Whether a ground rectangle, standing on `z0..z1`, overlaps a static box.
    pub(crate) fn static_overlap(&self, r: &Rect, z0: f32, z1: f32) -> Option<(u8, u32)> {
        let (lo, hi) = r.bounds();
        let (x0, y0, x1, y1) = self.cell_span(v3(lo.0, lo.1, 0.0), v3(hi.0, hi.1, 0.0));
        for iy in y0..=y1 {
            for ix in x0..=x1 {
                let c = (iy * self.nx + ix) as usize;
                for &i in &self.items[self.cells[c] as usize..self.cells[c + 1] as usize] {
                    let b = &self.boxes[i as usize];
                    let aabb = Rect::axis_aligned((b[0], b[1]), (b[3], b[4]));
                    if b[2] < z1 && b[5] > z0 && aabb.overlaps(r) {
                        let m = &self.meta[i as usize];
                        return Some((m.tag, m.actor));
                    }
                }
            }
        }
        None
    }
}

#[path = "scene_ray.rs"]
mod ray;

#[cfg(test)]
#[path = "scene_tests.rs"]
mod tests;
