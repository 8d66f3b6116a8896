//! The town for CARLA 0.9.16 clients: the library's RPC endpoint shares the
//! world port; this module answers what only the world can do (spawn,
//! destroy, controls, transforms, settings, ticks), registers the town's
//! own actors, and after each tick sends the 0.9 sensors' data and the
//! episode state.

mod actors;
pub(crate) mod blueprints;
mod cameras;
mod commands;
mod prop_catalog;
pub(crate) mod sensors;
mod v2x;
mod vehicle_catalog;

use crate::world::ids::PLAYER_ID;
use crate::world::rendering::gbuffer::Output;
use crate::world::simulation::bones::Bone;
use crate::world::simulation::vehicle;
use crate::world::{Town, World};
use carla_server::rpc::{
    ActorCommand, ActorKind, ActorState, BoneTransform, EngineCall, EngineRequest, EpisodeFrame,
    EpisodeSettings,
};
use carla_server::sensor::models::gnss::GeoReference;
use carla_server::types::{ActorTransform, Control, Transform, Vector3D};
use carla_server::{log_info, log_warn, Error, Server};
use sensors::{Scratch, Sensor09, Tick};
use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

/// The spectator's id (the library's).
const SPECTATOR: u32 = 1;
/// Pixels of one camera, at most (4096 × 2048), and of all cameras
/// clients spawned together: what they may make the world allocate.
pub(crate) const MAX_CAMERA_PIXELS: u64 = 4096 * 2048;
pub(crate) const MAX_TOTAL_CAMERA_PIXELS: u64 = 4 * MAX_CAMERA_PIXELS;
/// Positions further than this from the origin are refused, metres.
const MAX_COORDINATE: f32 = 1.0e5;

/// Walker `id`'s skeleton as the library reports it to clients.
/// Walker `id`'s bones as the library reports them, into `out` (through
/// `scratch`; both reused: a client asking every tick costs no
/// allocation).
fn walker_bones(
    world: &World,
    id: u32,
    (scratch, out): (&mut Vec<Bone>, &mut Vec<BoneTransform>),
) -> Result<(), String> {
    out.clear();
    if !world.walker_bones(id, scratch) {
        return Err(format!("walker {id} has no skeleton in the demo world"));
    }
    for b in scratch.iter() {
        let bone = BoneTransform::new(b.name, b.world, b.component, b.relative)
            .map_err(|e| format!("walker {id}: bone {:?}: {e}", b.name))?;
        out.push(bone);
    }
    Ok(())
}

/// Whether a client's transform is one the world can hold.
fn sane(t: &ActorTransform) -> Result<(), String> {
    let l = t.location;
    let r = t.rotation;
    let finite = [l.x, l.y, l.z, r.pitch, r.yaw, r.roll]
        .iter()
        .all(|v| v.is_finite());
    if !finite || l.x.abs().max(l.y.abs()).max(l.z.abs()) > MAX_COORDINATE {
        return Err(format!(
            "transform out of this world: location ({}, {}, {}), rotation ({}, {}, {}); \
             coordinates must be finite and within {MAX_COORDINATE} m",
            l.x, l.y, l.z, r.pitch, r.yaw, r.roll
        ));
    }
    Ok(())
}

/// The 0.9 side of the demo world.
pub(crate) struct Serve09 {
    sensors: Vec<Sensor09>,
    /// Blueprint id of every actor the world holds for 0.9 clients.
    types: HashMap<u32, String>,
    states: Vec<ActorState>,
    scratch: Scratch,
    camera_scratch: cameras::CameraScratch,
    /// `get_bones`: the world's bones and the library's (reused).
    bones: (Vec<Bone>, Vec<BoneTransform>),
    /// Optical flow: each actor's transform one tick ago (reused).
    previous: HashMap<u32, ActorTransform>,
    /// Frames since the server started (CARLA's frame counter).
    pub frame: u64,
    geo: GeoReference,
    spectator: ActorTransform,
    /// Client vehicles' last control, reported in the episode state.
    controls: HashMap<u32, carla_server::rpc::VehicleControl09>,
    /// Vehicles' light flags a client set (V2X reports them).
    lights: HashMap<u32, u32>,
    no_effect: commands::NoEffect,
}

fn to_transform(t: &ActorTransform) -> Transform {
    let yaw = t.rotation.yaw.to_radians();
    Transform {
        location: t.location,
        orientation: Vector3D {
            x: yaw.cos(),
            y: yaw.sin(),
            z: 0.0,
        },
        rotation: t.rotation,
    }
}

