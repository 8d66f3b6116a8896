//! Lidars mirrored to the 0.8 stream port through the C API:
//! `tests/c/lidar_mirror_host.c` (built with the `cc` crate, linked to this
//! build's library) mirrors a semantic and a ray-cast lidar to two 0.8
//! sensor ids and serves a 0.8 episode; the Rust 0.8 client checks every
//! lidar record against one recomputed here from the lidars' plans and the
//! hits the host reports (not with the library's record builder), and a
//! 0.9 subscriber checks the semantic lidar's stream still gets every
//! sweep. On Windows the host is compiled with mingw-w64 beforehand.
#![cfg(any(target_os = "linux", windows))]

use crate::common;

use carla_server::client::{Client, SensorMessage, StreamClient};
use carla_server::sensor::{Lidar, LidarSettings};
use carla_server::types::Control;
use common::chost::{build, Host};
use std::time::Duration;

const FRAMES: u32 = 12;
const SEM_ID: u32 = 0x11D0_0001;
const RAY_ID: u32 = 0x11D0_0002;
const TIMEOUT: Duration = Duration::from_secs(20);

/// The host's two lidars, as `lidar_mirror_host.c` creates them.
fn lidars() -> [(u32, Lidar); 2] {
    let semantic = LidarSettings {
        channels: 2,
        points_per_second: 400,
        rotation_frequency: 10.0,
        upper_fov: 10.0,
        lower_fov: -10.0,
        range_m: 50.0,
        semantic: true,
        ..Default::default()
    };
    // `sensor.lidar.ray_cast` with its blueprint's defaults otherwise: the
    // pre-trace drop-off (0.45) leaves rays out of the plan.
    let ray_cast = LidarSettings {
        channels: 3,
        points_per_second: 1200,
        rotation_frequency: 10.0,
        upper_fov: 15.0,
        lower_fov: -15.0,
        range_m: 50.0,
        atmosphere_attenuation_rate: 0.004,
        dropoff_general_rate: 0.45,
        dropoff_intensity_limit: 0.8,
        dropoff_zero_intensity: 0.4,
        noise_seed: 7,
        semantic: false,
        ..Default::default()
    };
    [
        (SEM_ID, Lidar::new(semantic).unwrap()),
        (RAY_ID, Lidar::new(ray_cast).unwrap()),
    ]
}

