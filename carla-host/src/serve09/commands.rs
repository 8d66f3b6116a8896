//! The actor commands 0.9 clients send (physics toggles, impulses,
//! walker controls and poses, lights, doors, traffic lights), carried out
//! on the demo world as far as its models go. What a model cannot show (doors
//! and lamps on a box car) is accepted and written once to the log, and
//! listed as such in docs/compatibility.md.

use crate::world::ids::LIGHT_ID0;
use crate::world::simulation::lights::{Light, Lights, Stage};
use crate::world::World;
use carla_server::rpc::{ActorCommand, WorldCommand};
use carla_server::types::Vector3D;
use carla_server::{log_info, log_warn};
use std::collections::HashSet;

/// Commands the world took without a visible effect, logged once each.
#[derive(Default)]
pub(crate) struct NoEffect(HashSet<&'static str>);

impl NoEffect {
    fn note(&mut self, what: &'static str) {
        if self.0.insert(what) {
            log_info!(
                "0.9 clients: {} is accepted but has no effect in the demo world",
                what
            );
        }
    }
}

/// Carries out `command` on actor `id`; `dt` is the tick's step (forces
/// act over one).
pub(crate) fn actor(
    world: &mut World,
    id: u32,
    command: &ActorCommand,
    dt: f32,
    quiet: &mut NoEffect,
) {
    use ActorCommand as C;
    let done = match *command {
        C::SimulatePhysics(on) => match world.driven_mut(id) {
            Some(d) => {
                d.modes.frozen = !on;
                true
            }
            // Walkers are kinematic already: moved only by their walk or a
            // client's controls.
            None => world.walker_mut(id).is_some() || world.set_prop_simulated(id, on),
        },
        C::Collisions(on) => match world.driven_mut(id) {
            Some(d) => {
                d.modes.ghost = !on;
                true
            }
            None => world.walker_mut(id).map(|w| w.ghost = !on).is_some(),
        },
        C::Autopilot(on) => world
            .driven_mut(id)
            .map(|d| d.modes.autopilot = on)
            .is_some(),
        C::ConstantVelocity(v) => world
            .driven_mut(id)
            .map(|d| d.modes.constant_speed = v.map(|v| v.x))
            .is_some(),
        C::AckermannControl(target) => world
            .driven_mut(id)
            .map(|d| {
                d.ackermann.aim(target);
                d.modes.ackermann = true;
            })
            .is_some(),
        C::AckermannSettings(gains) => world
            .driven_mut(id)
            .map(|d| d.ackermann.settings = gains)
            .is_some(),
        // CARLA's units: N·s, N (over this tick), and degrees for the
        // angular ones.
        C::Impulse { impulse, .. } => world.push_car(id, impulse, false),
        C::Force { force, .. } => world.push_car(id, scaled(force, dt.max(0.0)), false),
        C::AngularImpulse(j) => world.push_car(id, scaled(j, DEG), true),
        C::Torque(t) => world.push_car(id, scaled(t, DEG * dt.max(0.0)), true),
        C::TargetAngularVelocity(w) => world.set_velocity(id, scaled(w, DEG), true),
        C::EnableGravity(on) => world.physics_mut().set_gravity(id, on),
        C::PhysicsControl(ref c) => {
            world
                .driven_mut(id)
                .map(|d| {
                    // The autopilot steers by the largest wheel angle.
                    d.car.max_steer_deg = c.max_steer_angle().clamp(1.0, 89.0);
                })
                .is_some()
                && world.physics_mut().apply_control(id, c)
        }
        C::WalkerControl {
            direction, speed, ..
        } => walk(world, id, direction.x, direction.y, speed),
        C::WalkerState { transform, speed } => {
            // A client's crowd moves it: to the place given (its feet, on
            // the crowd's navigation mesh), on the ground there.
            let moved = world.walker_mut(id).map(|w| {
                w.take_over();
                w.control = None;
                w.speed = speed;
            });
            let mut centre = super::to_transform(&transform);
            centre.location.z += crate::world::simulation::pedestrians::HALF_HEIGHT;
            moved.is_some() && world.set_transform(id, &centre)
        }
        C::Dead => walk(world, id, 0.0, 0.0, 0.0),
        C::LightState(flags) => world.set_vehicle_lights(id, flags),
        C::Door { .. } => no_effect(quiet, "vehicle doors (the cars have none)"),
        C::TrafficLightState(state) => {
            let state = match state {
                0 => Light::Red,
                1 => Light::Yellow,
                2 => Light::Green,
                _ => Light::Off,
            };
            traffic_light(world, id, |l, i| l.set_state(i, state))
        }
        C::TrafficLightTime { phase, seconds } => {
            let stage = match phase {
                0 => Stage::Green,
                1 => Stage::Yellow,
                _ => Stage::Red,
            };
            traffic_light(world, id, |l, i| l.set_time(i, stage, seconds))
        }
        C::FreezeTrafficLight(on) => traffic_light(world, id, |l, i| l.freeze(i, on)),
        C::ResetTrafficLightGroup => traffic_light(world, id, Lights::reset_group),
        // Carried out by the sensor (`Serve09::handle`).
        C::V2xSend(_) => true,
        C::SetBones(ref bones) => world.set_walker_bones(id, bones),
        C::BlendPose(blend) => world.blend_walker_pose(id, blend),
        C::PoseFromAnimation => world.walker_pose_from_animation(id),
    };
    if !done {
        log_warn!(
            "0.9 clients: {} on actor {}: not possible for this actor in the demo world",
            command.name(),
            id
        );
    }
}

pub(crate) fn world_command(world: &mut World, command: &WorldCommand) {
    match command {
        WorldCommand::HoldTraffic(hold) => world.hold_traffic(*hold),
        WorldCommand::FreezeAllTrafficLights(on) => world.lights_mut().freeze_all(*on),
        WorldCommand::ResetAllTrafficLights => world.lights_mut().reset_all(),
    }
}

/// Changes traffic light `id` with `change` (given the light's index);
/// false if `id` is not one of the world's lights.
fn traffic_light(world: &mut World, id: u32, change: impl FnOnce(&mut Lights, usize)) -> bool {
    let lights = world.lights_mut();
    let index = id.checked_sub(LIGHT_ID0).map(|i| i as usize);
    match index.filter(|&i| i < lights.len()) {
        Some(i) => {
            change(lights, i);
            true
        }
        None => false,
    }
}

const DEG: f32 = std::f32::consts::PI / 180.0;

fn scaled(v: Vector3D, k: f32) -> Vector3D {
    Vector3D {
        x: v.x * k,
        y: v.y * k,
        z: v.z * k,
    }
}

fn walk(world: &mut World, id: u32, dx: f32, dy: f32, speed: f32) -> bool {
    let norm = (dx * dx + dy * dy).sqrt();
    let (dx, dy) = if norm > 1e-6 {
        (dx / norm, dy / norm)
    } else {
        (0.0, 0.0)
    };
    let speed = if speed.is_finite() {
        speed.clamp(0.0, 10.0)
    } else {
        0.0
    };
    world
        .walker_mut(id)
        .map(|w| {
            w.take_over();
            w.control = Some((dx, dy, speed));
        })
        .is_some()
}

fn no_effect(quiet: &mut NoEffect, what: &'static str) -> bool {
    quiet.note(what);
    true
}
