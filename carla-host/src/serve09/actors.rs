//! The world's own actors as 0.9 clients see them: registered once per
//! episode (blueprint ids, attributes, the lights' trigger volumes and
//! groups) and reported every tick with their state (vehicles with the
//! light governing them, pedestrians, traffic lights with their state and
//! times).

use super::blueprints::{fitting_vehicle, speed_limit, walker_id, STOP, TRAFFIC_LIGHT, YIELD};
use crate::world::ids::{LIGHT_ID0, PLAYER_ID, SIGN_ID0};
use crate::world::map::signals::SignKind;
use crate::world::math::Axes;
use crate::world::simulation::lights::Light;
use crate::world::simulation::vehicle::pose_transform;
use crate::world::World;
use carla_server::rpc::{
    ActorBox, ActorState, VehicleControl09, CARLA_ACTOR_OTHER, CARLA_ACTOR_TRAFFIC_LIGHT,
    CARLA_ACTOR_VEHICLE, CARLA_ACTOR_WALKER,
};
use carla_server::types::{ActorTransform, CBool, Transform, Vector3D};
use carla_server::{log_warn, Server};
use std::collections::{BTreeMap, HashMap};

/// Speed limit every vehicle reports, km/h.
const SPEED_LIMIT_KMH: f32 = 30.0;

fn at(t: &Transform) -> ActorTransform {
    ActorTransform {
        location: t.location,
        rotation: t.rotation,
    }
}

/// Light `i`'s trigger volume in its own frame (CARLA's `trigger_volume`).
fn trigger_box(world: &World, i: usize) -> ActorBox {
    let t = world.light_transform(i);
    let Some(trig) = world.town_ref().ways.triggers.get(i) else {
        return ActorBox::default();
    };
    let axes = Axes::from_rotation(&t.rotation);
    let rel = Vector3D {
        x: trig.centre[0] - t.location.x,
        y: trig.centre[1] - t.location.y,
        z: trig.centre[2] + 1.0 - t.location.z,
    };
    ActorBox {
        location: axes.to_local(rel),
        // The light's x axis runs across its lanes.
        extent: Vector3D {
            x: trig.half_across,
            y: trig.half_along,
            z: 1.0,
        },
    }
}

/// Registers the world's vehicles, pedestrians, lights and signs and
/// (while a 0.8 episode runs) the 0.8 player as `role_name = hero`.
pub(crate) fn register(server: &Server, world: &World, types: &mut HashMap<u32, String>) {
    let mut add = |id: u32, bp: &str, attrs: &[(&str, &str)], bbox: Option<ActorBox>| {
        let t = world
            .actor_transform(id)
            .map(|t| at(&t))
            .unwrap_or_default();
        let added = server.rpc().and_then(|r| match bbox {
            Some(b) => r.add_actor_boxed(id, bp, attrs, t, b),
            None => r.add_actor(id, bp, attrs, t),
        });
        match added {
            Ok(()) => {
                types.insert(id, bp.to_owned());
            }
            Err(e) => log_warn!("actor {}: {}", id, e),
        }
    };
    // A vehicle's box is the one the world moves, whichever blueprint
    // comes nearest (the Traffic Manager keeps its cars off these boxes).
    let own_box = |(x, y, z): (f32, f32, f32)| ActorBox {
        location: Vector3D { x: 0.0, y: 0.0, z },
        extent: Vector3D { x, y, z },
    };
    if world.player_active() {
        let e = world.player().extent;
        let player = fitting_vehicle((e.x, e.y, e.z), 0);
        let hero = [("role_name", "hero"), ("ros_name", "hero")];
        add(PLAYER_ID, player, &hero, Some(own_box((e.x, e.y, e.z))));
    }
    for v in world.traffic() {
        let bp = fitting_vehicle(v.extent, v.id);
        add(v.id, bp, &[], Some(own_box(v.extent)));
    }
    for w in world.walkers() {
        let n = crate::world::simulation::pedestrians::own_blueprint(w.id);
        add(w.id, &walker_id(n), &[], None);
    }
    let lights = world.map().signs.lights().count().min(world.light_count());
    for i in 0..lights {
        let bbox = trigger_box(world, i);
        add(LIGHT_ID0 + i as u32, TRAFFIC_LIGHT, &[], Some(bbox));
    }
    let kinds: Vec<SignKind> = world.sign_actors().map(|(k, _)| k).collect();
    for (j, kind) in kinds.iter().enumerate() {
        let bp = match kind {
            SignKind::Stop => STOP,
            SignKind::Yield => YIELD,
            SignKind::SpeedLimit(v) => speed_limit(*v),
            SignKind::Light { .. } => continue,
        };
        add(SIGN_ID0 + j as u32, bp, &[], None);
    }
    // Each group's lights cycle together.
    let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (i, (_, s)) in world.map().signs.lights().enumerate().take(lights) {
        if let SignKind::Light { group, .. } = s.kind {
            groups.entry(group).or_default().push(LIGHT_ID0 + i as u32);
        }
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
        Light::Off => 3,
    }
}

/// A body's pose and motion this tick, as the episode state carries them.
struct Motion {
    transform: Transform,
    velocity: Vector3D,
    /// deg/s about the up axis.
    angular_z: f32,
    accel: Vector3D,
}

