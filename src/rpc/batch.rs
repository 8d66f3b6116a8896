//! `client.apply_batch` / `apply_batch_sync`: a list of commands, each
//! `[[variant index, fields]]` (the 0.9.16 `rpc::Command` variant), answered
//! with one `CommandResponse` (`Response<ActorId>`) per command, not
//! wrapped in another envelope.
//!
//! Supported: SpawnActor (0: `[description, transform, [has parent, id?],
//! attachment type, socket name, do_after]` as the 0.9.16 client sends it
//! (verified), where actor id 0 in `do_after` means the new actor), DestroyActor (1), ApplyVehicleControl (2),
//! ApplyTransform (6), ApplyTargetVelocity (8) (indices verified with
//! the 0.9.16 client's `carla.command` classes). Any other command gets a
//! failed response naming its index; the batch goes on.

use super::actor_commands;
use super::actors::{self, destroy};
use super::engine::EngineCall;
use super::error::refused;
use super::spawn::spawn_actor;
use super::wire::{self, as_array, as_bool, as_transform, as_u32, as_vector, ArgResult};
use super::RpcShared;
use crate::release::Release;
use rmpv::Value;

/// Commands in one batch, at most (each may spawn an actor).
const MAX_COMMANDS: usize = 10_000;
/// Nesting of `do_after` lists, at most.
const MAX_NESTING: usize = 4;

pub(crate) fn apply(
    s: &RpcShared,
    release: Release,
    commands: &Value,
    do_tick: &Value,
    out: &mut Vec<u8>,
) -> ArgResult<()> {
    let commands = as_array(commands, "commands")?;
    let do_tick = as_bool(do_tick, "do_tick")?;
    if commands.len() > MAX_COMMANDS {
        return Err(refused!(
            "a batch holds at most {MAX_COMMANDS} commands, got {}",
            commands.len()
        ));
    }
    let mut since = None;
    let results: Vec<ArgResult<u32>> = commands
        .iter()
        .map(|c| run(s, release, c, None, 0, &mut since))
        .collect();
    if let Some(since) = since {
        actors::wait_until_streamed(s, since);
    }
    if do_tick && s.world.settings.lock().synchronous_mode.get() {
        s.ask(EngineCall::Tick)?;
    } else if let Some(client) = super::clients::current() {
        // Maybe a Traffic Manager's cycle ending (see `tm_pacing`).
        s.pacing.batch_applied(client.id);
    }
    wire::batch_results(out, &results);
    Ok(())
}

/// Runs one command; `new_actor` replaces actor id 0 in `do_after` lists.
/// `since`: the state count of the last spawn so far (see
/// `actors::wait_until_streamed`).
fn run(
    s: &RpcShared,
    release: Release,
    command: &Value,
    new_actor: Option<u32>,
    depth: usize,
    since: &mut Option<u64>,
) -> ArgResult<u32> {
    let variant = as_array(command, "command")?
        .first()
        .ok_or("empty command")?;
    let variant = as_array(variant, "command variant")?;
    let (Some(index), Some(fields)) = (variant.first().and_then(Value::as_u64), variant.get(1))
    else {
        return Err("a command is [[variant index, fields]]".into());
    };
    // Older releases number the variants from 3 on differently.
    let index = release.command_index_in(index);
    let f = as_array(fields, "command fields")?;
    let actor = |i: usize| -> ArgResult<u32> {
        let id = as_u32(f.get(i).ok_or("command without an actor id")?, "actor id")?;
        Ok(match (id, new_actor) {
            (0, Some(new)) => new,
            _ => id,
        })
    };
    let field = |i: usize| {
        f.get(i)
            .ok_or_else(|| format!("command {index}: missing field {i}"))
    };
    match index {
        0 => {
            let parent = match f.get(2).map(|p| as_array(p, "parent")) {
                Some(Ok([Value::Boolean(true), id, ..])) => as_u32(id, "parent id")?,
                _ => 0,
            };
            let (spawned, seq) = spawn_actor(s, release, field(0)?, field(1)?, parent, 0)?;
            *since = Some(since.map_or(seq, |x: u64| x.max(seq)));
            // 0.9.16: [description, transform, parent, attachment type,
            // socket name, do_after]; older clients: do_after at 3.
            if let Some(after) = f.get(5).or(f.get(3)).filter(|v| v.is_array()) {
                if depth < MAX_NESTING {
                    for c in as_array(after, "do_after")? {
                        if let Err(e) = run(s, release, c, Some(spawned.id), depth + 1, since) {
                            crate::log_debug!("apply_batch: a do_after command failed: {}", e);
                        }
                    }
                }
            }
            Ok(spawned.id)
        }
        1 => {
            let id = actor(0)?;
            destroy(s, id)?;
            Ok(id)
        }
        2 => {
            let (actor_id, control) = (actor(0)?, wire::as_vehicle_control(field(1)?, "control")?);
            known(s, actor_id)?;
            s.tell(EngineCall::ApplyVehicleControl { actor_id, control })?;
            Ok(actor_id)
        }
        6 => {
            let (actor_id, transform) = (actor(0)?, as_transform(field(1)?, "transform")?);
            known(s, actor_id)?;
            super::actors::set_transform(s, actor_id, transform)?;
            Ok(actor_id)
        }
        8 => {
            let (actor_id, velocity) = (actor(0)?, as_vector(field(1)?, "velocity")?);
            known(s, actor_id)?;
            s.tell(EngineCall::SetActorTargetVelocity { actor_id, velocity })?;
            Ok(actor_id)
        }
        19 => {
            let actor_id = actor(0)?;
            let location = as_vector(field(1)?, "location")?;
            actors::relocate(s, actor_id, location)?;
            Ok(actor_id)
        }
        // SetAutopilot: the client registers the vehicle with its own
        // Traffic Manager when this answers the actor id; the TM then
        // drives it with ordinary controls, so the engine's autopilot (the
        // `set_actor_autopilot` call) must stay off. Checked, not passed on.
        // ShowDebugTelemetry draws in the engine's viewport; a headless
        // server has none to draw in.
        16 | 17 => {
            let id = actor(0)?;
            match actors::is_kind(s, id, "vehicle.") {
                Some(true) => Ok(id),
                Some(false) => Err(refused!("command {index}: actor {id} is not a vehicle")),
                None => Err(refused!("actor {id} not found")),
            }
        }
        20 => Err("ConsoleCommand: this server has no engine console".into()),
        other => match actor_commands::from_batch(other, f)? {
            Some(command) => {
                let id = actor(0)?;
                actors::command(s, id, command)?;
                Ok(id)
            }
            None => Err(refused!("command {other} is not supported by this server")),
        },
    }
}

fn known(s: &RpcShared, id: u32) -> ArgResult<()> {
    if s.world.actors.read().contains_key(&id) {
        Ok(())
    } else {
        Err(refused!("actor {id} not found"))
    }
}
