//! One function per RPC method. Each writes the call's whole `result`
//! (its `Response` envelope included) or returns the message of a failed
//! `Response`; what needs the engine goes through the host's queue.

use super::engine::{EngineCall, Undo};
use super::token;
use super::wire::{self, as_array, as_str, as_transform, as_u32, as_vector, ArgResult};
use super::world::Actor;
use super::RpcShared;
use rmpv::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The version string the 0.9.16 client compares byte for byte.
pub const VERSION: &str = "0.9.16";

/// Live actors a client may create, at most.
pub(crate) const MAX_ACTORS: usize = 10_000;
/// Library sensors a client may create, at most (each has a stream).
pub(crate) const MAX_SENSORS: usize = 256;

/// How a method was handled.
pub(crate) enum Outcome {
    /// The result is in the output.
    Done,
    /// No such method with that many arguments.
    Unknown,
}

type Out = Vec<u8>;

/// `(id, type, value)` of a spawned actor's attributes.
type Attributes = Vec<(String, u8, String)>;

/// Runs `method`; `Err` is a failed `Response` with that message.
pub(crate) fn call(s: &RpcShared, method: &str, a: &[Value], out: &mut Out) -> ArgResult<Outcome> {
    let n = a.len();
    match (method, n) {
        ("version", 0) => ok_str(out, VERSION),
        ("get_episode_info", 0) => {
            let episode = s.world.episode_id.load(Ordering::Relaxed);
            let observer = token::token(s.observer.id(), s.stream_port);
            wire::ok_head(out);
            wire::episode_info(out, episode, &observer);
        }
        ("get_sensor_token", 1) => {
            let id = as_u32(&a[0], "stream id")?;
            if id != s.observer.id() && s.sensors.get_quiet(id).is_none() {
                return Err(format!(
                    "no stream with id {id} (its sensor was destroyed or never spawned)"
                ));
            }
            wire::ok_head(out);
            wire::token(out, &token::token(id, s.stream_port));
        }
        ("get_episode_settings", 0) => {
            wire::ok_head(out);
            wire::settings(out, &s.world.settings.lock());
        }
        ("set_episode_settings", 1) => {
            let settings = wire::as_settings(&a[0])?;
            s.ask(EngineCall::SetEpisodeSettings(settings))?;
            *s.world.settings.lock() = settings;
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
                s.ask(EngineCall::Tick)?
            } else {
                // Free-running: the next state the host sends.
                s.world
                    .last_frame
                    .load(std::sync::atomic::Ordering::Relaxed)
                    + 1
            };
            ok_uint(out, frame);
        }
        ("get_required_files", 1) | ("query_lights_state", 1) => {
            wire::ok_head(out);
            wire::array(out, 0);
        }
        ("request_file", 1) => {
            return Err(format!(
                "no file named {:?} on this server",
                as_str(&a[0], "file")?
            ))
        }
        ("get_actor_definitions", 0) => {
            wire::ok_head(out);
            s.world.write_definitions(out);
        }
        ("spawn_actor", 2) => spawn(s, &a[0], &a[1], 0, 0, out)?,
        ("spawn_actor_with_parent", 4 | 5) => {
            let parent = as_u32(&a[2], "parent id")?;
            let kind = as_u32(&a[3], "attachment type")?;
            let kind = u8::try_from(kind)
                .ok()
                .filter(|k| *k <= 2)
                .ok_or("attachment type must be 0, 1 or 2")?;
            spawn(s, &a[0], &a[1], parent, kind, out)?
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
            let actor = actors.get(&id).ok_or_else(|| unknown_actor(id))?;
            wire::ok_head(out);
            wire::bounding_box(out, &actor.bounding_box, id);
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
                s.write_actor(out, actor);
            }
        }
        ("get_spectator", 0) => {
            let actors = s.world.actors.read();
            let spectator = actors.get(&s.world.spectator).ok_or("no spectator")?;
            wire::ok_head(out);
            s.write_actor(out, spectator);
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
        ("set_weather_parameters", 1) => void(out, || {
            let w = wire::as_weather(&a[0])?;
            *s.world.weather.lock() = w;
            s.tell(EngineCall::SetWeather(w));
            Ok(())
        }),
        ("set_actor_transform", 2) => void(out, || {
            let (actor_id, transform) = (known_actor(s, &a[0])?, as_transform(&a[1], "transform")?);
            s.tell(EngineCall::SetActorTransform {
                actor_id,
                transform,
            });
            Ok(())
        }),
        ("set_actor_location", 2) => void(out, || {
            let actor_id = known_actor(s, &a[0])?;
            let location = as_vector(&a[1], "location")?;
            let mut transform = s
                .world
                .actors
                .read()
                .get(&actor_id)
                .map(|x| x.transform)
                .unwrap_or_default();
            transform.location = location;
            s.tell(EngineCall::SetActorTransform {
                actor_id,
                transform,
            });
            Ok(())
        }),
        ("set_actor_target_velocity", 2) => void(out, || {
            let (actor_id, velocity) = (known_actor(s, &a[0])?, as_vector(&a[1], "velocity")?);
            s.tell(EngineCall::SetActorTargetVelocity { actor_id, velocity });
            Ok(())
        }),
        ("apply_control_to_vehicle", 2) => void(out, || {
            let actor_id = known_actor(s, &a[0])?;
            let control = wire::as_vehicle_control(&a[1], "vehicle control")?;
            s.tell(EngineCall::ApplyVehicleControl { actor_id, control });
            Ok(())
        }),
        ("draw_debug_shape", 1) => wire::void_ok(out),
        ("apply_batch", 2) => super::batch::apply(s, &a[0], &a[1], out)?,
        _ => return Ok(Outcome::Unknown),
    }
    Ok(Outcome::Done)
}

