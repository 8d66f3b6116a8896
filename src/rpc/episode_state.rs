//! The world-observer message of the 0.9.16 client (registry id 17): after
//! the 48-byte sensor header, a 36-byte episode header and one 119-byte
//! record per live actor, all packed little-endian.
//!
//! Episode header: episode id u64, platform time f64, delta seconds f32,
//! map origin 3 × i32 (0 for ordinary maps), simulation-state flags u32.
//!
//! Actor record: id u32, state u8 (1 = active), transform 6 × f32,
//! velocity, angular velocity and acceleration (3 × f32 each), then 54
//! bytes whose meaning depends on the actor (vehicle control, walker,
//! traffic light; zeros for sensors and the spectator).

use crate::episode::{
    ActorState, CARLA_ACTOR_TRAFFIC_LIGHT, CARLA_ACTOR_VEHICLE, CARLA_ACTOR_WALKER,
};
use crate::types::{ActorTransform, Vector3D};

/// Size of one actor record.
pub(crate) const ACTOR_RECORD_SIZE: usize = 119;
/// Offset of the type-dependent part of a record.
const UNION_AT: usize = 65;

/// `EpisodeHeader::simulation_state` bit: the map changed, so a client's
/// next `world.get_map()` fetches it again (LibCarla's `MapChange`).
pub(crate) const SIMULATION_STATE_MAP_CHANGE: u32 = 1;

/// The per-tick part of the episode header.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct EpisodeHeader {
    pub episode_id: u64,
    pub platform_seconds: f64,
    pub delta_seconds: f32,
    /// Flags: [`SIMULATION_STATE_MAP_CHANGE`] (bit 1, pending light
    /// updates, is never set: the library has no street lights).
    pub simulation_state: u32,
}

/// Appends the 36-byte episode header.
pub(crate) fn write_header(out: &mut Vec<u8>, h: &EpisodeHeader) {
    out.extend_from_slice(&h.episode_id.to_le_bytes());
    out.extend_from_slice(&h.platform_seconds.to_le_bytes());
    out.extend_from_slice(&h.delta_seconds.to_le_bytes());
    out.extend_from_slice(&[0u8; 12]); // map origin (3 × i32)
    out.extend_from_slice(&h.simulation_state.to_le_bytes());
}

fn floats(out: &mut Vec<u8>, v: &[f32]) {
    for f in v {
        out.extend_from_slice(&f.to_le_bytes());
    }
}

fn vector(out: &mut Vec<u8>, v: Vector3D) {
    floats(out, &[v.x, v.y, v.z]);
}

