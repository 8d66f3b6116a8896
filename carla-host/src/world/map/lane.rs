//! One lane of the map and where a point is on it: its kind, its centre
//! line in the order traffic drives it, its width and links, and the pose
//! a distance along it. The collection and its queries are in
//! [`super::lanes`]; the point index in [`super::locate`].

/// What a lane is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum LaneKind {
    /// Where traffic drives (OpenDRIVE driving, entry, exit, ramps, bus,
    /// taxi, HOV, slip lanes).
    Driving,
    /// One lane carrying traffic both ways.
    Bidirectional,
    Sidewalk,
    Shoulder,
    Parking,
    Biking,
    /// Paved but not driven: border, stop, restricted, curb, none.
    Border,
    /// Between opposing carriageways: grass.
    Median,
    /// Rails, tram tracks, the vendor's special lanes, unknown types.
    Other,
}

impl LaneKind {
    /// Whether the map's own traffic and spawn points use it.
    pub(crate) fn is_driving(self) -> bool {
        self == LaneKind::Driving
    }
    /// Paved for vehicles (a car on it is on the road, not off it).
    pub(crate) fn is_road(self) -> bool {
        matches!(
            self,
            LaneKind::Driving
                | LaneKind::Bidirectional
                | LaneKind::Shoulder
                | LaneKind::Parking
                | LaneKind::Biking
                | LaneKind::Border
                | LaneKind::Other
        )
    }
}

/// A lane's index in [`Lanes::lanes`](super::lanes::Lanes::lanes).
pub(crate) type LaneIx = u32;

/// One lane.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Lane {
    /// Index in [`Lanes::roads`](super::lanes::Lanes::roads).
    pub road: u32,
    /// The lane section's index on its road and the `<lane id>`.
    pub section: u32,
    pub od_lane: i32,
    pub kind: LaneKind,
    /// Index in [`Lanes::junctions`](super::lanes::Lanes::junctions) when its road is a junction's.
    pub junction: Option<u32>,
    /// Centre points in the order traffic drives (for lanes without a
    /// direction: the road's `s` order), metres.
    pub points: Vec<[f32; 3]>,
    /// Distance along the centre line at each point, from 0.
    pub dist: Vec<f32>,
    /// Half the lane's width at each point.
    pub half_width: Vec<f32>,
    /// Cross slope at each point, radians; positive raises the left side
    /// (looking along the points).
    pub bank: Vec<f32>,
    /// Per segment between points, how far the lane's height at its middle
    /// lies above the chord, metres (the road bulges above the straight
    /// line between two samples over a crest and dips below it in a sag):
    /// heights between points follow the parabola through both ends and
    /// that middle. Empty on a lane that needs none.
    pub sag: Vec<f32>,
    /// Lanes driven into from this lane's end / driving into its start.
    pub successors: Vec<LaneIx>,
    pub predecessors: Vec<LaneIx>,
    /// The lane beside it to the left and right (looking along the
    /// points), of the same section and direction.
    pub left: Option<LaneIx>,
    pub right: Option<LaneIx>,
    /// Whether the centre line was reversed from the road's `s` order
    /// (its traffic runs against `s`).
    pub reversed: bool,
}

impl Lane {
    /// The two borders at distance `d`: (left, right), raised by `lift`.
    pub(crate) fn borders(&self, d: f32, lift: f32) -> ([f32; 3], [f32; 3]) {
        let pose = self.pose(d);
        let (rx, ry) = (-pose.yaw.sin(), pose.yaw.cos());
        let p = pose.position;
        let h = pose.half_width;
        let rise = pose.bank.tan() * h;
        (
            [p[0] - rx * h, p[1] - ry * h, p[2] + rise + lift],
            [p[0] + rx * h, p[1] + ry * h, p[2] - rise + lift],
        )
    }

    /// Length of the centre line.
    pub(crate) fn length(&self) -> f32 {
        self.dist.last().copied().unwrap_or(0.0)
    }

    /// The segment holding distance `d` (clamped) and the fraction along it.
    fn locate(&self, d: f32) -> (usize, f32) {
        let last = self.points.len().saturating_sub(2);
        let d = d.clamp(0.0, self.length());
        let i = self
            .dist
            .partition_point(|&c| c <= d)
            .saturating_sub(1)
            .min(last);
        let span = self.dist[i + 1] - self.dist[i];
        let f = if span > 1e-6 {
            (d - self.dist[i]) / span
        } else {
            0.0
        };
        (i, f)
    }

    /// The height a fraction `f` along segment `i`, and its rise per unit
    /// of `f` there.
    pub(crate) fn height(&self, i: usize, f: f32) -> (f32, f32) {
        let (a, b) = (self.points[i][2], self.points[i + 1][2]);
        let sag = self.sag.get(i).copied().unwrap_or(0.0);
        (
            a + (b - a) * f + 4.0 * sag * f * (1.0 - f),
            b - a + 4.0 * sag * (1.0 - 2.0 * f),
        )
    }

    /// The pose `d` metres along the centre line (clamped to the lane).
    pub(crate) fn pose(&self, d: f32) -> LanePose {
        let (i, f) = self.locate(d);
        let (a, b) = (self.points[i], self.points[i + 1]);
        let (z, dz) = self.height(i, f);
        let p = [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, z];
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let run = dx.hypot(dy).max(1e-6);
        let half = self.half_width[i] + (self.half_width[i + 1] - self.half_width[i]) * f;
        let bank = self.bank[i] + (self.bank[i + 1] - self.bank[i]) * f;
        LanePose {
            position: p,
            yaw: dy.atan2(dx),
            pitch: dz.atan2(run),
            bank,
            half_width: half,
        }
    }
}

/// A point on a lane's centre line with its direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LanePose {
    pub position: [f32; 3],
    /// Heading in the ground plane, radians (CARLA's yaw: x towards y).
    pub yaw: f32,
    /// Climb along the lane, radians (positive: uphill).
    pub pitch: f32,
    /// Cross slope, radians (positive raises the left side).
    pub bank: f32,
    pub half_width: f32,
}

/// Where a point is on a lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct OnLane {
    pub lane: LaneIx,
    /// Distance along the lane's centre line.
    pub dist: f32,
    /// Signed distance from the centre line, positive to the right.
    pub offset: f32,
    /// The lane surface's height there.
    pub z: f32,
}
