//! One function per RPC method. Each writes the call's whole `result`
//! (its `Response` envelope included) or returns the message of a failed
//! `Response`; what needs the engine goes through the host's queue.

use super::actor_commands;
use super::actors::{self, destroy, spawn_actor, unknown_actor};
use super::engine::EngineCall;
use super::maps;
use super::wire::{self, as_array, as_str, as_transform, as_u32, as_vector, ArgResult};
use super::world::Actor;
use super::world::ActorKind;
use super::RpcShared;
use crate::episode::ActorBox;
use crate::release::Release;
use rmpv::Value;
use std::sync::atomic::Ordering;

/// The version string the 0.9.16 client compares byte for byte.
pub const VERSION: &str = "0.9.16";

/// How a method was handled.
pub(crate) enum Outcome {
    /// The result is in the output.
    Done,
    /// No such method with that many arguments.
    Unknown,
}

type Out = Vec<u8>;

/// Runs `method` for connection `caller`; `Err` is a failed `Response`
/// with that message.
pub(crate) fn call(
    s: &RpcShared,
    caller: u64,
    release: Release,
    method: &str,
    a: &[Value],
    out: &mut Out,
) -> ArgResult<Outcome> {
    let n = a.len();
    match (method, n) {
        // Each release's client compares it with its own version.
        ("version", 0) => ok_str(out, release.as_str()),
        ("get_episode_info", 0) => {
            let episode = s.world.episode_id.load(Ordering::Relaxed);
            let observer = s.token(s.observer.id(), release);
            wire::ok_head(out);
            wire::episode_info(out, episode, &observer);
        }
        ("get_sensor_token", 1) => {
            let raw = as_u32(&a[0], "stream id")?;
            // The id in a token this endpoint gave, tagged with its release.
            let id = Release::library_stream_id(raw);
            if id != s.observer.id() {
                let Some(sensor) = s.sensors.get_quiet(id) else {
                    return Err(format!(
                        "no stream with id {id} (its sensor was destroyed or never spawned)"
                    ));
                };
                // The client subscribes right after this answer: a frame
                // sent before it joins is held for it.
                sensor.instance.stream().expect_subscriber();
            }
            wire::ok_head(out);
            wire::token(out, &s.token(id, release));
        }
        // Not CARLA's: the stream of any library sensor by its actor id
        // (the safe-distance sensor's, whose token stock clients do not
        // get), for the project's own readers.
        ("get_actor_stream_token", 1) => {
            let id = as_u32(&a[0], "actor id")?;
            let sensor = s.world.actors.read().get(&id).map(|a| a.sensor);
            match sensor {
                Some(sensor) if sensor != 0 => {
                    wire::ok_head(out);
                    wire::bin(out, &s.token(sensor, release));
                }
                Some(_) => return Err(format!("actor {id} is not a sensor with a stream")),
                None => return Err(unknown_actor(id)),
            }
        }
        ("get_episode_settings", 0) => {
            wire::ok_head(out);
            wire::settings(out, &s.world.settings.lock());
            // A Traffic Manager's worker asks this last before it waits
            // for the next tick (see `tm_pacing`).
            s.pacing.settings_asked(caller, std::time::Instant::now());
        }
        ("set_episode_settings", 1) => {
            let settings = wire::as_settings(&a[0])?;
            // Stored before the host is asked, so a host that has answered
            // reads them: the frames it makes after its answer are of the
            // new settings (an asynchronous frame made after the switch to
            // synchronous mode would take the frame the first tick_cue
            // promises). A refusal puts the old ones back.
            let before = std::mem::replace(&mut *s.world.settings.lock(), settings);
            if let Err(e) = s.ask(EngineCall::SetEpisodeSettings(settings)) {
                let mut now = s.world.settings.lock();
                if *now == settings {
                    *now = before;
                }
                return Err(e);
            }
            s.apply_delivery_mode();
            ok_uint(
                out,
                s.world
                    .last_frame
                    .load(std::sync::atomic::Ordering::Relaxed),
            );
        }
        ("tick_cue", 0) => {
            let frame = if s.world.settings.lock().synchronous_mode.get() {
                // As CARLA's server: the tick is queued and the frame it
                // will make answered at once; the client waits for that
                // frame's episode state. Waiting here instead would hold
                // this connection's later calls until the tick is done,
                // and their answers would reach the client together with
                // this one, which its Traffic Manager's two threads race
                // on (a lost wake-up that deadlocks the client).
                s.queue_tick()?
            } else {
                // Free-running: the next state the host sends.
                s.world
                    .last_frame
                    .load(std::sync::atomic::Ordering::Relaxed)
                    + 1
            };
            ok_uint(out, frame);
        }
        // Files clients download: only the navigation mesh, under "Nav"
        // (the map's OpenDRIVE comes from get_map_data; the Traffic
        // Manager's "TM" cache is built by the client).
        ("get_required_files", 1) => {
            let folder = as_str(&a[0], "folder")?;
            let map = s.world.map.read();
            let nav = map
                .navigation
                .as_ref()
                .filter(|_| folder.trim_matches('/') == "Nav");
            wire::ok_head(out);
            wire::array(out, usize::from(nav.is_some()));
            if let Some((name, _)) = nav {
                wire::string(out, name);
            }
        }
        ("request_file", 1) => {
            let name = as_str(&a[0], "file")?;
            let map = s.world.map.read();
            match &map.navigation {
                Some((nav, bytes)) if nav == name => {
                    wire::ok_head(out);
                    wire::bin(out, bytes);
                }
                _ => return Err(format!("no file named {name:?} on this server")),
            }
        }
        ("query_lights_state", 1) => {
            wire::ok_head(out);
            wire::array(out, 0);
        }
        ("get_actor_definitions", 0) => {
            wire::ok_head(out);
            wire::actor_definitions(out, &s.world.blueprints.read(), release);
        }
        ("spawn_actor", 2) => spawn(s, release, &a[0], &a[1], 0, 0, out)?,
        ("spawn_actor_with_parent", 4 | 5) => {
            let parent = as_u32(&a[2], "parent id")?;
            let kind = as_u32(&a[3], "attachment type")?;
            let kind = u8::try_from(kind)
                .ok()
                .filter(|k| *k <= 2)
                .ok_or("attachment type must be 0, 1 or 2")?;
            spawn(s, release, &a[0], &a[1], parent, kind, out)?
        }
        ("destroy_actor", 1) => {
            let id = as_u32(&a[0], "actor id")?;
            destroy(s, id)?;
            wire::ok_head(out);
            wire::boolean(out, true);
        }
        ("get_actor_bounding_box", 1) => {
            let id = as_u32(&a[0], "actor id")?;
            let actors = s.world.actors.read();
            wire::ok_head(out);
            match actors.get(&id) {
                Some(actor) => wire::bounding_box(out, &actor.bounding_box, id),
                // As CARLA's server: an empty box, not an error. The
                // Traffic Manager reads the box of every vehicle in the
                // client's last episode state on its own thread, which
                // does not catch an error: a vehicle destroyed since
                // aborted the client (ScenarioRunner's teardown).
                None => wire::bounding_box(out, &ActorBox::default(), 0),
            }
        }
        ("get_actors_by_id", 1) => {
            let ids = as_array(&a[0], "actor ids")?;
            let actors = s.world.actors.read();
            let known: Vec<&Actor> = ids
                .iter()
                .filter_map(|v| v.as_u64())
                .filter_map(|id| actors.get(&(id as u32)))
                .collect();
            wire::ok_head(out);
            wire::array(out, known.len());
            for actor in known {
                s.write_actor(out, actor, release);
            }
        }
        ("get_spectator", 0) => {
            let actors = s.world.actors.read();
            let spectator = actors.get(&s.world.spectator).ok_or("no spectator")?;
            wire::ok_head(out);
            s.write_actor(out, spectator, release);
        }
        ("get_map_info", 0) => {
            let map = s.world.map.read();
            wire::ok_head(out);
            wire::map_info(out, &map.name, &map.spawn_points);
        }
        ("get_map_data", 0) => ok_str(out, &s.world.map.read().opendrive),
        ("get_weather_parameters", 0) => {
            wire::ok_head(out);
            wire::weather(out, &s.world.weather.lock());
        }
        ("set_weather_parameters", 1) => wire::void(out, || {
            let w = wire::as_weather(&a[0])?;
            *s.world.weather.lock() = w;
            s.tell(EngineCall::SetWeather(w))
        }),
        ("set_actor_transform", 2) => wire::void(out, || {
            let (actor_id, transform) = (known_actor(s, &a[0])?, as_transform(&a[1], "transform")?);
            actors::set_transform(s, actor_id, transform)
        }),
        ("set_actor_location", 2) => wire::void(out, || {
            let actor_id = as_u32(&a[0], "actor id")?;
            let location = as_vector(&a[1], "location")?;
            actors::relocate(s, actor_id, location)
        }),
        ("set_actor_target_velocity", 2) => wire::void(out, || {
            let (actor_id, velocity) = (known_actor(s, &a[0])?, as_vector(&a[1], "velocity")?);
            s.tell(EngineCall::SetActorTargetVelocity { actor_id, velocity })
        }),
        ("apply_control_to_vehicle", 2) => wire::void(out, || {
            let actor_id = known_actor(s, &a[0])?;
            let control = wire::as_vehicle_control(&a[1], "vehicle control")?;
            s.tell(EngineCall::ApplyVehicleControl { actor_id, control })
        }),
        // Debug drawing goes to the engine's viewport; a headless server
        // has none, so there is nothing to draw or clear.
        ("draw_debug_shape", 1) | ("clear_debug_shape", 0) | ("clear_debug_string", 0) => {
            wire::void_ok(out)
        }
        ("show_vehicle_debug_telemetry", 2) => {
            wire::void(out, || known_actor(s, &a[0]).map(|_| ()))
        }
        ("get_imui_gravity", 0) => {
            wire::ok_head(out);
            wire::f32v(
                out,
                f32::from_bits(s.world.imu_gravity.load(Ordering::Relaxed)),
            );
        }
        ("set_imui_gravity", 1) => wire::void(out, || {
            let g = wire::as_f32(&a[0], "gravity")?;
            if !g.is_finite() {
                return Err("gravity must be a finite number".into());
            }
            s.world.imu_gravity.store(g.to_bits(), Ordering::Relaxed);
            Ok(())
        }),
        // A light's group as the host described it; a light in none is a
        // group of its own.
        ("get_group_traffic_lights", 1) => {
            let id = as_u32(&a[0], "actor id")?;
            match actors::is_kind(s, id, "traffic.traffic_light") {
                None => return Err(unknown_actor(id)),
                Some(false) => return Err(format!("actor {id} is not a traffic light")),
                Some(true) => {}
            }
            let group = s.world.light_groups.read().get(&id).cloned();
            let ids: &[u32] = group.as_deref().unwrap_or(std::slice::from_ref(&id));
            wire::ok_head(out);
            wire::array(out, ids.len());
            for i in ids {
                wire::uint(out, (*i).into());
            }
        }
        ("get_available_maps", 0) => {
            let maps = maps::available(&s.world);
            wire::ok_head(out);
            wire::array(out, maps.len());
            for m in &maps {
                wire::string(out, m);
            }
        }
        // The map layers (a third argument) are not checked: this server's
        // maps have none.
        ("load_new_episode", 3) => wire::void(out, || {
            let name = as_str(&a[0], "map name")?;
            let reset = wire::as_bool(&a[1], "reset_settings")?;
            maps::load_episode(s, name, reset)
        }),
        ("copy_opendrive_to_file", 2) => wire::void(out, || {
            let text = as_str(&a[0], "opendrive")?;
            let params = maps::as_params(&a[1])?;
            maps::load_opendrive(s, text, params)
        }),
        ("apply_batch", 2) => super::batch::apply(s, release, &a[0], &a[1], out)?,
        ("is_traffic_manager_running", 1) => {
            let port = as_port(&a[0])?;
            wire::ok_head(out);
            wire::boolean(out, s.traffic_managers.is_running(port));
        }
        ("get_traffic_manager_running", 1) => {
            let (host, port) = s.traffic_managers.get(as_port(&a[0])?).unwrap_or_default();
            wire::ok_head(out);
            wire::array(out, 2);
            wire::string(out, &host);
            wire::uint(out, port.into());
        }
        ("add_traffic_manager_running", 1) => {
            let pair = as_array(&a[0], "traffic manager (host, port)")?;
            let [host, port] = pair else {
                return Err("traffic manager must be [host, port]".into());
            };
            let added = s
                .traffic_managers
                .add(as_str(host, "host")?, as_port(port)?, caller)?;
            wire::ok_head(out);
            wire::boolean(out, added);
        }
        ("get_vehicle_light_states", 0) => {
            let actors = s.world.actors.read();
            let vehicles: Vec<&Actor> = actors
                .values()
                .filter(|a| a.kind == ActorKind::Vehicle)
                .collect();
            wire::ok_head(out);
            wire::array(out, vehicles.len());
            for v in vehicles {
                wire::array(out, 2);
                wire::uint(out, v.id.into());
                wire::uint(out, v.light_state.into());
            }
        }
        ("destroy_traffic_manager", 1) => {
            s.traffic_managers.remove(as_port(&a[0])?);
            wire::void_ok(out);
        }
        ("get_vehicle_light_state", 1) => {
            let id = as_u32(&a[0], "actor id")?;
            let actors = s.world.actors.read();
            let actor = actors.get(&id).ok_or_else(|| unknown_actor(id))?;
            // `rpc::VehicleLightState`: `[flags]`.
            wire::ok_head(out);
            wire::array(out, 1);
            wire::uint(out, actor.light_state.into());
        }
        _ => {
            if let Some(done) = super::part_calls::call(s, release, method, a, out) {
                done?;
            } else if let Some(done) = super::recording::call(s, method, a, out) {
                done?;
            } else if let Some(done) = super::ros::call(s, method, a, out) {
                done?;
            } else if let Some(parsed) = actor_commands::from_rpc(method, a) {
                wire::void(out, || {
                    let (actor_id, c) = parsed?;
                    actors::command(s, actor_id, c)
                });
            } else if let Some(parsed) = actor_commands::world_from_rpc(method, a) {
                wire::void(out, || s.tell(EngineCall::World(parsed?)));
            } else if let Some((returns_void, why)) = super::unsupported::reason(method) {
                if !returns_void {
                    return Err(why);
                }
                wire::void_failed(out, &why);
            } else {
                return Ok(Outcome::Unknown);
            }
        }
    }
    Ok(Outcome::Done)
}

