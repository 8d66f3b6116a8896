//! The walkers' navigation mesh in the form the 0.9 client loads: CARLA's
//! "MSET" file of one Detour tile (Detour's data format version 7, 32-bit
//! references, little-endian), built from the host's walkable polygons.
//!
//! The 0.9 client runs the walkers' crowd itself: it asks for the file
//! (`get_required_files("Nav")`, `request_file`), answers
//! `get_random_location_from_navigation()` from it and moves every walker
//! that has a `controller.ai.walker` along paths on it. The host describes
//! the surfaces ([`NavPolygon`]: convex polygons, in CARLA's coordinates,
//! `z` the height walked on, with an [`NavArea`]) and
//! [`crate::rpc::RpcServer::set_navigation`] builds and serves the file.
//!
//! Layout facts (read in Detour's and CARLA's `Navigation.cpp` sources,
//! checked by loading files written this way with Detour): Recast's axes are
//! CARLA's `(x, z, y)`; a polygon's vertices run clockwise seen from above
//! in Recast's x/z plane; two polygons are neighbours when they share an
//! edge, i.e. the same two vertices (so a long edge beside several
//! polygons must be split where they meet); the client picks random
//! points on sidewalks only and keeps its walkers off roads unless they
//! may cross.

use crate::types::Vector3D;
use std::collections::HashMap;

/// What a walker finds on a polygon (CARLA's area ids; the flag of each is
/// what the client's query filters test).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum NavArea {
    /// Where random points and goals are chosen.
    Sidewalk = 1,
    /// Crossed to reach the other side, after looking for cars.
    Crosswalk = 2,
    /// Crossed only by walkers allowed to (`set_pedestrians_cross_factor`).
    Road = 3,
    Grass = 4,
}

impl NavArea {
    fn flag(self) -> u16 {
        1 << (self as u16)
    }
}

/// One convex walkable polygon: 3 to 6 points, either winding, in CARLA's
/// frame (metres), `z` the height walked on.
#[derive(Clone, Debug, PartialEq)]
pub struct NavPolygon {
    pub area: NavArea,
    pub points: Vec<Vector3D>,
}

/// Polygons of one mesh, at most (a neighbour inside the tile is written
/// as its index + 1 below Detour's 0x8000 "other tile" bit).
pub const MAX_POLYGONS: usize = 0x7ffe;
/// Distinct vertices, at most (Detour's vertex indices are 16-bit).
pub const MAX_VERTICES: usize = 65_535;

const SET_MAGIC: i32 = i32::from_be_bytes(*b"MSET");
const TILE_MAGIC: i32 = i32::from_be_bytes(*b"DNAV");
const TILE_VERSION: i32 = 7;
const VERTS_PER_POLYGON: usize = 6;
/// Vertices closer than this are one vertex, metres.
const WELD: f32 = 1e-3;

/// Builds the navigation file of `polygons`; an error names the first
/// polygon that cannot be part of a mesh (too few or too many points, not
/// finite, no area).
pub fn build(polygons: &[NavPolygon]) -> Result<Vec<u8>, String> {
    if polygons.is_empty() {
        return Err("a navigation mesh needs at least one polygon".into());
    }
    if polygons.len() > MAX_POLYGONS {
        return Err(format!(
            "at most {MAX_POLYGONS} polygons, got {}",
            polygons.len()
        ));
    }
    let mesh = Mesh::weld(polygons)?;
    Ok(mesh.file())
}

/// Polygons as indices into welded Recast-frame vertices, wound as Detour
/// wants, with their neighbours.
struct Mesh {
    verts: Vec<[f32; 3]>,
    polys: Vec<(NavArea, Vec<u16>)>,
}

impl Mesh {
    fn weld(polygons: &[NavPolygon]) -> Result<Mesh, String> {
        let mut verts: Vec<[f32; 3]> = Vec::new();
        let mut index: HashMap<[i64; 3], u16> = HashMap::new();
        let mut polys = Vec::with_capacity(polygons.len());
        for (i, p) in polygons.iter().enumerate() {
            let n = p.points.len();
            if !(3..=VERTS_PER_POLYGON).contains(&n) {
                return Err(format!("polygon {i} has {n} points (3 to 6 allowed)"));
            }
            let mut ids = Vec::with_capacity(n);
            for q in &p.points {
                if !(q.x.is_finite() && q.y.is_finite() && q.z.is_finite()) {
                    return Err(format!("polygon {i} has a point that is not finite"));
                }
                // Recast's frame: (x, up, CARLA's y).
                let r = [q.x, q.z, q.y];
                let key = r.map(|c| (c / WELD).round() as i64);
                let next = verts.len();
                let id = *index.entry(key).or_insert_with(|| next as u16);
                if usize::from(id) == next {
                    if next >= MAX_VERTICES {
                        return Err(format!("more than {MAX_VERTICES} distinct vertices"));
                    }
                    verts.push(r);
                }
                ids.push(id);
            }
            // Twice the signed area in Recast's x/z plane: Detour wants it
            // negative by this formula (clockwise from above).
            let twice_area: f32 = (0..n)
                .map(|k| {
                    let (a, b) = (verts[ids[k] as usize], verts[ids[(k + 1) % n] as usize]);
                    a[0] * b[2] - b[0] * a[2]
                })
                .sum();
            if twice_area.abs() < 1e-6 {
                return Err(format!("polygon {i} has no area"));
            }
            if twice_area > 0.0 {
                ids.reverse();
            }
            polys.push((p.area, ids));
        }
        Ok(Mesh { verts, polys })
    }

