//! One recorded frame from the episode state the library already holds:
//! the host's actor states of the tick, the actors 0.9 clients know
//! (blueprints, attributes, parents) and the collisions the host reported.
//! Runs on the game thread inside `send_episode_state`, so it only encodes
//! into a reused buffer; the file is the writer thread's.

use super::format::{self as f, actor_type, ActorAdd, CollisionRecord, LightRecord, Pose, Put};
use super::writer::{Frame, Pushed, RecordingSummary, Writer};
use crate::episode::{
    ActorBox, ActorState, EpisodeFrame, CARLA_ACTOR_TRAFFIC_LIGHT, CARLA_ACTOR_VEHICLE,
    CARLA_ACTOR_WALKER,
};
use crate::types::ActorTransform;
use std::collections::BTreeMap;
use std::time::Instant;

/// A recording in progress.
pub(crate) struct Recording {
    writer: Writer,
    additional: bool,
    frame: u64,
    elapsed: f64,
    started: Instant,
    /// Actor ids in the file and not yet deleted, sorted.
    recorded: Vec<u32>,
    /// Reused: this tick's live ids.
    live: Vec<u32>,
    collisions: Vec<CollisionRecord>,
    next_collision: u32,
}

/// Location in cm and rotation as (roll, pitch, yaw), from a transform in
/// metres and degrees.
pub(crate) fn pose(id: u32, t: &ActorTransform) -> Pose {
    let (l, r) = (t.location, t.rotation);
    Pose {
        id,
        location: [l.x * 100.0, l.y * 100.0, l.z * 100.0],
        rotation: [r.roll, r.pitch, r.yaw],
    }
}

/// What the recorder reads of a live actor (the RPC layer's actor record
/// implements it).
pub(crate) trait RecordedActor {
    fn id(&self) -> u32;
    /// 0 when not attached.
    fn parent(&self) -> u32;
    /// Its blueprint's definition id.
    fn uid(&self) -> u32;
    fn blueprint(&self) -> &str;
    /// `(id, type, value)` as spawned.
    fn attributes(&self) -> &[(String, u8, String)];
    /// Relative to the parent if attached, else its world transform at
    /// spawn.
    fn transform(&self) -> ActorTransform;
    /// Vehicles: `carla.VehicleLightState` flags.
    fn light_state(&self) -> u32;
    fn bounding_box(&self) -> ActorBox;
}

/// The recorder type of a library actor, with the host's kind where it
/// gave one.
fn kind(a: &impl RecordedActor, state: Option<&ActorState>) -> u8 {
    match state.map(|s| s.kind) {
        Some(CARLA_ACTOR_VEHICLE) => actor_type::VEHICLE,
        Some(CARLA_ACTOR_WALKER) => actor_type::WALKER,
        Some(CARLA_ACTOR_TRAFFIC_LIGHT) => actor_type::TRAFFIC_LIGHT,
        _ => f::type_of_blueprint(a.blueprint()),
    }
}

impl Recording {
    pub(crate) fn new(writer: Writer, additional: bool) -> Recording {
        Recording {
            writer,
            additional,
            frame: 0,
            elapsed: 0.0,
            started: Instant::now(),
            recorded: Vec::new(),
            live: Vec::new(),
            collisions: Vec::new(),
            next_collision: 0,
        }
    }

    /// Notes a collision for the next frame (the first of a pair in a
    /// frame is kept, as CARLA's set keeps it).
    pub(crate) fn collision(&mut self, actor1: u32, actor2: u32, hero1: bool, hero2: bool) {
        let id = self.next_collision;
        self.next_collision = self.next_collision.wrapping_add(1);
        if self.collisions.len() >= u16::MAX as usize
            || self
                .collisions
                .iter()
                .any(|c| (c.actor1, c.actor2) == (actor1, actor2))
        {
            return;
        }
        self.collisions.push(CollisionRecord {
            id,
            actor1,
            actor2,
            hero1,
            hero2,
        });
    }

