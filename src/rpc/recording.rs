//! The recorder and replayer on the RPC endpoint: CARLA's ten calls
//! (`start_recorder` … `set_replayer_ignore_spectator`), the hooks in each
//! episode state (a frame recorded, the replay advanced), and the host's
//! own use of them (`RpcServer::start_recorder`, ...).

use super::actors;
use super::call::{Call, Out};
use super::engine::EngineCall;
use super::error::{bad_arg, refused};
use super::spawn::{self, Refused, Spawn};
use super::wire::{self, as_bool, as_f64, as_str, as_transform, as_u32, ArgResult};
use super::world::{Actor, World};
use super::{ActorBox, ActorCommand, ActorState, EpisodeFrame, RpcServer, RpcShared, WorldCommand};
use crate::recorder::format::ActorAdd;
use crate::recorder::replay::ReplayCommand;
use crate::recorder::{self, replay, Recording, RecordingSummary, Replay, ReplayOptions};
use crate::release::Release;
use crate::types::{ActorTransform, Rotation3D, Vector3D};
use crate::Error;
use rmpv::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The recorder's state, behind one lock the game thread takes once per
/// episode state.
pub(crate) struct RecorderState {
    folder: PathBuf,
    recording: Option<Recording>,
    replay: Option<Replay>,
    options: ReplayOptions,
    refused: Refused,
}

impl Default for RecorderState {
    fn default() -> Self {
        RecorderState {
            folder: recorder::default_folder(),
            recording: None,
            replay: None,
            options: ReplayOptions::default(),
            refused: Default::default(),
        }
    }
}

/// The replayer's view of the world: the library's actors, the host's
/// queue.
struct LiveStage<'a> {
    s: &'a RpcShared,
    refused: Refused,
}

impl recorder::RecordedActor for Actor {
    fn id(&self) -> u32 {
        self.id
    }
    fn parent(&self) -> u32 {
        self.parent
    }
    fn uid(&self) -> u32 {
        self.uid
    }
    fn blueprint(&self) -> &str {
        &self.blueprint
    }
    fn attributes(&self) -> &[(String, u8, String)] {
        &self.attributes
    }
    fn transform(&self) -> ActorTransform {
        self.transform
    }
    fn light_state(&self) -> u32 {
        self.light_state
    }
    fn bounding_box(&self) -> ActorBox {
        self.bounding_box
    }
}

impl replay::Stage for LiveStage<'_> {
    fn blueprint_of(&self, id: u32) -> Option<String> {
        self.s
            .world
            .actors
            .read()
            .get(&id)
            .map(|a| a.blueprint.clone())
    }
    fn find_at(&self, blueprint: &str, cm: [f32; 3]) -> Option<u32> {
        let actors = self.s.world.actors.read();
        let whole = |v: f32| v.trunc() as i64;
        actors
            .values()
            .find(|a| {
                let l = a.current_transform().location;
                a.blueprint == blueprint
                    && [l.x, l.y, l.z].map(|v| whole(v * 100.0)) == cm.map(whole)
            })
            .map(|a| a.id)
    }
    fn spawn(&self, add: &ActorAdd, parent: u32, at: ActorTransform) -> Result<u32, String> {
        let spawn = Spawn {
            blueprint: add.blueprint.clone(),
            attributes: add
                .attributes
                .iter()
                .map(|(t, k, v)| (k.clone(), *t, v.clone()))
                .collect(),
            transform: at,
            parent,
            attachment: 0,
        };
        // A sensor gets a fresh id: a client caches actors by id, and a
        // sensor's description holds its stream token, which is new.
        let desired = if add.blueprint.starts_with("sensor.") {
            0
        } else {
            add.id
        };
        spawn::spawn_described(
            self.s,
            Release::V0_9_16,
            spawn,
            Some(self.refused.clone()),
            desired,
        )
        .map(|(a, _)| a.id)
        .map_err(|e| e.to_string())
    }
    fn destroy(&self, id: u32) {
        let sensor = self.s.world.actors.read().get(&id).map(|a| a.sensor);
        if let Some(sensor) = sensor {
            let _ = self.s.tell(EngineCall::DestroyActor {
                actor_id: id,
                sensor_id: sensor,
            });
            self.s.world.actors.write().remove(&id);
            self.s.sensors.ros.forget_vehicle(id);
            if sensor != 0 {
                let _ = self.s.sensors.destroy(sensor);
            }
        }
    }
    fn move_to(&self, id: u32, at: ActorTransform) {
        let _ = self.s.tell(EngineCall::SetActorTransform {
            actor_id: id,
            transform: at,
        });
    }
    fn command(&self, id: u32, command: ReplayCommand) {
        let command = match command {
            ReplayCommand::SimulatePhysics(on) => ActorCommand::SimulatePhysics(on),
            ReplayCommand::Autopilot(on) => ActorCommand::Autopilot(on),
            ReplayCommand::FreezeTrafficLight(on) => ActorCommand::FreezeTrafficLight(on),
            ReplayCommand::TrafficLightState(s) => ActorCommand::TrafficLightState(s),
            ReplayCommand::LightState(flags) => ActorCommand::LightState(flags),
        };
        let _ = actors::command(self.s, id, command);
    }
    fn hold_traffic(&self, hold: bool) {
        let _ = self
            .s
            .tell(EngineCall::World(WorldCommand::HoldTraffic(hold)));
    }
    fn spectator(&self) -> u32 {
        self.s.world.spectator
    }
    fn client_actor(&self, id: u32) -> bool {
        self.s
            .world
            .actors
            .read()
            .get(&id)
            .is_some_and(|a| a.owner != 0)
    }
    fn refused(&self) -> Vec<u32> {
        let ids = std::mem::take(&mut *self.refused.lock());
        for id in &ids {
            self.s.world.actors.write().remove(id);
        }
        ids
    }
}

