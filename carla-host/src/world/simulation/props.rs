//! Props clients spawn (`static.prop.*`): boxes on rigid bodies
//! ([`crate::world::physics`]), still until a client lets them simulate
//! physics; the cameras draw them, the vehicles and walkers meet them and
//! the traffic stops for them.

use crate::world::math::{v3, Rect};
use crate::world::World;
use carla_server::types::{Transform, Vector3D};

/// A prop in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Prop {
    pub id: u32,
    /// Its origin (the bottom of its box), metres; radians.
    pub at: Vector3D,
    pub yaw: f32,
    pub pitch: f32,
    pub roll: f32,
    /// Half size, metres.
    pub extent: Vector3D,
    pub velocity: Vector3D,
    pub albedo: [u8; 3],
}

impl Prop {
    pub(crate) fn rect(&self) -> Rect {
        Rect::new(self.at.x, self.at.y, self.yaw, self.extent.x, self.extent.y)
    }

    pub(crate) fn transform(&self) -> Transform {
        super::vehicle::pose_transform(
            self.at.x, self.at.y, self.at.z, self.yaw, self.pitch, self.roll,
        )
    }
}

/// A prop's colour (by its id: props have no colour attribute).
fn albedo(id: u32) -> [u8; 3] {
    const SHADES: [[u8; 3]; 4] = [[200, 90, 30], [90, 90, 95], [150, 120, 70], [60, 110, 60]];
    SHADES[id as usize % SHADES.len()]
}

impl World {
    /// Adds prop `id` at `t` (where its origin is put, as CARLA's: it
    /// does not fall until it simulates physics), a box of half size
    /// `extent` and `mass` kg.
    pub(crate) fn spawn_prop(&mut self, id: u32, t: &Transform, extent: Vector3D, mass: f32) {
        let l = t.location;
        let yaw = t.rotation.yaw.to_radians();
        let prop = Prop {
            id,
            at: v3(l.x, l.y, l.z),
            yaw,
            pitch: 0.0,
            roll: 0.0,
            extent,
            velocity: v3(0.0, 0.0, 0.0),
            albedo: albedo(id),
        };
        self.physics.add_prop(id, prop.at, yaw, extent, mass);
        self.props.retain(|p| p.id != id);
        self.props.push(prop);
        self.refresh();
    }

    /// `set_simulate_physics` on a prop; false if `id` is not one.
    pub(crate) fn set_prop_simulated(&mut self, id: u32, on: bool) -> bool {
        self.physics.set_prop_simulated(id, on)
    }

    /// The props.
    pub(crate) fn props(&self) -> &[Prop] {
        &self.props
    }

    /// Reads the props' bodies after a physics step.
    pub(in crate::world) fn read_props(&mut self) {
        for p in &mut self.props {
            if let Some(s) = self.physics.state(p.id) {
                p.at = s.position;
                (p.yaw, p.pitch, p.roll) = (s.yaw, s.pitch, s.roll);
                p.velocity = s.velocity;
            }
        }
    }
}
