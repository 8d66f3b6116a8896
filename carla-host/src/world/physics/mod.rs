//! Rigid-body physics (rapier3d): the scene's static geometry as
//! colliders, clients' vehicles as dynamic bodies on ray-cast wheels
//! ([`chassis`], driven through [`powertrain`]), and every other moving
//! actor (the town's traffic, walkers, the 0.8 player's car) as a
//! kinematic box the vehicles meet. Contacts come from the engine's
//! solver, impulses in N·s ([`contacts`]).
//!
//! Determinism: rapier is built with `enhanced-determinism`; bodies are
//! added, stepped and read in the order the world gives them, so the same
//! commands give the same bits.

pub(crate) mod chassis;
mod contacts;
mod ground_grid;
pub(crate) mod powertrain;
mod props;
mod statics;
mod tire;
pub(crate) mod walkers;

use crate::world::math::v3;
use carla_server::rpc::VehiclePhysicsControl;
use carla_server::types::Vector3D;
use chassis::Chassis;
pub(crate) use chassis::Drive;
pub(crate) use contacts::Touch;
use rapier3d::prelude::*;
pub(crate) use statics::Statics;
use std::sync::Arc;

/// Longest physics step, seconds.
pub(crate) const MAX_STEP: f32 = 1.0 / 60.0;

/// What a collider is, in its `user_data`: the actor id in the low 32
/// bits, the static tag in the next 8, the kind above.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Part {
    /// Level geometry the wheels roll on (roads, sidewalks, terrain).
    Surface,
    /// Level geometry a car runs into: walls and static boxes, `(tag,
    /// actor it belongs to)`.
    Static(u8, u32),
    Vehicle(u32),
    Walker(u32),
    /// A prop (`static.prop.*`).
    Prop(u32),
}

impl Part {
    pub(crate) fn data(self) -> u128 {
        let (kind, tag, id) = match self {
            Part::Surface => (0u128, 0u8, 0u32),
            Part::Static(t, a) => (2, t, a),
            Part::Vehicle(id) => (3, 0, id),
            Part::Walker(id) => (4, 0, id),
            Part::Prop(id) => (5, 0, id),
        };
        (kind << 40) | ((tag as u128) << 32) | id as u128
    }

    pub(crate) fn of(data: u128) -> Part {
        let (id, tag) = (data as u32, (data >> 32) as u8);
        match data >> 40 {
            0 => Part::Surface,
            2 => Part::Static(tag, id),
            3 => Part::Vehicle(id),
            5 => Part::Prop(id),
            _ => Part::Walker(id),
        }
    }
}

/// A moving actor that is not a client's vehicle, as the physics sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Mover {
    pub part: Part,
    /// Its box's centre and half size, metres; its yaw, radians.
    pub centre: Vector3D,
    pub half: Vector3D,
    pub yaw: f32,
    /// m/s: how it moves (a kinematic body's own velocity is its last
    /// displacement over the first physics sub-step, not this).
    pub velocity: Vector3D,
}

/// A vehicle's pose and motion after a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BodyState {
    pub position: Vector3D,
    /// Radians: yaw from +x towards +y, pitch nose up, roll right side
    /// down (CARLA's senses).
    pub yaw: f32,
    pub pitch: f32,
    pub roll: f32,
    pub velocity: Vector3D,
    /// rad/s about the world axes.
    pub angular: Vector3D,
    pub forward_speed: f32,
}

/// The physics of one world.
pub(crate) struct Physics {
    world: PhysicsWorld,
    /// The surfaces alone, with a tree of their own: what the wheels' rays
    /// ask (the surfaces' grid and the ground plane, not the scene's
    /// thousands of boxes).
    ground: ColliderSet,
    ground_tree: BroadPhaseBvh,
    cars: Vec<Chassis>,
    props: Vec<props::PropBody>,
    /// The other moving actors: part, body, collider, velocity.
    movers: Vec<(Part, RigidBodyHandle, ColliderHandle, Vector)>,
    touches: Vec<Touch>,
    /// (vehicle, walker) pairs overlapping after the last step.
    overlaps: Vec<(u32, u32)>,
    /// Wall-clock time spent in [`Physics::step`] and the walkers' moves
    /// (the benchmark reads it).
    pub spent: std::time::Duration,
    /// Of that, the walkers' moves.
    pub walked: std::time::Duration,
}