/// The map's short name (what CARLA writes in a recording's header).
fn map_name(s: &RpcShared) -> String {
    let name = s.world.map.read().name.clone();
    name.rsplit('/').next().unwrap_or_default().to_owned()
}

impl RpcShared {
    fn resolve(&self, name: &str) -> Result<PathBuf, String> {
        let folder = self.recorder.lock().folder.clone();
        recorder::resolve(&folder, name)
    }

    /// Starts recording into `name` (see [`recorder::resolve`]): a
    /// recording or replay running is stopped first. Returns the path.
    fn start_recording(&self, name: &str, additional: bool) -> Result<PathBuf, String> {
        let path = self.resolve(name)?;
        self.stop_replay(false);
        // Taken out first: the game thread must not wait for the lock
        // while the old file is flushed.
        let old = self.recorder.lock().recording.take();
        if let Some(old) = old {
            log_summary(&old.finish());
        }
        let rec = recorder::create(&path, &map_name(self), additional)?;
        crate::log_info!(
            "recorder: recording into {}{}",
            path.display(),
            if additional {
                " (with additional data)"
            } else {
                ""
            }
        );
        let replaced = self.recorder.lock().recording.replace(rec);
        if let Some(old) = replaced {
            log_summary(&old.finish());
        }
        Ok(path)
    }

    fn stop_recording(&self) -> Option<RecordingSummary> {
        let rec = self.recorder.lock().recording.take()?;
        let summary = rec.finish();
        log_summary(&summary);
        Some(summary)
    }

    /// Lock order: the game thread takes the recorder's lock while it
    /// holds the actors' (`record_tick`), so no other thread may wait for
    /// the actors' lock while it holds the recorder's: the replay is taken
    /// out before it is ended.
    fn stop_replay(&self, keep_actors: bool) {
        let (replay, options, refused) = {
            let mut st = self.recorder.lock();
            (st.replay.take(), st.options, st.refused.clone())
        };
        if let Some(mut r) = replay {
            r.end(&LiveStage { s: self, refused }, options, keep_actors);
        }
    }

    fn start_replay(&self, name: &str, req: replay::ReplayRequest) -> Result<String, String> {
        let path = self.resolve(name)?;
        if self.recorder.lock().recording.is_some() {
            self.stop_recording();
        }
        self.stop_replay(false);
        let options = self.recorder.lock().options;
        let map = map_name(self);
        let opened = replay::open(&path, &map, &req, options);
        match opened {
            Ok(o) => {
                let (replaced, refused) = {
                    let mut st = self.recorder.lock();
                    (st.replay.replace(o.replay), st.refused.clone())
                };
                if let Some(mut old) = replaced {
                    old.end(&LiveStage { s: self, refused }, options, false);
                }
                crate::log_info!("replayer: replaying {}", path.display());
                Ok(o.text)
            }
            Err(text) => Ok(text),
        }
    }

