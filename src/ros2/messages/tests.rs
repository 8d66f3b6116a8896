use super::*;
use crate::sensor::serialize::{
    collision, dvs_events, gnss, image as image_payload, imu as imu_payload, lidar,
    ActorDescription, DvsEvent, LidarDetection,
};
use crate::types::{CBool, Rotation3D, Vector3D};

const T: Stamp = Stamp {
    sec: 3,
    nanosec: 250_000_000,
};

fn header_len(frame_id: &str) -> usize {
    // sec, nanosec, string length, bytes + NUL, padded to 4
    (12 + frame_id.len() + 1).div_ceil(4) * 4
}

/// `bytes` read as little-endian f32s.
fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn stamps_truncate_to_the_nanosecond() {
    assert_eq!(Stamp::from_seconds(3.25), T);
    assert_eq!(Stamp::from_seconds(-1.0), Stamp::default());
    assert_eq!(Stamp::from_seconds(f64::NAN), Stamp::default());
}

#[test]
fn an_image_is_its_header_then_the_bgra_pixels_left_where_they_are() {
    let mut payload = Vec::new();
    image_payload(&mut payload, 2, 1, 90.0, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    // A byte past the pixels (a block longer than the image) is not sent.
    payload.push(99);
    let (head, pixels) = image_head(T, "rgb", &payload, PixelFormat::Bgra8).unwrap();
    assert_eq!(&payload[pixels.clone()], &[1, 2, 3, 4, 5, 6, 7, 8]);
    let msg = [&head[..], &payload[pixels]].concat();
    let h = header_len("rgb");
    assert_eq!(&msg[..8], &[3, 0, 0, 0, 0x80, 0xb2, 0xe6, 0x0e]);
    assert_eq!(&msg[h..h + 8], &[1, 0, 0, 0, 2, 0, 0, 0]); // height 1, width 2
    assert_eq!(&msg[h + 8..h + 18], b"\x06\0\0\0bgra8\0");
    let tail = &msg[msg.len() - 16..];
    assert_eq!(&tail[..8], &[8, 0, 0, 0, 8, 0, 0, 0]); // step 8, 8 bytes
    assert_eq!(&tail[8..], &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(
        head.len(),
        msg.len() - 8,
        "the head ends where the pixels start"
    );
    // A payload shorter than its header says is refused.
    assert!(image_head(T, "rgb", &payload[..payload.len() - 2], PixelFormat::Bgra8).is_none());
}

#[test]
fn camera_info_has_the_pinhole_focal_length_of_the_fov() {
    let msg = camera_info(T, "rgb", 800, 600, 90.0);
    // Header (16), height and width (24), "plumb_bob" (38), the count of
    // D (40..44), D's 5 doubles from 48, then K at 88, starting with fx.
    assert_eq!(header_len("rgb"), 16);
    let k = 88;
    let fx = f64::from_le_bytes(msg[k..k + 8].try_into().unwrap());
    assert!((fx - 400.0).abs() < 1e-9, "{fx}");
    let cx = f64::from_le_bytes(msg[k + 16..k + 24].try_into().unwrap());
    assert_eq!(cx, 400.0);
}

#[test]
fn lidar_points_get_y_negated_and_four_float_fields() {
    let mut payload = Vec::new();
    let p = LidarDetection {
        x: 1.0,
        y: 2.0,
        z: 3.0,
        intensity: 0.5,
    };
    lidar(&mut payload, 0.0, &[1], &[p]).unwrap();
    let msg = point_cloud(T, "lidar", Cloud::Lidar, &payload).unwrap();
    assert_eq!(
        f32s(&msg[msg.len() - 17..msg.len() - 1]),
        [1.0, -2.0, 3.0, 0.5]
    );
    assert_eq!(msg[msg.len() - 1], 0, "is_dense false");
    for name in ["x", "y", "z", "intensity"] {
        let needle = [name.as_bytes(), &[0]].concat();
        assert!(
            msg.windows(needle.len()).any(|w| w == needle),
            "field {name}"
        );
    }
    // A channel count past the payload is refused.
    assert!(point_cloud(T, "lidar", Cloud::Lidar, &[0, 0, 0, 0, 255, 255, 255, 255]).is_none());
}

#[test]
fn radar_detections_become_cartesian_points() {
    let mut payload = Vec::new();
    for v in [2.0f32, 0.0, 0.0, 10.0] {
        payload.extend_from_slice(&v.to_le_bytes()); // velocity, azimuth, altitude, depth
    }
    let msg = point_cloud(T, "radar", Cloud::Radar, &payload).unwrap();
    let v = f32s(&msg[msg.len() - 29..msg.len() - 1]);
    assert_eq!(v, [10.0, -0.0, 0.0, 2.0, 0.0, 0.0, 10.0]);
}

#[test]
fn imu_and_gnss_payloads_read_back() {
    let mut payload = Vec::new();
    let v = |x, y, z| Vector3D { x, y, z };
    imu_payload(&mut payload, v(1.0, 2.0, 9.81), v(0.1, 0.2, 0.3), 0.0);
    let msg = imu(T, "imu", &payload).unwrap();
    // The last 9 doubles are a covariance; before them linear_acceleration.
    let at = msg.len() - 9 * 8 - 3 * 8;
    let a: Vec<f64> = msg[at..at + 24]
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(a[0], 1.0);
    assert_eq!(a[1], -2.0);
    assert!((a[2] - 9.81).abs() < 1e-5);
    let mut payload = Vec::new();
    gnss(&mut payload, 49.0, 8.0, 120.0);
    let msg = nav_sat_fix(T, "gnss", &payload).unwrap();
    let at = header_len("gnss") + 4;
    let lat = f64::from_le_bytes(msg[at..at + 8].try_into().unwrap());
    assert_eq!(lat, 49.0);
    assert!(imu(T, "imu", b"\x93\x01").is_none());
    assert!(nav_sat_fix(T, "gnss", &[]).is_none());
}

#[test]
fn tf_converts_to_a_right_handed_frame() {
    let t = ActorTransform {
        location: Vector3D {
            x: -4.5,
            y: 1.0,
            z: 2.5,
        },
        rotation: Rotation3D {
            pitch: -20.0,
            yaw: 0.0,
            roll: 0.0,
        },
    };
    let msg = tf(T, "hero", "rgb", &t);
    let doubles: Vec<f64> = msg[msg.len() - 56..]
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(&doubles[..3], &[-4.5, -1.0, 2.5]);
    // CARLA pitch -20 (nose down) is ROS pitch +20: q = (0, sin 10°, 0, cos 10°).
    assert!(
        (doubles[4] - 10f64.to_radians().sin()).abs() < 1e-9,
        "{doubles:?}"
    );
    assert!((doubles[6] - 10f64.to_radians().cos()).abs() < 1e-9);
}

#[test]
fn a_vehicle_control_message_is_read_and_a_short_one_refused() {
    let mut w = Writer::default();
    w.i32(1);
    w.u32(2);
    w.string("hero");
    w.f32(0.5);
    w.f32(-0.25);
    w.f32(0.0);
    w.u8(1);
    w.u8(0);
    w.i32(3);
    w.u8(1);
    let c = vehicle_control(&w.out).unwrap();
    assert_eq!((c.throttle, c.steer, c.gear), (0.5, -0.25, 3));
    assert!(c.hand_brake.get() && !c.reverse.get() && c.manual_gear_shift.get());
    assert!(vehicle_control(&w.out[..w.out.len() - 2]).is_err());
}

fn dvs_payload(events: &[DvsEvent]) -> Vec<u8> {
    let mut payload = Vec::new();
    dvs_events(&mut payload, 4, 2, 90.0, events).unwrap();
    payload
}

const DVS_EVENTS: [DvsEvent; 3] = [
    DvsEvent {
        x: 1,
        y: 0,
        t: 7,
        pol: true,
    },
    DvsEvent {
        x: 3,
        y: 1,
        t: 8,
        pol: false,
    },
    // Outside the 4x2 image: in the cloud, not drawn.
    DvsEvent {
        x: 9,
        y: 9,
        t: 9,
        pol: true,
    },
];

#[test]
fn dvs_events_are_drawn_red_or_blue_on_black() {
    let msg = dvs_image(T, "dvs", &dvs_payload(&DVS_EVENTS)).unwrap();
    let h = header_len("dvs");
    assert_eq!(&msg[h..h + 8], &[2, 0, 0, 0, 4, 0, 0, 0]); // height 2, width 4
    assert_eq!(&msg[h + 8..h + 17], b"\x05\0\0\0bgr8\0");
    let pixels = &msg[msg.len() - 24..];
    let mut expected = [0u8; 24];
    expected[3 + 2] = 255; // (1, 0) positive: red
    expected[(4 + 3) * 3] = 255; // (3, 1) negative: blue
    assert_eq!(pixels, expected);
    // A header claiming a huge image is not published.
    let mut huge = Vec::new();
    dvs_events(&mut huge, 1 << 16, 1 << 16, 90.0, &[]).unwrap();
    assert!(dvs_image(T, "dvs", &huge).is_none());
    assert!(dvs_image(T, "dvs", &[0; 5]).is_none());
}

#[test]
fn dvs_events_are_13_byte_points_with_their_fields() {
    let payload = dvs_payload(&DVS_EVENTS);
    let msg = dvs_point_cloud(T, "dvs", &payload).unwrap();
    let h = header_len("dvs");
    assert_eq!(&msg[h..h + 8], &[1, 0, 0, 0, 3, 0, 0, 0]); // 1 x 3 points
    assert_eq!(&msg[h + 8..h + 12], &[3, 0, 0, 0]); // 3 fields
    assert_eq!(&msg[h + 12..h + 18], b"\x02\0\0\0x\0");
    // The points are the payload's events as they are, then is_dense.
    let points = &payload[12..];
    assert_eq!(&msg[msg.len() - 1 - points.len()..msg.len() - 1], points);
    let count = &msg[msg.len() - 5 - points.len()..msg.len() - 1 - points.len()];
    assert_eq!(count, &(points.len() as u32).to_le_bytes());
}

#[test]
fn a_collision_names_the_other_actor_and_its_impulse_in_si_units() {
    let other = ActorDescription {
        id: 77,
        parent_id: 0,
        uid: 0,
        type_id: "static.prop".into(),
        attributes: vec![],
        bounding_box: Default::default(),
        semantic_tags: vec![],
        stream_token: vec![],
    };
    let me = ActorDescription {
        id: 5,
        ..other.clone()
    };
    let mut payload = Vec::new();
    let impulse = Vector3D {
        x: 100.0,
        y: 200.0,
        z: -300.0,
    };
    collision(&mut payload, &me, &other, impulse);
    let msg = collision_event(T, "collision", &payload).unwrap();
    let h = header_len("collision");
    assert_eq!(&msg[h..h + 4], &[77, 0, 0, 0]);
    let v: Vec<f64> = msg[h + 8..]
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(v, [1.0, -2.0, -3.0]); // kg·cm/s → N·s, y negated
    assert!(collision_event(T, "collision", &payload[..payload.len() - 1]).is_none());
    assert!(collision_event(T, "collision", &[0x93, 1, 2, 3]).is_none());
}

#[test]
fn an_ackermann_drive_is_read_and_a_short_one_refused() {
    let mut msg = vec![3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, b'h', b'e', b'r', 0];
    for v in [0.25f32, 0.5, 8.0, 1.5, 0.0] {
        msg.extend_from_slice(&v.to_le_bytes());
    }
    assert_eq!(ackermann_drive(&msg), Ok([0.25, 0.5, 8.0, 1.5, 0.0]));
    assert!(ackermann_drive(&msg[..msg.len() - 1]).is_err());
}

#[test]
fn a_string_is_its_length_with_the_nul_then_its_bytes() {
    let out = string("<OpenDRIVE/>");
    assert_eq!(out[..4], 13u32.to_le_bytes());
    assert_eq!(&out[4..16], b"<OpenDRIVE/>");
    assert_eq!(out[16], 0);
    assert_eq!(out.len(), 17);
}

#[test]
fn odometry_is_in_map_with_the_twist_in_the_vehicles_frame_and_rosaxes() {
    // Facing +y in CARLA (yaw 90: south), moving forward at 5 m/s and
    // turning right at 10 deg/s (CARLA's yaw rate about its up axis).
    let t = ActorTransform {
        location: Vector3D {
            x: 1.0,
            y: 2.0,
            z: 0.5,
        },
        rotation: Rotation3D {
            yaw: 90.0,
            ..Default::default()
        },
    };
    let v = Vector3D {
        x: 0.0,
        y: 5.0,
        z: 0.0,
    };
    let spin = Vector3D {
        x: 0.0,
        y: 0.0,
        z: 10.0,
    };
    let out = odometry(T, "hero", &t, v, spin);
    let mut r = crate::ros2::cdr::Reader::new(&out);
    assert_eq!((r.i32().unwrap(), r.u32().unwrap()), (3, 250_000_000));
    assert_eq!(r.string().unwrap(), "map");
    assert_eq!(r.string().unwrap(), "hero");
    let f = |r: &mut crate::ros2::cdr::Reader| r.f64().unwrap();
    let position = [f(&mut r), f(&mut r), f(&mut r)];
    assert_eq!(position, [1.0, -2.0, 0.5], "y negated");
    let q = [f(&mut r), f(&mut r), f(&mut r), f(&mut r)];
    // ROS yaw -90°: (0, 0, -sin 45°, cos 45°).
    assert!(
        (q[2] + 0.5f64.sqrt()).abs() < 1e-6 && (q[3] - 0.5f64.sqrt()).abs() < 1e-6,
        "{q:?}"
    );
    for _ in 0..36 {
        assert_eq!(f(&mut r), 0.0);
    }
    let linear = [f(&mut r), f(&mut r), f(&mut r)];
    assert!(
        (linear[0] - 5.0).abs() < 1e-5 && linear[1].abs() < 1e-5,
        "forward: {linear:?}"
    );
    let angular = [f(&mut r), f(&mut r), f(&mut r)];
    assert!(
        (angular[2] + 10f64.to_radians()).abs() < 1e-5,
        "a right turn is negative about ROS z: {angular:?}"
    );
    for _ in 0..36 {
        assert_eq!(f(&mut r), 0.0);
    }
    assert!(r.f64().is_err(), "nothing after the twist's covariance");
}

#[test]
fn vehicle_status_has_the_speed_acceleration_orientation_and_control() {
    let t = ActorTransform {
        location: Vector3D::default(),
        rotation: Rotation3D {
            yaw: 90.0,
            ..Default::default()
        },
    };
    let control = VehicleControl09 {
        throttle: 0.75,
        steer: -0.25,
        brake: 0.0,
        hand_brake: CBool::FALSE,
        reverse: CBool::TRUE,
        manual_gear_shift: CBool::TRUE,
        gear: -1,
    };
    let status = VehicleStatus {
        transform: &t,
        velocity: Vector3D {
            x: 3.0,
            y: -4.0,
            z: 0.0,
        },
        acceleration: Vector3D {
            x: 1.0,
            y: 2.0,
            z: -0.5,
        },
        control: &control,
    };
    let out = vehicle_status(T, &status);
    let mut r = crate::ros2::cdr::Reader::new(&out);
    assert_eq!((r.i32().unwrap(), r.u32().unwrap()), (3, 250_000_000));
    assert_eq!(r.string().unwrap(), "map");
    assert_eq!(r.f32().unwrap(), 5.0, "the speed, |v|");
    let f = |r: &mut crate::ros2::cdr::Reader| r.f64().unwrap();
    let linear = [f(&mut r), f(&mut r), f(&mut r)];
    assert_eq!(linear, [1.0, -2.0, -0.5], "y negated");
    assert_eq!([f(&mut r), f(&mut r), f(&mut r)], [0.0; 3], "angular");
    let q = [f(&mut r), f(&mut r), f(&mut r), f(&mut r)];
    assert!(
        (q[2] + 0.5f64.sqrt()).abs() < 1e-6 && (q[3] - 0.5f64.sqrt()).abs() < 1e-6,
        "ROS yaw -90°: {q:?}"
    );
    // The control, its header empty.
    assert_eq!((r.i32().unwrap(), r.u32().unwrap()), (0, 0));
    assert_eq!(r.string().unwrap(), "");
    assert_eq!(
        [r.f32().unwrap(), r.f32().unwrap(), r.f32().unwrap()],
        [0.75, -0.25, 0.0]
    );
    assert_eq!(
        [r.u8().unwrap(), r.u8().unwrap()],
        [0, 1],
        "hand brake, reverse"
    );
    assert_eq!(r.i32().unwrap(), -1, "gear");
    assert_eq!(r.u8().unwrap(), 1, "manual gear shift");
    assert!(r.u8().is_err(), "nothing after the control");
}

#[test]
fn traffic_light_status_lists_each_light_and_its_state() {
    let out = traffic_light_status(&[(7, 0), (300, 2), (9, 4)]);
    let mut r = crate::ros2::cdr::Reader::new(&out);
    assert_eq!(r.u32().unwrap(), 3, "three lights");
    let mut lights = Vec::new();
    for _ in 0..3 {
        lights.push((r.u32().unwrap(), r.u8().unwrap()));
    }
    assert_eq!(lights, [(7, 0), (300, 2), (9, 4)]);
    assert!(r.u8().is_err(), "nothing after the last light");
    assert_eq!(traffic_light_status(&[]), 0u32.to_le_bytes(), "no lights");
}