/// The record of frame `f` for a lidar whose plan is `channels_of_rays`
/// (the channel of each planned ray): the host's hits (ray i hits when
/// i % 3 != 0, point (i, channel, f)), grouped by channel in channel order,
/// within a channel in the order the host sent them (descending i).
fn expected_record(f: u32, channels: u32, channels_of_rays: &[u32]) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend_from_slice(&((1u64 << 32) | u64::from(f)).to_le_bytes());
    // 10 Hz · 360° · 0.05 s = 180° a tick; frame 0 was the first tick.
    let angle: f32 = if f.is_multiple_of(2) { 180.0 } else { 0.0 };
    r.extend_from_slice(&angle.to_le_bytes());
    r.extend_from_slice(&channels.to_le_bytes());
    let hit = |i: usize| !i.is_multiple_of(3);
    for c in 0..channels {
        let n = (0..channels_of_rays.len())
            .filter(|&i| hit(i) && channels_of_rays[i] == c)
            .count() as u32;
        r.extend_from_slice(&n.to_le_bytes());
    }
    for c in 0..channels {
        for i in (0..channels_of_rays.len()).rev() {
            if hit(i) && channels_of_rays[i] == c {
                for v in [i as f32, c as f32, f as f32] {
                    r.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    r
}

#[test]
fn mirrored_lidars_send_0_8_records_of_their_hits() {
    let exe = build("lidar_mirror_host.c", "lidar_mirror_host", None);
    let port = common::free_port_base();
    let host = Host::spawn(&exe, &[port.to_string(), FRAMES.to_string()]);
    let line = host.next_line();
    host.assert_loaded_library();
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        (words.len(), words[0], words[2], words[4], words[6]),
        (8, "PORT", "STREAM", "SEM", "RAY"),
        "{line}"
    );
    let stream_port: u16 = words[3].parse().unwrap();
    let semantic_stream: u32 = words[5].parse().unwrap();

    // The semantic lidar's 0.9 stream (synchronous): every sweep, frames
    // 0..=FRAMES+1, 13 of its 20 rays hit.
    let mut sub = StreamClient::subscribe(("127.0.0.1", stream_port), semantic_stream, TIMEOUT)
        .expect("subscribe to the semantic lidar");
    let reader = std::thread::spawn(move || {
        let mut msg = SensorMessage::default();
        (0..=FRAMES + 1)
            .map(|_| {
                sub.next_message_into(&mut msg).expect("a 0.9 sweep");
                // f32 angle | u32 channels | u32 points of channel 0, 1
                let count =
                    |at: usize| u32::from_le_bytes(msg.payload()[at..at + 4].try_into().unwrap());
                let points = count(8) + count(12);
                (msg.frame(), points)
            })
            .collect::<Vec<_>>()
    });

    // What the host's plans are: the same models, planned as often.
    let mut models = lidars();
    let plans = |models: &mut [(u32, Lidar); 2]| {
        models
            .iter_mut()
            .map(|(id, lidar)| {
                let channels = lidar.settings().channels;
                let rays: Vec<u32> = lidar.plan(0.05).rays().iter().map(|r| r.channel).collect();
                (*id, channels, rays)
            })
            .collect::<Vec<_>>()
    };
    plans(&mut models); // frame 0, before the episode

    let mut client = Client::connect("127.0.0.1", port, TIMEOUT).expect("connect");
    let scene = client
        .load_settings("[CARLA/Server]\nSynchronousMode=True\n")
        .expect("load_settings");
    let ids: Vec<u32> = scene.sensors.iter().map(|s| s.id).collect();
    assert_eq!(ids, [SEM_ID, RAY_ID]);
    client.start_episode(0).expect("start_episode");
    let mut ray_cast_rays = 0;
    for f in 1..=FRAMES + 1 {
        let frame = client
            .read_frame()
            .unwrap_or_else(|e| panic!("frame {f}: {e}"));
        assert_eq!(frame.measurements.frame_number, u64::from(f));
        let planned = plans(&mut models);
        // The last frame: the ray-cast lidar's mirror was stopped.
        let mirrored = if f <= FRAMES { 2 } else { 1 };
        let got: Vec<u32> = frame.sensors.iter().map(|r| r.id).collect();
        assert_eq!(got, [SEM_ID, RAY_ID][..mirrored], "frame {f}: records");
        for ((id, channels, rays), record) in planned.iter().zip(&frame.sensors) {
            assert_eq!(record.id, *id);
            let want = expected_record(f, *channels, rays);
            assert!(
                record.data == want,
                "frame {f}, 0.8 sensor {id:#x}: record differs\n got {:?}\nwant {:?}",
                record.data,
                want
            );
            if *id == RAY_ID {
                ray_cast_rays += rays.len();
            }
        }
        client.send_control(&Control::default()).expect("control");
    }
    // The drop-off left rays out of the ray-cast plans (60 a tick without).
    assert!(
        ray_cast_rays > 0 && ray_cast_rays < 60 * FRAMES as usize,
        "{ray_cast_rays} ray-cast rays planned"
    );
    drop(client);

    let sweeps = reader.join().expect("reader");
    let want: Vec<(u64, u32)> = (0..=FRAMES + 1)
        .map(|f| ((1u64 << 32) | u64::from(f), 13))
        .collect();
    assert_eq!(sweeps, want, "0.9 sweeps: frame and points");
    let output = host.finish();
    assert!(output.contains("DONE"), "{output}");
}