/// A `Response<void>` method: `[[false]]` or `[[true, [message]]]`.
fn void(out: &mut Out, run: impl FnOnce() -> ArgResult<()>) {
    match run() {
        Ok(()) => wire::void_ok(out),
        Err(e) => {
            crate::log_info!("rpc: call failed: {}", e);
            wire::void_failed(out, &e)
        }
    }
}

fn ok_str(out: &mut Out, v: &str) {
    wire::ok_string(out, v);
}

fn ok_uint(out: &mut Out, v: u64) {
    wire::ok_uint(out, v);
}

fn unknown_actor(id: u32) -> String {
    format!("actor {id} not found (never spawned or already destroyed)")
}

fn known_actor(s: &RpcShared, v: &Value) -> ArgResult<u32> {
    let id = as_u32(v, "actor id")?;
    if s.world.actors.read().contains_key(&id) {
        Ok(id)
    } else {
        Err(unknown_actor(id))
    }
}

/// `[uid, id, [[attribute, type, value] …]]` → (blueprint id, pairs).
fn description(v: &Value) -> ArgResult<(String, Attributes)> {
    let f = as_array(v, "actor description")?;
    let id = as_str(
        f.get(1).ok_or("actor description: no blueprint id")?,
        "blueprint id",
    )?;
    let mut attributes = Vec::new();
    if let Some(list) = f.get(2) {
        for attr in as_array(list, "attributes")? {
            let attr = as_array(attr, "attribute")?;
            let key = as_str(attr.first().ok_or("attribute without id")?, "attribute id")?;
            let kind = attr.get(1).and_then(Value::as_u64).unwrap_or(4) as u8;
            let value = attr
                .get(2)
                .map_or(Ok(""), |v| as_str(v, "attribute value"))?;
            attributes.push((key.to_owned(), kind, value.to_owned()));
        }
    }
    Ok((id.to_owned(), attributes))
}

/// Spawns an actor and writes its `rpc::Actor`.
pub(crate) fn spawn(
    s: &RpcShared,
    desc: &Value,
    t: &Value,
    parent: u32,
    attachment: u8,
    out: &mut Out,
) -> ArgResult<()> {
    let actor = spawn_actor(s, desc, t, parent, attachment)?;
    wire::ok_head(out);
    s.write_actor(out, &actor);
    Ok(())
}

/// Spawns an actor: library sensors get their stream first; the host is
/// asked to place it; on refusal the sensor is destroyed again.
pub(crate) fn spawn_actor(
    s: &RpcShared,
    desc: &Value,
    t: &Value,
    parent: u32,
    attachment: u8,
) -> ArgResult<Actor> {
    let (blueprint, attributes) = description(desc)?;
    let transform = as_transform(t, "transform")?;
    let (uid, bp) = s.world.blueprint(&blueprint).ok_or_else(|| {
        format!("unknown blueprint {blueprint:?}: not in this server's blueprint library")
    })?;
    if parent != 0 && !s.world.actors.read().contains_key(&parent) {
        return Err(format!(
            "cannot attach to actor {parent}: {}",
            unknown_actor(parent)
        ));
    }
    if s.world.actors.read().len() >= MAX_ACTORS {
        return Err(format!("this server holds at most {MAX_ACTORS} actors"));
    }
    let pairs: Vec<(&str, &str)> = attributes
        .iter()
        .filter(|(k, _, _)| k != "role_name")
        .map(|(k, _, v)| (k.as_str(), v.as_str()))
        .collect();
    let sensor = if bp.library_sensor {
        if s.sensor_count() >= MAX_SENSORS {
            return Err(format!(
                "this server holds at most {MAX_SENSORS} sensors spawned by clients"
            ));
        }
        s.sensors
            .create(&blueprint, &pairs)
            .map_err(|e| e.to_string())?
    } else {
        0
    };
    let actor_id = s.world.new_actor_id();
    let call = EngineCall::SpawnActor {
        actor_id,
        blueprint: blueprint.clone(),
        attributes: pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        transform,
        parent_id: parent,
        attachment,
        sensor_id: sensor,
    };
    // A refusal destroys the sensor on the host's thread, before the host's
    // answer returns (so the host never sees it alive after refusing it);
    // a time-out or a full queue destroys it here.
    let undo = (sensor != 0).then(|| {
        let table = Arc::downgrade(&s.sensors);
        Box::new(move || {
            if let Some(table) = table.upgrade() {
                let _ = table.destroy(sensor);
            }
        }) as Undo
    });
    if let Err(e) = s.ask_or_undo(call, undo) {
        if sensor != 0 {
            let _ = s.sensors.destroy(sensor);
        }
        return Err(e);
    }
    let actor = Actor {
        id: actor_id,
        parent,
        uid,
        blueprint,
        attributes,
        bounding_box: bp.bounding_box,
        sensor,
        transform,
    };
    s.world.actors.write().insert(actor_id, actor.clone());
    if sensor != 0 {
        s.apply_delivery_mode();
    }
    Ok(actor)
}

/// Destroys an actor (asks the host first).
pub(crate) fn destroy(s: &RpcShared, id: u32) -> ArgResult<()> {
    if id == s.world.spectator {
        return Err("the spectator cannot be destroyed".into());
    }
    let sensor = s
        .world
        .actors
        .read()
        .get(&id)
        .map(|a| a.sensor)
        .ok_or_else(|| unknown_actor(id))?;
    s.ask(EngineCall::DestroyActor {
        actor_id: id,
        sensor_id: sensor,
    })?;
    s.world.actors.write().remove(&id);
    if sensor != 0 {
        let _ = s.sensors.destroy(sensor);
    }
    Ok(())
}
