//! The replayer: reads a recording forward as the world ticks and moves
//! the recorded actors through the host's usual requests (spawn, destroy,
//! transform, physics, traffic-light state), never waiting for the host.
//!
//! Each episode state the host sends advances the replay time by the
//! tick's step times the time factor; every frame up to that time has its
//! events carried out (actors added, removed, attached), and the last
//! frame at or before it has its poses, light states and vehicle lights
//! applied, exactly as recorded (no interpolation between frames: a slow
//! time factor holds each pose until the next frame's time). The actors
//! are spawned anew, except where an actor with the recorded id and
//! blueprint is alive (the town's own traffic, lights and walkers, a
//! client's car still there), which is moved instead; traffic lights and
//! signs are never spawned (found by id, then by place). While a replay
//! runs, the host is asked to hold its own traffic still.

use super::file::{FrameStart, Packets};
use super::format::{self as f, records, ActorAdd, FormatError, LightRecord, Pose};
use crate::types::{ActorTransform, Rotation3D, Vector3D};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What the replayer asks of a live actor (the RPC layer carries each out
/// as the client's actor command of the same name).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ReplayCommand {
    SimulatePhysics(bool),
    Autopilot(bool),
    FreezeTrafficLight(bool),
    /// 0 red, 1 yellow, 2 green, 3 off, 4 unknown.
    TrafficLightState(u8),
    /// `carla.VehicleLightState` flags.
    LightState(u32),
}

impl ReplayCommand {
    /// The name a log line gives it (the actor command's), for the tests.
    #[cfg(test)]
    pub(crate) fn name(self) -> &'static str {
        match self {
            ReplayCommand::SimulatePhysics(_) => "simulate physics",
            ReplayCommand::Autopilot(_) => "autopilot",
            ReplayCommand::FreezeTrafficLight(_) => "freeze traffic light",
            ReplayCommand::TrafficLightState(_) => "traffic light state",
            ReplayCommand::LightState(_) => "vehicle light state",
        }
    }
}

/// What the replayer asks of the world (the RPC layer's, or a test's).
pub(crate) trait Stage {
    /// The blueprint of live actor `id`.
    fn blueprint_of(&self, id: u32) -> Option<String>;
    /// A live actor of `blueprint` whose location is `cm` (whole cm).
    fn find_at(&self, blueprint: &str, cm: [f32; 3]) -> Option<u32>;
    /// Spawns a recorded actor (attached to live `parent` if not 0);
    /// returns its id.
    fn spawn(&self, add: &ActorAdd, parent: u32, at: ActorTransform) -> Result<u32, String>;
    fn destroy(&self, id: u32);
    fn move_to(&self, id: u32, at: ActorTransform);
    fn command(&self, id: u32, command: ReplayCommand);
    fn hold_traffic(&self, hold: bool);
    /// Whether live actor `id` was spawned by a client (the host's own
    /// actors are held by `hold_traffic` instead of their physics).
    fn client_actor(&self, id: u32) -> bool;
    fn spectator(&self) -> u32;
    /// Ids whose spawn the host refused since the last call.
    fn refused(&self) -> Vec<u32>;
}

/// The replayer's settings, kept between replays as CARLA keeps them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReplayOptions {
    pub(crate) time_factor: f64,
    pub(crate) ignore_hero: bool,
    pub(crate) ignore_spectator: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            time_factor: 1.0,
            ignore_hero: false,
            ignore_spectator: true,
        }
    }
}

/// A replay in progress.
pub(crate) struct Replay {
    packets: Packets,
    version: u16,
    t: f64,
    start: f64,
    stop_time: f64,
    follow: u32,
    offset: ActorTransform,
    sensors: bool,
    begun: bool,
    /// Recorded id -> live id.
    ids: BTreeMap<u32, u32>,
    /// Live ids the replay spawned (destroyed by `stop(false)`).
    spawned: BTreeSet<u32>,
    /// Recorded ids not replayed (ignored heroes, sensors, controllers).
    skipped: BTreeSet<u32>,
    spectator_id: Option<u32>,
    heroes: BTreeSet<u32>,
    last_pose: BTreeMap<u32, Pose>,
    last_light: BTreeMap<u32, (u8, u32)>,
    pending_adds: Vec<ActorAdd>,
    pending_parents: Vec<(u32, u32)>,
    pending_dels: Vec<u32>,
    /// The packets of the frame being read, and of the last one due.
    reading: Vec<u8>,
    due: Vec<u8>,
    /// The last frame due has been applied: the replay ends at the next
    /// step, once the world has shown it.
    at_end: bool,
    pub(crate) finished: bool,
}