    /// Per polygon and edge: 0 (a border) or 1 + the neighbour's index.
    fn neighbours(&self) -> Vec<[u16; VERTS_PER_POLYGON]> {
        let mut owner: HashMap<(u16, u16), usize> = HashMap::new();
        for (i, (_, ids)) in self.polys.iter().enumerate() {
            for k in 0..ids.len() {
                owner.insert((ids[k], ids[(k + 1) % ids.len()]), i);
            }
        }
        self.polys
            .iter()
            .map(|(_, ids)| {
                let mut n = [0u16; VERTS_PER_POLYGON];
                for k in 0..ids.len() {
                    let back = (ids[(k + 1) % ids.len()], ids[k]);
                    // Fits below 0x8000: MAX_POLYGONS is checked.
                    n[k] = owner.get(&back).map_or(0, |&o| (o + 1) as u16);
                }
                n
            })
            .collect()
    }

    fn file(&self) -> Vec<u8> {
        let tile = self.tile();
        let (bmin, bmax) = self.bounds();
        let max_polys = self.polys.len().next_power_of_two();
        let poly_bits = max_polys.trailing_zeros();
        let pad = 0.01;
        let mut out = Vec::with_capacity(48 + tile.len());
        put_i32(&mut out, SET_MAGIC);
        put_i32(&mut out, 1); // set version
        put_i32(&mut out, 1); // tiles
                              // The tile grid: its origin, one tile covering everything.
        put_f32s(&mut out, &[bmin[0] - pad, bmin[1], bmin[2] - pad]);
        put_f32s(
            &mut out,
            &[bmax[0] - bmin[0] + 2.0 * pad, bmax[2] - bmin[2] + 2.0 * pad],
        );
        put_i32(&mut out, 1); // max tiles
        put_i32(&mut out, max_polys as i32);
        // The tile's reference: salt 1, tile 0.
        out.extend_from_slice(&(1u32 << poly_bits).to_le_bytes());
        put_i32(&mut out, tile.len() as i32);
        out.extend_from_slice(&tile);
        out
    }

    fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::MAX; 3];
        let mut hi = [f32::MIN; 3];
        for v in &self.verts {
            for k in 0..3 {
                lo[k] = lo[k].min(v[k]);
                hi[k] = hi[k].max(v[k]);
            }
        }
        (lo, hi)
    }

    /// The Detour tile: header, vertices, polygons, (empty) links, detail
    /// meshes as triangle fans, no bounding-volume tree.
    fn tile(&self) -> Vec<u8> {
        let n = self.polys.len() as i32;
        let edges: usize = self.polys.iter().map(|(_, ids)| ids.len()).sum();
        let tris: usize = self.polys.iter().map(|(_, ids)| ids.len() - 2).sum();
        let (bmin, bmax) = self.bounds();
        let mut t = Vec::new();
        put_i32(&mut t, TILE_MAGIC);
        put_i32(&mut t, TILE_VERSION);
        for v in [0, 0, 0, 0] {
            put_i32(&mut t, v); // tile x, y, layer; user id
        }
        put_i32(&mut t, n); // polygons
        put_i32(&mut t, self.verts.len() as i32);
        put_i32(&mut t, edges.max(1) as i32); // link slots, rebuilt on load
        put_i32(&mut t, n); // detail meshes
        put_i32(&mut t, 0); // detail vertices
        put_i32(&mut t, tris as i32);
        put_i32(&mut t, 0); // bounding-volume nodes (queries scan)
        put_i32(&mut t, 0); // off-mesh connections
        put_i32(&mut t, n); // first off-mesh polygon
        put_f32s(&mut t, &[1.8, 0.4, 0.3]); // walkable height, radius, climb
        put_f32s(&mut t, &bmin);
        put_f32s(&mut t, &bmax);
        put_f32s(&mut t, &[1.0 / 0.3]); // bounding-volume quantisation
        debug_assert_eq!(t.len(), 100);
        for v in &self.verts {
            put_f32s(&mut t, v);
        }
        for ((area, ids), neis) in self.polys.iter().zip(self.neighbours()) {
            t.extend_from_slice(&u32::MAX.to_le_bytes()); // first link
            for k in 0..VERTS_PER_POLYGON {
                t.extend_from_slice(&ids.get(k).copied().unwrap_or(0).to_le_bytes());
            }
            for nei in neis {
                t.extend_from_slice(&nei.to_le_bytes());
            }
            t.extend_from_slice(&area.flag().to_le_bytes());
            t.push(ids.len() as u8);
            t.push(*area as u8 & 0x3f); // area, ground polygon
        }
        t.resize(t.len() + 12 * edges.max(1), 0);
        let mut first_tri = 0u32;
        for (_, ids) in &self.polys {
            let count = ids.len() as u32 - 2;
            t.extend_from_slice(&0u32.to_le_bytes()); // no extra vertices
            t.extend_from_slice(&first_tri.to_le_bytes());
            t.extend_from_slice(&[0, count as u8, 0, 0]);
            first_tri += count;
        }
        for (_, ids) in &self.polys {
            let last = ids.len() as u8 - 1;
            for j in 2..=last {
                // Which of the triangle's edges lie on the polygon's border.
                let mut edges = 1 << 2;
                if j == 2 {
                    edges |= 1;
                }
                if j == last {
                    edges |= 1 << 4;
                }
                t.extend_from_slice(&[0, j - 1, j, edges]);
            }
        }
        t
    }
}

fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_f32s(out: &mut Vec<u8>, v: &[f32]) {
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

#[cfg(test)]
#[path = "nav_tests.rs"]
mod tests;
