//! Sensors 0.9 clients spawned, computed from the world each tick: cameras
//! (rendered from their pose), both lidars (the library's lidar model over
//! scene ray casts), GNSS and IMU from the parent's motion, collisions from
//! the tick's contacts, obstacles ahead of the parent, radar detections with
//! radial velocity, and the safe-distance box. The lane-invasion sensor is
//! computed by the client from the map and the snapshots; the server only
//! holds its actor.

use super::v2x::{Air, Radio};
use crate::world::math::{sub, Axes, Rng};
use crate::world::rendering::gbuffer::Output;
use crate::world::rendering::optics::Optics;
use crate::world::rendering::tone::Tone;
use crate::world::scene::tags::{static_type_id, tag_0916};
use crate::world::sensing::lidar::Mount;
use crate::world::World;
use carla_server::sensor::models::gnss::{to_geo, GeoReference};
use carla_server::sensor::serialize::{self, ActorDescription, RadarDetection};
use carla_server::sensor::{ActorTransform, CaptureContext, LidarHit, PlannedRay};
use carla_server::types::{Transform, Vector3D};
use carla_server::{log_warn, Server};

/// What a sensor produces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// Rendered by [`super::cameras`], once per view and tick.
    Camera(Output),
    Lidar {
        range: f32,
    },
    Gnss,
    Imu,
    Collision,
    Obstacle {
        distance: f32,
        radius: f32,
        only_dynamics: bool,
    },
    Radar {
        hfov: f32,
        vfov: f32,
        range: f32,
        pps: f32,
    },
    SafeDistance,
    /// `sensor.other.v2x` / `v2x_custom` (state in `radio`).
    V2x,
    /// Client-side (lane invasion): nothing to send.
    Passive,
}

/// A sensor on an actor (or on the world, `parent` 0).
pub(crate) struct Sensor09 {
    pub actor: u32,
    pub stream: u32,
    pub blueprint: String,
    pub parent: u32,
    pub mount: ActorTransform,
    pub kind: Kind,
    /// `sensor_tick`: seconds between captures (0: every tick).
    pub period: f32,
    pub next: f32,
    /// Image pixels (cameras), 0 otherwise.
    pub pixels: u64,
    /// V2X sensors' own state.
    pub radio: Option<Box<Radio>>,
    /// An RGB camera's `gamma` and `exposure_compensation` (none at
    /// CARLA's defaults).
    pub tone: Option<Box<Tone>>,
    /// A camera's lens and post-processing (none when they leave the
    /// picture as drawn).
    pub optics: Option<Box<Optics>>,
    rng: Rng,
}

/// The pixels a camera blueprint with these attributes renders (0 for
/// other sensors).
pub(crate) fn camera_pixels(blueprint: &str, pairs: &[(String, String)]) -> u64 {
    if !blueprint.starts_with("sensor.camera.") {
        return 0;
    }
    let w = attr(pairs, "image_size_x", 800.0).max(0.0) as u64;
    let h = attr(pairs, "image_size_y", 600.0).max(0.0) as u64;
    w * h
}

fn attr(pairs: &[(String, String)], key: &str, default: f32) -> f32 {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(default)
}

/// The optics of camera `blueprint` with these attributes (booleans read
/// as 1 and 0).
fn optics(blueprint: &str, pairs: &[(String, String)]) -> Option<Box<Optics>> {
    let colour = match blueprint {
        "sensor.camera.rgb" => true,
        "sensor.camera.depth"
        | "sensor.camera.semantic_segmentation"
        | "sensor.camera.instance_segmentation"
        | "sensor.camera.normals"
        | "sensor.camera.cosmos_visualization" => false,
        _ => return None,
    };
    let a = |key: &str, default: f32| match pairs.iter().find(|(k, _)| k == key) {
        Some((_, v)) if v.eq_ignore_ascii_case("true") => 1.0,
        Some((_, v)) if v.eq_ignore_ascii_case("false") => 0.0,
        _ => attr(pairs, key, default),
    };
    Optics::of(colour, a).map(Box::new)
}