    /// Records this tick (the game thread, actors locked for reading).
    pub(crate) fn record_tick(
        &self,
        frame: &EpisodeFrame,
        states: &[ActorState],
        index: &[(u32, u32)],
        actors: &BTreeMap<u32, Actor>,
    ) {
        let mut st = self.recorder.lock();
        let Some(rec) = st.recording.as_mut() else {
            return;
        };
        let state_of = |id: u32| {
            index
                .binary_search_by_key(&id, |p| p.0)
                .ok()
                .map(|i| index[i].1 as usize)
        };
        let lookup = |id: u32| state_of(id).map(|i| states[i].transform);
        let transform_of = |a: &Actor| World::world_transform(actors, a, &lookup);
        if !rec.capture(frame, states, &state_of, actors, &transform_of) {
            if let Some(rec) = st.recording.take() {
                drop(st);
                log_summary(&rec.finish());
            }
        }
    }

    /// Advances the replay by this tick (the game thread, after the
    /// episode state went out, the actors' lock released: the replayer
    /// takes it under the recorder's lock, which only this thread may do).
    pub(crate) fn replay_tick(&self, frame: &EpisodeFrame) {
        let mut st = self.recorder.lock();
        if st.replay.is_none() {
            return;
        }
        let options = st.options;
        let stage = LiveStage {
            s: self,
            refused: st.refused.clone(),
        };
        let r = st.replay.as_mut().expect("checked");
        r.step(&stage, frame.delta_seconds, options);
        if r.finished {
            st.replay = None;
        }
    }
}

fn log_summary(s: &RecordingSummary) {
    match &s.error {
        Some(e) => crate::log_error!("recorder: {} stopped early: {}", s.path.display(), e),
        None => crate::log_info!(
            "recorder: {} closed: {} frames, {} bytes{}",
            s.path.display(),
            s.frames,
            s.bytes,
            if s.dropped > 0 {
                format!(", {} frames dropped (the disk fell behind)", s.dropped)
            } else {
                String::new()
            }
        ),
    }
}

pub(super) fn start_recorder(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let name = as_str(&a[0], "file name")?;
    let additional = as_bool(&a[1], "additional_data")?;
    let path = c.s.start_recording(name, additional)?;
    wire::ok_string(out, &path.display().to_string());
    Ok(())
}

pub(super) fn stop_recorder(c: &Call, _: &[Value], out: &mut Out) -> ArgResult<()> {
    c.s.stop_recording();
    wire::void_ok(out);
    Ok(())
}

pub(super) fn show_recorder_file_info(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let path = c.s.resolve(as_str(&a[0], "file name")?)?;
    let info = recorder::file_info(&path, as_bool(&a[1], "show_all")?);
    wire::ok_string(out, &info);
    Ok(())
}

pub(super) fn show_recorder_collisions(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let path = c.s.resolve(as_str(&a[0], "file name")?)?;
    let letter = |v: &Value, what| -> ArgResult<u8> {
        let n = as_u32(v, what)?;
        u8::try_from(n).map_err(|_| bad_arg!("{what}: not a character"))
    };
    let (type1, type2) = (letter(&a[1], "type1")?, letter(&a[2], "type2")?);
    wire::ok_string(out, &recorder::collisions(&path, type1, type2));
    Ok(())
}

pub(super) fn show_recorder_actors_blocked(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let path = c.s.resolve(as_str(&a[0], "file name")?)?;
    let (min_time, min_distance) = (as_f64(&a[1], "min_time")?, as_f64(&a[2], "min_distance")?);
    wire::ok_string(
        out,
        &recorder::actors_blocked(&path, min_time, min_distance),
    );
    Ok(())
}

/// 0.9.16 sends the follow offset; older releases do not.
pub(super) fn replay_file(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let offset = match a.get(5) {
        Some(v) => as_transform(v, "offset")?,
        None => default_offset(),
    };
    let req = replay::ReplayRequest {
        start: as_f64(&a[1], "start")?,
        duration: as_f64(&a[2], "duration")?,
        follow_id: as_u32(&a[3], "follow_id")?,
        replay_sensors: as_bool(&a[4], "replay_sensors")?,
        offset,
    };
    let report = c.s.start_replay(as_str(&a[0], "file name")?, req)?;
    wire::ok_string(out, &report);
    Ok(())
}

pub(super) fn stop_replayer(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        c.s.stop_replay(as_bool(&a[0], "keep_actors")?);
        Ok(())
    });
    Ok(())
}

pub(super) fn set_replayer_time_factor(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        let f = as_f64(&a[0], "time_factor")?;
        if !(f.is_finite() && f >= 0.0) {
            return Err(refused!("time factor {f}: expected a finite number >= 0"));
        }
        c.s.recorder.lock().options.time_factor = f;
        Ok(())
    });
    Ok(())
}