/// The methods the client waits for as `Response<void>` (LibCarla's
/// `CallAndWait<void>`, 0.9.12 – 0.9.16); it reads every other method it
/// waits for as a `Response<T>`, and discards the answers of those it
/// sends asynchronously.
const VOID_RESPONSES: &[&str] = &[
    "apply_color_texture_to_objects",
    "apply_float_color_texture_to_objects",
    "copy_opendrive_to_file",
    "enable_gbuffers",
    "load_map_layer",
    "load_new_episode",
    "reset_all_traffic_lights",
    "set_actor_collisions",
    "set_actor_simulate_physics",
    "set_ignored_vehicles",
    "unload_map_layer",
];

/// Whether the client reads `method`'s answer as a `Response<void>`.
pub(crate) fn returns_void(method: &str) -> bool {
    VOID_RESPONSES.contains(&method)
}

fn ok_str(out: &mut Out, v: &str) {
    wire::ok_string(out, v);
}

fn ok_uint(out: &mut Out, v: u64) {
    wire::ok_uint(out, v);
}

fn as_port(v: &Value) -> ArgResult<u16> {
    u16::try_from(as_u32(v, "port")?).map_err(|_| "a port is at most 65535".to_owned())
}

fn known_actor(s: &RpcShared, v: &Value) -> ArgResult<u32> {
    let id = as_u32(v, "actor id")?;
    if s.world.actors.read().contains_key(&id) {
        Ok(id)
    } else {
        Err(unknown_actor(id))
    }
}

/// Spawns an actor and writes its `rpc::Actor`.
pub(crate) fn spawn(
    s: &RpcShared,
    release: Release,
    desc: &Value,
    t: &Value,
    parent: u32,
    attachment: u8,
    out: &mut Out,
) -> ArgResult<()> {
    let (actor, since) = spawn_actor(s, release, desc, t, parent, attachment)?;
    actors::wait_until_streamed(s, since);
    wire::ok_head(out);
    s.write_actor(out, &actor, release);
    Ok(())
}
