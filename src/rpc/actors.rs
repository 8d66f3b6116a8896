//! A client's actors once spawned (`spawn.rs`): destroying them, moving
//! them and their commands, as single calls (`calls.rs`) and batches
//! (`batch.rs`) both do them.

use super::actor_commands::ActorCommand;
use super::engine::EngineCall;
use super::error::refused;
use super::wire::ArgResult;
use super::world::{unknown_actor, WALKER_CONTROLLER};
use super::RpcShared;
use crate::types::{ActorTransform, Vector3D};
use std::sync::atomic::Ordering;

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
                return Err(refused!(
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
