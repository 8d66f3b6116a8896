//! The main job end to end: the `carla-host` binary (what `cargo run
//! --release` starts) driven by the Rust client, as any 0.8.4 client would.

use crate::common;

use crate::host_process::HostProcess;
use carla_server::client::Frame;
use carla_server::types::Control;
use std::time::{Duration, Instant};

fn camera(name: &str, post: &str, w: u32, h: u32) -> String {
    format!(
        "[CARLA/Sensor/{name}]\nSensorType=CAMERA\nPostProcessing={post}\nImageSizeX={w}\nImageSizeY={h}\nFOV=90\n\
         PositionX=0.3\nPositionY=0\nPositionZ=1.3\n\n"
    )
}

fn lidar(name: &str) -> String {
    format!(
        "[CARLA/Sensor/{name}]\nSensorType=LIDAR_RAY_CAST\nChannels=32\nRange=50\nPointsPerSecond=100000\n\
         RotationFrequency=10\nUpperFovLimit=10\nLowerFovLimit=-30\nPositionZ=2.5\n\n"
    )
}

fn camera_header(frame: &Frame, id: u32) -> (u64, u32, u32, u32, usize) {
    let r = frame
        .sensors
        .iter()
        .find(|r| r.id == id)
        .expect("camera record");
    let u32_at = |o: usize| u32::from_le_bytes(r.data[o..o + 4].try_into().unwrap());
    let f = u64::from_le_bytes(r.data[..8].try_into().unwrap());
    (f, u32_at(8), u32_at(12), u32_at(16), r.data.len() - 24)
}

#[test]
fn two_episodes_with_different_settings_in_a_row() {
    let host = HostProcess::start_with_timeout(10_000);
    let mut client = host.client();
    for (episode, (w, h)) in [(160u32, 120u32), (64, 48)].into_iter().enumerate() {
        let ini = common::ini(true, &["Cam"], &camera("Cam", "SceneFinal", w, h));
        let scene = client.load_settings(&ini).unwrap();
        assert_eq!(scene.sensors.len(), 1, "episode {episode}");
        let id = scene.sensors[0].id;
        client.start_episode(0).unwrap();
        let mut last = None;
        for _ in 0..10 {
            let frame = client.read_frame().unwrap();
            let f = frame.measurements.frame_number;
            assert!(last.is_none_or(|l| f > l), "frame {f} after {last:?}");
            last = Some(f);
            let (cf, cw, ch, kind, bytes) = camera_header(&frame, id);
            assert_eq!(
                (cf, cw, ch, kind, bytes),
                (f, w, h, 1, (w * h * 4) as usize)
            );
            client.send_control(&Control::default()).unwrap();
        }
    }
}

