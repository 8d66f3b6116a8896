//! The world's own RPC methods (the episode, its settings and ticks,
//! actors, the Traffic Managers), one function each, listed in
//! [`super::methods`]. Each writes the call's whole `result` (its
//! `Response` envelope included) or returns the message of a failed
//! `Response`; what needs the engine goes through the host's queue.

use super::actors::{self, destroy};
use super::call::{Call, Out};
use super::engine::EngineCall;
use super::error::{bad_arg, refused};
use super::maps;
use super::spawn;
use super::wire::{self, as_array, as_str, as_transform, as_u32, as_vector, ArgResult};
use super::wire_world;
use super::world::unknown_actor;
use super::world::Actor;
use super::world::ActorKind;
use super::RpcShared;
use crate::episode::ActorBox;
use crate::release::Release;
use rmpv::Value;
use std::sync::atomic::Ordering;

/// The version string the 0.9.16 client compares byte for byte.
pub const VERSION: &str = "0.9.16";

/// Each release's client compares it with its own version.
pub(super) fn version(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    ok_str(out, c.release.as_str());
    Ok(())
}

pub(super) fn get_episode_info(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    let s = c.s;
    let episode = s.world.episode_id.load(Ordering::Relaxed);
    let observer = s.token(s.observer.id(), c.release);
    wire::ok_head(out);
    wire::episode_info(out, episode, &observer);
    Ok(())
}

pub(super) fn get_sensor_token(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let s = c.s;
    let raw = as_u32(&a[0], "stream id")?;
    // The id in a token this endpoint gave, tagged with its release.
    let id = Release::library_stream_id(raw);
    if id != s.observer.id() {
        let Some(sensor) = s.sensors.get_quiet(id) else {
            return Err(refused!(
                "no stream with id {id} (its sensor was destroyed or never spawned)"
            ));
        };
        // The client subscribes right after this answer: a frame sent
        // before it joins is held for it.
        sensor.instance.stream().expect_subscriber();
    }
    wire::ok_head(out);
    wire::token(out, &s.token(id, c.release));
    Ok(())
}

/// Not CARLA's: the stream of any library sensor by its actor id (the
/// safe-distance sensor's, whose token stock clients do not get), for the
/// project's own readers.
pub(super) fn get_actor_stream_token(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let id = as_u32(&a[0], "actor id")?;
    let sensor = c.s.world.actors.read().get(&id).map(|a| a.sensor);
    match sensor {
        Some(sensor) if sensor != 0 => {
            wire::ok_head(out);
            wire::bin(out, &c.s.token(sensor, c.release));
            Ok(())
        }
        Some(_) => Err(refused!("actor {id} is not a sensor with a stream")),
        None => Err(unknown_actor(id)),
    }
}

pub(super) fn get_episode_settings(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::ok_head(out);
    wire::settings(out, &c.s.world.settings.lock());
    // A Traffic Manager's worker asks this last before it waits for the
    // next tick (see `tm_pacing`).
    c.s.pacing
        .settings_asked(c.caller, std::time::Instant::now());
    Ok(())
}

pub(super) fn set_episode_settings(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let s = c.s;
    let settings = wire::as_settings(&a[0])?;
    // Stored before the host is asked, so a host that has answered reads
    // them: the frames it makes after its answer are of the new settings
    // (an asynchronous frame made after the switch to synchronous mode
    // would take the frame the first tick_cue promises). A refusal puts the
    // old ones back.
    let before = std::mem::replace(&mut *s.world.settings.lock(), settings);
    if let Err(e) = s.ask(EngineCall::SetEpisodeSettings(settings)) {
        let mut now = s.world.settings.lock();
        if *now == settings {
            *now = before;
        }
        return Err(e);
    }
    s.apply_delivery_mode();
    ok_uint(out, s.world.last_frame.load(Ordering::Relaxed));
    Ok(())
}

pub(super) fn tick_cue(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    let s = c.s;
    let frame = if s.world.settings.lock().synchronous_mode.get() {
        // As CARLA's server: the tick is queued and the frame it will make
        // answered at once; the client waits for that frame's episode
        // state. Waiting here instead would hold this connection's later
        // calls until the tick is done, and their answers would reach the
        // client together with this one, which its Traffic Manager's two
        // threads race on (a lost wake-up that deadlocks the client).
        s.queue_tick()?
    } else {
        // Free-running: the next state the host sends.
        s.world.last_frame.load(Ordering::Relaxed) + 1
    };
    ok_uint(out, frame);
    Ok(())
}

/// Files clients download: only the navigation mesh, under "Nav" (the
/// map's OpenDRIVE comes from get_map_data; the Traffic Manager's "TM"
/// cache is built by the client).
pub(super) fn get_required_files(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let folder = as_str(&a[0], "folder")?;
    let map = c.s.world.map.read();
    let nav = map
        .navigation
        .as_ref()
        .filter(|_| folder.trim_matches('/') == "Nav");
    wire::ok_head(out);
    wire::array(out, usize::from(nav.is_some()));
    if let Some((name, _)) = nav {
        wire::string(out, name);
    }
    Ok(())
}

