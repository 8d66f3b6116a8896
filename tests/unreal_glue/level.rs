//! The level scenario: sensors placed in the level (safe distance, semantic
//! lidar, a camera mirrored to a 0.8 id), both clients at once, and a
//! stalled 0.9 subscriber on the camera that must not delay any frame.

use super::common::stalled;
use super::sim::*;
use carla_server::client::{Frame, SensorMessage, StreamClient};
use carla_server::legacy::proto;
use carla_server::sensor::rotate_to_world;
use carla_server::types::{CBool, Control, Rotation3D, Vector3D};
use std::net::TcpStream;
use std::time::Instant;

const FRAMES: u32 = 60;

/// The safe-distance sensor's margins (front set by SimGame, others default).
const SAFE_FRONT: f64 = 5.0;
const SAFE_BACK: f64 = 0.5;
const SAFE_LATERAL: f64 = 0.5;
/// The lidar: 1 m above the player's origin, rotated relative to it.
const LIDAR_OFFSET_Z: f64 = 1.0;
const LIDAR_ROTATION: [f32; 3] = [-5.0, 90.0, 3.0];
const LIDAR_CHANNELS: u32 = 8;
const LIDAR_RANGE: f64 = 30.0;
/// 16000 points/s · 0.05 s / 8 lasers.
const LIDAR_RAYS_PER_LASER: u32 = 100;
/// The camera: 2.3 m ahead of and 0.5 m above the player's origin.
const CAMERA_OFFSET: [f64; 3] = [2.3, 0.0, 0.5];
const CAMERA_SIZE: (u32, u32) = (320, 240);
const CAMERA_LEGACY_ID: u32 = 7001;
/// Registry type ids (src/sensor/registry.rs).
const SAFE_DISTANCE_TYPE: u64 = 22;
const SEMANTIC_LIDAR_TYPE: u64 = 10;
const RGB_CAMERA_TYPE: u64 = 13;
/// The first frame whose safe-distance message holds the oncoming vehicle
/// (from the kinematics below; asserted so a changed level is noticed).
const EXPECTED_ENTRY_FRAME: u32 = 42;

/// The control the client sends after frame `k`: nothing for 5 frames, then
/// half throttle until frame 40, then coasting.
fn control_for(k: u32) -> Control {
    Control {
        throttle: if (5..40).contains(&k) { 0.5 } else { 0.0 },
        hand_brake: CBool::from(false),
        reverse: CBool::from(false),
        ..Default::default()
    }
}

/// The player's (x, forward speed) at frame `k`: the control read after
/// frame j moves the car during frame j + 1 (a = 4 m/s² · throttle,
/// semi-implicit Euler, as ASimVehicle does in centimetres).
fn player_state(k: u32) -> (f64, f64) {
    let (mut x, mut v) = (0.0, 0.0);
    for j in 1..=k {
        let throttle = f64::from(control_for(j - 1).throttle);
        v = f64::max(0.0, v + 4.0 * throttle * DT);
        x += v * DT;
    }
    (x, v)
}

/// How deep the oncoming vehicle is inside the safe-distance box (negative:
/// how far outside along x). The box is the player's box grown by the
/// margins; both cars sit on the ground, the oncoming one on the axis.
fn safe_box_margin(player_x: f64, t: f64) -> f64 {
    let (front, back) = (
        player_x + VEHICLE[0] + SAFE_FRONT,
        player_x - VEHICLE[0] - SAFE_BACK,
    );
    let x = oncoming_x(t);
    let along_x = f64::min(front - (x - VEHICLE[0]), (x + VEHICLE[0]) - back);
    let across_y = (VEHICLE[1] + SAFE_LATERAL) + VEHICLE[1];
    let across_z = 2.0 * VEHICLE[2];
    along_x.min(across_y).min(across_z)
}

// ----------------------------------------------------------- checks