/// What `replay_file` opened: the replay and the text it answers.
pub(crate) struct Opened {
    pub(crate) replay: Replay,
    pub(crate) text: String,
}

/// The arguments of `replay_file`.
pub(crate) struct ReplayRequest {
    pub(crate) start: f64,
    pub(crate) duration: f64,
    pub(crate) follow_id: u32,
    pub(crate) replay_sensors: bool,
    pub(crate) offset: ActorTransform,
}

/// Opens `path` for a replay. The text is CARLA's answer: the header
/// lines, or why the file cannot be replayed (then `Err` holds it whole).
pub(crate) fn open(
    path: &Path,
    map: &str,
    req: &ReplayRequest,
    opts: ReplayOptions,
) -> Result<Opened, String> {
    let mut text = format!("Replaying File: {}\n", path.display());
    let (info, mut packets) = match Packets::open(path) {
        Ok(p) => p,
        Err(super::file::OpenError::Missing) => {
            text += &format!("File {} not found on server\n", path.display());
            return Err(text);
        }
        Err(super::file::OpenError::NotARecording) => {
            text += "File is not a CARLA recorder\n";
            return Err(text);
        }
    };
    if info.version > f::VERSION {
        text += &format!(
            "File {} is of recorder version {}; this server reads versions 1 and {}\n",
            path.display(),
            info.version,
            f::VERSION
        );
        return Err(text);
    }
    if !info.map.eq_ignore_ascii_case(map) && !map.ends_with(&format!("/{}", info.map)) {
        text += &format!(
            "The file was recorded on map {}, and the world runs {map}: load that map first (load_world) to replay it\n",
            info.map
        );
        return Err(text);
    }
    let first = packets.offset;
    // The total: the last frame's elapsed time (a scan of the headers).
    let mut total = 0.0;
    let scan = (|| -> Result<(), FormatError> {
        loop {
            let at = packets.offset;
            match packets.skip()? {
                None => return Ok(()),
                Some(f::FRAME_START) => {
                    packets.rewind_to(at)?;
                    if let Some((_, mut d)) = packets.next()? {
                        total = FrameStart::read(&mut d)?.elapsed;
                    }
                }
                Some(_) => {}
            }
        }
    })();
    if let Err(e) = scan.and_then(|_| packets.rewind_to(first)) {
        text += &format!("File {} is damaged: {e}\n", path.display());
        return Err(text);
    }
    let g = super::text::g;
    let mut start = req.start;
    if start < 0.0 {
        start = (total + start).max(0.0);
    }
    let stop_time = if req.duration > 0.0 {
        start + req.duration
    } else {
        total
    };
    text += &format!("Total time recorded: {}\n", g(total));
    text += &format!(
        "Replaying from {} s - {} s ({} s) at {:.1}x\n",
        g(start),
        g(stop_time),
        g(total),
        opts.time_factor
    );
    if opts.ignore_hero {
        text += "Ignoring Hero vehicle\n";
    }
    if opts.ignore_spectator {
        text += "Ignoring Spectator camera\n";
    }
    Ok(Opened {
        replay: Replay {
            packets,
            version: info.version,
            t: start,
            start,
            stop_time,
            follow: req.follow_id,
            offset: req.offset,
            sensors: req.replay_sensors,
            begun: false,
            ids: BTreeMap::new(),
            spawned: BTreeSet::new(),
            skipped: BTreeSet::new(),
            spectator_id: None,
            heroes: BTreeSet::new(),
            last_pose: BTreeMap::new(),
            last_light: BTreeMap::new(),
            pending_adds: Vec::new(),
            pending_parents: Vec::new(),
            pending_dels: Vec::new(),
            reading: Vec::new(),
            due: Vec::new(),
            at_end: false,
            finished: false,
        },
        text,
    })
}