impl Sensor09 {
    /// The sensor for a spawn request of `blueprint`, or None if the world
    /// cannot produce it.
    pub(crate) fn new(
        actor: u32,
        stream: u32,
        blueprint: &str,
        pairs: &[(String, String)],
        (parent, mount): (u32, ActorTransform),
    ) -> Option<Sensor09> {
        let a = |k, d| attr(pairs, k, d);
        let kind = match blueprint {
            "sensor.camera.rgb" => Kind::Camera(Output::Rgb),
            "sensor.camera.depth" => Kind::Camera(Output::Depth),
            "sensor.camera.semantic_segmentation" => Kind::Camera(Output::Semantic0916),
            "sensor.camera.instance_segmentation" => Kind::Camera(Output::Instance0916),
            "sensor.camera.normals" => Kind::Camera(Output::Normals),
            "sensor.camera.cosmos_visualization" => Kind::Camera(Output::Cosmos),
            "sensor.camera.optical_flow" => Kind::Camera(Output::Flow),
            // The library turns its RGB images into events.
            "sensor.camera.dvs" => Kind::Camera(Output::Rgb),
            "sensor.lidar.ray_cast" | "sensor.lidar.ray_cast_semantic" => Kind::Lidar {
                range: a("range", 10.0),
            },
            "sensor.other.gnss" => Kind::Gnss,
            "sensor.other.imu" => Kind::Imu,
            "sensor.other.collision" => Kind::Collision,
            "sensor.other.obstacle" => Kind::Obstacle {
                distance: a("distance", 5.0),
                radius: a("hit_radius", 0.5),
                only_dynamics: pairs
                    .iter()
                    .any(|(k, v)| k == "only_dynamics" && v.eq_ignore_ascii_case("true")),
            },
            "sensor.other.radar" => Kind::Radar {
                hfov: a("horizontal_fov", 30.0),
                vfov: a("vertical_fov", 30.0),
                range: a("range", 100.0),
                pps: a("points_per_second", 1500.0),
            },
            "sensor.other.safe_distance" => Kind::SafeDistance,
            "sensor.other.lane_invasion" => Kind::Passive,
            "sensor.other.v2x" | "sensor.other.v2x_custom" => Kind::V2x,
            _ => return None,
        };
        let radio = (kind == Kind::V2x)
            .then(|| Box::new(Radio::new(blueprint.ends_with("custom"), pairs, actor)));
        Some(Sensor09 {
            actor,
            stream,
            blueprint: blueprint.to_owned(),
            parent,
            mount,
            kind,
            period: a("sensor_tick", 0.0).max(0.0),
            next: 0.0,
            pixels: camera_pixels(blueprint, pairs),
            radio,
            tone: (blueprint == "sensor.camera.rgb")
                .then(|| Tone::new(a("gamma", 2.2), a("exposure_compensation", 0.0)))
                .flatten()
                .map(Box::new),
            optics: optics(blueprint, pairs),
            rng: Rng::new(0x9E37_79B9_7F4A_7C15 ^ u64::from(actor)),
        })
    }

    /// Uniform in [0, 1).
    fn random(&mut self) -> f32 {
        self.rng.unit()
    }
}

/// Per-tick scratch buffers, reused.
#[derive(Default)]
pub(crate) struct Scratch {
    rays: Vec<PlannedRay>,
    hits: Vec<LidarHit>,
    payload: Vec<u8>,
    ids: Vec<u32>,
    detections: Vec<RadarDetection>,
    /// This tick's V2X messages (filled by [`super::v2x::transmit`]).
    pub air: Air,
}

/// Everything one capture needs to know about the tick.
pub(crate) struct Tick<'a> {
    pub server: &'a Server,
    pub world: &'a World,
    pub frame: u64,
    pub time: f32,
    pub dt: f32,
    pub rendering: bool,
    pub geo: &'a GeoReference,
    /// Blueprint id of an actor, for event payloads.
    pub type_of: &'a dyn Fn(u32) -> String,
    /// An actor's transform one tick ago (optical flow).
    pub previous: &'a dyn Fn(u32) -> Option<ActorTransform>,
}

fn description(id: u32, type_id: String) -> ActorDescription {
    ActorDescription {
        id,
        type_id,
        ..Default::default()
    }
}

/// The other party of an event: an actor, or (id 0) the level geometry
/// with internal tag `tag`, described as CARLA describes it.
fn other_party(t: &Tick, id: u32, tag: u8) -> ActorDescription {
    if id != 0 {
        return description(id, (t.type_of)(id));
    }
    ActorDescription {
        semantic_tags: vec![tag_0916(tag)],
        ..description(0, static_type_id(tag))
    }
}

pub(crate) fn parent_pose(world: &World, parent: u32) -> Transform {
    world.actor_transform(parent).unwrap_or(Transform {
        orientation: Vector3D {
            x: 1.0,
            y: 0.0,
            z: 0.0,
        },
        ..Default::default()
    })
}

impl Sensor09 {
    /// Whether the sensor captures at `time` (its `sensor_tick` says so);
    /// if it does, its next capture is scheduled.
    pub(crate) fn due(&mut self, time: f32) -> bool {
        if matches!(self.kind, Kind::Passive) || time + 1e-4 < self.next {
            return false;
        }
        self.next = if self.period > 0.0 {
            self.next.max(time - self.period) + self.period
        } else {
            0.0
        };
        true
    }
}

/// The world pose of a sensor on a parent at `parent` (the world origin for
/// a sensor on no actor).
pub(crate) fn pose(s: &Sensor09, parent: &Transform) -> ActorTransform {
    Mount {
        position: s.mount.location,
        rotation: s.mount.rotation,
    }
    .world(parent)
}