fn pose(p: Vector3D, yaw: f32, pitch: f32, roll: f32) -> Pose {
    // CARLA's pitch lifts the nose (+z along +x): about +y that is a
    // negative angle; its roll lowers the right (+y) side: positive about
    // +x.
    let q = Rotation::from_rotation_z(yaw)
        * Rotation::from_rotation_y(-pitch)
        * Rotation::from_rotation_x(roll);
    Pose::from_parts(Vector::new(p.x, p.y, p.z), q)
}

/// How far the velocity a step leaves trails gravity's effect on the
/// motion (see [`Physics::step`]).
fn gravity_lag(p: &IntegrationParameters, scale: f32) -> Vector {
    let n = p.num_solver_iterations.max(1) as f32;
    Vector::new(0.0, 0.0, 9.81 * scale * p.dt * (n - 1.0) / (2.0 * n))
}

/// The least upward share of the push a road surface may give a vehicle's
/// body (about 53°): a steeper contact is the edge of a surface sheet.
const SURFACE_UP: f32 = 0.6;

/// Drops the contacts where a surface pushes a vehicle's body sideways or
/// down. An OpenDRIVE junction's connecting roads each have their own
/// elevation, so on a slope their sheets overlap decimetres apart; the
/// wheels ride on the highest under them, but the edge of one a little
/// higher stopped a car's box dead (Town03's ramp). Surfaces still carry a
/// body that lands or rolls onto them; walls and boxes stop it whole.
struct SurfaceEdges;

impl PhysicsHooks for SurfaceEdges {
    fn modify_solver_contacts(&self, context: &mut ContactModificationContext) {
        let part = |h: ColliderHandle| context.colliders.get(h).map(|c| Part::of(c.user_data));
        let (a, b) = (part(context.collider1), part(context.collider2));
        // The contact normal points from collider 1 to collider 2: a
        // surface pushes the body along it when the body is collider 2.
        let sign = match (a, b) {
            (Some(Part::Surface), Some(Part::Vehicle(_))) => 1.0,
            (Some(Part::Vehicle(_)), Some(Part::Surface)) => -1.0,
            _ => return,
        };
        if let Some(m) = context.rigid_mut() {
            if sign * m.normal.z < SURFACE_UP {
                m.solver_contacts.clear();
            }
        }
    }
}

/// Makes `b` dynamic (`on`) or kinematic where it is, at rest when it
/// changes.
fn simulate(b: &mut RigidBody, on: bool) {
    let kind = if on {
        RigidBodyType::Dynamic
    } else {
        RigidBodyType::KinematicPositionBased
    };
    if b.body_type() != kind {
        b.set_body_type(kind, true);
        b.set_linvel(Vector::ZERO, true);
        b.set_angvel(Vector::ZERO, true);
    }
}

/// Gravity, m/s².
pub(crate) const G: f32 = 9.81;

fn vec3(v: Vector) -> Vector3D {
    v3(v.x, v.y, v.z)
}

impl Physics {
    /// A world with `statics` and nothing moving.
    pub(crate) fn new(statics: &Arc<Statics>) -> Physics {
        let mut world = PhysicsWorld::new();
        world.gravity = Vector::new(0.0, 0.0, -9.81);
        statics.insert(&mut world.colliders, false);
        // The level in the broad phase before any step: walkers' moves
        // ask it (a world with no client vehicle is never stepped).
        let level: Vec<ColliderHandle> = world.colliders.iter().map(|(h, _)| h).collect();
        world.broad_phase.update(
            &world.integration_parameters,
            &world.colliders,
            &world.bodies,
            &level,
            &[],
            &mut Vec::new(),
        );
        let mut ground = ColliderSet::new();
        statics.insert(&mut ground, true);
        let mut ground_tree = BroadPhaseBvh::new();
        let handles: Vec<ColliderHandle> = ground.iter().map(|(h, _)| h).collect();
        ground_tree.update(
            &world.integration_parameters,
            &ground,
            &world.bodies,
            &handles,
            &[],
            &mut Vec::new(),
        );
        Physics {
            world,
            ground,
            ground_tree,
            cars: Vec::new(),
            props: Vec::new(),
            movers: Vec::new(),
            touches: Vec::new(),
            overlaps: Vec::new(),
            spent: std::time::Duration::ZERO,
            walked: std::time::Duration::ZERO,
        }
    }