#[test]
fn a_client_that_leaves_mid_episode_is_followed_by_another() {
    let host = HostProcess::start_with_timeout(10_000);
    {
        let mut first = host.client();
        first
            .load_settings(&common::ini(
                true,
                &["Cam"],
                &camera("Cam", "Depth", 32, 24),
            ))
            .unwrap();
        first.start_episode(0).unwrap();
        first.read_frame().unwrap();
        // Leaves without sending a control or a new request.
    }
    let started = Instant::now();
    let mut second = loop {
        let mut c = host.client();
        match c.load_settings(&common::ini(true, &[], "")) {
            Ok(_) => break c,
            Err(e) => {
                assert!(
                    started.elapsed() < Duration::from_secs(15),
                    "never served again: {e}"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    };
    second.start_episode(0).unwrap();
    for _ in 0..5 {
        second.read_frame().unwrap();
        second.send_control(&Control::default()).unwrap();
    }
}

#[test]
fn throttle_moves_the_player_forward() {
    let host = HostProcess::start_with_timeout(10_000);
    let mut client = host.client();
    client.load_settings(&common::ini(true, &[], "")).unwrap();
    client.start_episode(0).unwrap();
    let position = |f: &Frame| {
        let t = f
            .measurements
            .player_measurements
            .unwrap()
            .transform
            .unwrap();
        (t.location.unwrap(), t.orientation.unwrap())
    };
    let (start, forward) = position(&client.read_frame().unwrap());
    let mut speed = 0.0;
    let mut last = None;
    for _ in 0..60 {
        client
            .send_control(&Control {
                throttle: 1.0,
                ..Default::default()
            })
            .unwrap();
        let frame = client.read_frame().unwrap();
        speed = frame
            .measurements
            .player_measurements
            .unwrap()
            .forward_speed;
        last = Some(position(&frame).0);
    }
    let end = last.unwrap();
    let moved = (end.x - start.x) * forward.x + (end.y - start.y) * forward.y;
    assert!(
        speed > 1.0,
        "forward speed {speed} m/s after 60 frames of full throttle"
    );
    assert!(moved > 1.0, "moved {moved} m along its forward vector");
}

#[test]
fn cameras_and_lidar_carry_sizes_ids_frames_and_a_known_depth() {
    let host = HostProcess::start_with_timeout(10_000);
    let mut client = host.client();
    let sections = format!(
        "{}{}{}",
        camera("RGB", "SceneFinal", 800, 600),
        camera("Depth", "Depth", 800, 600),
        camera("Tags", "SemanticSegmentation", 800, 600)
    ) + &lidar("Lidar32");
    let ini = common::ini(true, &["RGB", "Depth", "Tags", "Lidar32"], &sections);
    let scene = client.load_settings(&ini).unwrap();
    let ids: Vec<(u32, i32)> = scene.sensors.iter().map(|s| (s.id, s.r#type)).collect();
    assert_eq!(ids.iter().map(|x| x.1).collect::<Vec<_>>(), [1, 1, 1, 2]);
    client.start_episode(0).unwrap();
    for _ in 0..3 {
        let frame = client.read_frame().unwrap();
        let f = frame.measurements.frame_number;
        assert_eq!(
            frame.sensors.len(),
            4,
            "every sensor in every synchronous frame"
        );
        for (id, kind) in [(ids[0].0, 1), (ids[1].0, 2), (ids[2].0, 3)] {
            assert_eq!(
                camera_header(&frame, id),
                (f, 800, 600, kind, 800 * 600 * 4)
            );
        }
        // Depth of a known object: the flat road just ahead. The bottom
        // pixel row's ray leaves a camera 1.3 m above the road at
        // tan(45°)·(600/800)·(599/600) below the axis: planar depth
        // 1.3 / (0.75 · 0.99833) = 1.736 m.
        let depth = frame.sensors.iter().find(|r| r.id == ids[1].0).unwrap();
        let px = &depth.data[24 + (599 * 800 + 400) * 4..][..4];
        let metres = (f64::from(px[2]) + f64::from(px[1]) * 256.0 + f64::from(px[0]) * 65536.0)
            / 16_777_215.0
            * 1000.0;
        assert!((metres - 1.736).abs() < 0.05, "road depth {metres} m");
        // Semantic tags in the red channel: the road ahead is 7.
        let tags = frame.sensors.iter().find(|r| r.id == ids[2].0).unwrap();
        assert_eq!(tags.data[24 + (599 * 800 + 400) * 4 + 2], 7, "road tag");
        // 0.8 lidar: [frame][angle][C][counts], then xyz per point.
        let l = frame.sensors.iter().find(|r| r.id == ids[3].0).unwrap();
        let u32_at = |o: usize| u32::from_le_bytes(l.data[o..o + 4].try_into().unwrap());
        assert_eq!(u64::from_le_bytes(l.data[..8].try_into().unwrap()), f);
        assert_eq!(u32_at(12), 32);
        let points: u32 = (0..32).map(|c| u32_at(16 + 4 * c)).sum();
        assert!(points > 1000, "a sweep sees the town: {points} points");
        assert!(
            points <= 32 * 104,
            "no more than the planned rays (100000/30/32 = 104 per channel)"
        );
        assert_eq!(l.data.len(), 16 + 4 * 32 + points as usize * 12);
        client.send_control(&Control::default()).unwrap();
    }
}

#[test]
fn bad_settings_are_a_failed_episode_and_the_next_request_works() {
    let host = HostProcess::start_with_timeout(10_000);
    let mut client = host.client();
    let bad = common::ini(
        true,
        &["Cam"],
        &camera("Cam", "SceneFinal", 800, 600).replace("ImageSizeX=800", "ImageSizeX=wide"),
    );
    client.load_settings(&bad).unwrap();
    let refused = client.start_episode(0).unwrap_err();
    assert!(refused.to_string().contains("ready: false"), "{refused}");
    client
        .load_settings(&common::ini(
            true,
            &["Cam"],
            &camera("Cam", "SceneFinal", 32, 24),
        ))
        .unwrap();
    client.start_episode(0).unwrap();
    let frame = client.read_frame().unwrap();
    assert_eq!(frame.sensors.len(), 1);
}