/// A transform in metres and degrees from a recorded pose.
pub(crate) fn transform(p: &Pose) -> ActorTransform {
    let [x, y, z] = p.location;
    let [roll, pitch, yaw] = p.rotation;
    ActorTransform {
        location: Vector3D {
            x: x / 100.0,
            y: y / 100.0,
            z: z / 100.0,
        },
        rotation: Rotation3D { pitch, yaw, roll },
    }
}

/// `v` rotated by `r` (Unreal's rotation matrix).
fn rotate(r: &Rotation3D, v: Vector3D) -> Vector3D {
    let (sp, cp) = r.pitch.to_radians().sin_cos();
    let (sy, cy) = r.yaw.to_radians().sin_cos();
    let (sr, cr) = r.roll.to_radians().sin_cos();
    let x = [cp * cy, cp * sy, sp];
    let y = [sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, -sr * cp];
    let z = [-(cr * sp * cy + sr * sy), cy * sr - cr * sp * sy, cr * cp];
    Vector3D {
        x: v.x * x[0] + v.y * y[0] + v.z * z[0],
        y: v.x * x[1] + v.y * y[1] + v.z * z[1],
        z: v.x * x[2] + v.y * y[2] + v.z * z[2],
    }
}

impl Replay {
    /// Advances by `delta` seconds of the world times the time factor and
    /// applies what the file says for the new time; sets `finished` at
    /// the stop time or the end of the file.
    pub(crate) fn step(&mut self, stage: &dyn Stage, delta: f64, opts: ReplayOptions) {
        if self.finished {
            return;
        }
        if self.at_end {
            self.end(stage, opts, true);
            return;
        }
        for id in stage.refused() {
            self.spawned.remove(&id);
            self.ids.retain(|_, live| *live != id);
        }
        if !self.begun {
            self.begun = true;
            stage.hold_traffic(true);
        } else if delta.is_finite() && delta > 0.0 {
            self.t += delta * opts.time_factor.max(0.0);
        }
        // Both buffers are the replay's, reused from step to step.
        let (mut frame, mut due) = (
            std::mem::take(&mut self.reading),
            std::mem::take(&mut self.due),
        );
        let result =
            self.read_to(stage, opts, &mut frame, &mut due)
                .and_then(|found| match found {
                    true => self.apply(stage, &due, opts),
                    false => Ok(()),
                });
        (self.reading, self.due) = (frame, due);
        if let Err(e) = result {
            crate::log_error!("replayer: the file is damaged ({}); the replay stops", e);
            self.finished = true;
        }
        if self.t >= self.stop_time - 1e-9 {
            self.at_end = true;
        }
        if self.finished {
            // A damaged file: stop at once.
            self.end(stage, opts, true);
        }
    }