fn colour(attributes: &[(String, String)]) -> [u8; 3] {
    let text = attributes
        .iter()
        .find(|(k, _)| k == "color")
        .map_or("", |(_, v)| v.as_str());
    let mut c = [200u8, 200, 205];
    for (slot, part) in c.iter_mut().zip(text.split(',')) {
        if let Ok(v) = part.trim().parse() {
            *slot = v;
        }
    }
    c
}

impl Serve09 {
    /// Adds the world's blueprints to the library's endpoint.
    pub(crate) fn setup(server: &Server) -> Result<Serve09, Error> {
        let rpc = server.rpc()?;
        for bp in blueprints::all(Vector3D {
            x: 0.3,
            y: 0.3,
            z: 0.9,
        }) {
            rpc.add_blueprint(bp);
        }
        Ok(Serve09 {
            sensors: Vec::new(),
            types: HashMap::new(),
            states: Vec::new(),
            scratch: Scratch::default(),
            camera_scratch: cameras::CameraScratch::default(),
            bones: (Vec::new(), Vec::new()),
            previous: HashMap::new(),
            frame: 0,
            geo: crate::world::map::geo::DEFAULT,
            spectator: ActorTransform::default(),
            controls: HashMap::new(),
            lights: HashMap::new(),
            no_effect: Default::default(),
        })
    }

    /// Shows 0.9 clients the map of `town`: its name, spawn points and
    /// OpenDRIVE text, its walkers' navigation mesh; GNSS uses its origin.
    pub(crate) fn show_town(&mut self, server: &Server, town: &Town) {
        let map = &town.map;
        self.geo = map.geo;
        let Ok(rpc) = server.rpc() else {
            return;
        };
        let spawn: Vec<ActorTransform> = map
            .spawn_points
            .iter()
            .map(|t| ActorTransform {
                location: t.location,
                rotation: t.rotation,
            })
            .collect();
        rpc.set_map(&format!("Carla/Maps/{}", map.name), &spawn, &map.opendrive);
        if map.walkable.is_empty() {
            log_warn!("map {}: no sidewalk or shoulder for walkers", map.name);
        } else if let Err(e) = rpc.set_navigation(&map.walkable) {
            log_warn!("map {}: no navigation mesh: {}", map.name, e);
        }
    }

    /// A new world (a 0.8 episode began, or the server started): clients'
    /// actors are gone, the town's are registered anew.
    pub(crate) fn new_episode(&mut self, server: &Server, world: &World) {
        if let Ok(rpc) = server.rpc() {
            log_info!("0.9 clients: episode {}", rpc.new_episode());
        }
        self.sensors.clear();
        self.types.clear();
        self.controls.clear();
        actors::register(server, world, &mut self.types);
    }

    /// The 0.8 player's car left the world (its client left).
    pub(crate) fn player_left(&mut self, server: &Server) {
        if self.types.remove(&PLAYER_ID).is_some() {
            let _ = server.rpc().and_then(|r| r.remove_actor(PLAYER_ID));
        }
    }

    /// The settings 0.9 clients asked for (CARLA's defaults if none).
    pub(crate) fn settings(server: &Server) -> EpisodeSettings {
        server.rpc().map(|r| r.settings()).unwrap_or_default()
    }