    /// Encodes this tick's frame and hands it to the writer; false if the
    /// recording stopped (a write error).
    pub(crate) fn capture<A: RecordedActor>(
        &mut self,
        tick: &EpisodeFrame,
        states: &[ActorState],
        state_of: &dyn Fn(u32) -> Option<usize>,
        actors: &BTreeMap<u32, A>,
        transform_of: &dyn Fn(&A) -> ActorTransform,
    ) -> bool {
        self.frame += 1;
        if self.frame > 1 {
            self.elapsed += tick.delta_seconds;
        }
        let mut out = self.writer.buffer();
        out.clear();
        let at = out.begin(f::FRAME_START);
        out.extend_from_slice(&self.frame.to_le_bytes());
        out.f64(-1.0);
        out.f64(self.elapsed);
        out.end(at);
        let at = out.begin(f::VISUAL_TIME);
        out.f64(tick.elapsed_seconds);
        out.end(at);

        // Adds and deletes: the live actors against those in the file.
        self.live.clear();
        self.live.extend(actors.keys().copied());
        let state = |id: u32| state_of(id).map(|i| &states[i]);
        let mut added = 0u16;
        let at = out.begin(f::EVENT_ADD);
        out.u16(0);
        let mut parents: Vec<(u32, u32)> = Vec::new();
        let mut boxes: Vec<u32> = Vec::new();
        let mut light_times: Vec<u32> = Vec::new();
        for a in actors.values() {
            if self.recorded.binary_search(&a.id()).is_ok() || added == u16::MAX {
                continue;
            }
            let st = state(a.id());
            let k = kind(a, st);
            // A child's transform is relative to its parent, as CARLA
            // records a spawn with a parent.
            let t = if a.parent() != 0 {
                a.transform()
            } else {
                transform_of(a)
            };
            let p = pose(a.id(), &t);
            ActorAdd {
                id: a.id(),
                kind: k,
                location: p.location,
                rotation: p.rotation,
                uid: a.uid(),
                blueprint: a.blueprint().to_owned(),
                attributes: a
                    .attributes()
                    .iter()
                    .filter(|(id, _, _)| !id.is_empty())
                    .map(|(id, t, v)| (*t, id.clone(), v.clone()))
                    .collect(),
            }
            .write(&mut out);
            added += 1;
            if a.parent() != 0 {
                parents.push((a.id(), a.parent()));
            }
            match k {
                actor_type::TRAFFIC_LIGHT => light_times.push(a.id()),
                actor_type::TRAFFIC_SIGN => {}
                _ => boxes.push(a.id()),
            }
        }
        out[at + 4..at + 6].copy_from_slice(&added.to_le_bytes());
        out.end(at);

        let at = out.begin(f::EVENT_DEL);
        let gone: Vec<u32> = self
            .recorded
            .iter()
            .copied()
            .filter(|id| !actors.contains_key(id))
            .take(u16::MAX as usize)
            .collect();
        out.u16(gone.len() as u16);
        for id in &gone {
            out.u32(*id);
        }
        out.end(at);
        // The file's actors are now the live ones; the old list is kept
        // in `live` in case the frame is dropped.
        std::mem::swap(&mut self.recorded, &mut self.live);

        counted(&mut out, f::EVENT_PARENT, &parents, |o, (c, p)| {
            o.u32(*c);
            o.u32(*p);
        });
        counted(&mut out, f::COLLISION, &self.collisions, |o, c| c.write(o));
        self.collisions.clear();
        counted(&mut out, f::VEHICLE_DOOR, &[], |_, _: &()| {});

        // Positions: vehicles, walkers and other actors (the spectator,
        // props), not sensors, lights or signs, as CARLA records them.
        let at = out.begin(f::POSITION);
        out.u16(0);
        let mut n = 0u16;
        for a in actors.values() {
            let st = state(a.id());
            let k = kind(a, st);
            if !matches!(
                k,
                actor_type::OTHER | actor_type::VEHICLE | actor_type::WALKER
            ) || n == u16::MAX
            {
                continue;
            }
            let t = st.map_or_else(|| transform_of(a), |s| s.transform);
            pose(a.id(), &t).write(&mut out);
            n += 1;
        }
        out[at + 4..at + 6].copy_from_slice(&n.to_le_bytes());
        out.end(at);

        let of_kind = |kind: u32| {
            states
                .iter()
                .filter(move |s| s.kind == kind)
                .take(u16::MAX as usize)
        };
        let lights = of_kind(CARLA_ACTOR_TRAFFIC_LIGHT).count();
        let at = out.begin(f::STATE);
        out.u16(lights as u16);
        for s in of_kind(CARLA_ACTOR_TRAFFIC_LIGHT) {
            LightRecord {
                id: s.id,
                frozen: s.time_is_frozen.get(),
                elapsed: s.traffic_light_times[3],
                state: s.traffic_light_state,
            }
            .write(&mut out);
        }
        out.end(at);
        let vehicles = of_kind(CARLA_ACTOR_VEHICLE).count();
        let at = out.begin(f::ANIM_VEHICLE);
        out.u16(vehicles as u16);
        for s in of_kind(CARLA_ACTOR_VEHICLE) {
            let c = s.vehicle_control;
            f::VehicleAnim {
                id: s.id,
                steer: c.steer,
                throttle: c.throttle,
                brake: c.brake,
                hand_brake: c.hand_brake.get(),
                gear: c.gear,
            }
            .write(&mut out);
        }
        out.end(at);
        let walkers = of_kind(CARLA_ACTOR_WALKER).count();
        let at = out.begin(f::ANIM_WALKER);
        out.u16(walkers as u16);
        for s in of_kind(CARLA_ACTOR_WALKER) {
            out.u32(s.id);
            out.f32(s.walker_speed * 100.0);
        }
        out.end(at);
        let at = out.begin(f::VEHICLE_LIGHT);
        out.u16(vehicles as u16);
        for s in of_kind(CARLA_ACTOR_VEHICLE) {
            out.u32(s.id);
            out.u32(actors.get(&s.id).map_or(0, |a| a.light_state()));
        }
        out.end(at);
        counted(&mut out, f::ANIM_VEHICLE_WHEELS, &[], |_, _: &()| {});
        counted(&mut out, f::ANIM_BIKER, &[], |_, _: &()| {});

        if self.additional {
            let moving = states
                .iter()
                .filter(|s| s.kind == CARLA_ACTOR_VEHICLE || s.kind == CARLA_ACTOR_WALKER)
                .take(u16::MAX as usize);
            if moving.clone().next().is_some() {
                let at = out.begin(f::KINEMATICS);
                out.u16(moving.clone().count() as u16);
                for s in moving {
                    out.u32(s.id);
                    let (v, w) = (s.velocity, s.angular_velocity);
                    out.vec3([v.x, v.y, v.z]);
                    out.vec3([w.x, w.y, w.z]);
                }
                out.end(at);
            }
            counted(&mut out, f::BOUNDING_BOX, &boxes, |o, id| {
                let b = actors.get(id).map(|a| a.bounding_box()).unwrap_or_default();
                o.u32(*id);
                o.vec3([
                    b.location.x * 100.0,
                    b.location.y * 100.0,
                    b.location.z * 100.0,
                ]);
                o.vec3([b.extent.x * 100.0, b.extent.y * 100.0, b.extent.z * 100.0]);
            });
            let at = out.begin(f::PLATFORM_TIME);
            out.f64(self.started.elapsed().as_secs_f64());
            out.end(at);
            if !light_times.is_empty() {
                counted(&mut out, f::TRAFFIC_LIGHT_TIME, &light_times, |o, id| {
                    let t = state(*id).map_or([0.0; 4], |s| s.traffic_light_times);
                    o.u32(*id);
                    o.f32(t[0]);
                    o.f32(t[1]);
                    o.f32(t[2]);
                });
            }
            counted(&mut out, f::WALKER_BONES, &[], |_, _: &()| {});
        }
        let at = out.begin(f::FRAME_END);
        out.end(at);
        match self.writer.push(Frame {
            bytes: out,
            elapsed: self.elapsed,
        }) {
            Pushed::Queued => true,
            Pushed::Dropped => {
                // Not in the file: the next frame carries this one's events
                // (adds and deletes against the file's actors) under its id.
                std::mem::swap(&mut self.recorded, &mut self.live);
                self.frame -= 1;
                true
            }
            Pushed::Stopped => false,
        }
    }

    /// Ends the recording: the queued frames are written and the file
    /// closed.
    pub(crate) fn finish(self) -> RecordingSummary {
        self.writer.finish()
    }
}

/// A packet of a u16 count and records.
fn counted<T>(out: &mut Vec<u8>, id: u8, items: &[T], write: impl Fn(&mut Vec<u8>, &T)) {
    let at = out.begin(id);
    let n = items.len().min(u16::MAX as usize);
    out.u16(n as u16);
    for item in &items[..n] {
        write(out, item);
    }
    out.end(at);
}