    /// Reads every frame that starts at or before the replay time: events
    /// carried out, the last whole one's packets kept in `due` (true if
    /// there was one); `frame` is the buffer of the frame being read.
    fn read_to(
        &mut self,
        stage: &dyn Stage,
        opts: ReplayOptions,
        frame: &mut Vec<u8>,
        due: &mut Vec<u8>,
    ) -> Result<bool, FormatError> {
        let mut inside = false;
        let mut found = false;
        loop {
            let at = self.packets.offset;
            let Some((id, mut d)) = self.packets.next()? else {
                // The end of the file: the last frame read was the last.
                self.at_end = true;
                return Ok(found);
            };
            match id {
                f::FRAME_START => {
                    let fs = FrameStart::read(&mut d)?;
                    // A little slack for the sum of float steps.
                    if fs.elapsed > self.t + 1e-6 {
                        return self.packets.rewind_to(at).map(|_| found);
                    }
                    inside = true;
                    frame.clear();
                }
                f::EVENT_ADD => {
                    let adds = records(&mut d, ActorAdd::read)?;
                    self.pending_adds.extend(adds);
                }
                f::EVENT_PARENT => {
                    let p = records(&mut d, |g| Ok((g.u32()?, g.u32()?)))?;
                    self.pending_parents.extend(p);
                }
                f::EVENT_DEL => {
                    let gone = records(&mut d, |g| g.u32())?;
                    self.pending_dels.extend(gone);
                }
                f::FRAME_END => {
                    // Adds once their parents (the packet after the
                    // deletes) are known, then the deletes.
                    self.spawn_pending(stage, opts);
                    for id in std::mem::take(&mut self.pending_dels) {
                        if let Some(live) = self.ids.remove(&id) {
                            if self.spawned.remove(&live) {
                                stage.destroy(live);
                            }
                        }
                        self.last_pose.remove(&id);
                    }
                    if inside {
                        std::mem::swap(frame, due);
                        found = true;
                    }
                    inside = false;
                }
                f::POSITION | f::STATE | f::VEHICLE_LIGHT => {
                    // Kept to apply if this frame is the last one due.
                    frame.push(id);
                    frame.extend_from_slice(&(d.left() as u32).to_le_bytes());
                    frame.extend_from_slice(d.take(d.left())?);
                }
                _ => {}
            }
        }
    }

    /// Spawns (or finds) the actors of the frame's `EventAdd`s, parents
    /// first known.
    fn spawn_pending(&mut self, stage: &dyn Stage, opts: ReplayOptions) {
        let parents: BTreeMap<u32, u32> = self.pending_parents.drain(..).collect();
        for mut add in std::mem::take(&mut self.pending_adds) {
            if self.version <= 1 {
                for a in &mut add.attributes {
                    a.0 += 1;
                }
            }
            let rec = add.id;
            let hero = add.attribute("role_name") == Some("hero");
            if hero {
                self.heroes.insert(rec);
            }
            let bp = add.blueprint.as_str();
            let at = transform(&Pose {
                id: rec,
                location: add.location,
                rotation: add.rotation,
            });
            let live = if hero && opts.ignore_hero {
                None
            } else if bp == "spectator" {
                self.spectator_id = Some(rec);
                Some(stage.spectator())
            } else if bp.starts_with("traffic.") {
                match stage.blueprint_of(rec) {
                    Some(b) if b == bp => Some(rec),
                    _ => stage.find_at(bp, add.location),
                }
            } else if stage.blueprint_of(rec).as_deref() == Some(bp) {
                Some(rec)
            } else if (bp.starts_with("sensor.") && !self.sensors) || bp.starts_with("controller.")
            {
                None
            } else {
                let parent = match parents.get(&rec) {
                    Some(p) => match self.ids.get(p) {
                        Some(live) => *live,
                        None => {
                            self.skipped.insert(rec);
                            continue;
                        }
                    },
                    None => 0,
                };
                match stage.spawn(&add, parent, at) {
                    Ok(id) => {
                        self.spawned.insert(id);
                        Some(id)
                    }
                    Err(e) => {
                        crate::log_warn!("replayer: actor {} ({}) not replayed: {}", rec, bp, e);
                        None
                    }
                }
            };
            match live {
                Some(live) => {
                    self.ids.insert(rec, live);
                    let moved =
                        add.kind == f::actor_type::VEHICLE || add.kind == f::actor_type::WALKER;
                    let ours = self.spawned.contains(&live) || stage.client_actor(live);
                    if moved && ours {
                        stage.command(live, ReplayCommand::SimulatePhysics(false));
                        stage.command(live, ReplayCommand::Autopilot(false));
                    }
                }
                None => {
                    self.skipped.insert(rec);
                }
            }
        }
    }

