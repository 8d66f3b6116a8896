//! Target `protobuf`: every prost message decoded from the network, and
//! the conversions around them.
//!
//! Input: one byte picks the case, the rest is the message (or, for the
//! encoder cases, the host's values). Decoded messages must re-encode to a
//! fixed point; a `RequestNewEpisode`'s text goes on to the settings parser
//! as a host would pass it; a `Control` survives the conversion to the C
//! struct and back bit for bit (NaN and infinities included: the library
//! passes values through unclamped). The encoders fed with arbitrary host
//! values (any agent type, any float, any map or sensor name) must produce
//! messages that decode to what was given.

use super::{quiet_logs, Input};
use crate::legacy::encode;
use crate::legacy::proto;
use crate::types::{self, Agent, MeasurementsHeader, SensorDefinition};
use prost::Message;

pub fn protobuf(data: &[u8]) {
    quiet_logs();
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    match which % 8 {
        0 => request_new_episode(bytes),
        1 => drop(roundtrip::<proto::EpisodeStart>(bytes)),
        2 => control(bytes),
        // Decoded by the Rust client (`crate::client`).
        3 => drop(roundtrip::<proto::SceneDescription>(bytes)),
        4 => drop(roundtrip::<proto::EpisodeReady>(bytes)),
        5 => drop(roundtrip::<proto::Measurements>(bytes)),
        6 => encode_measurements(&mut Input::new(bytes)),
        _ => encode_scene(&mut Input::new(bytes)),
    }
}

/// Decodes `bytes`; a message that decodes must re-encode to bytes that
/// decode and re-encode to themselves.
fn roundtrip<M: Message + Default>(bytes: &[u8]) -> Option<M> {
    let message = M::decode(bytes).ok()?;
    let once = message.encode_to_vec();
    assert_eq!(message.encoded_len(), once.len());
    let again = M::decode(&once[..]).expect("a re-encoded message decodes");
    assert_eq!(again.encode_to_vec(), once, "encoding is a fixed point");
    Some(message)
}

fn request_new_episode(bytes: &[u8]) {
    if let Some(request) = roundtrip::<proto::RequestNewEpisode>(bytes) {
        let parsed = request
            .ini_file
            .parse::<crate::legacy::settings::Settings>();
        if let Err(e) = parsed {
            assert!(!e.to_string().is_empty());
        }
    }
}

fn control(bytes: &[u8]) {
    let Some(p) = roundtrip::<proto::Control>(bytes) else {
        return;
    };
    let c = encode::control_from_proto(&p);
    assert_eq!(c.hand_brake.0, u8::from(p.hand_brake));
    assert_eq!(c.reverse.0, u8::from(p.reverse));
    let back = encode::control_to_proto(&c);
    let bits = |c: &proto::Control| {
        (
            c.steer.to_bits(),
            c.throttle.to_bits(),
            c.brake.to_bits(),
            c.hand_brake,
            c.reverse,
        )
    };
    assert_eq!(bits(&back), bits(&p));
}

fn vector(input: &mut Input<'_>) -> types::Vector3D {
    types::Vector3D {
        x: input.f32(),
        y: input.f32(),
        z: input.f32(),
    }
}

fn transform(input: &mut Input<'_>) -> types::Transform {
    types::Transform {
        location: vector(input),
        orientation: vector(input),
        rotation: types::Rotation3D {
            pitch: input.f32(),
            yaw: input.f32(),
            roll: input.f32(),
        },
    }
}

const AGENT_TYPES: [u32; 9] = [0, 10, 20, 30, 40, 41, 42, 43, 7];

fn agent(input: &mut Input<'_>) -> Agent {
    Agent {
        id: input.u32(),
        r#type: input.pick(&AGENT_TYPES),
        transform: transform(input),
        bounding_box: types::BoundingBox {
            transform: transform(input),
            extent: vector(input),
        },
        forward_speed: input.f32(),
    }
}

fn encode_measurements(input: &mut Input<'_>) {
    let mut header = MeasurementsHeader {
        frame_number: input.u32(),
        platform_timestamp: input.u32(),
        game_timestamp: input.u32(),
        ..Default::default()
    };
    let p = &mut header.player_measurements;
    p.transform = transform(input);
    p.acceleration = vector(input);
    p.forward_speed = input.f32();
    p.autopilot_control.steer = input.f32();
    p.autopilot_control.hand_brake = types::CBool(input.u8());
    let hand_brake = p.autopilot_control.hand_brake.get();
    let mut agents = Vec::new();
    while !input.is_empty() && agents.len() < 64 {
        agents.push(agent(input));
    }
    let mut msg = proto::Measurements::default();
    encode::measurements_into(&header, &agents, &mut msg);
    let bytes = msg.encode_to_vec();
    let back = proto::Measurements::decode(&bytes[..]).expect("measurements decode");
    assert_eq!(back.frame_number, u64::from(header.frame_number));
    let player = back.player_measurements.expect("always emitted");
    let autopilot = player.autopilot_control.expect("emitted");
    assert_eq!(autopilot.hand_brake, hand_brake);
    assert_eq!(back.non_player_agents.len(), agents.len());
    for (a, b) in agents.iter().zip(&back.non_player_agents) {
        assert_eq!(a.id, b.id);
        let kind = match a.r#type {
            10 => Some(2),
            20 => Some(3),
            30 => Some(5),
            41..=43 => Some(4),
            _ => None,
        };
        let got = b.agent.as_ref().map(|k| match k {
            proto::AgentKind::Vehicle(_) => 2,
            proto::AgentKind::Pedestrian(_) => 3,
            proto::AgentKind::TrafficLight(_) => 4,
            proto::AgentKind::SpeedLimitSign(_) => 5,
        });
        assert_eq!(got, kind, "agent type {}", a.r#type);
    }
}

fn encode_scene(input: &mut Input<'_>) {
    let map = String::from_utf8_lossy(input.chunk(64)).into_owned();
    let spots: Vec<_> = (0..input.u8() % 8).map(|_| transform(input)).collect();
    let mut sensors = Vec::new();
    while !input.is_empty() && sensors.len() < 16 {
        sensors.push(SensorDefinition {
            id: input.u32(),
            r#type: input.pick(&[0, 101, 102, 5]),
            name: String::from_utf8_lossy(input.chunk(32)).into_owned(),
        });
    }
    let bytes = encode::scene_description(&map, &spots, &sensors);
    let back = proto::SceneDescription::decode(&bytes[..]).expect("scene decodes");
    assert_eq!(back.map_name, map);
    assert_eq!(back.player_start_spots.len(), spots.len());
    assert_eq!(back.sensors.len(), sensors.len());
    for (s, b) in sensors.iter().zip(&back.sensors) {
        assert_eq!((s.id, &s.name), (b.id, &b.name));
        assert_eq!(b.r#type, encode::sensor_type(s.r#type));
    }
}
