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
        let scene = Scene {
            states,
            state_of,
            actors,
            transform_of,
        };
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

        let added = self.adds(&mut out, &scene);
        self.deletes(&mut out, actors);
        counted(&mut out, f::EVENT_PARENT, &added.parents, |o, (c, p)| {
            o.u32(*c);
            o.u32(*p);
        });
        counted(&mut out, f::COLLISION, &self.collisions, |o, c| c.write(o));
        self.collisions.clear();
        counted(&mut out, f::VEHICLE_DOOR, &[], |_, _: &()| {});
        positions(&mut out, &scene);
        animations(&mut out, &scene);
        if self.additional {
            self.additional_data(&mut out, &scene, &added);
        }
        let at = out.begin(f::FRAME_END);
        out.end(at);
        self.push(out)
    }

    /// The adds: the live actors not in the file yet.
    fn adds<A: RecordedActor>(&self, out: &mut Vec<u8>, scene: &Scene<'_, A>) -> Added {
        let mut added = Added::default();
        let mut n = 0u16;
        let at = out.begin(f::EVENT_ADD);
        out.u16(0);
        for a in scene.actors.values() {
            if self.recorded.binary_search(&a.id()).is_ok() || n == u16::MAX {
                continue;
            }
            let k = kind(a, scene.state(a.id()));
            // A child's transform is relative to its parent, as CARLA
            // records a spawn with a parent.
            let t = if a.parent() != 0 {
                a.transform()
            } else {
                (scene.transform_of)(a)
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
            .write(out);
            n += 1;
            if a.parent() != 0 {
                added.parents.push((a.id(), a.parent()));
            }
            match k {
                actor_type::TRAFFIC_LIGHT => added.light_times.push(a.id()),
                actor_type::TRAFFIC_SIGN => {}
                _ => added.boxes.push(a.id()),
            }
        }
        out[at + 4..at + 6].copy_from_slice(&n.to_le_bytes());
        out.end(at);
        added
    }

    /// The deletes: the file's actors no longer live. The file's actors are
    /// then the live ones; the old list is kept in `live` in case the frame
    /// is dropped.
    fn deletes<A>(&mut self, out: &mut Vec<u8>, actors: &BTreeMap<u32, A>) {
        self.live.clear();
        self.live.extend(actors.keys().copied());
        let gone = self.recorded.iter().filter(|id| !actors.contains_key(id));
        counted(out, f::EVENT_DEL, gone, |o, id| o.u32(*id));
        std::mem::swap(&mut self.recorded, &mut self.live);
    }

    /// With `additional_data`: kinematics, bounding boxes, the platform
    /// time and the traffic lights' phase times.
    fn additional_data<A: RecordedActor>(
        &self,
        out: &mut Vec<u8>,
        scene: &Scene<'_, A>,
        added: &Added,
    ) {
        let moving = scene
            .states
            .iter()
            .filter(|s| s.kind == CARLA_ACTOR_VEHICLE || s.kind == CARLA_ACTOR_WALKER);
        if moving.clone().next().is_some() {
            counted(out, f::KINEMATICS, moving, |o, s| {
                o.u32(s.id);
                let (v, w) = (s.velocity, s.angular_velocity);
                o.vec3([v.x, v.y, v.z]);
                o.vec3([w.x, w.y, w.z]);
            });
        }
        counted(out, f::BOUNDING_BOX, &added.boxes, |o, id| {
            let b = scene
                .actors
                .get(id)
                .map(|a| a.bounding_box())
                .unwrap_or_default();
            o.u32(*id);
            let (l, e) = (b.location, b.extent);
            o.vec3([l.x * 100.0, l.y * 100.0, l.z * 100.0]);
            o.vec3([e.x * 100.0, e.y * 100.0, e.z * 100.0]);
        });
        let at = out.begin(f::PLATFORM_TIME);
        out.f64(self.started.elapsed().as_secs_f64());
        out.end(at);
        if !added.light_times.is_empty() {
            counted(out, f::TRAFFIC_LIGHT_TIME, &added.light_times, |o, id| {
                let t = scene.state(*id).map_or([0.0; 4], |s| s.traffic_light_times);
                o.u32(*id);
                o.f32(t[0]);
                o.f32(t[1]);
                o.f32(t[2]);
            });
        }
        counted(out, f::WALKER_BONES, &[], |_, _: &()| {});
    }

    /// Hands a frame to the writer; false if the recording stopped.
    fn push(&mut self, out: Vec<u8>) -> bool {
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

/// What one frame is captured from: the host's actor states of the tick
/// and the actors 0.9 clients know.
struct Scene<'a, A> {
    states: &'a [ActorState],
    state_of: &'a dyn Fn(u32) -> Option<usize>,
    actors: &'a BTreeMap<u32, A>,
    transform_of: &'a dyn Fn(&A) -> ActorTransform,
}

impl<'a, A> Scene<'a, A> {
    fn state(&self, id: u32) -> Option<&'a ActorState> {
        (self.state_of)(id).map(|i| &self.states[i])
    }

    /// The host's states of one kind.
    fn of_kind(&self, kind: u32) -> impl Iterator<Item = &'a ActorState> + Clone {
        self.states.iter().filter(move |s| s.kind == kind)
    }
}