pub(super) fn request_file(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let name = as_str(&a[0], "file")?;
    let map = c.s.world.map.read();
    match &map.navigation {
        Some((nav, bytes)) if nav == name => {
            wire::ok_head(out);
            wire::bin(out, bytes);
            Ok(())
        }
        _ => Err(refused!("no file named {name:?} on this server")),
    }
}

pub(super) fn query_lights_state(_: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::ok_head(out);
    wire::array(out, 0);
    Ok(())
}

pub(super) fn get_actor_definitions(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::ok_head(out);
    wire_world::actor_definitions(out, &c.s.world.blueprints.read(), c.release);
    Ok(())
}

pub(super) fn spawn_actor(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    spawned(
        c,
        out,
        spawn::spawn_actor(c.s, c.release, &a[0], &a[1], 0, 0)?,
    )
}

pub(super) fn spawn_actor_with_parent(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let parent = as_u32(&a[2], "parent id")?;
    let kind = as_u32(&a[3], "attachment type")?;
    let kind = u8::try_from(kind)
        .ok()
        .filter(|k| *k <= 2)
        .ok_or("attachment type must be 0, 1 or 2")?;
    let spawn = spawn::spawn_actor(c.s, c.release, &a[0], &a[1], parent, kind)?;
    spawned(c, out, spawn)
}

/// Writes the `rpc::Actor` of an actor just spawned, once the episode
/// state that carries it has gone out.
fn spawned(c: &Call, out: &mut Out, (actor, since): (Actor, u64)) -> ArgResult<()> {
    actors::wait_until_streamed(c.s, since);
    wire::ok_head(out);
    c.s.write_actor(out, &actor, c.release);
    Ok(())
}

pub(super) fn destroy_actor(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let id = as_u32(&a[0], "actor id")?;
    destroy(c.s, id)?;
    wire::ok_head(out);
    wire::boolean(out, true);
    Ok(())
}

pub(super) fn get_actor_bounding_box(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let id = as_u32(&a[0], "actor id")?;
    let actors = c.s.world.actors.read();
    wire::ok_head(out);
    match actors.get(&id) {
        Some(actor) => wire::bounding_box(out, &actor.bounding_box, id),
        // As CARLA's server: an empty box, not an error. The Traffic
        // Manager reads the box of every vehicle in the client's last
        // episode state on its own thread, which does not catch an error: a
        // vehicle destroyed since aborted the client (ScenarioRunner's
        // teardown).
        None => wire::bounding_box(out, &ActorBox::default(), 0),
    }
    Ok(())
}

pub(super) fn get_actors_by_id(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let ids = as_array(&a[0], "actor ids")?;
    let actors = c.s.world.actors.read();
    let known: Vec<&Actor> = ids
        .iter()
        .filter_map(|v| v.as_u64())
        .filter_map(|id| actors.get(&(id as u32)))
        .collect();
    wire::ok_head(out);
    wire::array(out, known.len());
    for actor in known {
        c.s.write_actor(out, actor, c.release);
    }
    Ok(())
}

pub(super) fn get_spectator(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    let actors = c.s.world.actors.read();
    let spectator = actors.get(&c.s.world.spectator).ok_or("no spectator")?;
    wire::ok_head(out);
    c.s.write_actor(out, spectator, c.release);
    Ok(())
}

pub(super) fn get_map_info(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    let map = c.s.world.map.read();
    wire::ok_head(out);
    wire::map_info(out, &map.name, &map.spawn_points);
    Ok(())
}

pub(super) fn get_map_data(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    ok_str(out, &c.s.world.map.read().opendrive);
    Ok(())
}

pub(super) fn get_weather_parameters(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::ok_head(out);
    wire::weather(out, &c.s.world.weather.lock());
    Ok(())
}

pub(super) fn set_weather_parameters(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        let w = wire::as_weather(&a[0])?;
        *c.s.world.weather.lock() = w;
        c.s.tell(EngineCall::SetWeather(w))
    });
    Ok(())
}

pub(super) fn set_actor_transform(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        let actor_id = known_actor(c.s, &a[0])?;
        let transform = as_transform(&a[1], "transform")?;
        actors::set_transform(c.s, actor_id, transform)
    });
    Ok(())
}

pub(super) fn set_actor_location(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        let actor_id = as_u32(&a[0], "actor id")?;
        let location = as_vector(&a[1], "location")?;
        actors::relocate(c.s, actor_id, location)
    });
    Ok(())
}

pub(super) fn set_actor_target_velocity(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        let actor_id = known_actor(c.s, &a[0])?;
        let velocity = as_vector(&a[1], "velocity")?;
        c.s.tell(EngineCall::SetActorTargetVelocity { actor_id, velocity })
    });
    Ok(())
}

