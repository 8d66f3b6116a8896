//! Spawning a client's actor: the checks (blueprint, release, parent, the
//! server's caps, the client's budget), a library sensor's stream first,
//! the host asked to place the actor (a refusal undoes the sensor), then
//! the actor known to the world. Single calls (`calls.rs`), batches
//! (`batch.rs`) and the replayer (`recording.rs`) all spawn here.

use super::clients::{self, ClientBudget, ClientShare};
use super::engine::{EngineCall, Undo};
use super::error::refused;
use super::error::RpcError;
use super::wire::{as_array, as_str, as_transform, ArgResult};
use super::world::unknown_actor;
use super::world::{Actor, ActorKind, Blueprint, ATTR_STRING, WALKER_CONTROLLER};
use super::RpcShared;
use crate::release::Release;
use crate::types::ActorTransform;
use rmpv::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Live actors a client may create, at most.
pub(crate) const MAX_ACTORS: usize = 10_000;
/// Library sensors a client may create, at most (each has a stream).
pub(crate) const MAX_SENSORS: usize = 256;

/// `(id, type, value)` of a spawned actor's attributes.
type Attributes = Vec<(String, u8, String)>;

/// What to spawn, decoded.
pub(crate) struct Spawn {
    pub(crate) blueprint: String,
    pub(crate) attributes: Attributes,
    pub(crate) transform: ActorTransform,
    pub(crate) parent: u32,
    pub(crate) attachment: u8,
}

/// Ids whose spawn the host refused (a replay's spawns, which nobody
/// waits for).
pub(crate) type Refused = Arc<parking_lot::Mutex<Vec<u32>>>;

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

/// Spawns an actor from a client's description and transform. Also
/// returns the count of states composed before it existed (see
/// [`super::actors::wait_until_streamed`]).
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
    let (uid, bp) = spawnable(s, release, &spawn)?;
    let owner = Owner::current(s, &spawn.blueprint);
    owner.may_hold_one_more(bp.library_sensor)?;
    let pairs: Vec<(&str, &str)> = spawn
        .attributes
        .iter()
        .filter(|(k, _, _)| k != "role_name" && !super::world::is_ros_attribute(k))
        .map(|(k, _, v)| (k.as_str(), v.as_str()))
        .collect();
    let sensor = if bp.library_sensor {
        if s.sensor_count() >= MAX_SENSORS {
            return Err(refused!(
                "this server holds at most {MAX_SENSORS} sensors spawned by clients"
            ));
        }
        s.sensors
            .create(&spawn.blueprint, &pairs)
            .map_err(|e| e.to_string())?
    } else {
        0
    };
    let frame_bytes = owner.may_stream(s, sensor)?;
    let controller = spawn.blueprint == WALKER_CONTROLLER;
    if controller && !attached_to_a_walker(s, spawn.parent) {
        return Err(refused!(
            "{WALKER_CONTROLLER} must be spawned attached to a walker"
        ));
    }
    let actor_id = s
        .world
        .free_id_below_next(desired_id)
        .unwrap_or_else(|| s.world.new_actor_id());
    let call = EngineCall::SpawnActor {
        actor_id,
        blueprint: spawn.blueprint.clone(),
        attributes: pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        transform: spawn.transform,
        parent_id: spawn.parent,
        attachment: spawn.attachment,
        sensor_id: sensor,
    };
    // The walker controller is the client's (its crowd moves the walker
    // with walker states); the engine has nothing to spawn.
    if !controller {
        if let Err(e) = ask_host(s, call, actor_id, sensor, refused) {
            if sensor != 0 {
                let _ = s.sensors.destroy(sensor);
            }
            return Err(e);
        }
    }
    let token_for_clients = sensor != 0 && token_for_clients(&spawn.blueprint, &spawn.attributes);
    let owner = owner.id;
    let actor = Actor {
        id: actor_id,
        parent: spawn.parent,
        uid,
        kind: ActorKind::of(&spawn.blueprint),
        blueprint: spawn.blueprint,
        attributes: spawn.attributes,
        bounding_box: bp.bounding_box,
        sensor,
        transform: spawn.transform,
        light_state: 0,
        token_for_clients,
        physics: bp.physics,
        ackermann: None,
        last: Default::default(),
        owner,
        frame_bytes,
    };
    Ok(known(s, actor))
}

/// The spawn's blueprint (its definition id and itself), if it may be
/// spawned at all: known, in the client's release, with a live parent,
/// under the server's cap on actors.
fn spawnable(s: &RpcShared, release: Release, spawn: &Spawn) -> ArgResult<(u32, Blueprint)> {
    let blueprint = &spawn.blueprint;
    let found = s.world.blueprint(blueprint).ok_or_else(|| {
        format!("unknown blueprint {blueprint:?}: not in this server's blueprint library")
    })?;
    if !release.has_sensor_blueprint(blueprint) {
        return Err(refused!(
            "{blueprint} is not in the blueprint library of CARLA {release} (its client cannot decode that sensor's data)"
        ));
    }
    let parent = spawn.parent;
    if parent != 0 && !s.world.actors.read().contains_key(&parent) {
        return Err(refused!(
            "cannot attach to actor {parent}: {}",
            unknown_actor(parent)
        ));
    }
    if s.world.actors.read().len() >= MAX_ACTORS {
        return Err(refused!("this server holds at most {MAX_ACTORS} actors"));
    }
    Ok(found)
}

