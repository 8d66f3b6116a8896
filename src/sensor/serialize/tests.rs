use super::*;

use crate::test_util::hex;

fn v3(x: f32, y: f32, z: f32) -> Vector3D {
    Vector3D { x, y, z }
}

// f32 bit patterns used below (little-endian on the raw wire, big-endian
// in msgpack): 0.25 = 3e800000, 0.5 = 3f000000, 1.0 = 3f800000,
// -1.0 = bf800000, -2.0 = c0000000, 2.0 = 40000000, 3.0 = 40400000,
// 10.0 = 41200000, 90.0 = 42b40000, 1000.0 = 447a0000.

#[test]
fn image_golden_and_zero_copy_header() {
    let mut out = vec![0xaa];
    image(&mut out, 2, 1, 90.0, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    let expected = hex("aa 02000000 01000000 0000b442 0102030405060708");
    assert_eq!(out, expected);
    assert_eq!(image_header(2, 1, 90.0).to_vec(), expected[1..13]);
    // Zero-copy path: pixels written at offset 12, header patched in.
    let mut buf = vec![0u8; IMAGE_HEADER_SIZE + 8];
    buf[IMAGE_HEADER_SIZE..].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    buf[..IMAGE_HEADER_SIZE].copy_from_slice(&image_header(2, 1, 90.0));
    assert_eq!(buf, expected[1..]);
}

#[test]
fn image_sizes_and_errors() {
    let mut out = Vec::new();
    image(&mut out, 800, 600, 90.0, &vec![0; 800 * 600 * 4]).unwrap();
    assert_eq!(out.len(), 1_920_012);
    assert_eq!(out.len() + HEADER_SIZE, 1_920_060);
    let mut out = vec![9];
    let err = image(&mut out, 2, 1, 90.0, &[0; 7]).unwrap_err();
    let want = SerializeError::PixelDataLength {
        width: 2,
        height: 1,
        expected: 8,
        actual: 7,
    };
    assert_eq!(err, want);
    assert_eq!(
        err.to_string(),
        "pixel data is 7 bytes but a 2x1 image needs 8 bytes"
    );
    assert_eq!(out, [9], "output untouched on error");
    let err = image(&mut out, u32::MAX, u32::MAX, 90.0, &[]).unwrap_err();
    assert!(matches!(
        err,
        SerializeError::PixelDataLength {
            expected: u64::MAX,
            ..
        }
    ));
    assert_eq!(check_size(MAX_PAYLOAD), Ok(()));
    let err = check_size(MAX_PAYLOAD + 1).unwrap_err();
    assert_eq!(
        err,
        SerializeError::TooLarge {
            bytes: 4_294_967_248
        }
    );
    assert!(err.to_string().contains("4294967248 bytes"));
}

#[test]
fn gbuffer_float_and_optical_flow_golden() {
    let mut out = Vec::new();
    gbuffer_float(&mut out, 1, 1, 90.0, &[1.0, 0.5, 0.25, 0.0]).unwrap();
    let expected = hex("01000000 01000000 0000b442
             0000803f 0000003f 0000803e 00000000");
    assert_eq!(out, expected);
    let mut out = Vec::new();
    optical_flow(&mut out, 1, 1, 90.0, &[0.5, -1.0]).unwrap();
    assert_eq!(out, hex("01000000 01000000 0000b442 0000003f 000080bf"));
    let err = optical_flow(&mut out, 1, 1, 90.0, &[0.0; 3]).unwrap_err();
    assert!(matches!(
        err,
        SerializeError::PixelDataLength {
            expected: 8,
            actual: 12,
            ..
        }
    ));
    assert!(gbuffer_float(&mut out, 1, 1, 90.0, &[0.0; 3]).is_err());
    let mut out = Vec::new();
    optical_flow(&mut out, 800, 600, 90.0, &vec![0.0; 800 * 600 * 2]).unwrap();
    assert_eq!(out.len(), 12 + 800 * 600 * 8);
}

#[test]
fn dvs_golden() {
    let events = [
        DvsEvent {
            x: 1,
            y: 2,
            t: 0x0102_0304_0506_0708,
            pol: true,
        },
        DvsEvent {
            x: 300,
            y: 0,
            t: -1,
            pol: false,
        },
    ];
    let mut out = Vec::new();
    dvs_events(&mut out, 4, 2, 90.0, &events).unwrap();
    let expected = hex("04000000 02000000 0000b442
             0100 0200 0807060504030201 01
             2c01 0000 ffffffffffffffff 00");
    assert_eq!(out, expected);
    assert_eq!(out.len(), 12 + 2 * DVS_EVENT_SIZE);
}

#[test]
fn lidar_golden() {
    let points = [
        LidarDetection {
            x: 1.0,
            y: 0.0,
            z: 0.0,
            intensity: 1.0,
        },
        LidarDetection {
            x: 0.0,
            y: -2.0,
            z: 0.0,
            intensity: 0.5,
        },
        LidarDetection {
            x: 0.0,
            y: 0.0,
            z: 0.5,
            intensity: 0.0,
        },
    ];
    let expected = hex("0000003f 02000000 02000000 01000000
             0000803f 00000000 00000000 0000803f
             00000000 000000c0 00000000 0000003f
             00000000 00000000 0000003f 00000000");
    let mut out = Vec::new();
    lidar(&mut out, 0.5, &[2, 1], &points).unwrap();
    assert_eq!(out, expected);
    let mut by_parts = Vec::new();
    lidar_header(&mut by_parts, 0.5, &[2, 1]);
    assert_eq!(by_parts.len(), lidar_header_size(2));
    for p in &points {
        lidar_point(&mut by_parts, p.x, p.y, p.z, p.intensity);
    }
    assert_eq!(by_parts, expected);
    let mut out = vec![7];
    let err = lidar(&mut out, 0.5, &[2, 2], &points).unwrap_err();
    let want = SerializeError::PointCountMismatch {
        channel_sum: 4,
        points: 3,
    };
    assert_eq!(err, want);
    assert_eq!(
        err.to_string(),
        "lidar channel counts add up to 4 points but 3 points were given"
    );
    assert_eq!(out, [7]);
}

#[test]
fn semantic_lidar_golden() {
    let p = SemanticLidarDetection {
        x: 1.0,
        y: -2.0,
        z: 0.5,
        cos_inc_angle: 0.25,
        object_idx: 300,
        object_tag: 10,
    };
    let expected = hex("0000803f 01000000 01000000
             0000803f 000000c0 0000003f 0000803e 2c010000 0a000000");
    let mut out = Vec::new();
    semantic_lidar(&mut out, 1.0, &[1], &[p]).unwrap();
    assert_eq!(out, expected);
    let mut by_parts = Vec::new();
    lidar_header(&mut by_parts, 1.0, &[1]);
    semantic_lidar_point(&mut by_parts, 1.0, -2.0, 0.5, 0.25, 300, 10);
    assert_eq!(by_parts, expected);
    assert!(semantic_lidar(&mut out, 1.0, &[0], &[p]).is_err());
    // No channels, no points: just the 8-byte header.
    let mut out = Vec::new();
    semantic_lidar(&mut out, 0.0, &[], &[]).unwrap();
    assert_eq!(out, hex("00000000 00000000"));
}

#[test]
fn fixed_sizes() {
    use std::mem::size_of;
    assert_eq!(size_of::<LidarDetection>(), 16);
    assert_eq!(size_of::<SemanticLidarDetection>(), 24);
    assert_eq!(size_of::<RadarDetection>(), 16);
    assert_eq!(lidar_header_size(32), 136);
}

#[test]
fn radar_and_actor_ids_golden() {
    let d = RadarDetection {
        velocity: -1.0,
        azimuth: 0.5,
        altitude: 0.25,
        depth: 10.0,
    };
    let mut out = Vec::new();
    radar(&mut out, &[d, RadarDetection::default()]);
    let expected = hex("000080bf 0000003f 0000803e 00002041
             00000000 00000000 00000000 00000000");
    assert_eq!(out, expected);
    let mut out = Vec::new();
    actor_ids(&mut out, &[1, 300, 0x0102_0304]);
    assert_eq!(out, hex("01000000 2c010000 04030201"));
    let mut out = Vec::new();
    actor_ids(&mut out, &[]);
    assert!(out.is_empty());
}

#[test]
fn gnss_and_imu_golden() {
    let mut out = Vec::new();
    gnss(&mut out, 1.0, -2.0, 0.5);
    let expected = hex("93 cb3ff0000000000000 cbc000000000000000 cb3fe0000000000000");
    assert_eq!(out, expected);
    assert_eq!(out.len(), 28);
    let mut out = Vec::new();
    gnss(&mut out, 49.000_123, 8.000_456, 112.3);
    assert_eq!(out.len(), 28);

    let mut out = Vec::new();
    imu(&mut out, v3(1.0, -2.0, 0.5), v3(0.25, 0.0, -1.0), 3.0);
    let expected = hex("93 93 ca3f800000 cac0000000 ca3f000000
             93 ca3e800000 ca00000000 cabf800000 ca40400000");
    assert_eq!(out, expected);
    assert_eq!(out.len(), 38);
    let mut out = Vec::new();
    imu(&mut out, v3(0.1, 0.2, 9.81), v3(0.3, 0.4, 0.5), 6.2);
    assert_eq!(out.len(), 38);
}

fn actor_a() -> ActorDescription {
    ActorDescription {
        id: 300,
        parent_id: 0,
        uid: 0,
        type_id: "v.a".into(),
        attributes: vec![("role_name".into(), attribute_type::STRING, "hero".into())],
        bounding_box: (
            v3(0.0, 0.0, 1.0),
            v3(2.0, 1.0, 0.5),
            Rotation3D {
                pitch: 0.0,
                yaw: 90.0,
                roll: 0.0,
            },
        ),
        semantic_tags: vec![10],
        stream_token: vec![],
    }
}

fn actor_b() -> ActorDescription {
    ActorDescription {
        id: 7,
        parent_id: 300,
        uid: 3,
        type_id: "w".into(),
        stream_token: vec![1, 2],
        ..Default::default()
    }
}

const ACTOR_A: &str = "96 cd012c 00
        93 00 a3762e61 91 93 a9726f6c655f6e616d65 03 a46865726f
        93 93 ca00000000 ca00000000 ca3f800000
           93 ca40000000 ca3f800000 ca3f000000
           93 ca00000000 ca42b40000 ca00000000
        c4010a c400";
const ACTOR_B: &str = "96 07 cd012c
        93 03 a177 90
        93 93 ca00000000 ca00000000 ca00000000
           93 ca00000000 ca00000000 ca00000000
           93 ca00000000 ca00000000 ca00000000
        c400 c4020102";

#[test]
fn actor_golden() {
    let mut out = Vec::new();
    actor(&mut out, &actor_a());
    assert_eq!(out, hex(ACTOR_A));
    let mut out = Vec::new();
    actor(&mut out, &actor_b());
    assert_eq!(out, hex(ACTOR_B));
    // A sensor's 24-byte stream token is a bin8.
    let sensor = ActorDescription {
        stream_token: vec![0; 24],
        ..Default::default()
    };
    let mut out = Vec::new();
    actor(&mut out, &sensor);
    assert_eq!(out[out.len() - 26..out.len() - 24], [0xc4, 0x18]);
}

#[test]
fn collision_and_obstacle_golden() {
    let mut out = Vec::new();
    collision(&mut out, &actor_a(), &actor_b(), v3(-1.0, 0.0, 1000.0));
    let tail = "93 cabf800000 ca00000000 ca447a0000";
    assert_eq!(out, hex(&format!("93 {ACTOR_A} {ACTOR_B} {tail}")));
    let mut out = Vec::new();
    obstacle(&mut out, &actor_a(), &actor_b(), 10.0);
    assert_eq!(out, hex(&format!("93 {ACTOR_A} {ACTOR_B} ca41200000")));
}

#[test]
fn no_allocation_when_capacity_suffices() {
    let mut out = Vec::with_capacity(4096);
    let ptr = out.as_ptr();
    image(&mut out, 4, 4, 90.0, &[0; 64]).unwrap();
    lidar(&mut out, 0.0, &[1], &[LidarDetection::default()]).unwrap();
    radar(&mut out, &[RadarDetection::default(); 4]);
    actor_ids(&mut out, &[1, 2, 3]);
    gnss(&mut out, 1.0, 2.0, 3.0);
    imu(&mut out, v3(0.0, 0.0, 0.0), v3(0.0, 0.0, 0.0), 0.0);
    collision(&mut out, &actor_a(), &actor_b(), v3(0.0, 0.0, 0.0));
    dvs_events(&mut out, 1, 1, 90.0, &[DvsEvent::default()]).unwrap();
    optical_flow(&mut out, 1, 1, 90.0, &[0.0, 0.0]).unwrap();
    assert_eq!(out.as_ptr(), ptr);
    assert_eq!(out.capacity(), 4096);
}
