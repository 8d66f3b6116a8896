//! A client's actors: spawning (a library sensor gets its stream first,
//! the host is asked to place the actor, a refusal undoes the sensor) and
//! destroying, as single calls (`calls.rs`) and batches (`batch.rs`) both
//! do them, within the server's caps.

use super::actor_commands::ActorCommand;
use super::engine::{EngineCall, Undo};
use super::wire::{as_array, as_str, as_transform, ArgResult};
use super::world::ActorKind;
use super::world::ATTR_STRING;
use super::world::{Actor, WALKER_CONTROLLER};
use super::RpcShared;
use crate::release::Release;
use crate::types::{ActorTransform, Vector3D};
use rmpv::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Live actors a client may create, at most.
pub(crate) const MAX_ACTORS: usize = 10_000;
/// Library sensors a client may create, at most (each has a stream).
pub(crate) const MAX_SENSORS: usize = 256;

/// `(id, type, value)` of a spawned actor's attributes.
type Attributes = Vec<(String, u8, String)>;

pub(crate) fn unknown_actor(id: u32) -> String {
    format!("actor {id} not found (never spawned or already destroyed)")
}

/// `[uid, id, [[attribute, type, value] …]]` → (blueprint id, pairs), with
/// the library's attribute types (`release` numbers them its way).
fn description(v: &Value, release: Release) -> ArgResult<(String, Attributes)> {
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
            let kind = attr
                .get(1)
                .and_then(Value::as_u64)
                .map_or(ATTR_STRING, |k| {
                    release.attribute_type_in(u8::try_from(k).unwrap_or(u8::MAX))
                });
            let value = attr
                .get(2)
                .map_or(Ok(""), |v| as_str(v, "attribute value"))?;
            attributes.push((key.to_owned(), kind, value.to_owned()));
        }
    }
    Ok((id.to_owned(), attributes))
}

/// Spawns an actor: library sensors get their stream first; the host is
/// asked to place it; on refusal the sensor is destroyed again. Also
/// returns the count of states composed before it existed (see
/// [`wait_until_streamed`]).
pub(crate) fn spawn_actor(
    s: &RpcShared,
    release: Release,
    desc: &Value,
    t: &Value,
    parent: u32,
    attachment: u8,
) -> ArgResult<(Actor, u64)> {
    let (blueprint, attributes) = description(desc, release)?;
    let transform = as_transform(t, "transform")?;
    let spawn = Spawn {
        blueprint,
        attributes,
        transform,
        parent,
        attachment,
    };
    spawn_described(s, release, spawn, None, 0)
}

/// What to spawn, decoded.
pub(crate) struct Spawn {
    pub(crate) blueprint: String,
    pub(crate) attributes: Attributes,
    pub(crate) transform: crate::types::ActorTransform,
    pub(crate) parent: u32,
    pub(crate) attachment: u8,
}

/// Ids whose spawn the host refused (a replay's spawns, which nobody
/// waits for).
pub(crate) type Refused = Arc<parking_lot::Mutex<Vec<u32>>>;