/// One 0.8 frame: measurements from the player's kinematics, and the
/// camera's mirrored record (0.8 header + the stand-in's image).
fn check_legacy_frame(frame: &Frame, k: u32, frame0: u64) {
    let what = format!("0.8 frame {k}");
    let m = &frame.measurements;
    assert_eq!(
        m.frame_number,
        frame0 + u64::from(k),
        "{what}: frame number"
    );
    let t_ms = (f64::from(k + 1) * DT * 1000.0).round() as u32;
    assert_eq!(m.game_timestamp, t_ms, "{what}: game timestamp");
    let p = m.player_measurements.unwrap_or_default();
    let transform = p.transform.unwrap_or_default();
    let (x, v) = player_state(k);
    assert_near3(
        &format!("{what}: player location"),
        v3(transform.location),
        [x, 0.0, VEHICLE[2]],
        1e-3,
    );
    assert_near3(
        &format!("{what}: orientation"),
        v3(transform.orientation),
        [1.0, 0.0, 0.0],
        1e-6,
    );
    assert_near(&format!("{what}: speed"), p.forward_speed.into(), v, 1e-3);
    let (_, v_before) = player_state(k.saturating_sub(1));
    assert_near(
        &format!("{what}: acceleration"),
        v3(p.acceleration)[0],
        (v - v_before) / DT,
        1e-2,
    );
    let bbox = p.bounding_box.unwrap_or_default();
    assert_near3(
        &format!("{what}: box extent"),
        v3(bbox.extent),
        VEHICLE,
        1e-5,
    );
    assert_near3(
        &format!("{what}: box offset"),
        v3(bbox.transform.unwrap_or_default().location),
        [0.0; 3],
        1e-5,
    );
    assert!(m.non_player_agents.is_empty(), "{what}: agents");

    let ids: Vec<u32> = frame.sensors.iter().map(|r| r.id).collect();
    assert_eq!(ids, [CAMERA_LEGACY_ID], "{what}: sensor records");
    let record = &frame.sensors[0].data;
    let (w, h) = CAMERA_SIZE;
    let header = legacy_camera_header(m.frame_number, w, h, 1, 90.0);
    assert_bytes(&format!("{what}: camera header"), &record[..24], &header);
    assert_bytes(
        &format!("{what}: camera pixels"),
        &record[24..],
        &standin_pixels(w, h, m.frame_number, 0),
    );
}

fn check_header(what: &str, m: &SensorMessage, sensor_type: u64, k: u32, frame0: u64) {
    assert_eq!(m.sensor_type(), sensor_type, "{what}: sensor type");
    assert_eq!(m.frame(), frame0 + u64::from(k), "{what}: frame");
    assert_near(
        &format!("{what}: timestamp"),
        m.timestamp(),
        f64::from(k + 1) * DT,
        1e-9,
    );
}

/// Safe distance: the actors in the box, from the geometry. Returns whether
/// the oncoming vehicle was reported.
fn check_safe_distance(m: &SensorMessage, k: u32, frame0: u64) -> bool {
    let what = format!("safe distance frame {k}");
    check_header(&what, m, SAFE_DISTANCE_TYPE, k, frame0);
    let (x, _) = player_state(k);
    let (location, rotation) = header_transform(m);
    assert_near3(
        &format!("{what}: location"),
        location,
        [x, 0.0, VEHICLE[2]],
        1e-3,
    );
    assert_eq!(rotation, Rotation3D::default(), "{what}: rotation");
    let got: &[u32] = m.payload_as().expect("a whole number of u32 ids");
    assert!(
        !got.contains(&PLAYER_ID),
        "{what}: the owner is never reported"
    );
    let inside = got == [ONCOMING_ID];
    assert!(got.is_empty() || inside, "{what}: actor ids {got:?}");
    let margin = safe_box_margin(x, m.timestamp());
    if margin.abs() > 1e-3 {
        assert_eq!(
            inside,
            margin > 0.0,
            "{what}: oncoming vehicle {margin} m inside the box, reported {got:?}"
        );
    }
    inside
}