/// The client spawning (id 0: the host or the replayer, which no budget
/// limits), its budget and what its actors hold.
struct Owner<'a> {
    client: Option<Arc<ClientShare>>,
    id: u64,
    budget: ClientBudget,
    /// (sensors, actors, frame bytes).
    held: (usize, usize, u64),
    blueprint: &'a str,
}

impl<'a> Owner<'a> {
    fn current(s: &RpcShared, blueprint: &'a str) -> Owner<'a> {
        let client = clients::current();
        let id = client.as_ref().map_or(0, |c| c.id);
        Owner {
            held: s.held_by(id),
            budget: s.clients.budget(),
            client,
            id,
            blueprint,
        }
    }

    /// The message of a spawn over the budget's `limit`, counted against
    /// the client.
    fn refuse(&self, limit: &str, what: String) -> RpcError {
        let message = format!(
            "client {} {what} ({limit}, the per-client budget); the {} spawn was refused",
            self.id, self.blueprint
        );
        RpcError::Refused(match &self.client {
            Some(c) => c.refuse(message),
            None => message,
        })
    }

    /// Whether the budget allows one more actor (a sensor, if `sensor`).
    fn may_hold_one_more(&self, sensor: bool) -> ArgResult<()> {
        let (sensors, actors, _) = self.held;
        if self.id != 0 && actors >= self.budget.max_actors {
            return Err(self.refuse("max_actors", format!("holds {actors} actors already")));
        }
        if self.id != 0 && sensor && sensors >= self.budget.max_sensors {
            let what = format!("holds {sensors} sensors already");
            return Err(self.refuse("max_sensors", what));
        }
        Ok(())
    }

    /// The bytes a tick of library sensor `sensor` (0: none) makes, if the
    /// budget allows them; over it, the sensor is destroyed again.
    fn may_stream(&self, s: &RpcShared, sensor: u32) -> ArgResult<u64> {
        let frame_bytes = match s.sensors.get_quiet(sensor) {
            Some(e) if sensor != 0 => e.instance.frame_bytes(),
            _ => 0,
        };
        let held = self.held.2;
        let max = self.budget.max_frame_bytes;
        if self.id != 0 && held.saturating_add(frame_bytes) > max {
            let _ = s.sensors.destroy(sensor);
            return Err(self.refuse(
                "max_frame_bytes",
                format!(
                    "has sensors producing {held} bytes per tick and this one would add {frame_bytes}, over {max}"
                ),
            ));
        }
        Ok(frame_bytes)
    }
}

fn attached_to_a_walker(s: &RpcShared, parent: u32) -> bool {
    let actors = s.world.actors.read();
    actors
        .get(&parent)
        .is_some_and(|p| p.kind == ActorKind::Walker)
}

/// Asks the host to spawn. With `refused` (the replayer) it is not waited
/// for: a refusal lands in that list. A refusal destroys the sensor on the
/// host's thread, before the host's answer returns (so the host never sees
/// it alive after refusing it); a time-out or a full queue leaves that to
/// the caller.
fn ask_host(
    s: &RpcShared,
    call: EngineCall,
    actor_id: u32,
    sensor: u32,
    refused: Option<Refused>,
) -> ArgResult<()> {
    let undo = (sensor != 0).then(|| {
        let table = Arc::downgrade(&s.sensors);
        Box::new(move || {
            if let Some(table) = table.upgrade() {
                let _ = table.destroy(sensor);
            }
        }) as Undo
    });
    match refused {
        Some(refused) => {
            let undo = Box::new(move || {
                refused.lock().push(actor_id);
                if let Some(undo) = undo {
                    undo();
                }
            }) as Undo;
            s.engine
                .push(call, false, Some(undo), None)
                .map(|_| ())
                .map_err(RpcError::Refused)
        }
        None => s.ask_or_undo(call, undo).map(|_| ()),
    }
}

/// Makes `actor` known: a hero to ROS 2, the actor to the world. Returns
/// it and the count of states composed before it was known.
fn known(s: &RpcShared, actor: Actor) -> (Actor, u64) {
    if let Some(name) = super::ros::hero_name(&actor) {
        let info = super::ros::vehicle_info(&actor);
        s.sensors.ros.register_vehicle(actor.id, &name, info);
    }
    // States composed after this count include the actor.
    let seq = {
        let mut actors = s.world.actors.write();
        actors.insert(actor.id, actor.clone());
        s.world.states_composed.load(Ordering::Relaxed)
    };
    if actor.sensor != 0 {
        s.apply_delivery_mode();
    }
    (actor, seq)
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
