//! Conversions between the plain-data types and the protobuf messages.
//!
//! The encoder keeps the wire properties clients depend on: every sub-message
//! it touches is emitted (even when all zero), the agent `oneof` member is
//! always present, booleans are normalised, a `Measurements` is never empty
//! (`player_measurements` is always emitted).

use crate::legacy::proto;
use crate::types::{self, Agent, MeasurementsHeader, SensorDefinition};
use prost::Message;

fn vector(v: &types::Vector3D) -> proto::Vector3D {
    proto::Vector3D {
        x: v.x,
        y: v.y,
        z: v.z,
    }
}

fn transform(t: &types::Transform) -> proto::Transform {
    proto::Transform {
        location: Some(vector(&t.location)),
        orientation: Some(vector(&t.orientation)),
        rotation: Some(proto::Rotation3D {
            pitch: t.rotation.pitch,
            yaw: t.rotation.yaw,
            roll: t.rotation.roll,
        }),
    }
}

fn bounding_box(b: &types::BoundingBox) -> proto::BoundingBox {
    proto::BoundingBox {
        transform: Some(transform(&b.transform)),
        extent: Some(vector(&b.extent)),
    }
}

/// C control -> protobuf (booleans normalised).
pub(crate) fn control_to_proto(c: &types::Control) -> proto::Control {
    proto::Control {
        steer: c.steer,
        throttle: c.throttle,
        brake: c.brake,
        hand_brake: c.hand_brake.get(),
        reverse: c.reverse.get(),
    }
}

/// Protobuf control -> C control (values as decoded, no clamping).
pub(crate) fn control_from_proto(c: &proto::Control) -> types::Control {
    types::Control {
        steer: c.steer,
        throttle: c.throttle,
        brake: c.brake,
        hand_brake: c.hand_brake.into(),
        reverse: c.reverse.into(),
    }
}

/// Maps a C sensor kind to `Sensor.Type`.
pub(crate) fn sensor_type(kind: u32) -> i32 {
    match kind {
        types::CARLA_SERVER_CAMERA => proto::sensor_type::CAMERA,
        types::CARLA_SERVER_LIDAR_RAY_CAST => proto::sensor_type::LIDAR_RAY_CAST,
        _ => proto::sensor_type::UNKNOWN,
    }
}

/// One agent; an unknown kind yields an `Agent` with only its id.
pub(crate) fn agent(a: &Agent) -> proto::Agent {
    use crate::types::*;
    let t = Some(transform(&a.transform));
    let light = |state| {
        Some(proto::AgentKind::TrafficLight(proto::TrafficLight {
            transform: t,
            state,
        }))
    };
    let mover = proto::Mover {
        transform: t,
        forward_speed: a.forward_speed,
        bounding_box: Some(bounding_box(&a.bounding_box)),
    };
    let kind = match a.r#type {
        CARLA_SERVER_AGENT_VEHICLE => Some(proto::AgentKind::Vehicle(mover)),
        CARLA_SERVER_AGENT_PEDESTRIAN => Some(proto::AgentKind::Pedestrian(mover)),
        CARLA_SERVER_AGENT_SPEEDLIMITSIGN => {
            Some(proto::AgentKind::SpeedLimitSign(proto::SpeedLimitSign {
                transform: t,
                speed_limit: a.forward_speed,
            }))
        }
        CARLA_SERVER_AGENT_TRAFFICLIGHT_GREEN => light(proto::traffic_light_state::GREEN),
        CARLA_SERVER_AGENT_TRAFFICLIGHT_YELLOW => light(proto::traffic_light_state::YELLOW),
        CARLA_SERVER_AGENT_TRAFFICLIGHT_RED => light(proto::traffic_light_state::RED),
        other => {
            crate::log_debug!("agent {}: invalid agent type {}", a.id, other);
            None
        }
    };
    proto::Agent {
        id: a.id,
        agent: kind,
    }
}

/// Fills `msg` from a measurement, reusing its agents vector (no allocation
/// once the vector has grown to the largest agent count seen).
pub(crate) fn measurements_into(
    header: &MeasurementsHeader,
    agents: &[Agent],
    msg: &mut proto::Measurements,
) {
    let p = &header.player_measurements;
    msg.platform_timestamp = header.platform_timestamp;
    msg.game_timestamp = header.game_timestamp;
    msg.frame_number = u64::from(header.frame_number);
    msg.player_measurements = Some(proto::PlayerMeasurements {
        transform: Some(transform(&p.transform)),
        acceleration: Some(vector(&p.acceleration)),
        forward_speed: p.forward_speed,
        collision_vehicles: p.collision_vehicles,
        collision_pedestrians: p.collision_pedestrians,
        collision_other: p.collision_other,
        intersection_otherlane: p.intersection_otherlane,
        intersection_offroad: p.intersection_offroad,
        autopilot_control: Some(control_to_proto(&p.autopilot_control)),
        bounding_box: Some(bounding_box(&p.bounding_box)),
    });
    msg.non_player_agents.clear();
    msg.non_player_agents.extend(agents.iter().map(agent));
}