pub(super) fn apply_control_to_vehicle(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        let actor_id = known_actor(c.s, &a[0])?;
        let control = wire::as_vehicle_control(&a[1], "vehicle control")?;
        c.s.tell(EngineCall::ApplyVehicleControl { actor_id, control })
    });
    Ok(())
}

/// Debug drawing goes to the engine's viewport; a headless server has
/// none, so there is nothing to draw or clear.
pub(super) fn nothing_to_draw(_: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void_ok(out);
    Ok(())
}

pub(super) fn show_vehicle_debug_telemetry(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || known_actor(c.s, &a[0]).map(|_| ()));
    Ok(())
}

pub(super) fn get_imui_gravity(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::ok_head(out);
    let g = f32::from_bits(c.s.world.imu_gravity.load(Ordering::Relaxed));
    wire::f32v(out, g);
    Ok(())
}

pub(super) fn set_imui_gravity(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        let g = wire::as_f32(&a[0], "gravity")?;
        if !g.is_finite() {
            return Err("gravity must be a finite number".into());
        }
        c.s.world.imu_gravity.store(g.to_bits(), Ordering::Relaxed);
        Ok(())
    });
    Ok(())
}

/// A light's group as the host described it; a light in none is a group
/// of its own.
pub(super) fn get_group_traffic_lights(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let id = as_u32(&a[0], "actor id")?;
    match actors::is_kind(c.s, id, "traffic.traffic_light") {
        None => return Err(unknown_actor(id)),
        Some(false) => return Err(refused!("actor {id} is not a traffic light")),
        Some(true) => {}
    }
    let group = c.s.world.light_groups.read().get(&id).cloned();
    let ids: &[u32] = group.as_deref().unwrap_or(std::slice::from_ref(&id));
    wire::ok_head(out);
    wire::array(out, ids.len());
    for i in ids {
        wire::uint(out, (*i).into());
    }
    Ok(())
}

pub(super) fn get_available_maps(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    let maps = maps::available(&c.s.world);
    wire::ok_head(out);
    wire::array(out, maps.len());
    for m in &maps {
        wire::string(out, m);
    }
    Ok(())
}

/// The map layers (a third argument) are not checked: this server's maps
/// have none.
pub(super) fn load_new_episode(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        let name = as_str(&a[0], "map name")?;
        let reset = wire::as_bool(&a[1], "reset_settings")?;
        maps::load_episode(c.s, name, reset)
    });
    Ok(())
}

pub(super) fn copy_opendrive_to_file(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        let text = as_str(&a[0], "opendrive")?;
        let params = maps::as_params(&a[1])?;
        maps::load_opendrive(c.s, text, params)
    });
    Ok(())
}

pub(super) fn apply_batch(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    super::batch::apply(c.s, c.release, &a[0], &a[1], out)
}

pub(super) fn is_traffic_manager_running(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let port = as_port(&a[0])?;
    wire::ok_head(out);
    wire::boolean(out, c.s.traffic_managers.is_running(port));
    Ok(())
}

pub(super) fn get_traffic_manager_running(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let (host, port) =
        c.s.traffic_managers
            .get(as_port(&a[0])?)
            .unwrap_or_default();
    wire::ok_head(out);
    wire::array(out, 2);
    wire::string(out, &host);
    wire::uint(out, port.into());
    Ok(())
}

pub(super) fn add_traffic_manager_running(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let pair = as_array(&a[0], "traffic manager (host, port)")?;
    let [host, port] = pair else {
        return Err("traffic manager must be [host, port]".into());
    };
    let added =
        c.s.traffic_managers
            .add(as_str(host, "host")?, as_port(port)?, c.caller)?;
    wire::ok_head(out);
    wire::boolean(out, added);
    Ok(())
}

pub(super) fn destroy_traffic_manager(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    c.s.traffic_managers.remove(as_port(&a[0])?);
    wire::void_ok(out);
    Ok(())
}

pub(super) fn get_vehicle_light_states(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    let actors = c.s.world.actors.read();
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
    Ok(())
}

pub(super) fn get_vehicle_light_state(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let id = as_u32(&a[0], "actor id")?;
    let actors = c.s.world.actors.read();
    let actor = actors.get(&id).ok_or_else(|| unknown_actor(id))?;
    // `rpc::VehicleLightState`: `[flags]`.
    wire::ok_head(out);
    wire::array(out, 1);
    wire::uint(out, actor.light_state.into());
    Ok(())
}

fn ok_str(out: &mut Out, v: &str) {
    wire::ok_string(out, v);
}

fn ok_uint(out: &mut Out, v: u64) {
    wire::ok_uint(out, v);
}

fn as_port(v: &Value) -> ArgResult<u16> {
    u16::try_from(as_u32(v, "port")?).map_err(|_| bad_arg!("a port is at most 65535"))
}

fn known_actor(s: &RpcShared, v: &Value) -> ArgResult<u32> {
    let id = as_u32(v, "actor id")?;
    if s.world.actors.read().contains_key(&id) {
        Ok(id)
    } else {
        Err(unknown_actor(id))
    }
}