/// Semantic lidar: layout, then every detection in the world frame (through
/// the header's transform) on the surface its tag and object id name.
/// Returns the number of detections per tag (roads, walls, vehicles).
fn check_lidar(m: &SensorMessage, k: u32, frame0: u64) -> [usize; 3] {
    let what = format!("lidar frame {k}");
    check_header(&what, m, SEMANTIC_LIDAR_TYPE, k, frame0);
    let (x, _) = player_state(k);
    let (location, rotation) = header_transform(m);
    assert_near3(
        &format!("{what}: location"),
        location,
        [x, 0.0, VEHICLE[2] + LIDAR_OFFSET_Z],
        1e-3,
    );
    for (got, want, axis) in [
        (rotation.pitch, LIDAR_ROTATION[0], "pitch"),
        (rotation.yaw, LIDAR_ROTATION[1], "yaw"),
        (rotation.roll, LIDAR_ROTATION[2], "roll"),
    ] {
        assert_near(&format!("{what}: {axis}"), got.into(), want.into(), 1e-3);
    }
    let p = m.payload();
    assert_eq!(u32_at(p, 4), LIDAR_CHANNELS, "{what}: channels");
    let header = 8 + 4 * LIDAR_CHANNELS as usize;
    let counts: Vec<u32> = (0..LIDAR_CHANNELS as usize)
        .map(|i| u32_at(p, 8 + 4 * i))
        .collect();
    assert!(
        counts.iter().all(|&c| c <= LIDAR_RAYS_PER_LASER),
        "{what}: points per channel {counts:?}"
    );
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    assert_eq!(p.len(), header + 24 * total, "{what}: payload length");
    assert!(total > 300, "{what}: only {total} of 800 rays hit");

    let t = m.timestamp();
    let oncoming = [oncoming_x(t), 0.0, VEHICLE[2]];
    let mut per_tag = [0; 3];
    for i in 0..total {
        let at = header + 24 * i;
        let local = Vector3D {
            x: f32_at(p, at),
            y: f32_at(p, at + 4),
            z: f32_at(p, at + 8),
        };
        let (cos_inc, object, tag) = (f32_at(p, at + 12), u32_at(p, at + 16), u32_at(p, at + 20));
        let d = [local.x, local.y, local.z].map(f64::from);
        let range = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let r = rotate_to_world(&rotation, local);
        let world = [
            location[0] + f64::from(r.x),
            location[1] + f64::from(r.y),
            location[2] + f64::from(r.z),
        ];
        let what = format!("{what}: point {i} at {world:?} (tag {tag}, object {object})");
        assert!(range <= LIDAR_RANGE + 1e-3, "{what}: beyond the range");
        // cos_inc = −direction · normal: the ground's normal is +z, the
        // wall's −y (both in the world; the glue hands them over in the
        // sensor frame).
        match tag {
            TAG_ROADS => {
                assert_eq!(object, 0, "{what}: the ground is no actor clients know");
                assert_near(&format!("{what}: z"), world[2], 0.0, 2e-3);
                let want = (location[2] - world[2]) / range;
                assert_near(&format!("{what}: cos_inc"), cos_inc.into(), want, 1e-3);
                per_tag[0] += 1;
            }
            TAG_WALLS => {
                assert_eq!(object, 0, "{what}: the wall is no actor clients know");
                assert_near(&format!("{what}: y"), world[1], WALL_Y, 2e-3);
                assert!((-1e-3..=WALL_TOP + 1e-3).contains(&world[2]), "{what}: z");
                let want = (WALL_Y - location[1]) / range;
                assert_near(&format!("{what}: cos_inc"), cos_inc.into(), want, 1e-3);
                per_tag[1] += 1;
            }
            TAG_CARS => {
                assert_eq!(object, ONCOMING_ID, "{what}: object id");
                // On the oncoming vehicle's box: inside it, and on a face.
                let offsets: Vec<f64> = (0..3).map(|a| (world[a] - oncoming[a]).abs()).collect();
                assert!(
                    (0..3).all(|a| offsets[a] <= VEHICLE[a] + 2e-3),
                    "{what}: not on the oncoming vehicle at x = {}",
                    oncoming[0]
                );
                assert!(
                    (0..3).any(|a| (offsets[a] - VEHICLE[a]).abs() <= 2e-3),
                    "{what}: inside the oncoming vehicle, not on a face"
                );
                per_tag[2] += 1;
            }
            _ => panic!("{what}: unexpected tag"),
        }
    }
    per_tag
}

