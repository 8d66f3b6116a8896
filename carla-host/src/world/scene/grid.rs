//! The scene's one spatial index: a uniform grid over the map in the
//! ground plane, with compressed lists of what each cell holds, and the
//! rasterizer's blocks of cells.

use super::{Block, Poly, Tri, BLOCK};
use carla_server::types::Vector3D;

/// Most cells per side; a larger map gets larger cells.
const MAX_SIDE: usize = 2048;

/// The grid's geometry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Grid {
    pub x0: f32,
    pub y0: f32,
    pub cell: f32,
    pub nx: usize,
    pub ny: usize,
}

impl Grid {
    /// A grid covering `lo..hi` with cells of about `cell` metres.
    pub(crate) fn new(lo: (f32, f32), hi: (f32, f32), cell: f32) -> Grid {
        let w = (hi.0 - lo.0).max(cell);
        let h = (hi.1 - lo.1).max(cell);
        let cell = cell.max(w.max(h) / MAX_SIDE as f32);
        Grid {
            x0: lo.0,
            y0: lo.1,
            cell,
            nx: (w / cell).ceil() as usize,
            ny: (h / cell).ceil() as usize,
        }
    }

    pub(crate) fn cells(&self) -> usize {
        self.nx * self.ny
    }

    fn index(&self, v: f32, lo: f32, n: usize) -> usize {
        if v.is_nan() || v <= lo {
            return 0;
        }
        (((v - lo) / self.cell) as usize).min(n - 1)
    }

    /// Cells `[ix0, iy0, ix1, iy1]` (inclusive, clamped) covering a
    /// rectangle.
    pub(crate) fn span(&self, x0: f32, y0: f32, x1: f32, y1: f32) -> [usize; 4] {
        [
            self.index(x0, self.x0, self.nx),
            self.index(y0, self.y0, self.ny),
            self.index(x1, self.x0, self.nx),
            self.index(y1, self.y0, self.ny),
        ]
    }

    /// The cell of a point (clamped).
    pub(crate) fn cell_of(&self, x: f32, y: f32) -> (usize, usize) {
        (
            self.index(x, self.x0, self.nx),
            self.index(y, self.y0, self.ny),
        )
    }
}

/// Item lists per cell: `items[offsets[c]..offsets[c + 1]]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Csr {
    offsets: Vec<u32>,
    items: Vec<u32>,
    cursor: Vec<u32>,
}

impl Csr {
    /// The lists of `n` cells for items covering the inclusive cell spans
    /// `spans` (item `i` is `spans[i]`), in a grid `nx` wide.
    pub(crate) fn build(n: usize, spans: &[[usize; 4]], nx: usize) -> Csr {
        let mut c = Csr::default();
        c.rebuild(n, spans, nx);
        c
    }

    /// [`Csr::build`] into the buffers this one holds (no allocation once
    /// they have grown).
    pub(crate) fn rebuild(&mut self, n: usize, spans: &[[usize; 4]], nx: usize) {
        // A span whose start is past its end (`[usize::MAX, ..]`) covers
        // no cell.
        let each = |f: &mut dyn FnMut(usize, usize)| {
            for (i, &[x0, y0, x1, y1]) in spans.iter().enumerate() {
                for iy in y0..=y1 {
                    for ix in x0..=x1 {
                        f(i, iy * nx + ix);
                    }
                }
            }
        };
        self.offsets.clear();
        self.offsets.resize(n + 1, 0);
        let offsets = &mut self.offsets;
        each(&mut |_, c| offsets[c + 1] += 1);
        for c in 0..n {
            self.offsets[c + 1] += self.offsets[c];
        }
        self.items.clear();
        self.items.resize(self.offsets[n] as usize, 0);
        // Fill back to front so each cursor ends at its cell's start.
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.offsets[1..]);
        let (cursor, items) = (&mut self.cursor, &mut self.items);
        each(&mut |i, c| {
            cursor[c] -= 1;
            items[cursor[c] as usize] = i as u32;
        });
    }

    /// Sorts each cell's items by `key`, greatest first.
    pub(crate) fn sort_each_by_desc(&mut self, key: impl Fn(u32) -> f32) {
        for c in self.offsets.windows(2) {
            self.items[c[0] as usize..c[1] as usize].sort_by(|&a, &b| key(b).total_cmp(&key(a)));
        }
    }

    /// All items, cell by cell (cell `c`'s at [`Csr::range`]).
    pub(crate) fn all(&self) -> &[u32] {
        &self.items
    }

    /// Where cell `c`'s items lie in [`Csr::all`] (empty for no cell).
    #[inline]
    pub(crate) fn range(&self, c: usize) -> std::ops::Range<usize> {
        match (self.offsets.get(c), self.offsets.get(c + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// What cell `c` holds.
    #[inline]
    pub(crate) fn items(&self, c: usize) -> &[u32] {
        match (self.offsets.get(c), self.offsets.get(c + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Whether cell `c` holds anything.
    #[inline]
    pub(crate) fn any(&self, c: usize) -> bool {
        !self.items(c).is_empty()
    }
}

/// The rasterizer's blocks: `BLOCK × BLOCK` cells each, every triangle
/// (paired into a quad with the next where they make one flat convex
/// polygon) and box in the block of its centre, with the block's bounds.
pub(crate) fn blocks(grid: &Grid, tris: &[Tri], boxes: &[[f32; 6]]) -> Vec<Block> {
    let bx = grid.nx.div_ceil(BLOCK);
    let by = grid.ny.div_ceil(BLOCK);
    let mut out = vec![Block::default(); bx * by];
    let empty = |b: &mut Block| {
        b.min = Vector3D {
            x: f32::INFINITY,
            y: f32::INFINITY,
            z: f32::INFINITY,
        };
        b.max = Vector3D {
            x: f32::NEG_INFINITY,
            y: f32::NEG_INFINITY,
            z: f32::NEG_INFINITY,
        };
    };
    out.iter_mut().for_each(empty);
    let grow = |b: &mut Block, p: [f32; 3]| {
        b.min = Vector3D {
            x: b.min.x.min(p[0]),
            y: b.min.y.min(p[1]),
            z: b.min.z.min(p[2]),
        };
        b.max = Vector3D {
            x: b.max.x.max(p[0]),
            y: b.max.y.max(p[1]),
            z: b.max.z.max(p[2]),
        };
    };
    let block_of = |x: f32, y: f32| {
        let (ix, iy) = grid.cell_of(x, y);
        (iy / BLOCK) * bx + ix / BLOCK
    };
    let mut i = 0;
    while i < tris.len() {
        let pair = tris.get(i + 1).and_then(|u| Poly::pair(&tris[i], u));
        i += if pair.is_some() { 2 } else { 1 };
        let poly = pair.unwrap_or_else(|| Poly::of(&tris[i - 1]));
        let c = poly.points();
        let k = c.len() as f32;
        let b = block_of(
            c.iter().map(|p| p.x).sum::<f32>() / k,
            c.iter().map(|p| p.y).sum::<f32>() / k,
        );
        for p in c {
            grow(&mut out[b], [p.x, p.y, p.z]);
        }
        out[b].polys.push(poly);
    }
    for (i, bb) in boxes.iter().enumerate() {
        let b = block_of((bb[0] + bb[3]) / 2.0, (bb[1] + bb[4]) / 2.0);
        out[b].boxes.push(i as u32);
        grow(&mut out[b], [bb[0], bb[1], bb[2]]);
        grow(&mut out[b], [bb[3], bb[4], bb[5]]);
    }
    out.retain(|b| !b.polys.is_empty() || !b.boxes.is_empty());
    out
}