    /// Applies the due frame's poses, light states and vehicle lights.
    fn apply(
        &mut self,
        stage: &dyn Stage,
        frame: &[u8],
        opts: ReplayOptions,
    ) -> Result<(), FormatError> {
        let mut g = f::Get::new(frame);
        while g.left() > 0 {
            let id = g.u8()?;
            let n = g.u32()? as usize;
            let mut d = f::Get::new(g.take(n)?);
            match id {
                f::POSITION => {
                    for _ in 0..d.u16()? {
                        let p = Pose::read(&mut d)?;
                        let Some(&live) = self.ids.get(&p.id) else {
                            continue;
                        };
                        if opts.ignore_hero && self.heroes.contains(&p.id) {
                            continue;
                        }
                        let spectator = self.spectator_id == Some(p.id);
                        if spectator && (opts.ignore_spectator || self.follow != 0) {
                            continue;
                        }
                        if p.id == self.follow {
                            self.follow_with_spectator(stage, &p);
                        }
                        if self.last_pose.get(&p.id) != Some(&p) {
                            stage.move_to(live, transform(&p));
                            self.last_pose.insert(p.id, p);
                        }
                    }
                }
                f::STATE => {
                    for _ in 0..d.u16()? {
                        let l = LightRecord::read(&mut d)?;
                        let Some(&live) = self.ids.get(&l.id) else {
                            continue;
                        };
                        let last = self.last_light.entry(l.id).or_insert((u8::MAX, u32::MAX));
                        if last.0 != l.state {
                            if last.0 == u8::MAX {
                                stage.command(live, ReplayCommand::FreezeTrafficLight(true));
                            }
                            stage.command(live, ReplayCommand::TrafficLightState(l.state));
                            last.0 = l.state;
                        }
                    }
                }
                f::VEHICLE_LIGHT => {
                    for _ in 0..d.u16()? {
                        let (id, state) = (d.u32()?, d.u32()?);
                        let Some(&live) = self.ids.get(&id) else {
                            continue;
                        };
                        let last = self.last_light.entry(id).or_insert((u8::MAX, u32::MAX));
                        if last.1 != state {
                            stage.command(live, ReplayCommand::LightState(state));
                            last.1 = state;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Puts the spectator behind the followed actor, by the offset.
    fn follow_with_spectator(&self, stage: &dyn Stage, p: &Pose) {
        let t = transform(p);
        let o = rotate(&t.rotation, self.offset.location);
        let at = ActorTransform {
            location: Vector3D {
                x: t.location.x + o.x,
                y: t.location.y + o.y,
                z: t.location.z + o.z,
            },
            rotation: Rotation3D {
                pitch: t.rotation.pitch + self.offset.rotation.pitch,
                yaw: t.rotation.yaw + self.offset.rotation.yaw,
                roll: t.rotation.roll + self.offset.rotation.roll,
            },
        };
        stage.move_to(stage.spectator(), at);
    }

    /// Ends the replay: the replayed vehicles get their physics back with
    /// a zero control, lights their cycle, the host its traffic; with
    /// `keep_actors` false the actors the replay spawned are destroyed.
    pub(crate) fn end(&mut self, stage: &dyn Stage, opts: ReplayOptions, keep_actors: bool) {
        self.finished = true;
        if !self.begun {
            return;
        }
        self.begun = false;
        if !keep_actors {
            for id in std::mem::take(&mut self.spawned) {
                stage.destroy(id);
            }
        }
        let spawned = &self.spawned;
        for (rec, live) in &self.ids {
            if opts.ignore_hero && self.heroes.contains(rec) {
                continue;
            }
            let bp = stage.blueprint_of(*live).unwrap_or_default();
            let ours = spawned.contains(live) || stage.client_actor(*live);
            if bp.starts_with("vehicle.") && ours {
                stage.command(*live, ReplayCommand::SimulatePhysics(true));
            }
            if bp.starts_with("traffic.traffic_light") && self.last_light.contains_key(rec) {
                stage.command(*live, ReplayCommand::FreezeTrafficLight(false));
            }
        }
        stage.hold_traffic(false);
        crate::log_info!(
            "replayer: replay ended at {:.3} s (from {:.3} s, to {:.3} s)",
            self.t,
            self.start,
            self.stop_time
        );
    }

    /// Live id of a recorded actor (for tests and the host).
    #[cfg(test)]
    pub(crate) fn live_id(&self, recorded: u32) -> Option<u32> {
        self.ids.get(&recorded).copied()
    }
}