    /// Adds a client's vehicle at its origin `at` (yaw, pitch, roll in
    /// radians), at rest.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn add_vehicle(
        &mut self,
        id: u32,
        at: Vector3D,
        yaw: f32,
        pitch: f32,
        roll: f32,
        extent: Vector3D,
        ahead: f32,
        control: &VehiclePhysicsControl,
    ) {
        self.remove(id);
        let w = &mut self.world;
        let c = Chassis::new(
            id,
            pose(at, yaw, pitch, roll),
            extent,
            ahead,
            control,
            &mut w.bodies,
            &mut w.colliders,
        );
        self.cars.push(c);
    }

    /// Removes a client's vehicle or a prop.
    pub(crate) fn remove(&mut self, id: u32) {
        if let Some(i) = self.cars.iter().position(|c| c.id == id) {
            let c = self.cars.remove(i);
            self.world.remove_body_with_colliders(c.body, true);
        }
        if let Some(i) = self.props.iter().position(|p| p.id == id) {
            let p = self.props.remove(i);
            self.world.remove_body_with_colliders(p.body, true);
        }
    }

    fn car(&self, id: u32) -> Option<&Chassis> {
        self.cars.iter().find(|c| c.id == id)
    }

    fn car_mut(&mut self, id: u32) -> Option<(&mut Chassis, &mut RigidBodySet)> {
        let w = &mut self.world;
        self.cars
            .iter_mut()
            .find(|c| c.id == id)
            .map(|c| (c, &mut w.bodies))
    }

    /// The body of a client's vehicle or a prop.
    fn body_of(&self, id: u32) -> Option<RigidBodyHandle> {
        self.car(id).map(|c| c.body).or_else(|| self.prop_body(id))
    }

    fn body_mut(&mut self, id: u32) -> Option<&mut RigidBody> {
        let h = self.body_of(id)?;
        self.world.bodies.get_mut(h)
    }

    /// A new physics control for vehicle `id`.
    pub(crate) fn apply_control(&mut self, id: u32, control: &VehiclePhysicsControl) -> bool {
        self.car_mut(id).map(|(c, b)| c.apply(control, b)).is_some()
    }

    /// Moves vehicle `id` (its velocity kept).
    pub(crate) fn teleport(&mut self, id: u32, at: Vector3D, yaw: f32, pitch: f32, roll: f32) {
        if let Some(b) = self.body_mut(id) {
            b.set_position(pose(at, yaw, pitch, roll), true);
        }
    }

    /// Sets a vehicle's velocity (m/s) or angular velocity (rad/s).
    pub(crate) fn set_velocity(&mut self, id: u32, v: Vector3D, angular: bool) -> bool {
        let set: fn(&mut RigidBody, Vector, bool) = if angular {
            RigidBody::set_angvel
        } else {
            RigidBody::set_linvel
        };
        self.with_finite(id, v, set)
    }

    /// An impulse (N·s) at the centre of mass, or an angular one (N·m·s).
    pub(crate) fn impulse(&mut self, id: u32, j: Vector3D, angular: bool) -> bool {
        let apply: fn(&mut RigidBody, Vector, bool) = if angular {
            RigidBody::apply_torque_impulse
        } else {
            RigidBody::apply_impulse
        };
        self.with_finite(id, j, apply)
    }

    /// `f(body, v, wake)` on vehicle `id`'s body if `v` is finite (a
    /// non-finite one is dropped); whether `id` is a vehicle.
    fn with_finite(&mut self, id: u32, v: Vector3D, f: fn(&mut RigidBody, Vector, bool)) -> bool {
        let v = Vector::new(v.x, v.y, v.z);
        if !v.is_finite() {
            return self.body_of(id).is_some();
        }
        self.body_mut(id).map(|b| f(b, v, true)).is_some()
    }

    /// `set_simulate_physics`: a frozen body stays where it is put.
    pub(crate) fn set_frozen(&mut self, id: u32, frozen: bool) {
        if let Some(b) = self.body_mut(id) {
            simulate(b, !frozen);
        }
    }

    /// `set_enable_gravity`.
    pub(crate) fn set_gravity(&mut self, id: u32, on: bool) -> bool {
        self.body_mut(id)
            .map(|b| b.set_gravity_scale(if on { 1.0 } else { 0.0 }, true))
            .is_some()
    }

    /// `set_collisions`: a ghost passes through everything (its wheels
    /// still roll on the ground).
    pub(crate) fn set_ghost(&mut self, id: u32, ghost: bool) {
        let Some(h) = self.car(id).map(|c| c.collider) else {
            return;
        };
        if let Some(c) = self.world.colliders.get_mut(h) {
            c.set_collision_groups(if ghost {
                InteractionGroups::none()
            } else {
                InteractionGroups::all()
            });
        }
    }

    /// Puts the other moving actors where they are now (boxes the
    /// vehicles meet); ones missing from `movers` leave.
    pub(crate) fn set_movers(&mut self, movers: &[Mover]) {
        let w = &mut self.world;
        let keep = |p: &Part| movers.iter().any(|m| m.part == *p);
        let mut i = 0;
        while i < self.movers.len() {
            if keep(&self.movers[i].0) {
                i += 1;
            } else {
                let (_, b, _, _) = self.movers.remove(i);
                w.remove_body_with_colliders(b, true);
            }
        }
        for m in movers {
            let at = pose(m.centre, m.yaw, 0.0, 0.0);
            let v = Vector::new(m.velocity.x, m.velocity.y, m.velocity.z);
            let v = if v.is_finite() { v } else { Vector::ZERO };
            match self.movers.iter_mut().find(|(p, _, _, _)| *p == m.part) {
                Some((_, b, c, velocity)) => {
                    let (b, c) = (*b, *c);
                    *velocity = v;
                    w.bodies[b].set_next_kinematic_position(at);
                    if let Some(shape) = w.colliders[c].shape().as_cuboid() {
                        let h = shape.half_extents;
                        if (h.x, h.y, h.z) != (m.half.x, m.half.y, m.half.z) {
                            w.colliders[c]
                                .set_shape(SharedShape::cuboid(m.half.x, m.half.y, m.half.z));
                        }
                    }
                }
                None => {
                    let b = w
                        .bodies
                        .insert(RigidBodyBuilder::kinematic_position_based().pose(at));
                    let c = w.colliders.insert_with_parent(
                        ColliderBuilder::cuboid(
                            m.half.x.max(0.05),
                            m.half.y.max(0.05),
                            m.half.z.max(0.05),
                        )
                        // A walker does not stop a car (its model moves
                        // it, not the car): the car meets it as a sensor.
                        .sensor(matches!(m.part, Part::Walker(_)))
                        .user_data(m.part.data()),
                        b,
                        &mut w.bodies,
                    );
                    self.movers.push((m.part, b, c, v));
                }
            }
        }
    }

    /// Advances by `dt` seconds (in steps of at most [`MAX_STEP`]), each
    /// vehicle under `drive(id)`. This step's contacts replace the last.
    pub(crate) fn step(&mut self, dt: f32, drive: impl Fn(u32) -> Option<Drive>) {
        self.touches.clear();
        if !(dt > 0.0 && dt.is_finite()) {
            return;
        }
        let started = std::time::Instant::now();
        let n = (dt / MAX_STEP).ceil().clamp(1.0, 10_000.0);
        let h = dt / n;
        self.world.integration_parameters.dt = h;
        let mut held = Vec::new();
        for _ in 0..n as usize {
            let w = &mut self.world;
            held.clear();
            for c in &mut self.cars {
                if std::mem::take(&mut c.fresh) {
                    // Its first step: the engine takes the body in; it
                    // stays where it was put, on its springs, with the
                    // velocity it was given.
                    let b = &w.bodies[c.body];
                    held.push((c.body, *b.position(), b.linvel(), b.angvel()));
                    continue;
                }
                if !w.bodies[c.body].is_dynamic() {
                    continue;
                }
                c.drive(drive(c.id).unwrap_or_default(), h, &mut w.bodies);
                // The velocity a step leaves is not the one its bodies
                // moved with: of the N solver sub-steps, gravity's share
                // lags by g·h·(N − 1)/(2N) (3/8 g·h for rapier's 4). The
                // suspension's dampers would read that lag as a sinking
                // car and hold it centimetres up: they get the motion.
                let b = &mut w.bodies[c.body];
                let lag = gravity_lag(&w.integration_parameters, b.gravity_scale());
                let v = b.linvel();
                b.set_linvel(v + lag, false);
                // Sweeps ask the surfaces' meshes (the wheels' grid
                // answers rays only).
                let surface =
                    |_: ColliderHandle, c: &Collider| Part::of(c.user_data) == Part::Surface;
                let surfaces = w.broad_phase.as_query_pipeline(
                    w.narrow_phase.query_dispatcher(),
                    &w.bodies,
                    &w.colliders,
                    QueryFilter::default().predicate(&surface),
                );
                c.sweep_wheels(&w.bodies[c.body], &surfaces);
                let q = self.ground_tree.as_query_pipeline_mut(
                    w.narrow_phase.query_dispatcher(),
                    &mut w.bodies,
                    &mut self.ground,
                    QueryFilter::default(),
                );
                c.wheels.update_vehicle(h, q);
                let b = &mut w.bodies[c.body];
                let v = b.linvel();
                b.set_linvel(v - lag, false);
                c.hold(h, b);
            }
            let before: Vec<Vector> = self
                .cars
                .iter()
                .map(|c| self.world.bodies[c.body].linvel())
                .collect();
            self.world.step_with_events(&SurfaceEdges, &());
            for &(handle, at, v, w) in &held {
                let b = &mut self.world.bodies[handle];
                let lag = gravity_lag(&self.world.integration_parameters, b.gravity_scale());
                let moved = Pose::from_parts(at.translation + v * h, at.rotation);
                b.set_position(moved, false);
                // As a step leaves a body resting on its wheels.
                b.set_linvel(v - lag, false);
                b.set_angvel(w, false);
            }
            self.collect_touches(&before);
            self.keep_finite();
        }
        self.spent += started.elapsed();
    }

    /// A body whose state went non-finite (an absurd impulse) is put back
    /// at rest: rapier disables it at its last finite pose; here it is
    /// taken back, still.
    fn keep_finite(&mut self) {
        let bodies = self.cars.iter().map(|c| c.body);
        for h in bodies.chain(self.props.iter().map(|p| p.body)) {
            let b = &mut self.world.bodies[h];
            let whole = b.linvel().is_finite()
                && b.angvel().is_finite()
                && b.position().translation.is_finite()
                && b.position().rotation.is_finite();
            if !b.is_enabled() || !whole {
                b.set_linvel(Vector::ZERO, false);
                b.set_angvel(Vector::ZERO, false);
                if !(b.position().translation.is_finite() && b.position().rotation.is_finite()) {
                    b.set_position(Pose::IDENTITY, false);
                }
                b.set_enabled(true);
            }
        }
    }

    /// The last step's contacts.
    pub(crate) fn touches(&self) -> &[Touch] {
        &self.touches
    }

    /// Vehicle `id`'s telemetry after the last step (`get_telemetry_data`).
    pub(crate) fn telemetry(&self, id: u32) -> Option<carla_server::rpc::VehicleTelemetry> {
        self.car(id).map(|c| c.telemetry(&self.world.bodies))
    }

    /// The gear vehicle `id` is in, as CARLA reports it.
    pub(crate) fn gear(&self, id: u32) -> Option<i32> {
        self.car(id).map(|c| c.gearbox.carla_gear())
    }

    /// A vehicle's or a prop's pose and motion.
    pub(crate) fn state(&self, id: u32) -> Option<BodyState> {
        let b = &self.world.bodies[self.body_of(id)?];
        let p = b.position();
        let fwd = p.rotation * Vector::X;
        let right = p.rotation * Vector::Y;
        Some(BodyState {
            position: vec3(p.translation),
            yaw: fwd.y.atan2(fwd.x),
            pitch: fwd.z.clamp(-1.0, 1.0).asin(),
            roll: (-right.z).clamp(-1.0, 1.0).asin(),
            velocity: if b.is_dynamic() {
                vec3(
                    b.linvel() + gravity_lag(&self.world.integration_parameters, b.gravity_scale()),
                )
            } else {
                vec3(Vector::ZERO)
            },
            angular: vec3(b.angvel()),
            forward_speed: fwd.dot(b.linvel()),
        })
    }

    /// Vehicle `id`'s engine: (rpm, CARLA gear, drive torque N·m).
    #[cfg(test)]
    pub(crate) fn engine(&self, id: u32) -> Option<(f32, i32, f32)> {
        self.car(id)
            .map(|c| (c.gearbox.rpm(), c.gearbox.carla_gear(), c.drive_torque))
    }

    /// Whether a box (centre, half size, yaw) would overlap any collider
    /// but the vehicle `me`'s own.
    pub(crate) fn box_taken(&self, centre: Vector3D, half: Vector3D, yaw: f32, me: u32) -> bool {
        let w = &self.world;
        let own = self.car(me).map(|c| c.body);
        let mut filter = QueryFilter::default();
        if let Some(b) = own {
            filter = filter.exclude_rigid_body(b);
        }
        let q = w.broad_phase.as_query_pipeline(
            w.narrow_phase.query_dispatcher(),
            &w.bodies,
            &w.colliders,
            filter,
        );
        let shape = Cuboid::new(Vector::new(half.x, half.y, half.z));
        let at = pose(centre, yaw, 0.0, 0.0);
        let taken = q.intersect_shape(at, &shape).next().is_some();
        taken
    }
}

#[cfg(test)]
mod tests;
