//! The 0.9 requests a C host polled and has not answered: a request is
//! filled into the C host's `carla_rpc_request` (`fill`), and kept, with
//! the strings and bones its pointers point into, until its answer or the
//! next poll ([`Pending`]).

use super::rpc_commands::{
    self, CARLA_RPC_LOAD_OPENDRIVE, CARLA_RPC_VEHICLE_TELEMETRY, CARLA_RPC_WALKER_BONES,
};
use super::rpc_request::*;
use crate::rpc::{ActorCommand, BoneTransform, EngineCall, EngineRequest};
use crate::types::ActorTransform;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicU64, Ordering};

/// Strings of a spawn request (or a map load's name) and a `set_bones`'
/// bones in C's layout, kept until it is answered (or, for a request that
/// expects no answer, until the next poll).
#[derive(Default)]
struct Strings {
    _owned: Vec<CString>,
    keys: Vec<*const c_char>,
    values: Vec<*const c_char>,
    _bones: Vec<BoneTransform>,
}

// SAFETY: the raw pointers point into `_owned`, which moves with them and
// is only read (by the host, through the request it polled).
unsafe impl Send for Strings {}

/// Requests handed to the C host and not answered yet, by request id.
/// Ids only grow, so the first entry is the oldest.
#[derive(Default)]
pub(crate) struct Pending {
    next: AtomicU64,
    waiting: Mutex<BTreeMap<u64, (EngineRequest, Option<Strings>)>>,
    /// The last request polled that expects no answer, kept until the
    /// next poll: its text (`CARLA_RPC_V2X_SEND`) and bones
    /// (`CARLA_RPC_SET_WALKER_BONES`) stay readable till then.
    last: Mutex<Option<(EngineRequest, Option<Strings>)>>,
}

/// Requests waiting for a C host's answer, at most; the oldest is failed
/// when a new one would exceed it.
const MAX_PENDING: usize = 1024;

fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

fn fill(out: &mut carla_rpc_request, call: &EngineCall) -> Option<Strings> {
    let mut strings = None;
    match call {
        EngineCall::SpawnActor {
            actor_id,
            blueprint,
            attributes,
            transform,
            parent_id,
            attachment,
            sensor_id,
        } => {
            out.kind = CARLA_RPC_SPAWN_ACTOR;
            (out.actor_id, out.parent_id, out.sensor_id) = (*actor_id, *parent_id, *sensor_id);
            (out.attachment, out.transform) = (*attachment, *transform);
            let mut owned = vec![c_string(blueprint)];
            for (k, v) in attributes {
                owned.push(c_string(k));
                owned.push(c_string(v));
            }
            // Every other string from `first`. `skip`, not `[2..]`: a spawn
            // without attributes (a client's `role_name` is not passed on)
            // has only the blueprint id.
            let every_other = |first| owned.iter().skip(first).step_by(2).map(|c| c.as_ptr());
            let (keys, values) = (every_other(1).collect(), every_other(2).collect());
            let s = Strings {
                keys,
                values,
                _owned: owned,
                _bones: Vec::new(),
            };
            out.blueprint_id = s._owned[0].as_ptr();
            (out.attribute_keys, out.attribute_values) = (s.keys.as_ptr(), s.values.as_ptr());
            out.attribute_count = attributes.len() as u32;
            strings = Some(s);
        }
        EngineCall::DestroyActor {
            actor_id,
            sensor_id,
        } => {
            out.kind = CARLA_RPC_DESTROY_ACTOR;
            (out.actor_id, out.sensor_id) = (*actor_id, *sensor_id);
        }
        EngineCall::SetEpisodeSettings(s) => {
            out.kind = CARLA_RPC_EPISODE_SETTINGS;
            out.settings = *s;
        }
        EngineCall::Tick => out.kind = CARLA_RPC_TICK,
        EngineCall::SetActorTransform {
            actor_id,
            transform,
        } => {
            out.kind = CARLA_RPC_ACTOR_TRANSFORM;
            (out.actor_id, out.transform) = (*actor_id, *transform);
        }
        EngineCall::SetActorTargetVelocity { actor_id, velocity } => {
            out.kind = CARLA_RPC_ACTOR_VELOCITY;
            (out.actor_id, out.velocity) = (*actor_id, *velocity);
        }
        EngineCall::ApplyVehicleControl { actor_id, control } => {
            out.kind = CARLA_RPC_VEHICLE_CONTROL;
            (out.actor_id, out.control) = (*actor_id, *control);
        }
        EngineCall::SetWeather(w) => {
            out.kind = CARLA_RPC_WEATHER;
            out.weather = *w;
        }
        EngineCall::Actor { actor_id, command } => {
            rpc_commands::fill_actor(out, *actor_id, command);
            if let ActorCommand::SetBones(list) = command {
                strings = Some(bones(out, list));
            }
        }
        EngineCall::World(command) => rpc_commands::fill_world(out, command),
        EngineCall::LoadEpisode {
            map,
            reset_settings,
        } => {
            rpc_commands::fill_load_episode(out, *reset_settings);
            let s = Strings {
                _owned: vec![c_string(map)],
                ..Default::default()
            };
            out.map_name = s._owned[0].as_ptr();
            strings = Some(s);
        }
        EngineCall::LoadOpenDrive { opendrive, params } => {
            // The text stays where the request holds it (an `Arc<str>`,
            // not copied) until the request is answered.
            out.kind = CARLA_RPC_LOAD_OPENDRIVE;
            out.opendrive = opendrive.as_ptr().cast::<c_char>();
            out.opendrive_length = opendrive.len();
            out.opendrive_parameters = *params;
        }
        EngineCall::VehicleTelemetry { actor_id } => {
            out.kind = CARLA_RPC_VEHICLE_TELEMETRY;
            out.actor_id = *actor_id;
        }
        EngineCall::WalkerBones { actor_id } => {
            out.kind = CARLA_RPC_WALKER_BONES;
            out.actor_id = *actor_id;
        }
    }
    strings
}