/// Appends the record of `state`, with `transform` as its world transform.
pub(crate) fn write_actor(out: &mut Vec<u8>, state: &ActorState, transform: &ActorTransform) {
    let start = out.len();
    out.extend_from_slice(&state.id.to_le_bytes());
    out.push(1); // active
    let (l, r) = (transform.location, transform.rotation);
    floats(out, &[l.x, l.y, l.z, r.pitch, r.yaw, r.roll]);
    vector(out, state.velocity);
    vector(out, state.angular_velocity);
    vector(out, state.acceleration);
    debug_assert_eq!(out.len() - start, UNION_AT);
    match state.kind {
        CARLA_ACTOR_VEHICLE => {
            let c = &state.vehicle_control;
            floats(out, &[c.throttle, c.steer, c.brake]);
            out.extend_from_slice(&[c.hand_brake.0, c.reverse.0, c.manual_gear_shift.0]);
            out.extend_from_slice(&c.gear.to_le_bytes());
            out.extend_from_slice(&state.speed_limit.to_le_bytes());
            out.push(state.traffic_light_state);
            out.push(state.has_traffic_light.0);
            out.extend_from_slice(&state.traffic_light_id.to_le_bytes());
            out.push(0); // failure state
        }
        CARLA_ACTOR_WALKER => {
            vector(out, state.walker_direction);
            out.extend_from_slice(&state.walker_speed.to_le_bytes());
            out.push(state.walker_jump.0);
        }
        CARLA_ACTOR_TRAFFIC_LIGHT => {
            out.extend_from_slice(&state.sign_id);
            let t = &state.traffic_light_times;
            floats(out, &[t[0], t[1], t[2], t[3]]);
            out.extend_from_slice(&state.pole_index.to_le_bytes());
            out.push(state.time_is_frozen.0);
            out.push(state.traffic_light_state);
        }
        _ => {}
    }
    out.resize(start + ACTOR_RECORD_SIZE, 0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episode::VehicleControl09;
    use crate::sensor::{SensorHeader, SensorType};
    use crate::test_util::hex;
    use crate::types::{CBool, Rotation3D};

    #[test]
    fn golden_bytes_of_the_spec_example() {
        // A world-observer message as the 0.9.16 client decodes it: frame
        // 126, t = 6.3 s, episode 7, platform 12.5 s, delta 0.05, actor
        // 1002 at (1.5, -0.25, 2), (-10, 30, 5).
        let mut body = SensorHeader::new(SensorType::WorldObserver, 126, 6.3, Default::default())
            .to_bytes()
            .to_vec();
        let h = EpisodeHeader {
            episode_id: 7,
            platform_seconds: 12.5,
            delta_seconds: 0.05,
            simulation_state: 0,
        };
        write_header(&mut body, &h);
        let t = ActorTransform {
            location: Vector3D {
                x: 1.5,
                y: -0.25,
                z: 2.0,
            },
            rotation: Rotation3D {
                pitch: -10.0,
                yaw: 30.0,
                roll: 5.0,
            },
        };
        let state = ActorState {
            id: 1002,
            ..Default::default()
        };
        write_actor(&mut body, &state, &t);
        let mut expected = hex("11000000 00000000 7e000000 00000000 3333333333331940
             000000000000000000000000000000000000000000000000
             07000000 00000000 0000000000002940 cdcc4c3d 00000000 00000000 00000000 00000000
             ea030000 01 0000c03f 000080be 00000040 000020c1 0000f041 0000a040");
        expected.resize(48 + 36 + 119, 0);
        assert_eq!(body.len(), 203);
        assert_eq!(body, expected);
    }

    #[test]
    fn the_map_change_flag_is_the_headers_last_word() {
        let h = EpisodeHeader {
            episode_id: 3,
            simulation_state: SIMULATION_STATE_MAP_CHANGE,
            ..Default::default()
        };
        let mut out = Vec::new();
        write_header(&mut out, &h);
        assert_eq!(out.len(), 36, "the episode header after the sensor header");
        assert_eq!(&out[20..32], &[0u8; 12], "map origin");
        assert_eq!(&out[32..36], &[1, 0, 0, 0]);
    }

    #[test]
    fn vehicle_walker_and_light_parts_sit_at_their_offsets() {
        let t = ActorTransform::default();
        let mut v = ActorState {
            id: 5,
            kind: CARLA_ACTOR_VEHICLE,
            ..Default::default()
        };
        v.vehicle_control = VehicleControl09 {
            throttle: 1.0,
            steer: -0.5,
            brake: 0.25,
            hand_brake: CBool(1),
            reverse: CBool(0),
            manual_gear_shift: CBool(1),
            gear: 3,
        };
        v.speed_limit = 30.0;
        v.traffic_light_state = 2;
        v.has_traffic_light = CBool(1);
        v.traffic_light_id = 77;
        let mut out = Vec::new();
        write_actor(&mut out, &v, &t);
        assert_eq!(out.len(), ACTOR_RECORD_SIZE);
        let u = &out[UNION_AT..];
        assert_eq!(&u[0..4], &1.0f32.to_le_bytes());
        assert_eq!(&u[4..8], &(-0.5f32).to_le_bytes());
        assert_eq!(&u[12..15], &[1, 0, 1]);
        assert_eq!(&u[15..19], &3i32.to_le_bytes());
        assert_eq!(&u[19..23], &30.0f32.to_le_bytes());
        assert_eq!(&u[23..25], &[2, 1]);
        assert_eq!(&u[25..29], &77u32.to_le_bytes());

        let mut w = ActorState {
            id: 6,
            kind: CARLA_ACTOR_WALKER,
            ..Default::default()
        };
        w.walker_speed = 1.25;
        w.walker_jump = CBool(1);
        let mut out = Vec::new();
        write_actor(&mut out, &w, &t);
        assert_eq!(&out[UNION_AT + 12..UNION_AT + 16], &1.25f32.to_le_bytes());
        assert_eq!(out[UNION_AT + 16], 1);

        let mut l = ActorState {
            id: 7,
            kind: CARLA_ACTOR_TRAFFIC_LIGHT,
            ..Default::default()
        };
        l.sign_id[..3].copy_from_slice(b"abc");
        l.traffic_light_times = [10.0, 3.0, 20.0, 1.5];
        l.pole_index = 4;
        l.traffic_light_state = 2;
        let mut out = Vec::new();
        write_actor(&mut out, &l, &t);
        assert_eq!(&out[UNION_AT..UNION_AT + 3], b"abc");
        assert_eq!(&out[UNION_AT + 32..UNION_AT + 36], &10.0f32.to_le_bytes());
        assert_eq!(&out[UNION_AT + 44..UNION_AT + 48], &1.5f32.to_le_bytes());
        assert_eq!(&out[UNION_AT + 48..UNION_AT + 52], &4u32.to_le_bytes());
        assert_eq!(out[UNION_AT + 53], 2);
    }
}