/// What the adds name for later packets of the frame.
#[derive(Default)]
struct Added {
    /// (child, parent).
    parents: Vec<(u32, u32)>,
    /// Actors with a bounding box (not lights or signs).
    boxes: Vec<u32>,
    /// Traffic lights, whose phase times are recorded.
    light_times: Vec<u32>,
}

/// Positions: vehicles, walkers and other actors (the spectator, props),
/// not sensors, lights or signs, as CARLA records them.
fn positions<A: RecordedActor>(out: &mut Vec<u8>, scene: &Scene<'_, A>) {
    let at = out.begin(f::POSITION);
    out.u16(0);
    let mut n = 0u16;
    for a in scene.actors.values() {
        let st = scene.state(a.id());
        let k = kind(a, st);
        if !matches!(
            k,
            actor_type::OTHER | actor_type::VEHICLE | actor_type::WALKER
        ) || n == u16::MAX
        {
            continue;
        }
        let t = st.map_or_else(|| (scene.transform_of)(a), |s| s.transform);
        pose(a.id(), &t).write(out);
        n += 1;
    }
    out[at + 4..at + 6].copy_from_slice(&n.to_le_bytes());
    out.end(at);
}

/// The traffic lights' states, the vehicles' and walkers' animation and the
/// vehicles' lights.
fn animations<A: RecordedActor>(out: &mut Vec<u8>, scene: &Scene<'_, A>) {
    let lights = scene.of_kind(CARLA_ACTOR_TRAFFIC_LIGHT);
    counted(out, f::STATE, lights, |o, s| {
        LightRecord {
            id: s.id,
            frozen: s.time_is_frozen.get(),
            elapsed: s.traffic_light_times[3],
            state: s.traffic_light_state,
        }
        .write(o)
    });
    let vehicles = scene.of_kind(CARLA_ACTOR_VEHICLE);
    counted(out, f::ANIM_VEHICLE, vehicles.clone(), |o, s| {
        let c = s.vehicle_control;
        f::VehicleAnim {
            id: s.id,
            steer: c.steer,
            throttle: c.throttle,
            brake: c.brake,
            hand_brake: c.hand_brake.get(),
            gear: c.gear,
        }
        .write(o)
    });
    let walkers = scene.of_kind(CARLA_ACTOR_WALKER);
    counted(out, f::ANIM_WALKER, walkers, |o, s| {
        o.u32(s.id);
        o.f32(s.walker_speed * 100.0);
    });
    counted(out, f::VEHICLE_LIGHT, vehicles, |o, s| {
        o.u32(s.id);
        o.u32(scene.actors.get(&s.id).map_or(0, |a| a.light_state()));
    });
    counted(out, f::ANIM_VEHICLE_WHEELS, &[], |_, _: &()| {});
    counted(out, f::ANIM_BIKER, &[], |_, _: &()| {});
}

/// A packet of a u16 count and a record per item (the first `u16::MAX`).
fn counted<I>(out: &mut Vec<u8>, id: u8, items: I, mut write: impl FnMut(&mut Vec<u8>, I::Item))
where
    I: IntoIterator,
    I::IntoIter: Clone,
{
    let items = items.into_iter().take(u16::MAX as usize);
    let at = out.begin(id);
    out.u16(items.clone().count() as u16);
    for item in items {
        write(out, item);
    }
    out.end(at);
}