/// Encodes a `SceneDescription`.
pub(crate) fn scene_description(
    map_name: &str,
    spots: &[types::Transform],
    sensors: &[SensorDefinition],
) -> Vec<u8> {
    proto::SceneDescription {
        player_start_spots: spots.iter().map(transform).collect(),
        sensors: sensors
            .iter()
            .map(|s| proto::Sensor {
                id: s.id,
                r#type: sensor_type(s.r#type),
                name: s.name.clone(),
            })
            .collect(),
        map_name: map_name.to_owned(),
    }
    .encode_to_vec()
}

/// Encodes an `EpisodeReady` (`false` is the empty message).
pub(crate) fn episode_ready(ready: bool) -> Vec<u8> {
    proto::EpisodeReady { ready }.encode_to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::*;

    use crate::test_util::hex;

    #[test]
    fn scene_description_matches_the_observed_capture() {
        let spot = Transform {
            location: Vector3D {
                x: 1.0,
                y: 2.0,
                z: 3.0,
            },
            orientation: Vector3D {
                x: 0.0,
                y: 1.0,
                z: 0.0,
            },
            rotation: Rotation3D {
                pitch: 10.0,
                yaw: 20.0,
                roll: 30.0,
            },
        };
        let sensors = [
            SensorDefinition {
                id: 0x1122_3344,
                r#type: CARLA_SERVER_CAMERA,
                name: "Cam".into(),
            },
            SensorDefinition {
                id: 5,
                r#type: CARLA_SERVER_LIDAR_RAY_CAST,
                name: "Lid".into(),
            },
            SensorDefinition {
                id: 7,
                r#type: 999,
                name: "Unk".into(),
            },
        ];
        let bytes = scene_description("Town01", &[spot, Transform::default()], &sensors);
        let expected = hex("0a29 0a0f 0d0000803f 1500000040 1d00004040 1205 150000803f
             1a0f 0d00002041 150000a041 1d0000f041
             0a06 0a00 1200 1a00
             120c 0d44332211 1001 1a03 43616d
             120c 0d05000000 1002 1a03 4c6964
             120a 0d07000000 1a03 556e6b
             1a06 546f776e3031");
        assert_eq!(bytes.len(), 99);
        assert_eq!(bytes, expected);
    }

    #[test]
    fn empty_measurement_matches_the_observed_capture() {
        let header = MeasurementsHeader {
            frame_number: 4,
            ..Default::default()
        };
        let mut msg = proto::Measurements::default();
        measurements_into(&header, &[], &mut msg);
        let expected = hex("1a18 0a06 0a00 1200 1a00 1a00 5200 620a 0a06 0a00 1200 1a00 1200 2804");
        assert_eq!(msg.encode_to_vec(), expected);
    }

    #[test]
    fn control_and_episode_messages_match_the_capture() {
        let c = Control {
            steer: 0.5,
            throttle: 0.25,
            brake: 0.1,
            hand_brake: CBool(7), // garbage byte: must become a clean `true`
            reverse: CBool(0),
        };
        let bytes = control_to_proto(&c).encode_to_vec();
        assert_eq!(bytes, hex("0d0000003f 150000803e 1dcdcccc3d 2001"));
        assert_eq!(episode_ready(true), hex("0801"));
        assert!(episode_ready(false).is_empty());
        let decoded = proto::Control::decode(&bytes[..]).unwrap();
        assert_eq!(control_from_proto(&decoded).hand_brake, CBool(1));
    }

    #[test]
    fn every_agent_kind_carries_its_oneof_member() {
        let kinds = [
            (CARLA_SERVER_AGENT_VEHICLE, "12"),
            (CARLA_SERVER_AGENT_PEDESTRIAN, "1a"),
            (CARLA_SERVER_AGENT_TRAFFICLIGHT_RED, "22"),
            (CARLA_SERVER_AGENT_SPEEDLIMITSIGN, "2a"),
        ];
        for (kind, tag) in kinds {
            let a = Agent {
                id: 0,
                r#type: kind,
                ..Default::default()
            };
            let bytes = agent(&a).encode_to_vec();
            assert_eq!(
                bytes[0],
                u8::from_str_radix(tag, 16).unwrap(),
                "kind {kind}"
            );
        }
        let red = agent(&Agent {
            r#type: CARLA_SERVER_AGENT_TRAFFICLIGHT_RED,
            ..Default::default()
        });
        match red.agent {
            Some(proto::AgentKind::TrafficLight(l)) => assert_eq!(l.state, 2),
            other => panic!("unexpected {other:?}"),
        }
        let unknown = agent(&Agent {
            id: 9,
            r#type: CARLA_SERVER_AGENT_TRAFFICLIGHT,
            ..Default::default()
        });
        assert_eq!(unknown.encode_to_vec(), hex("0d09000000"));
    }
}
