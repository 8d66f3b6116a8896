//! The two V2X sensors (`sensor.other.v2x`, `sensor.other.v2x_custom`) on
//! the world's actors: each tick every sensor's station may send (a CAM by
//! the library's CA service rules, or the text a client gave `send()`),
//! then every sensor receives what reaches its antenna from the other
//! stations, by the library's path loss model over the world's
//! [`radio_path`](crate::world::World::radio_path).

use super::vehicle_catalog::VEHICLES;
use crate::world::math::{dot, length, sub, v3, Axes};
use crate::world::sensing::radio::PathState;
use crate::world::simulation::actors::ActorKind;
use crate::world::World;
use carla_server::rpc::ActorKind as BlueprintKind;
use carla_server::sensor::models::gnss::GeoReference;
use carla_server::sensor::models::v2x::cam::{self, station, PduHeader};
use carla_server::sensor::models::v2x::{
    CaService, Cam, Fading, Link, Obstruction, Path, StationKind, StationState, V2xSettings,
};
use carla_server::types::Vector3D;

/// A V2X sensor's own state.
pub(crate) struct Radio {
    settings: V2xSettings,
    custom: bool,
    /// Made at the first tick its parent is known.
    ca: Option<CaService>,
    /// `send()`'s text, sent at the next tick.
    pending: Option<String>,
    fading: Fading,
}

impl Radio {
    pub(crate) fn new(custom: bool, pairs: &[(String, String)], actor: u32) -> Radio {
        let settings =
            V2xSettings::from_attributes(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let seed = settings.noise_seed ^ u64::from(actor).rotate_left(32);
        Radio {
            settings,
            custom,
            ca: None,
            pending: None,
            fading: Fading::new(seed ^ 0x5EED_FAD1),
        }
    }

    /// `sensor.send(text)` (custom sensors only; the library checked).
    pub(crate) fn send(&mut self, text: &str) {
        if self.custom {
            self.pending = Some(text.to_owned());
        }
    }
}

/// What a station sent this tick.
// Unboxed: the list is reused tick after tick, a box would allocate per CAM.
#[allow(clippy::large_enum_variant)]
enum Message {
    Cam(Cam),
    Custom(PduHeader, String),
}

impl Message {
    fn custom(&self) -> bool {
        matches!(self, Message::Custom(..))
    }
}

struct Sent {
    owner: u32,
    power: f32,
    antenna: Vector3D,
    ground: f32,
    message: Message,
}

/// This tick's messages in the air (reused from tick to tick).
#[derive(Default)]
pub(crate) struct Air {
    sent: Vec<Sent>,
    obstructions: Vec<Obstruction>,
}

/// Where station `id`'s antenna is (on top of it), its ground height and
/// its state, None if the world does not have it.
fn station(world: &World, id: u32, lights: u32) -> Option<(Vector3D, f32, StationState)> {
    let t = world.actor_transform(id)?;
    let axes = Axes::from_rotation(&t.rotation);
    let velocity = world.actor_velocity(id);
    let (accel, gyro) = world.motion_of(id);
    let extent = world.vehicle_extent(id);
    let (ground, height) = match extent {
        Some(e) => (t.location.z, 2.0 * e.z),
        // Walkers' origin is their middle; lights and signs stand on it.
        None if world.kind_of(id) == Some(ActorKind::Walker) => (t.location.z - 0.9, 1.8),
        None => (t.location.z, 3.0),
    };
    let state = StationState {
        location: t.location,
        yaw: t.rotation.yaw,
        forward_speed: dot(velocity, axes.forward),
        acceleration: axes.to_local(v3(accel.x, accel.y, accel.z + 9.81)),
        yaw_rate: gyro.z,
        extent: extent.unwrap_or(v3(0.3, 0.3, 0.9)),
        lights,
    };
    Some((
        v3(t.location.x, t.location.y, ground + height),
        ground,
        state,
    ))
}

/// The station kind of an actor of blueprint `type_id`.
fn station_kind(type_id: &str) -> StationKind {
    if let Some(m) = VEHICLES.iter().find(|m| m.id == type_id) {
        let (station_type, vehicle_role) = match (m.base_type, m.special_type) {
            (_, "emergency") => (station::SPECIAL_VEHICLE, 6),
            ("bus", _) => (station::BUS, 1),
            ("truck", _) => (station::LIGHT_TRUCK, 0),
            ("motorcycle", _) => (station::MOTORCYCLE, 0),
            ("bicycle", _) => (station::CYCLIST, 0),
            _ => (station::PASSENGER_CAR, 0),
        };
        return StationKind::Vehicle {
            station_type,
            vehicle_role,
        };
    }
    match BlueprintKind::of(type_id) {
        BlueprintKind::Vehicle => StationKind::Vehicle {
            station_type: station::PASSENGER_CAR,
            vehicle_role: 0,
        },
        BlueprintKind::Walker => StationKind::Pedestrian,
        _ => StationKind::RoadSideUnit,
    }
}

/// What the stations' messages depend on this tick besides the world.
pub(crate) struct Now<'a> {
    pub world: &'a World,
    pub time: f32,
    pub geo: &'a GeoReference,
    /// Blueprint id of an actor.
    pub type_of: &'a dyn Fn(u32) -> String,
    /// A vehicle's `carla.VehicleLightState` flags.
    pub lights_of: &'a dyn Fn(u32) -> u32,
}