fn velocity(speed: f32, yaw: f32, pitch: f32) -> Vector3D {
    let c = pitch.cos();
    Vector3D {
        x: speed * c * yaw.cos(),
        y: speed * c * yaw.sin(),
        z: speed * pitch.sin(),
    }
}

fn vehicle(
    id: u32,
    world: &World,
    light: Option<usize>,
    control: VehicleControl09,
    m: Motion,
) -> ActorState {
    let mut s = ActorState {
        id,
        kind: CARLA_ACTOR_VEHICLE,
        transform: at(&m.transform),
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
    if let Some(i) = light {
        s.has_traffic_light = CBool(1);
        s.traffic_light_id = LIGHT_ID0 + i as u32;
        s.traffic_light_state = light_number(world.light_state(i).0);
    }
    s
}

/// This tick's state of every world and client actor (and the spectator).
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
    let car = |c: &crate::world::simulation::vehicle::Car, angular_z: f32| Motion {
        transform: c.transform(),
        velocity: velocity(c.speed, c.yaw, c.pitch),
        angular_z,
        accel: c.accel,
    };
    if world.player_active() {
        let c = world.player();
        let light = world.light_governing(c.x, c.y, c.z, c.yaw);
        let m = car(c, 0.0);
        out.push(vehicle(
            PLAYER_ID,
            world,
            light,
            VehicleControl09::default(),
            m,
        ));
    }
    for d in world.fleet() {
        let mut control = controls.get(&d.id).copied().unwrap_or_default();
        // CARLA reports the control applied: the autopilot's or the
        // Ackermann controller's when one drives.
        let applied = d.applied;
        control.throttle = applied.throttle;
        control.steer = applied.steer;
        control.brake = applied.brake;
        control.hand_brake = applied.hand_brake;
        // CARLA reports the gear the vehicle is in, and reverse with it.
        if let Some(gear) = world.gear_of(d.id) {
            control.gear = gear;
            control.reverse = CBool::from(gear < 0);
        }
        let c = &d.car;
        let light = world.light_governing(c.x, c.y, c.z, c.yaw);
        out.push(vehicle(d.id, world, light, control, car(c, d.yaw_rate)));
    }
    let ways = &world.town_ref().ways;
    for v in world.traffic() {
        let control = VehicleControl09 {
            throttle: if v.speed > 0.1 { 0.5 } else { 0.0 },
            ..Default::default()
        };
        let p = &v.pose;
        let m = Motion {
            transform: pose_transform(p.x, p.y, p.z, p.yaw, p.pitch, p.roll),
            velocity: velocity(v.speed, p.yaw, p.pitch),
            angular_z: 0.0,
            accel: Vector3D::default(),
        };
        let light = ways.light_at(v.lane, v.d);
        out.push(vehicle(v.id, world, light, control, m));
    }
    for w in world.walkers() {
        let t = pose_transform(
            w.x,
            w.y,
            w.z + crate::world::simulation::pedestrians::HALF_HEIGHT,
            w.yaw,
            0.0,
            0.0,
        );
        out.push(ActorState {
            id: w.id,
            kind: CARLA_ACTOR_WALKER,
            transform: at(&t),
            velocity: velocity(w.speed, w.yaw, 0.0),
            walker_direction: Vector3D {
                x: w.yaw.cos(),
                y: w.yaw.sin(),
                z: 0.0,
            },
            walker_speed: w.speed,
            ..Default::default()
        });
    }
    let lights = world.lights().len();
    for (i, (_, sign)) in world.map().signs.lights().enumerate().take(lights) {
        let id = LIGHT_ID0 + i as u32;
        let (state, elapsed) = world.light_state(i);
        let [green, yellow, red] = world.lights().times(i);
        let pole = match sign.kind {
            SignKind::Light { phase, .. } => phase,
            _ => 0,
        };
        let mut s = ActorState {
            id,
            kind: CARLA_ACTOR_TRAFFIC_LIGHT,
            transform: at(&world.light_transform(i)),
            traffic_light_state: light_number(state),
            traffic_light_times: [green, yellow, red, elapsed],
            time_is_frozen: CBool(u8::from(world.lights().frozen(i))),
            pole_index: pole,
            ..Default::default()
        };
        // The signal's OpenDRIVE id (`get_opendrive_id`), cut to fit.
        let sign_id = sign.od_id.as_bytes();
        let n = sign_id.len().min(s.sign_id.len() - 1);
        s.sign_id[..n].copy_from_slice(&sign_id[..n]);
        out.push(s);
    }
    let signs: Vec<Transform> = world.sign_actors().map(|(_, t)| t).collect();
    for (j, t) in signs.iter().enumerate() {
        out.push(ActorState {
            id: SIGN_ID0 + j as u32,
            kind: CARLA_ACTOR_OTHER,
            transform: at(t),
            ..Default::default()
        });
    }
    for p in world.props() {
        out.push(ActorState {
            id: p.id,
            kind: CARLA_ACTOR_OTHER,
            transform: at(&p.transform()),
            velocity: p.velocity,
            ..Default::default()
        });
    }
}
