//! The lane graph in CARLA's frame (x forward/east, y right/south, z up,
//! metres): every lane of the map as a centre line in the order traffic
//! drives it, with its width, what follows and precedes it, the lanes
//! beside it, its road and junction; and the queries the world asks of it
//! (a pose a distance along a lane, the lane under a point).

pub(crate) use super::lane::{Lane, LaneIx, LaneKind, OnLane};
use super::locate::Locator;

/// A road of the map.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Road {
    /// Its `<road id>`.
    pub od_id: String,
    pub junction: Option<u32>,
    pub length: f64,
}

/// A junction of the map.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Junction {
    /// Its `<junction id>`.
    pub od_id: String,
    /// Its lanes (the connecting roads' lanes).
    pub lanes: Vec<LaneIx>,
    /// The mean of its driving lanes' points.
    pub centre: [f32; 3],
}

/// Every lane, road and junction, and the point index.
#[derive(Debug, Default)]
pub(crate) struct Lanes {
    pub lanes: Vec<Lane>,
    pub roads: Vec<Road>,
    pub junctions: Vec<Junction>,
    pub(super) locator: Locator,
}

impl Lanes {
    pub(crate) fn lane(&self, i: LaneIx) -> &Lane {
        &self.lanes[i as usize]
    }

    /// The lanes under `(x, y)` within `reach` metres of height `z`,
    /// nearest in height first (bridges: the deck over the road below).
    pub(crate) fn at(&self, x: f32, y: f32, z: f32, reach: f32) -> Option<OnLane> {
        self.locator.find(&self.lanes, x, y, z, reach)
    }

    /// Whether a driving lane lies under `(x, y)` within `reach` of `z`
    /// in height (whatever other lane lies over it).
    pub(crate) fn driving_under(&self, x: f32, y: f32, z: f32, reach: f32) -> bool {
        self.locator
            .find_with(&self.lanes, (x, y, z, reach), |l, _| l.kind.is_driving())
            .is_some()
    }

    /// The driving lane under `(x, y)` nearest in height to `z` (within
    /// `reach`) running within 90° of `yaw` (radians).
    pub(crate) fn driving_at(
        &self,
        x: f32,
        y: f32,
        z: f32,
        yaw: f32,
        reach: f32,
    ) -> Option<OnLane> {
        let (cx, cy) = (yaw.cos(), yaw.sin());
        self.locator
            .find_with(&self.lanes, (x, y, z, reach), |l, (dx, dy)| {
                l.kind.is_driving() && dx * cx + dy * cy > 0.0
            })
    }

    /// The nearest driving lane's centre to `(x, y, z)` within `radius`
    /// metres in the ground plane.
    pub(crate) fn nearest_driving(&self, x: f32, y: f32, z: f32, radius: f32) -> Option<OnLane> {
        self.locator
            .nearest(&self.lanes, x, y, z, radius, |l, _| l.kind.is_driving())
    }

    /// [`Lanes::nearest_driving`] among lanes running within 90° of `yaw`
    /// (radians) there.
    pub(crate) fn nearest_driving_heading(
        &self,
        x: f32,
        y: f32,
        z: f32,
        yaw: f32,
        radius: f32,
    ) -> Option<OnLane> {
        let (cx, cy) = (yaw.cos(), yaw.sin());
        self.locator
            .nearest(&self.lanes, x, y, z, radius, |l, (dx, dy)| {
                l.kind.is_driving() && dx * cx + dy * cy > 0.0
            })
    }

    /// Driving lanes, by index.
    pub(crate) fn driving(&self) -> impl Iterator<Item = (LaneIx, &Lane)> {
        (0u32..)
            .zip(&self.lanes)
            .filter(|(_, l)| l.kind.is_driving())
    }

    /// Whether a lane's road belongs to a junction.
    pub(crate) fn in_junction(&self, i: LaneIx) -> bool {
        self.lane(i).junction.is_some()
    }

    /// The `<road id>` and `<lane id>` of lane `i`, for messages.
    pub(crate) fn name(&self, i: LaneIx) -> String {
        let l = self.lane(i);
        format!(
            "road {} lane {}",
            self.roads[l.road as usize].od_id, l.od_lane
        )
    }
}