/// Camera: the stand-in's image for the frame, through the zero-copy path.
fn check_camera(m: &SensorMessage, k: u32, frame0: u64) {
    let what = format!("camera frame {k}");
    check_header(&what, m, RGB_CAMERA_TYPE, k, frame0);
    let (x, _) = player_state(k);
    let (location, _) = header_transform(m);
    let want = [
        x + CAMERA_OFFSET[0],
        CAMERA_OFFSET[1],
        VEHICLE[2] + CAMERA_OFFSET[2],
    ];
    assert_near3(&format!("{what}: location"), location, want, 1e-3);
    let (w, h) = CAMERA_SIZE;
    let mut payload = Vec::new();
    payload.extend_from_slice(&w.to_le_bytes());
    payload.extend_from_slice(&h.to_le_bytes());
    payload.extend_from_slice(&90.0f32.to_le_bytes());
    payload.extend_from_slice(&standin_pixels(w, h, m.frame(), 0));
    assert_bytes(&format!("{what}: payload"), m.payload(), &payload);
}

// ------------------------------------------------------------- the run

pub(crate) fn run_level(compiler: &str) {
    let started = Instant::now();
    sim(compiler);
    let built = started.elapsed();
    let port = super::common::free_port_base();
    let mut host = start(compiler, port, FRAMES, "level");

    // 0.8: settings → scene → episode (the server actor's BeginPlay).
    let mut client = connect(&mut host, port);
    host.assert_loaded_library();
    let scene = client
        .load_settings(&super::common::ini(true, &[], ""))
        .expect("load_settings");
    let spot = |y: f32| proto::Transform {
        location: Some(proto::Vector3D { x: 0.0, y, z: 0.75 }),
        orientation: Some(proto::Vector3D {
            x: 1.0,
            y: 0.0,
            z: 0.0,
        }),
        rotation: Some(proto::Rotation3D::default()),
    };
    let expected_scene = proto::SceneDescription {
        player_start_spots: vec![spot(0.0), spot(-4.0)],
        sensors: vec![proto::Sensor {
            id: CAMERA_LEGACY_ID,
            r#type: proto::sensor_type::CAMERA,
            name: "RGBCamera".into(),
        }],
        map_name: "SimTown".into(),
    };
    assert_eq!(scene, expected_scene, "scene description");
    client.start_episode(0).expect("start_episode");

    // 0.9: the sensors exist once every actor has begun play.
    let ids = Ready::parse(&host.next_line());
    let frame0 = ids.get("FRAME");
    let streaming = u16::try_from(ids.get("STREAMING")).expect("a port");
    let readers: Vec<_> = ["SAFE", "LIDAR", "CAMERA"]
        .iter()
        .map(|key| {
            let sub =
                StreamClient::subscribe(("127.0.0.1", streaming), ids.id(key), CLIENT_TIMEOUT)
                    .unwrap_or_else(|e| panic!("subscribe to {key}: {e}"));
            super::common::collect_messages(sub, FRAMES)
        })
        .collect();
    let stalled = stalled::subscribe(streaming, ids.id("CAMERA"));

    // 0.8 frames, one control each (the game waits for it: synchronous).
    for k in 0..FRAMES {
        let frame = client
            .read_frame()
            .unwrap_or_else(|e| panic!("0.8 frame {k}: {e}"));
        check_legacy_frame(&frame, k, frame0);
        client.send_control(&control_for(k)).expect("send_control");
    }
    let ran = host.next_line();
    assert!(
        ran.starts_with(&format!(
            "RAN {FRAMES} FRAMES CONTROLS {} RENDER_COMMANDS {} GPU_FLUSHES 0 ",
            FRAMES + 1,
            3 * FRAMES
        )),
        "the episode start's zero control, then one control per frame; per frame on the \
         render thread a capture, an asynchronous GPU copy handed over when ready, and the \
         synchronous frame's fence; no GPU flush (ReadSurfaceData's): {ran}"
    );
    let (_, longest_ms) = check_ran(&ran);

    let mut streams = Vec::new();
    for (r, key) in readers.into_iter().zip(["SAFE", "LIDAR", "CAMERA"]) {
        match r.join().expect("reader thread") {
            Ok(x) => streams.push(x),
            Err(e) => panic!("{key} subscriber: {e}"),
        }
    }
    let mut entry = None;
    let mut tags = [0usize; 3];
    for k in 0..FRAMES {
        let inside = check_safe_distance(&streams[0].1[k as usize], k, frame0);
        match (inside, entry) {
            (true, None) => entry = Some(k),
            (false, Some(e)) => {
                panic!("frame {k}: the oncoming vehicle left the box (entered at {e})")
            }
            _ => {}
        }
        let per_tag = check_lidar(&streams[1].1[k as usize], k, frame0);
        for (sum, n) in tags.iter_mut().zip(per_tag) {
            *sum += n;
        }
        check_camera(&streams[2].1[k as usize], k, frame0);
    }
    assert_eq!(
        entry,
        Some(EXPECTED_ENTRY_FRAME),
        "the frame the oncoming vehicle enters the safe-distance box"
    );
    assert!(
        tags.iter().all(|&n| n > 0),
        "detections per tag (roads, walls, vehicles): {tags:?}"
    );

    // EndPlay destroyed the sensors: every stream ends cleanly.
    let output = host.finish();
    assert!(output.contains("DONE"), "{output}");
    for ((client, _), key) in streams.iter_mut().zip(["SAFE", "LIDAR", "CAMERA"]) {
        assert!(
            client.next().is_none(),
            "{key}: end of file after the last frame"
        );
    }
    drop(client);
    let got = check_stalled(stalled, frame0);
    eprintln!(
        "SimGame ({compiler}): built in {built:?}; {FRAMES} frames in both protocols, \
         {tags:?} lidar detections (roads, walls, vehicles), entry at frame {}; \
         the stalled camera subscriber got {got} of {FRAMES} images; longest game/render \
         thread step {longest_ms} ms; whole run {:?}",
        EXPECTED_ENTRY_FRAME,
        started.elapsed()
    );
}