/// Step 1: every V2X sensor's station (`(parent, radio)`) sends what it
/// has this tick (one message per station and kind, as CARLA keys them by
/// station).
pub(crate) fn transmit<'r>(
    radios: impl Iterator<Item = (u32, &'r mut Radio)>,
    t: &Now,
    air: &mut Air,
) {
    air.sent.clear();
    for (owner, radio) in radios {
        let twin = |m: &Sent| m.owner == owner && m.message.custom() == radio.custom;
        if owner == 0 || air.sent.iter().any(twin) {
            continue;
        }
        let Some((antenna, ground, state)) = station(t.world, owner, (t.lights_of)(owner)) else {
            continue;
        };
        let power = radio.settings.propagation.transmit_power;
        let message = if radio.custom {
            let Some(text) = radio.pending.take() else {
                continue;
            };
            let header = PduHeader {
                protocol_version: cam::PROTOCOL_VERSION,
                message_id: cam::MESSAGE_ID_CUSTOM,
                station_id: i64::from(owner),
            };
            Message::Custom(header, text)
        } else {
            let (settings, seed) = (radio.settings.cam, radio.settings.noise_seed);
            let ca = radio.ca.get_or_insert_with(|| {
                CaService::new(settings, owner, station_kind(&(t.type_of)(owner)), seed)
            });
            let Some(cam) = ca.trigger(f64::from(t.time), &state, t.geo) else {
                continue;
            };
            Message::Cam(cam)
        };
        air.sent.push(Sent {
            owner,
            power,
            antenna,
            ground,
            message,
        });
    }
}

/// Step 2: what the sensor `radio` on actor `parent` receives this tick,
/// written to `payload` as the client's records; false if nothing
/// (nothing is sent then, as CARLA).
pub(crate) fn receive(
    (parent, radio): (u32, &mut Radio),
    world: &World,
    air: &mut Air,
    payload: &mut Vec<u8>,
) -> bool {
    payload.clear();
    if air.sent.is_empty() {
        return false; // nobody sent: no station to look up
    }
    let Some((rx, rx_ground, _)) = station(world, parent, 0) else {
        return false;
    };
    for m in &air.sent {
        if m.owner == parent || m.message.custom() != radio.custom {
            continue;
        }
        let distance = length(sub(rx, m.antenna));
        let propagation = &radio.settings.propagation;
        if distance.is_nan() || distance >= propagation.filter_distance {
            continue; // out of reach: no ray cast
        }
        let state = world.radio_path(m.antenna, rx, (m.owner, parent), &mut air.obstructions);
        let path = match state {
            PathState::Clear => Path::Clear,
            PathState::Vehicles => Path::Vehicles(&air.obstructions),
            PathState::Blocked => Path::Blocked,
        };
        let base = m.ground.min(rx_ground);
        let link = Link {
            distance,
            tx_height: m.antenna.z - base,
            rx_height: rx.z - base,
            path,
        };
        let Some(power) = propagation.received_power(m.power, &link, &mut radio.fading) else {
            continue;
        };
        match &m.message {
            Message::Cam(c) => cam::write_cam(payload, power, c),
            Message::Custom(header, text) => cam::write_custom(payload, power, header, text),
        }
    }
    !payload.is_empty()
}
