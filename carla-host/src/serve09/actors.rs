//! The town's own actors as 0.9 clients see them: registered once per
//! episode (blueprint ids and attributes) and reported every tick with
//! their state (vehicles with the light ahead of them, pedestrians,
//! traffic lights with their state and times).

use super::blueprints::{fitting_vehicle, SPEED_LIMITS, TRAFFIC_LIGHT, WALKERS};
use crate::world::map::town::{
    self, Light, LightSpot, GREEN_S, LANE_WIDTH, SPACING, WALK_HALF, YELLOW_S,
};
use crate::world::simulation::vehicle::EXTENT;
use crate::world::{World, LIGHT_ID0, PLAYER_ID, SIGN_ID0};
use carla_server::rpc::{
    ActorState, VehicleControl09, CARLA_ACTOR_OTHER, CARLA_ACTOR_TRAFFIC_LIGHT,
    CARLA_ACTOR_VEHICLE, CARLA_ACTOR_WALKER,
};
use carla_server::types::{ActorTransform, CBool, Transform, Vector3D};
use carla_server::{log_warn, Server};
use std::collections::HashMap;

/// Speed limit every vehicle reports, km/h.
const SPEED_LIMIT_KMH: f32 = 30.0;
/// A light governs a vehicle (`is_at_traffic_light`, the state it reports)
/// while the vehicle's origin is in a zone before its junction, as CARLA's
/// trigger volumes do; a Traffic Manager brakes its car as soon as it is
/// in the zone and the light is not green. The zone ends far enough from
/// the junction (where the crossing road's far sidewalk begins) that a car
/// at 30-40 km/h braking there halts with its front before the junction,
/// and it is deep enough that no car passes it within one tick; a car
/// nearer the junction when the light turns is committed and drives on.
const TRIGGER_NEAR: f32 = WALK_HALF + 6.5;
const TRIGGER_FAR: f32 = TRIGGER_NEAR + 5.0;

fn at(t: &Transform) -> ActorTransform {
    ActorTransform {
        location: t.location,
        rotation: t.rotation,
    }
}

/// Registers the town's vehicles, pedestrians, lights and (while a 0.8
/// episode runs) the 0.8 player as `role_name = hero`.
pub(crate) fn register(server: &Server, world: &World, types: &mut HashMap<u32, String>) {
    let mut add = |id: u32, bp: &str, attrs: &[(&str, &str)]| {
        let t = world
            .actor_transform(id)
            .map(|t| at(&t))
            .unwrap_or_default();
        match server.rpc().and_then(|r| r.add_actor(id, bp, attrs, t)) {
            Ok(()) => {
                types.insert(id, bp.to_owned());
            }
            Err(e) => log_warn!("actor {}: {}", id, e),
        }
    };
    if world.player_active() {
        let player = fitting_vehicle((EXTENT.x, EXTENT.y, EXTENT.z), 0);
        add(
            PLAYER_ID,
            player,
            &[("role_name", "hero"), ("ros_name", "hero")],
        );
    }
    for v in world.traffic() {
        add(v.id, fitting_vehicle(v.extent, v.id), &[]);
    }
    for w in world.walkers() {
        add(w.id, WALKERS[w.id as usize % WALKERS.len()], &[]);
    }
    for i in 0..world.lights().len() {
        add(LIGHT_ID0 + i as u32, TRAFFIC_LIGHT, &[]);
    }
    for (i, s) in world.signs().iter().enumerate() {
        let bp = if s.limit_kmh > 45.0 {
            SPEED_LIMITS[1]
        } else {
            SPEED_LIMITS[0]
        };
        add(SIGN_ID0 + i as u32, bp, &[]);
    }
    // Each junction's lights cycle together: one group per junction.
    let mut groups: HashMap<town::Node, Vec<u32>> = HashMap::new();
    for (i, l) in world.lights().iter().enumerate() {
        groups.entry(l.node).or_default().push(LIGHT_ID0 + i as u32);
    }
    for ids in groups.values() {
        if let Err(e) = server.rpc().and_then(|r| r.set_traffic_light_group(ids)) {
            log_warn!("traffic-light group {:?}: {}", ids, e);
        }
    }
}

/// 0.9.16's traffic-light state number: 0 red, 1 yellow, 2 green.
fn light_number(l: Light) -> u8 {
    match l {
        Light::Red => 0,
        Light::Yellow => 1,
        Light::Green => 2,
    }
}

/// The light (index into `lights`) governing a vehicle at `(x, y)` heading
/// `yaw_deg`: on a lane of a road, approaching a junction within reach.
fn light_ahead(lights: &[LightSpot], x: f32, y: f32, yaw_deg: f32) -> Option<usize> {
    let d = ((yaw_deg / 90.0).round() as i32).rem_euclid(4) as u8;
    let (dx, dy) = town::dir_vec(d);
    // Along the travel axis: the next junction's coordinate; across it,
    // the road the vehicle is on.
    let (along, across) = if dx != 0.0 { (x * dx, y) } else { (y * dy, x) };
    let road = (across / SPACING).round();
    if (across - road * SPACING).abs() > LANE_WIDTH {
        return None;
    }
    let next = ((along / SPACING).floor() + 1.0) * SPACING;
    let gap = next - along;
    if !(TRIGGER_NEAR..=TRIGGER_FAR).contains(&gap) {
        return None;
    }
    let node_along = (next * if dx != 0.0 { dx } else { dy } / SPACING).round() as i32;
    let node = if dx != 0.0 {
        (node_along, road as i32)
    } else {
        (road as i32, node_along)
    };
    lights.iter().position(|l| l.node == node && l.dir == d)
}

