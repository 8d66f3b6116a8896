//! The RPC methods about a part of one actor: a vehicle's physics control and
//! wheels ([`super::physics`]), a walker's bones ([`super::bones`]), an
//! RGB camera's G-buffer streams
//! ([`crate::sensor::gbuffer`]), its components and sockets
//! ([`super::components`]).

use super::call::{Call, Out};
use super::components::{self, Part};
use super::engine::EngineCall;
use super::error::{bad_arg, refused};
use super::wire::{self, as_u32, ArgResult};
use super::world::unknown_actor;
use super::world::ActorKind;
use super::world::{Actor, World};
use super::RpcShared;
use crate::release::Release;
use crate::sensor::gbuffer::GBufferStreams;
use crate::sensor::GBufferTexture;
use parking_lot::RwLockReadGuard;
use rmpv::Value;
use std::collections::BTreeMap;

/// CARLA's Ackermann controller gains: speed kp, ki, kd; acceleration kp,
/// ki, kd.
const ACKERMANN_DEFAULTS: [f32; 6] = [0.15, 0.0, 0.25, 0.01, 0.0, 0.01];

pub(super) fn enable_gbuffers(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    wire::void(out, || {
        let on = wire::as_bool(&a[1], "enabled")?;
        gbuffers(c.s, &a[0], |g| g.set_enabled(on))
    });
    Ok(())
}

pub(super) fn are_gbuffers_enabled(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let on = gbuffers(c.s, &a[0], |g| g.enabled())?;
    wire::ok_head(out);
    wire::boolean(out, on);
    Ok(())
}

pub(super) fn get_gbuffer_token(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let stream = gbuffer_token(c.s, c.release, a)?;
    wire::ok_head(out);
    wire::bin(out, &c.s.token(stream, c.release));
    Ok(())
}

pub(super) fn get_physics_control(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let actors = c.s.world.actors.read();
    let control = vehicle(&actors, &a[0])?.physics_control();
    wire::ok_head(out);
    control.encode(out);
    Ok(())
}

pub(super) fn get_telemetry_data(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    super::telemetry::get(c.s, &a[0], out)
}

/// Checks that the actor is a walker, asks the host for its bones and
/// answers what it reports.
pub(super) fn get_bones_transform(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let (s, actor_id) = (c.s, as_u32(&a[0], "actor id")?);
    let seen = with_actor(s, &a[0], |_, a| {
        if a.kind != ActorKind::Walker {
            return Err(refused!(
                "get_bones: actor {actor_id} is a {}, not a walker",
                a.blueprint
            ));
        }
        Ok(a.last.bone_reports())
    })?;
    s.ask(EngineCall::WalkerBones { actor_id })?;
    let bones = with_actor(s, &a[0], |_, a| Ok(a.last.bones_since(seen)))?
        .ok_or_else(|| format!("walker {actor_id} has no skeleton on this host"))?;
    wire::ok_head(out);
    super::bones::encode(&bones, out);
    Ok(())
}

pub(super) fn get_ackermann_controller_settings(
    c: &Call,
    a: &[Value],
    out: &mut Out,
) -> ArgResult<()> {
    let actors = c.s.world.actors.read();
    let v = vehicle(&actors, &a[0])?;
    wire::ok_head(out);
    wire::array(out, 6);
    for g in v.ackermann.unwrap_or(ACKERMANN_DEFAULTS) {
        wire::f32v(out, g);
    }
    Ok(())
}

pub(super) fn get_actor_component_names(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    names(out, parts(c.s, &a[0], components::components)?);
    Ok(())
}

pub(super) fn get_actor_socket_names(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    names(out, parts(c.s, &a[0], components::sockets)?);
    Ok(())
}

/// Where a part's transform is given: [`parts`] (in the actor's frame) or
/// [`world_parts`] (in the world).
pub(super) type Place = fn(&RpcShared, &Value, fn(&Actor) -> Vec<Part>) -> ArgResult<Vec<Part>>;

/// `get_actor_socket_relative_transforms` and (`place`: in the world)
/// `get_actor_socket_world_transforms`.
pub(super) fn socket_transforms(
    c: &Call,
    a: &[Value],
    out: &mut Out,
    place: Place,
) -> ArgResult<()> {
    transforms(out, place(c.s, &a[0], components::sockets)?);
    Ok(())
}

/// `get_actor_component_relative_transform` and (`place`: in the world)
/// `get_actor_component_world_transform`.
pub(super) fn component_transform(
    c: &Call,
    a: &[Value],
    out: &mut Out,
    place: Place,
) -> ArgResult<()> {
    let t = named(a, place(c.s, &a[0], components::components))?;
    wire::ok_head(out);
    wire::transform(out, &t);
    Ok(())
}

pub(super) fn get_wheel_steer_angle(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let actors = c.s.world.actors.read();
    let deg = wheel_angle(&actors, a)?;
    wire::ok_head(out);
    wire::f32v(out, deg);
    Ok(())
}

/// The parts' names, as a list.
fn names(out: &mut Out, parts: Vec<Part>) {
    wire::ok_head(out);
    wire::array(out, parts.len());
    parts.iter().for_each(|(name, _)| wire::string(out, name));
}

/// The parts' transforms, as a list.
fn transforms(out: &mut Out, parts: Vec<Part>) {
    wire::ok_head(out);
    wire::array(out, parts.len());
    parts.iter().for_each(|(_, t)| wire::transform(out, t));
}