/// A `set_bones`' bones in C's layout, pointed to by `out` (names and
/// transforms were checked when the client's call was decoded: at most
/// `CARLA_MAX_BONES`, names that fit).
fn bones(out: &mut carla_rpc_request, list: &[(String, ActorTransform)]) -> Strings {
    let zero = ActorTransform::default();
    let bones: Vec<BoneTransform> = list
        .iter()
        .filter_map(|(name, t)| BoneTransform::new(name, zero, zero, *t).ok())
        .collect();
    // The Vec's buffer does not move when the Vec does.
    out.bones = bones.as_ptr();
    out.bone_count = bones.len() as u32;
    Strings {
        _bones: bones,
        ..Default::default()
    }
}

impl Pending {
    /// Fills `out` from `req` and keeps `req` with what `out` points into:
    /// until it is answered if it expects an answer (`out.request_id` is
    /// its id then), else until the next poll. Past [`MAX_PENDING`]
    /// waiting, the oldest is failed.
    pub(crate) fn keep(&self, out: &mut carla_rpc_request, req: EngineRequest) {
        let strings = fill(out, req.call());
        out.expects_answer = req.expects_answer();
        if !req.expects_answer() {
            // No answer; what its pointers point into lives till the next
            // poll (this one dropped the one before).
            *self.last.lock() = Some((req, strings));
            return;
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        out.request_id = id;
        let mut waiting = self.waiting.lock();
        if waiting.len() >= MAX_PENDING {
            if let Some((old, (r, _))) = waiting.pop_first() {
                crate::log_warn!("rpc: request {} was never answered; it is failed now", old);
                r.fail("the simulator never answered this request");
            }
        }
        waiting.insert(id, (req, strings));
    }

    /// The request waiting for answer `id`, taken out.
    pub(crate) fn take(&self, id: u64) -> Option<EngineRequest> {
        self.waiting.lock().remove(&id).map(|(req, _strings)| req)
    }
}