/// A body's pose and motion this tick, as the episode state carries them.
struct Motion {
    transform: Transform,
    velocity: Vector3D,
    /// deg/s about the up axis.
    angular_z: f32,
    accel: Vector3D,
}

/// A body on the ground at `(x, y)` heading `yaw` (radians) at `speed`.
fn planar(x: f32, y: f32, yaw: f32, speed: f32) -> (Transform, Vector3D) {
    let velocity = Vector3D {
        x: speed * yaw.cos(),
        y: speed * yaw.sin(),
        z: 0.0,
    };
    (town::ground_transform(x, y, yaw.to_degrees()), velocity)
}

fn vehicle(id: u32, world: &World, control: VehicleControl09, m: Motion) -> ActorState {
    let t = m.transform;
    let mut s = ActorState {
        id,
        kind: CARLA_ACTOR_VEHICLE,
        transform: at(&t),
        velocity: m.velocity,
        angular_velocity: Vector3D {
            x: 0.0,
            y: 0.0,
            z: m.angular_z,
        },
        acceleration: m.accel,
        vehicle_control: control,
        speed_limit: SPEED_LIMIT_KMH,
        traffic_light_state: 2,
        ..Default::default()
    };
    let lights = world.lights();
    if let Some(i) = light_ahead(lights, t.location.x, t.location.y, t.rotation.yaw) {
        let l = &lights[i];
        s.has_traffic_light = CBool(1);
        s.traffic_light_id = LIGHT_ID0 + i as u32;
        s.traffic_light_state = light_number(town::light_state(l.node, l.dir, world.time()));
    }
    s
}

/// This tick's state of every town and client actor (and the spectator).
pub(crate) fn states(
    world: &World,
    controls: &HashMap<u32, VehicleControl09>,
    spectator: ActorTransform,
    out: &mut Vec<ActorState>,
) {
    out.clear();
    out.push(ActorState {
        id: 1,
        kind: CARLA_ACTOR_OTHER,
        transform: spectator,
        ..Default::default()
    });
    // Poses come from the objects iterated here, never from a look-up by
    // id (that would be quadratic in the number of actors).
    let car = |c: &crate::world::simulation::vehicle::Car, angular_z: f32| {
        let (transform, velocity) = planar(c.x, c.y, c.yaw, c.speed);
        Motion {
            transform,
            velocity,
            angular_z,
            accel: c.accel,
        }
    };
    if world.player_active() {
        let m = car(world.player(), 0.0);
        out.push(vehicle(PLAYER_ID, world, VehicleControl09::default(), m));
    }
    for d in world.fleet() {
        let control = controls.get(&d.id).copied().unwrap_or_default();
        out.push(vehicle(d.id, world, control, car(&d.car, d.yaw_rate)));
    }
    for v in world.traffic() {
        let control = VehicleControl09 {
            throttle: if v.speed > 0.1 { 0.5 } else { 0.0 },
            ..Default::default()
        };
        let (transform, velocity) = planar(v.x, v.y, v.yaw, v.speed);
        let m = Motion {
            transform,
            velocity,
            angular_z: 0.0,
            accel: Vector3D::default(),
        };
        out.push(vehicle(v.id, world, control, m));
    }
    for w in world.walkers() {
        let (t, velocity) = planar(w.x, w.y, w.yaw, w.speed);
        out.push(ActorState {
            id: w.id,
            kind: CARLA_ACTOR_WALKER,
            transform: at(&t),
            velocity,
            walker_direction: Vector3D {
                x: w.yaw.cos(),
                y: w.yaw.sin(),
                z: 0.0,
            },
            walker_speed: w.speed,
            ..Default::default()
        });
    }
    for (i, l) in world.lights().iter().enumerate() {
        let id = LIGHT_ID0 + i as u32;
        let (state, elapsed) = town::light_phase(l.node, l.dir, world.time());
        let mut s = ActorState {
            id,
            kind: CARLA_ACTOR_TRAFFIC_LIGHT,
            transform: at(&l.transform()),
            traffic_light_state: light_number(state),
            traffic_light_times: [GREEN_S, YELLOW_S, town::red_seconds(l.node), elapsed],
            pole_index: l.dir.into(),
            ..Default::default()
        };
        let sign = format!("{}", 100 + i);
        s.sign_id[..sign.len()].copy_from_slice(sign.as_bytes());
        out.push(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vehicle_before_a_junction_is_governed_by_that_junctions_light() {
        let lights = town::light_spots();
        // Heading +x on road j = 1, 15 m before node (2, 1).
        let (x, y) = (2.0 * SPACING - 15.0, SPACING + town::LANE_OFFSET);
        let i = light_ahead(&lights, x, y, 0.0).expect("a light");
        assert_eq!((lights[i].node, lights[i].dir), ((2, 1), 0));
        // Heading -y on road i = 3, 14 m before node (3, 2).
        let (x, y) = (3.0 * SPACING - town::LANE_OFFSET, 2.0 * SPACING + 14.0);
        let i = light_ahead(&lights, x, y, -90.0).expect("a light");
        assert_eq!((lights[i].node, lights[i].dir), ((3, 2), 3));
        // 8 m before it (committed: too near to stop before the junction)
        // and 25 m before it (not yet in the zone): none.
        for before in [8.0, 25.0] {
            let y = 2.0 * SPACING + before;
            let x = 3.0 * SPACING - town::LANE_OFFSET;
            assert_eq!(light_ahead(&lights, x, y, -90.0), None, "{before} m");
        }
        // Mid-block, 40 m before the junction: none.
        assert_eq!(
            light_ahead(&lights, SPACING + 20.0, town::LANE_OFFSET, 0.0),
            None
        );
    }
}