    /// Carries out one request; a synchronous tick and a new episode
    /// (`load_world`) are handed back to the main loop.
    pub(crate) fn handle(
        &mut self,
        server: &Server,
        world: &mut World,
        req: EngineRequest,
    ) -> Option<EngineRequest> {
        match req.call().clone() {
            EngineCall::Tick
            | EngineCall::LoadEpisode { .. }
            | EngineCall::LoadOpenDrive { .. } => return Some(req),
            EngineCall::SpawnActor {
                actor_id,
                blueprint,
                attributes,
                transform,
                parent_id,
                sensor_id,
                ..
            } => {
                let kind = ActorKind::of(&blueprint);
                let pixels = sensors::camera_pixels(&blueprint, &attributes);
                let total = self.sensors.iter().map(|s| s.pixels).sum::<u64>() + pixels;
                let result = if let Err(e) = sane(&transform) {
                    Err(e)
                } else if pixels > MAX_CAMERA_PIXELS || total > MAX_TOTAL_CAMERA_PIXELS {
                    Err(format!(
                        "camera too large: {pixels} pixels (at most {MAX_CAMERA_PIXELS} per camera \
                         and {MAX_TOTAL_CAMERA_PIXELS} for all cameras together, {total} asked)"
                    ))
                } else if sensor_id != 0 {
                    let mount = (parent_id, transform);
                    match Sensor09::new(actor_id, sensor_id, &blueprint, &attributes, mount) {
                        Some(s) => {
                            self.sensors.push(s);
                            Ok(())
                        }
                        None => Err(format!("this world cannot produce {blueprint:?}")),
                    }
                } else if kind == ActorKind::Vehicle {
                    let (extent, ahead) =
                        blueprints::vehicle_extent(&blueprint).unwrap_or((vehicle::EXTENT, 0.0));
                    let physics = blueprints::vehicle_physics(&blueprint).unwrap_or_else(|| {
                        carla_server::rpc::VehiclePhysicsControl::default_for(extent, 4)
                    });
                    let t = to_transform(&transform);
                    let body = (extent, ahead, &physics);
                    world.spawn_car(actor_id, &t, colour(&attributes), body)
                } else if let Some((extent, mass)) = blueprints::prop(&blueprint) {
                    world.spawn_prop(actor_id, &to_transform(&transform), extent, mass);
                    Ok(())
                } else if blueprint == "spectator" {
                    Ok(())
                } else if kind == ActorKind::Walker {
                    // Dressed as its blueprint (`walker.pedestrian.0013`).
                    let n = blueprint.rsplit('.').next().and_then(|n| n.parse().ok());
                    let spawned = world.spawn_walker(actor_id, &to_transform(&transform));
                    world.dress_walker(actor_id, n.unwrap_or(0));
                    spawned
                } else {
                    Err(format!("{blueprint:?} cannot be spawned in this world"))
                };
                match result {
                    Ok(()) => {
                        self.types.insert(actor_id, blueprint);
                        req.succeed(0)
                    }
                    Err(e) => req.fail(&e),
                }
            }
            EngineCall::DestroyActor {
                actor_id,
                sensor_id,
            } => {
                let before = self.sensors.len();
                self.sensors.retain(|s| s.actor != actor_id);
                let gone =
                    sensor_id != 0 || before != self.sensors.len() || world.remove_actor(actor_id);
                if gone {
                    self.types.remove(&actor_id);
                    self.controls.remove(&actor_id);
                    self.lights.remove(&actor_id);
                    // Sensors on it go too (CARLA destroys only the actor;
                    // ours would have nothing to follow).
                    self.sensors.retain(|s| s.parent != actor_id);
                    req.succeed(0)
                } else {
                    req.fail(&format!(
                        "actor {actor_id} cannot be destroyed in this world"
                    ))
                }
            }
            EngineCall::SetEpisodeSettings(_) => req.succeed(0),
            EngineCall::SetWeather(w) => {
                world.set_weather(w);
                req.succeed(0)
            }
            EngineCall::SetActorTransform {
                actor_id,
                transform,
            } => {
                if let Err(e) = sane(&transform) {
                    log_warn!("set_transform of actor {}: {}", actor_id, e);
                } else if actor_id == SPECTATOR {
                    self.spectator = transform;
                } else if let Some(s) = self.sensors.iter_mut().find(|s| s.actor == actor_id) {
                    s.mount = transform;
                } else if !world.set_transform(actor_id, &to_transform(&transform)) {
                    log_warn!(
                        "set_transform: actor {} does not move in this world",
                        actor_id
                    );
                }
                req.succeed(0)
            }
            EngineCall::SetActorTargetVelocity { actor_id, velocity } => {
                let v = |x: f32| x.clamp(-1000.0, 1000.0);
                let velocity = carla_server::types::Vector3D {
                    x: v(velocity.x),
                    y: v(velocity.y),
                    z: v(velocity.z),
                };
                world.set_velocity(actor_id, velocity, false);
                req.succeed(0)
            }
            EngineCall::VehicleTelemetry { actor_id } => {
                // The world's own traffic has no rigid body: the library
                // answers from its last state.
                if let Some(t) = world.telemetry(actor_id) {
                    if let Err(e) = server
                        .rpc()
                        .and_then(|r| r.set_vehicle_telemetry(actor_id, &t))
                    {
                        req.fail(&e.to_string());
                        return None;
                    }
                }
                req.succeed(0)
            }
            EngineCall::WalkerBones { actor_id } => {
                match walker_bones(world, actor_id, (&mut self.bones.0, &mut self.bones.1)) {
                    Ok(()) => match server
                        .rpc()
                        .and_then(|r| r.set_walker_bones(actor_id, &self.bones.1))
                    {
                        Ok(()) => req.succeed(0),
                        Err(e) => req.fail(&e.to_string()),
                    },
                    Err(e) => req.fail(&e),
                }
            }
            EngineCall::ApplyVehicleControl { actor_id, control } => {
                let c = Control {
                    steer: control.steer,
                    throttle: control.throttle,
                    brake: control.brake,
                    hand_brake: control.hand_brake,
                    reverse: control.reverse,
                };
                if world.set_control(actor_id, c) {
                    let manual = control.manual_gear_shift.get().then_some(control.gear);
                    world.set_manual_gear(actor_id, manual);
                    self.controls.insert(actor_id, control);
                }
                req.succeed(0)
            }
            EngineCall::Actor {
                actor_id,
                command: ActorCommand::V2xSend(text),
            } => {
                let radio = self.sensors.iter_mut().find(|s| s.actor == actor_id);
                if let Some(r) = radio.and_then(|s| s.radio.as_deref_mut()) {
                    r.send(&text);
                }
                req.succeed(0)
            }
            EngineCall::Actor { actor_id, command } => {
                if let ActorCommand::LightState(flags) = command {
                    self.lights.insert(actor_id, flags);
                }
                let dt = world.last_step();
                commands::actor(world, actor_id, &command, dt, &mut self.no_effect);
                req.succeed(0)
            }
            EngineCall::World(command) => {
                commands::world_command(world, &command);
                req.succeed(0)
            }
        }
        None
    }

