//! Which lane is under a point: every centre-line segment of every lane,
//! with the lane's half width at its ends, in a uniform grid over the map
//! (each segment in the cells its bounds touch). A point is on a segment's
//! lane when its distance to the segment in the ground plane is at most
//! the half width there (so the ends are rounded: a bend's outer side has
//! no gap between two segments).

use super::lane::{Lane, LaneIx, OnLane};

/// Grid cell, metres.
const CELL: f32 = 8.0;
/// Most cells a side (a map is at most 100 km across at 8 m cells would be
/// too many: past this the cells grow).
const MAX_SIDE: usize = 4096;

#[derive(Debug, Default)]
pub(crate) struct Locator {
    x0: f32,
    y0: f32,
    cell: f32,
    nx: usize,
    ny: usize,
    /// CSR: `items[cells[c]..cells[c + 1]]` are the segments of cell `c`.
    cells: Vec<u32>,
    items: Vec<(LaneIx, u32)>,
}

/// A point against one segment: where along it, how far across, how high.
struct Near {
    dist: f32,
    offset: f32,
    /// Distance from the segment in the ground plane.
    gap: f32,
    z: f32,
    half: f32,
}

fn near(l: &Lane, i: usize, x: f32, y: f32) -> Near {
    let (a, b) = (l.points[i], l.points[i + 1]);
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 1e-12 {
        (((x - a[0]) * dx + (y - a[1]) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (px, py) = (a[0] + dx * t, a[1] + dy * t);
    let (ex, ey) = (x - px, y - py);
    let gap = (ex * ex + ey * ey).sqrt();
    let len = len2.sqrt().max(1e-6);
    // Right of the direction (x towards y is a right turn in CARLA's frame).
    let offset = (dx * ey - dy * ex) / len;
    Near {
        dist: l.dist[i] + (l.dist[i + 1] - l.dist[i]) * t,
        offset,
        gap,
        z: l.height(i, t).0,
        half: l.half_width[i] + (l.half_width[i + 1] - l.half_width[i]) * t,
    }
}

impl Locator {
    /// The index of `lanes` (its own locator is ignored).
    pub(crate) fn build(lanes: &[Lane]) -> Locator {
        let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
        for l in lanes {
            for p in &l.points {
                lo = [lo[0].min(p[0]), lo[1].min(p[1])];
                hi = [hi[0].max(p[0]), hi[1].max(p[1])];
            }
        }
        if lo[0] > hi[0] {
            return Locator::default();
        }
        let margin = 20.0;
        let (x0, y0) = (lo[0] - margin, lo[1] - margin);
        let span = (hi[0] - lo[0]).max(hi[1] - lo[1]) + 2.0 * margin;
        let cell = CELL.max(span / MAX_SIDE as f32);
        let nx = (((hi[0] - lo[0] + 2.0 * margin) / cell).ceil() as usize).max(1);
        let ny = (((hi[1] - lo[1] + 2.0 * margin) / cell).ceil() as usize).max(1);
        let mut loc = Locator {
            x0,
            y0,
            cell,
            nx,
            ny,
            cells: vec![0; nx * ny + 1],
            items: Vec::new(),
        };
        let spans: Vec<(LaneIx, u32, [usize; 4])> = (0u32..)
            .zip(lanes)
            .flat_map(|(li, l)| {
                (0..l.points.len().saturating_sub(1)).map(move |i| (li, i as u32, l))
            })
            .map(|(li, i, l)| {
                let (a, b) = (l.points[i as usize], l.points[i as usize + 1]);
                let r = l.half_width[i as usize].max(l.half_width[i as usize + 1]) + 0.1;
                let span = loc.span(
                    a[0].min(b[0]) - r,
                    a[1].min(b[1]) - r,
                    a[0].max(b[0]) + r,
                    a[1].max(b[1]) + r,
                );
                (li, i, span)
            })
            .collect();
        for (_, _, [x0, y0, x1, y1]) in &spans {
            for iy in *y0..=*y1 {
                for ix in *x0..=*x1 {
                    loc.cells[iy * nx + ix + 1] += 1;
                }
            }
        }
        for c in 0..nx * ny {
            loc.cells[c + 1] += loc.cells[c];
        }
        let mut cursor: Vec<u32> = loc.cells[..nx * ny].to_vec();
        loc.items = vec![(0, 0); loc.cells[nx * ny] as usize];
        for (li, i, [x0, y0, x1, y1]) in spans {
            for iy in y0..=y1 {
                for ix in x0..=x1 {
                    let c = iy * nx + ix;
                    loc.items[cursor[c] as usize] = (li, i);
                    cursor[c] += 1;
                }
            }
        }
        loc
    }

    fn index(&self, x: f32, lo: f32, n: usize) -> usize {
        (((x - lo) / self.cell).floor().max(0.0) as usize).min(n - 1)
    }

    /// Cells `[ix0, iy0, ix1, iy1]` (inclusive) covering a rectangle.
    fn span(&self, x0: f32, y0: f32, x1: f32, y1: f32) -> [usize; 4] {
        [
            self.index(x0, self.x0, self.nx),
            self.index(y0, self.y0, self.ny),
            self.index(x1, self.x0, self.nx),
            self.index(y1, self.y0, self.ny),
        ]
    }

    fn cell_items(&self, x: f32, y: f32) -> &[(LaneIx, u32)] {
        if self.nx == 0 || !x.is_finite() || !y.is_finite() {
            return &[];
        }
        let c = self.index(y, self.y0, self.ny) * self.nx + self.index(x, self.x0, self.nx);
        &self.items[self.cells[c] as usize..self.cells[c + 1] as usize]
    }

    /// The lane under `(x, y)` whose surface is nearest in height to `z`,
    /// within `reach`.
    pub(crate) fn find(
        &self,
        lanes: &[Lane],
        x: f32,
        y: f32,
        z: f32,
        reach: f32,
    ) -> Option<OnLane> {
        let mut best: Option<(f32, OnLane)> = None;
        for &(li, i) in self.cell_items(x, y) {
            let n = near(&lanes[li as usize], i as usize, x, y);
            let dz = (n.z - z).abs();
            if n.gap > n.half || dz > reach {
                continue;
            }
            // Nearest in height, then the lane whose centre is nearest.
            let score = dz + 0.01 * (n.offset.abs() / n.half.max(0.1));
            if best.as_ref().is_none_or(|(s, _)| score < *s) {
                best = Some((score, on(li, &n)));
            }
        }
        best.map(|(_, o)| o)
    }

    /// [`Locator::find`] among the lanes `keep` accepts (given the lane
    /// and the unit direction of its segment there).
    pub(crate) fn find_with(
        &self,
        lanes: &[Lane],
        (x, y, z, reach): (f32, f32, f32, f32),
        keep: impl Fn(&Lane, (f32, f32)) -> bool,
    ) -> Option<OnLane> {
        let mut best: Option<(f32, OnLane)> = None;
        for &(li, i) in self.cell_items(x, y) {
            let lane = &lanes[li as usize];
            let n = near(lane, i as usize, x, y);
            let dz = (n.z - z).abs();
            if n.gap > n.half || dz > reach {
                continue;
            }
            let (a, b) = (lane.points[i as usize], lane.points[i as usize + 1]);
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            if !keep(lane, (dx / len, dy / len)) {
                continue;
            }
            let score = dz + 0.01 * (n.offset.abs() / n.half.max(0.1));
            if best.as_ref().is_none_or(|(s, _)| score < *s) {
                best = Some((score, on(li, &n)));
            }
        }
        best.map(|(_, o)| o)
    }

    /// The lane whose centre line is nearest to `(x, y)` in the ground
    /// plane within `radius`, among those `keep` accepts (given the lane
    /// and the unit direction of the segment there), preferring surfaces
    /// within 3 m of height `z`.
    pub(crate) fn nearest(
        &self,
        lanes: &[Lane],
        x: f32,
        y: f32,
        z: f32,
        radius: f32,
        keep: impl Fn(&Lane, (f32, f32)) -> bool,
    ) -> Option<OnLane> {
        if self.nx == 0 || !(x.is_finite() && y.is_finite()) {
            return None;
        }
        let r = radius.clamp(0.0, 200.0);
        let [x0, y0, x1, y1] = self.span(x - r, y - r, x + r, y + r);
        let mut best: Option<(f32, OnLane)> = None;
        for iy in y0..=y1 {
            for ix in x0..=x1 {
                let c = iy * self.nx + ix;
                for &(li, i) in &self.items[self.cells[c] as usize..self.cells[c + 1] as usize] {
                    let lane = &lanes[li as usize];
                    let n = near(lane, i as usize, x, y);
                    if n.gap > r {
                        continue;
                    }
                    let (a, b) = (lane.points[i as usize], lane.points[i as usize + 1]);
                    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
                    let len = dx.hypot(dy).max(1e-9);
                    if !keep(lane, (dx / len, dy / len)) {
                        continue;
                    }
                    let score = n.gap + if (n.z - z).abs() > 3.0 { 1000.0 } else { 0.0 };
                    if best.as_ref().is_none_or(|(s, _)| score < *s) {
                        best = Some((score, on(li, &n)));
                    }
                }
            }
        }
        best.map(|(_, o)| o)
    }
}

fn on(lane: LaneIx, n: &Near) -> OnLane {
    OnLane {
        lane,
        dist: n.dist,
        offset: n.offset,
        z: n.z,
    }
}