/// Actor `v`'s parts (components or sockets) in its own frame.
pub(super) fn parts(
    s: &RpcShared,
    v: &Value,
    which: fn(&Actor) -> Vec<Part>,
) -> ArgResult<Vec<Part>> {
    with_actor(s, v, |_, actor| Ok(which(actor)))
}

/// Actor `v`'s parts in the world, where its last episode state put it.
pub(super) fn world_parts(
    s: &RpcShared,
    v: &Value,
    which: fn(&Actor) -> Vec<Part>,
) -> ArgResult<Vec<Part>> {
    with_actor(s, v, |actors, actor| {
        let lookup = |i: u32| {
            actors
                .get(&i)
                .and_then(|p| p.last.get().map(|s| s.transform))
        };
        let at = match actor.parent {
            0 => actor.current_transform(),
            _ => World::world_transform(actors, actor, &lookup),
        };
        let mut parts = which(actor);
        for (_, t) in &mut parts {
            *t = components::in_world(&at, t);
        }
        Ok(parts)
    })
}

/// The transform of the part named by `a[1]` among `parts`.
fn named(a: &[Value], parts: ArgResult<Vec<Part>>) -> ArgResult<crate::types::ActorTransform> {
    let name = wire::as_str(&a[1], "component name")?;
    let parts = parts?;
    parts
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, t)| t)
        .ok_or_else(|| {
            let id = as_u32(&a[0], "actor id").unwrap_or_default();
            bad_arg!("actor {id} has no component {name:?} (get_component_names lists them)")
        })
}

/// Runs `with` on the G-buffer streams of RGB camera `v`.
fn gbuffers<T>(s: &RpcShared, v: &Value, with: impl FnOnce(&GBufferStreams) -> T) -> ArgResult<T> {
    let sensor = rgb_camera(s, v)?;
    let e = s.sensors.get(sensor).map_err(|e| e.to_string())?;
    let g = e.instance.gbuffers().map_err(|e| e.to_string())?;
    Ok(with(g))
}

/// `get_gbuffer_token(actor, texture id)`: the texture's stream id.
/// Clients before 0.9.16 have no `enable_gbuffers`: asking for a token
/// enables the camera's G-buffers for them.
fn gbuffer_token(s: &RpcShared, release: Release, a: &[Value]) -> ArgResult<u32> {
    if !release.enables_gbuffers() {
        gbuffers(s, &a[0], |g| g.set_enabled(true))?;
    }
    let sensor = rgb_camera(s, &a[0])?;
    let id = as_u32(&a[1], "G-buffer id")?;
    let texture = GBufferTexture::from_id(id)
        .ok_or_else(|| bad_arg!("G-buffer id {id}: the textures are 0 to 12"))?;
    Ok(s.sensors.gbuffer_stream(sensor, texture)?)
}

/// `get_wheel_steer_angle(actor, wheel)`: the last steer × the wheel's
/// max steer angle × the steering curve's factor at the last speed,
/// degrees (the front wheels turn, as in CARLA).
fn wheel_angle(actors: &Actors<'_>, a: &[Value]) -> ArgResult<f32> {
    let v = vehicle(actors, &a[0])?;
    let wheel = as_u32(&a[1], "wheel")? as usize;
    let control = v.physics_control();
    let w = control.wheels.get(wheel).ok_or_else(|| {
        let n = control.wheels.len();
        format!("vehicle {} has {n} wheels, no wheel {wheel}", v.id)
    })?;
    let factor = control.steering_factor(v.forward_speed().abs() * 3.6);
    Ok(v.steer() * w.max_steer_angle * factor)
}

type Actors<'a> = RwLockReadGuard<'a, BTreeMap<u32, Actor>>;

/// Runs `with` on actor `v` (and all the actors, for its parents) while
/// they are locked for reading.
fn with_actor<T>(
    s: &RpcShared,
    v: &Value,
    with: impl FnOnce(&Actors<'_>, &Actor) -> ArgResult<T>,
) -> ArgResult<T> {
    let id = as_u32(v, "actor id")?;
    let actors = s.world.actors.read();
    let actor = actors.get(&id).ok_or_else(|| unknown_actor(id))?;
    with(&actors, actor)
}

/// Actor `v`, which must be a vehicle.
fn vehicle<'a>(actors: &'a Actors<'_>, v: &Value) -> ArgResult<&'a Actor> {
    let id = as_u32(v, "actor id")?;
    let actor = actors.get(&id).ok_or_else(|| unknown_actor(id))?;
    if actor.kind != ActorKind::Vehicle {
        return Err(refused!(
            "actor {id} is a {}, not a vehicle",
            actor.blueprint
        ));
    }
    Ok(actor)
}

/// The library sensor of actor `v` if it is an RGB camera (the only
/// sensor with G-buffers, as in CARLA).
fn rgb_camera(s: &RpcShared, v: &Value) -> ArgResult<u32> {
    with_actor(s, v, |_, actor| {
        if actor.blueprint != "sensor.camera.rgb" || actor.sensor == 0 {
            return Err(refused!(
                "actor {} is a {}: G-buffers are only available on sensor.camera.rgb",
                actor.id,
                actor.blueprint
            ));
        }
        Ok(actor.sensor)
    })
}