/// `set_replayer_ignore_hero` (`hero`) and `set_replayer_ignore_spectator`.
pub(super) fn set_replayer_ignore(
    c: &Call,
    a: &[Value],
    out: &mut Out,
    hero: bool,
) -> ArgResult<()> {
    wire::void(out, || {
        let ignore = as_bool(&a[0], c.method)?;
        let options = &mut c.s.recorder.lock().options;
        if hero {
            options.ignore_hero = ignore;
        } else {
            options.ignore_spectator = ignore;
        }
        Ok(())
    });
    Ok(())
}

/// The Python API's default follow offset: 10 m behind, 5 m up, looking
/// 25 degrees down.
fn default_offset() -> ActorTransform {
    ActorTransform {
        location: Vector3D {
            x: -10.0,
            y: 0.0,
            z: 5.0,
        },
        rotation: Rotation3D {
            pitch: -25.0,
            yaw: 0.0,
            roll: 0.0,
        },
    }
}

/// The recorder and replayer for the host (Rust and C): the same as a
/// client's calls.
impl RpcServer {
    /// Where relative recording names land (created when needed); the
    /// default is `recordings` in the current directory.
    pub fn set_recording_folder(&self, folder: &Path) {
        self.shared.recorder.lock().folder = folder.to_owned();
    }

    /// The recording folder.
    pub fn recording_folder(&self) -> PathBuf {
        self.shared.recorder.lock().folder.clone()
    }

    /// `client.start_recorder(name, additional_data)`: records every
    /// episode state from the next one on. Returns the file's path.
    pub fn start_recorder(&self, name: &str, additional_data: bool) -> Result<PathBuf, Error> {
        self.shared
            .start_recording(name, additional_data)
            .map_err(Error::InvalidArgument)
    }

    /// `client.stop_recorder()`: writes what is queued and closes the
    /// file; `None` if nothing was recording.
    pub fn stop_recorder(&self) -> Option<RecordingSummary> {
        self.shared.stop_recording()
    }

    /// Whether a recording runs.
    pub fn is_recording(&self) -> bool {
        self.shared.recorder.lock().recording.is_some()
    }

    /// A collision between two actors (`u32::MAX` for the map's static
    /// geometry), for the next recorded frame; nothing when not recording.
    pub fn record_collision(&self, actor1: u32, actor2: u32) {
        let hero = |id: u32| {
            self.shared.world.actors.read().get(&id).is_some_and(|a| {
                a.attributes
                    .iter()
                    .any(|(k, _, v)| k == "role_name" && v == "hero")
            })
        };
        let (h1, h2) = (hero(actor1), hero(actor2));
        if let Some(rec) = self.shared.recorder.lock().recording.as_mut() {
            rec.collision(actor1, actor2, h1, h2);
        }
    }

    /// `show_recorder_file_info`'s text for a file of the folder (or an
    /// absolute path).
    pub fn recorder_file_info(&self, name: &str, show_all: bool) -> Result<String, Error> {
        self.query(name, |path| recorder::file_info(path, show_all))
    }

    /// `show_recorder_collisions`' text.
    pub fn recorder_collisions(&self, name: &str, type1: u8, type2: u8) -> Result<String, Error> {
        self.query(name, |path| recorder::collisions(path, type1, type2))
    }

    /// `show_recorder_actors_blocked`' text (`min_distance` in cm).
    pub fn recorder_actors_blocked(
        &self,
        name: &str,
        min_time: f64,
        min_distance: f64,
    ) -> Result<String, Error> {
        self.query(name, |path| {
            recorder::actors_blocked(path, min_time, min_distance)
        })
    }

    /// The text of query `run` of file `name` of the folder (or an
    /// absolute path).
    fn query(&self, name: &str, run: impl FnOnce(&Path) -> String) -> Result<String, Error> {
        let path = self.shared.resolve(name).map_err(Error::InvalidArgument)?;
        Ok(run(&path))
    }

    /// `client.replay_file(name, start, duration, follow_id,
    /// replay_sensors)`: CARLA's answer text (which also says why a file
    /// cannot be replayed).
    pub fn replay_file(
        &self,
        name: &str,
        start: f64,
        duration: f64,
        follow_id: u32,
        replay_sensors: bool,
    ) -> Result<String, Error> {
        let req = replay::ReplayRequest {
            start,
            duration,
            follow_id,
            replay_sensors,
            offset: default_offset(),
        };
        self.shared
            .start_replay(name, req)
            .map_err(Error::InvalidArgument)
    }

    /// `client.stop_replayer(keep_actors)`.
    pub fn stop_replayer(&self, keep_actors: bool) {
        self.shared.stop_replay(keep_actors);
    }

    /// Whether a replay runs.
    pub fn is_replaying(&self) -> bool {
        self.shared.recorder.lock().replay.is_some()
    }
}