#[test]
fn glue_built_with_gxx_serves_both_protocols() {
    run_level("g++");
}

#[test]
fn glue_built_with_clangxx_serves_both_protocols() {
    run_level("clang++");
}

/// The kinematics the level was tuned with: the vehicle enters at
/// EXPECTED_ENTRY_FRAME with a clear margin on either side, and the cars
/// never touch.
#[test]
fn the_level_has_a_clear_entry_frame_and_no_collision() {
    let mut entry = None;
    for k in 0..FRAMES {
        let (x, _) = player_state(k);
        let t = f64::from(k + 1) * DT;
        let margin = safe_box_margin(x, t);
        assert!(margin.abs() > 0.05, "frame {k}: margin {margin} m");
        if margin > 0.0 && entry.is_none() {
            entry = Some(k);
        }
        let gap = (oncoming_x(t) - VEHICLE[0]) - (x + VEHICLE[0]);
        assert!(gap > 0.5, "frame {k}: the cars are {gap} m apart");
    }
    assert_eq!(entry, Some(EXPECTED_ENTRY_FRAME));
}

/// After the run: the stalled subscriber's images are whole, in order, of
/// increasing frames, and fewer than were sent (the library dropped the
/// ones it could not queue instead of making the render thread wait).
fn check_stalled(s: TcpStream, frame0: u64) -> usize {
    let (w, h) = CAMERA_SIZE;
    let frames = stalled::frames_read(s, 48 + 12 + (w * h * 4) as usize);
    assert!(
        frames.windows(2).all(|p| p[0] < p[1]) && frames.iter().all(|&f| f >= frame0),
        "stalled subscriber: frames {frames:?}"
    );
    assert!(
        frames.len() < FRAMES as usize,
        "the stalled subscriber got all {} images: it was not stalled",
        frames.len()
    );
    frames.len()
}