    /// After a world step: every due sensor captures, then the episode
    /// state of this frame goes out.
    pub(crate) fn after_tick(&mut self, server: &Server, world: &World, dt: f32, rendering: bool) {
        self.frame += 1;
        let types = &self.types;
        let type_of = |id: u32| {
            types
                .get(&id)
                .cloned()
                .unwrap_or_else(|| "static.prop".into())
        };
        // The states still hold the previous tick's transforms.
        // Optical flow and motion blur need where things were.
        let flow = self.sensors.iter().any(|s| {
            s.kind == sensors::Kind::Camera(Output::Flow)
                || s.optics.as_ref().is_some_and(|o| o.blurs())
        });
        // Refilled in place: no allocation per tick once it has grown.
        self.previous.clear();
        if flow {
            let states = self.states.iter().map(|s| (s.id, s.transform));
            self.previous.extend(states);
        }
        let previous = &self.previous;
        let previous = |id: u32| previous.get(&id).copied();
        let lights = &self.lights;
        let lights_of = |id: u32| lights.get(&id).copied().unwrap_or(0);
        let tick = Tick {
            server,
            world,
            frame: self.frame,
            time: world.time(),
            dt,
            rendering,
            geo: &self.geo,
            type_of: &type_of,
            previous: &previous,
        };
        cameras::capture_all(&mut self.sensors, &tick, &mut self.camera_scratch);
        let now = v2x::Now {
            world,
            time: tick.time,
            geo: &self.geo,
            type_of: &type_of,
            lights_of: &lights_of,
        };
        let radios = self.sensors.iter_mut();
        let radios = radios.filter_map(|s| Some((s.parent, s.radio.as_deref_mut()?)));
        v2x::transmit(radios, &now, &mut self.scratch.air);
        for s in &mut self.sensors {
            sensors::capture(s, &tick, &mut self.scratch);
        }
        actors::states(world, &self.controls, self.spectator, &mut self.states);
        // The recorder's collision packets: every contact of this tick
        // (CARLA records those of actors with a collision sensor).
        if let Ok(r) = server.rpc() {
            if r.is_recording() {
                for c in world.contacts() {
                    let other = if c.other == 0 { u32::MAX } else { c.other };
                    r.record_collision(c.actor, other);
                }
            }
        }
        let platform_seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let frame = EpisodeFrame {
            frame: self.frame,
            elapsed_seconds: f64::from(world.time()),
            delta_seconds: f64::from(dt),
            platform_seconds,
        };
        if let Err(e) = server
            .rpc()
            .and_then(|r| r.send_episode_state(&frame, &self.states))
        {
            log_warn!("episode state: {}", e);
        }
    }
}