/// [`spawn_actor`] of a decoded description; with `refused`, the host is
/// not waited for (the replayer, on the host's own thread): the actor is
/// known at once, and a refusal lands in that list. `desired_id` (not 0)
/// is used if it is free and the id counter is past it (so no client can
/// be handed it), as CARLA's replayer keeps recorded ids where it can.
pub(crate) fn spawn_described(
    s: &RpcShared,
    release: Release,
    spawn: Spawn,
    refused: Option<Refused>,
    desired_id: u32,
) -> ArgResult<(Actor, u64)> {
    let Spawn {
        blueprint,
        attributes,
        transform,
        parent,
        attachment,
    } = spawn;
    let (uid, bp) = s.world.blueprint(&blueprint).ok_or_else(|| {
        format!("unknown blueprint {blueprint:?}: not in this server's blueprint library")
    })?;
    if !release.has_sensor_blueprint(&blueprint) {
        return Err(format!(
            "{blueprint} is not in the blueprint library of CARLA {release} (its client cannot decode that sensor's data)"
        ));
    }
    if parent != 0 && !s.world.actors.read().contains_key(&parent) {
        return Err(format!(
            "cannot attach to actor {parent}: {}",
            unknown_actor(parent)
        ));
    }
    if s.world.actors.read().len() >= MAX_ACTORS {
        return Err(format!("this server holds at most {MAX_ACTORS} actors"));
    }
    let client = super::clients::current();
    let owner = client.as_ref().map_or(0, |c| c.id);
    let budget = s.clients.budget();
    let (held_sensors, held_actors, held_bytes) = s.held_by(owner);
    let refuse = |limit: &str, what: String| -> String {
        let message = format!(
            "client {owner} {what} ({limit}, the per-client budget); the {blueprint} spawn was refused"
        );
        match &client {
            Some(c) => c.refuse(message),
            None => message,
        }
    };
    if owner != 0 && held_actors >= budget.max_actors {
        return Err(refuse(
            "max_actors",
            format!("holds {held_actors} actors already"),
        ));
    }
    if owner != 0 && bp.library_sensor && held_sensors >= budget.max_sensors {
        return Err(refuse(
            "max_sensors",
            format!("holds {held_sensors} sensors already"),
        ));
    }
    let pairs: Vec<(&str, &str)> = attributes
        .iter()
        .filter(|(k, _, _)| k != "role_name" && !super::ros::is_ros_attribute(k))
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
    let frame_bytes = match s.sensors.get_quiet(sensor) {
        Some(e) if sensor != 0 => e.instance.frame_bytes(),
        _ => 0,
    };
    if owner != 0 && held_bytes.saturating_add(frame_bytes) > budget.max_frame_bytes {
        let _ = s.sensors.destroy(sensor);
        return Err(refuse(
            "max_frame_bytes",
            format!(
                "has sensors producing {held_bytes} bytes per tick and this one would add {frame_bytes}, over {}",
                budget.max_frame_bytes
            ),
        ));
    }
    let controller = blueprint == WALKER_CONTROLLER;
    if controller {
        let actors = s.world.actors.read();
        let walker = actors.get(&parent).map(|p| p.kind == ActorKind::Walker);
        if walker != Some(true) {
            return Err(format!(
                "{WALKER_CONTROLLER} must be spawned attached to a walker"
            ));
        }
    }
    let actor_id = s
        .world
        .free_id_below_next(desired_id)
        .unwrap_or_else(|| s.world.new_actor_id());
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
    // The walker controller is the client's (its crowd moves the walker
    // with walker states); the engine has nothing to spawn.
    let asked = if controller {
        Ok(0)
    } else if let Some(refused) = refused {
        let undo = Box::new(move || {
            refused.lock().push(actor_id);
            if let Some(undo) = undo {
                undo();
            }
        }) as Undo;
        s.engine.push(call, false, Some(undo), None).map(|_| 0)
    } else {
        s.ask_or_undo(call, undo)
    };
    if let Err(e) = asked {
        if sensor != 0 {
            let _ = s.sensors.destroy(sensor);
        }
        return Err(e);
    }
    let token_for_clients = sensor != 0 && token_for_clients(&blueprint, &attributes);
    let actor = Actor {
        id: actor_id,
        parent,
        uid,
        kind: ActorKind::of(&blueprint),
        blueprint,
        attributes,
        bounding_box: bp.bounding_box,
        sensor,
        transform,
        light_state: 0,
        token_for_clients,
        physics: bp.physics,
        ackermann: None,
        last: Default::default(),
        owner,
        frame_bytes,
    };
    if let Some(name) = super::ros::hero_name(&actor) {
        let info = super::ros::vehicle_info(&actor);
        s.sensors.ros.register_vehicle(actor_id, &name, info);
    }
    // States composed after this count include the actor.
    let seq = {
        let mut actors = s.world.actors.write();
        actors.insert(actor_id, actor.clone());
        s.world.states_composed.load(Ordering::Relaxed)
    };
    if sensor != 0 {
        s.apply_delivery_mode();
    }
    Ok((actor, seq))
}

/// Whether a sensor's stream token goes to 0.9 clients: a stock 0.9.16
/// client crashes on data of a sensor type its registry lacks (the
/// safe-distance sensor), so that one is a plain actor to clients unless
/// spawned with `client_stream=true` (clients built with it); its data is
/// still on its stream (`get_actor_stream_token`).
fn token_for_clients(blueprint: &str, attributes: &Attributes) -> bool {
    let stock =
        crate::sensor::SensorType::from_name(blueprint).is_some_and(|t| t.in_0_9_16_release());
    stock
        || attributes
            .iter()
            .any(|(k, _, v)| k == "client_stream" && v.eq_ignore_ascii_case("true"))
}