/// Captures `s` for this tick if its period says so (cameras: see
/// [`super::cameras`]).
pub(crate) fn capture(s: &mut Sensor09, t: &Tick, scratch: &mut Scratch) {
    if matches!(s.kind, Kind::Camera(_)) || !s.due(t.time) {
        return;
    }
    let Ok(sensor) = t.server.sensor(s.stream) else {
        return;
    };
    let parent = parent_pose(t.world, s.parent);
    let pose = self::pose(s, &parent);
    let ctx = CaptureContext {
        frame: t.frame,
        timestamp: f64::from(t.time),
        transform: pose,
    };
    let sent = match s.kind {
        Kind::Camera(_) | Kind::Passive => Ok(()),
        Kind::Lidar { range } => {
            let rays = &mut scratch.rays;
            if sensor
                .plan_lidar(t.dt, |p| {
                    rays.clear();
                    rays.extend_from_slice(p);
                })
                .is_err()
            {
                return;
            }
            t.world
                .trace_from(&pose, &scratch.rays, range, s.parent, &mut scratch.hits);
            for h in &mut scratch.hits {
                h.semantic_tag =
                    u32::from(crate::world::scene::tags::tag_0916(h.semantic_tag as u8));
            }
            sensor.send_lidar_hits(&ctx, &scratch.hits)
        }
        Kind::Gnss => {
            let (lat, lon, alt) = to_geo(t.geo, pose.location);
            scratch.payload.clear();
            serialize::gnss(&mut scratch.payload, lat, lon, alt);
            sensor.send_raw(&ctx, &scratch.payload)
        }
        Kind::Imu => {
            let (accel, gyro) = t.world.motion_of(s.parent);
            let axes = Axes::from_rotation(&pose.rotation);
            // An accelerometer at rest reads +g upwards.
            let a = axes.to_local(Vector3D {
                z: accel.z + 9.81,
                ..accel
            });
            let compass = (pose.rotation.yaw + 90.0)
                .to_radians()
                .rem_euclid(std::f32::consts::TAU);
            scratch.payload.clear();
            serialize::imu(&mut scratch.payload, a, gyro, compass);
            sensor.send_raw(&ctx, &scratch.payload)
        }
        Kind::Collision => {
            let mut result = Ok(());
            for c in t.world.contacts().iter().filter(|c| c.actor == s.parent) {
                let impulse = c.impulse;
                scratch.payload.clear();
                // As CARLA's: the event's actor is the one that collided
                // (the sensor's parent); the obstacle event names the
                // sensor itself.
                serialize::collision(
                    &mut scratch.payload,
                    &description(s.parent, (t.type_of)(s.parent)),
                    &other_party(t, c.other, c.static_tag),
                    impulse,
                );
                result = result.and(sensor.send_raw(&ctx, &scratch.payload));
            }
            result
        }
        Kind::Obstacle {
            distance,
            radius,
            only_dynamics,
        } => {
            let Some((other, d, tag)) =
                t.world
                    .obstacle_ahead(&pose, distance, radius, only_dynamics, s.parent)
            else {
                return;
            };
            scratch.payload.clear();
            serialize::obstacle(
                &mut scratch.payload,
                &description(s.actor, s.blueprint.clone()),
                &other_party(t, other, tag),
                d,
            );
            sensor.send_raw(&ctx, &scratch.payload)
        }
        Kind::Radar {
            hfov,
            vfov,
            range,
            pps,
        } => {
            let n = (pps * t.dt).round().clamp(0.0, 100_000.0) as usize;
            let axes = Axes::from_rotation(&pose.rotation);
            let own = t.world.actor_velocity(s.parent);
            scratch.detections.clear();
            for _ in 0..n {
                let az = (s.random() - 0.5) * hfov.to_radians();
                let alt = (s.random() - 0.5) * vfov.to_radians();
                let local = Vector3D {
                    x: alt.cos() * az.cos(),
                    y: alt.cos() * az.sin(),
                    z: alt.sin(),
                };
                let dir = axes.to_world(local);
                let Some(hit) =
                    t.world
                        .scene()
                        .raycast_ignoring(pose.location, dir, range, s.parent)
                else {
                    continue;
                };
                let v = sub(t.world.actor_velocity(hit.actor_id), own);
                let radial = v.x * dir.x + v.y * dir.y + v.z * dir.z;
                scratch.detections.push(RadarDetection {
                    velocity: radial,
                    azimuth: az,
                    altitude: alt,
                    depth: hit.distance,
                });
            }
            scratch.payload.clear();
            serialize::radar(&mut scratch.payload, &scratch.detections);
            sensor.send_raw(&ctx, &scratch.payload)
        }
        Kind::SafeDistance => {
            let extent = (t.world.vehicle_extent(s.parent))
                .unwrap_or(crate::world::simulation::vehicle::EXTENT);
            let Ok((centre, half)) = sensor.safe_distance_box(extent) else {
                return;
            };
            t.world
                .vehicles_in_box(&parent, centre, half, s.parent, &mut scratch.ids);
            sensor.send_actor_ids(&ctx, s.parent, &scratch.ids)
        }
        Kind::V2x => {
            let Some(radio) = s.radio.as_deref_mut() else {
                return;
            };
            let (air, payload) = (&mut scratch.air, &mut scratch.payload);
            if !super::v2x::receive((s.parent, radio), t.world, air, payload) {
                return;
            }
            sensor.send_raw(&ctx, &scratch.payload)
        }
    };
    if let Err(e) = sent {
        log_warn!("sensor {} ({}): {}", s.actor, s.blueprint, e);
    }
}