/// Asynchronous mode: waits until the world stream carried a state with
/// an actor spawned when `since` states were composed, and the state
/// after it (so the client, whose stream thread reads states beside the
/// RPC reply, has had a tick to take it in): it knows the actor at once
/// (its `destroy()` sends nothing for an actor missing from its latest
/// state), as a CARLA server that answers spawns once per frame does.
/// Synchronous mode waits for nothing: the next `tick()` carries it, as
/// with CARLA. A host that sends no states is not waited for.
pub(crate) fn wait_until_streamed(s: &RpcShared, since: u64) {
    let sync = s.world.settings.lock().synchronous_mode.get();
    if sync || s.world.last_frame.load(Ordering::Relaxed) == 0 {
        return;
    }
    // A host whose loop a busy machine holds back for a second still
    // sends them: a second's bound let the reply overtake the state, and
    // the client's destroy() right after it sent nothing (api_surface.py,
    // two full test runs in five on two cores).
    let bound = s.timeout.min(std::time::Duration::from_secs(5));
    if !s.world.wait_for_state_after(since + 1, bound) {
        crate::log_debug!("rpc: no episode state within {:?} of a spawn", bound);
    }
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
    let controller = s
        .world
        .actors
        .read()
        .get(&id)
        .map(|a| a.blueprint == WALKER_CONTROLLER);
    if controller != Some(true) {
        s.ask(EngineCall::DestroyActor {
            actor_id: id,
            sensor_id: sensor,
        })?;
    }
    s.world.actors.write().remove(&id);
    s.sensors.ros.forget_vehicle(id);
    if sensor != 0 {
        let _ = s.sensors.destroy(sensor);
    }
    Ok(())
}

/// Whether actor `id`'s blueprint starts with `prefix` (`"vehicle."`,
/// `"traffic.traffic_light"`, ...); `None` if there is no such actor.
pub(crate) fn is_kind(s: &RpcShared, id: u32, prefix: &str) -> Option<bool> {
    s.world
        .actors
        .read()
        .get(&id)
        .map(|a| a.blueprint.starts_with(prefix))
}

/// Asks the host to move actor `id` to `location`, keeping its rotation
/// (`set_location`, batch `ApplyLocation`).
pub(crate) fn relocate(s: &RpcShared, id: u32, location: Vector3D) -> ArgResult<()> {
    let mut transform = s
        .world
        .actors
        .read()
        .get(&id)
        .ok_or_else(|| unknown_actor(id))?
        .current_transform();
    transform.location = location;
    set_transform(s, id, transform)
}

/// Hands actor `id`'s new transform to the host (`set_transform`, batch
/// `ApplyTransform`). A sensor's is kept here too: the library reports
/// sensors' transforms itself, from their parent and this.
pub(crate) fn set_transform(s: &RpcShared, id: u32, transform: ActorTransform) -> ArgResult<()> {
    if let Some(a) = s.world.actors.write().get_mut(&id) {
        if a.sensor != 0 {
            a.transform = transform;
        }
    }
    s.tell(EngineCall::SetActorTransform {
        actor_id: id,
        transform,
    })
}

/// Checks and hands an actor command to the host (without waiting);
/// remembers what clients read back (vehicle light states).
pub(crate) fn command(s: &RpcShared, actor_id: u32, mut command: ActorCommand) -> ArgResult<()> {
    {
        let mut actors = s.world.actors.write();
        let actor = actors
            .get_mut(&actor_id)
            .ok_or_else(|| unknown_actor(actor_id))?;
        if let Some(kind) = command.applies_to() {
            if !actor.blueprint.starts_with(kind) {
                return Err(format!(
                    "{}: actor {} is a {}, not a {}",
                    command.name(),
                    actor_id,
                    actor.blueprint,
                    kind.trim_end_matches('.')
                ));
            }
        }
        match &mut command {
            ActorCommand::LightState(flags) => actor.light_state = *flags,
            ActorCommand::AckermannSettings(gains) => actor.ackermann = Some(*gains),
            ActorCommand::PhysicsControl(applied) => {
                // A client cannot move wheels: they stay where the vehicle
                // has them (local metres; see `physics`).
                let own = actor.local_physics_control();
                for (i, w) in applied.wheels.iter_mut().enumerate() {
                    w.position = own
                        .wheels
                        .get(i)
                        .map_or_else(Default::default, |o| o.position);
                }
                actor.physics = Some(applied.clone());
            }
            _ => {}
        }
    }
    s.tell(EngineCall::Actor { actor_id, command })
}
