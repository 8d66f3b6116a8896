//! 1000 short episodes in a row: resident memory, threads and descriptors
//! stay flat.
//!
//! Each episode: new-episode request, scene, episode start, three frames
//! with a camera record and three agents, controls back, synchronous and
//! asynchronous in turn; a 0.9 camera created, subscribed to, sent one image
//! and destroyed. Every 50 episodes the client leaves and a new one comes.
//! Usage is read after episode 100 (warm-up) and at the end.

use super::wire::{camera_header, stamp_of, stamped};
use super::{exclusive, wait_for, Usage};
use crate::common;
use carla_server::client::Client;
use carla_server::client::StreamClient;
use carla_server::log::{self, Level};
use carla_server::sensor::CaptureContext;
use carla_server::types::*;
use carla_server::Error;
use carla_server::{Config, Server};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

const EPISODES: u32 = 1000;
const WARM_UP: u32 = 100;
const NEW_CLIENT_EVERY: u32 = 50;
const FRAMES: u32 = 3;
const T: u32 = 10_000;
const WAIT: Duration = Duration::from_secs(10);
const CAMERA: u32 = 7;
/// The 0.8 camera: 64 × 48 BGRA.
const IMAGE: usize = 64 * 48 * 4;
/// The 0.9 camera: 16 × 8 BGRA.
const SMALL: (u32, u32) = (16, 8);

fn synchronous(episode: u32) -> bool {
    episode.is_multiple_of(2)
}

/// Global frame number of frame `f` (1-based) of `episode`.
fn frame_of(episode: u32, f: u32) -> u32 {
    episode * FRAMES + f
}

fn agents(frame: u32) -> [Agent; 3] {
    [10, 20, 40].map(|kind| Agent {
        id: frame + kind,
        r#type: kind,
        forward_speed: frame as f32,
        ..Default::default()
    })
}

fn context(frame: u32) -> CaptureContext {
    CaptureContext {
        frame: u64::from(frame),
        timestamp: f64::from(frame) * 0.05,
        transform: Default::default(),
    }
}

/// Restores the library's log level when the test ends (even by a panic).
struct QuietLog;

impl QuietLog {
    /// Info lines (a dozen per episode) would pile up in the harness's
    /// captured output and be measured as resident memory.
    fn warnings_only() -> QuietLog {
        log::set_max_level(Level::Warning);
        QuietLog
    }
}

impl Drop for QuietLog {
    fn drop(&mut self) {
        log::set_max_level(Level::Info);
    }
}

fn host(server: &Server, ids: mpsc::Sender<u32>) {
    let camera = SensorDefinition {
        id: CAMERA,
        r#type: CARLA_SERVER_CAMERA,
        name: "Cam".into(),
    };
    let (w, h) = SMALL;
    let (width, height) = (w.to_string(), h.to_string());
    for e in 0..EPISODES {
        let ini = loop {
            match server.read_request_new_episode(T) {
                Ok(ini) => break String::from_utf8(ini).expect("UTF-8 settings"),
                // The previous client left (unless the next request came first).
                Err(Error::PeerClosed) if e % NEW_CLIENT_EVERY == 0 && e > 0 => continue,
                Err(code) => panic!("episode {e}: request: {code}"),
            }
        };
        let mode = format!(
            "SynchronousMode={}",
            ["False", "True"][synchronous(e) as usize]
        );
        assert!(ini.contains(&mode), "episode {e}: {ini}");
        let spots = [Transform::default()];
        server
            .write_scene_description("Town", &spots, std::slice::from_ref(&camera), T)
            .unwrap_or_else(|c| panic!("episode {e}: scene: {c}"));
        assert_eq!(server.read_episode_start(T), Ok(0), "episode {e}");
        server
            .write_episode_ready(true, T)
            .unwrap_or_else(|c| panic!("episode {e}: ready: {c}"));
        let id = server
            .create_sensor(
                "sensor.camera.rgb",
                &[("image_size_x", &width), ("image_size_y", &height)],
            )
            .expect("a 0.9 camera");
        ids.send(id).expect("the client is there");

        for f in 1..=FRAMES {
            let frame = frame_of(e, f);
            let image = stamped(u64::from(frame), IMAGE);
            server
                .write_sensor_data(CAMERA, &camera_header(u64::from(frame)), &image)
                .unwrap();
            let m = MeasurementsHeader {
                frame_number: frame,
                ..Default::default()
            };
            server.write_measurements(&m, &agents(frame)).unwrap();
            if synchronous(e) {
                let c = server.read_control(T).expect("a control every frame");
                assert_eq!(c.throttle, f as f32 / 10.0, "episode {e} frame {f}");
            }
        }
        if !synchronous(e) {
            let c = server.read_control(T).expect("a control at the end");
            assert_eq!(c.throttle, 1.0, "episode {e}");
        }

        let sensor = server.sensor(id).expect("the 0.9 camera");
        wait_for("the 0.9 subscriber", || sensor.stats().subscribers == 1);
        let pixels = stamped(u64::from(frame_of(e, FRAMES)), (w * h * 4) as usize);
        sensor
            .send_image(&context(frame_of(e, FRAMES)), &pixels)
            .expect("0.9 send");
        server.destroy_sensor(id).expect("destroy");
    }
}

/// The client side of episode `e`.
fn client_episode(
    client: &mut Client,
    e: u32,
    addr: std::net::SocketAddr,
    ids: &mpsc::Receiver<u32>,
) {
    let sync = synchronous(e);
    client
        .load_settings(&common::ini(sync, &["Cam"], ""))
        .unwrap_or_else(|err| panic!("episode {e}: load: {err}"));
    client.start_episode(0).unwrap();
    let id = ids
        .recv_timeout(WAIT)
        .unwrap_or_else(|_| panic!("episode {e}: no 0.9 sensor from the host"));
    let mut sub = StreamClient::subscribe(addr, id, WAIT).expect("subscribe");
    let last = frame_of(e, FRAMES);
    let (mut previous, mut newest_camera) = (0, 0);
    while previous < u64::from(last) {
        let frame = client.read_frame().expect("a frame");
        let n = frame.measurements.frame_number;
        assert!(n > previous, "episode {e}: frame {n} after {previous}");
        assert_eq!(frame.measurements.non_player_agents.len(), 3);
        for r in &frame.sensors {
            let stamp = u64::from_le_bytes(r.data[..8].try_into().unwrap());
            assert_eq!(r.data[..24], camera_header(stamp), "episode {e}");
            assert_eq!(stamp_of(&r.data[24..]), Some(stamp), "episode {e}");
            assert!(
                stamp >= n && stamp > newest_camera,
                "episode {e}: camera {stamp}"
            );
            newest_camera = stamp;
        }
        if sync {
            let expected = if previous == 0 {
                frame_of(e, 1).into()
            } else {
                previous + 1
            };
            assert_eq!(
                n, expected,
                "episode {e}: synchronous frames are consecutive"
            );
            assert_eq!(newest_camera, n, "episode {e}: camera of frame {n}");
            let f = (n - u64::from(frame_of(e, 0))) as f32;
            client
                .send_control(&Control {
                    throttle: f / 10.0,
                    ..Default::default()
                })
                .unwrap();
        }
        previous = n;
    }
    assert_eq!(newest_camera, u64::from(last), "episode {e}: newest camera");
    if !sync {
        client
            .send_control(&Control {
                throttle: 1.0,
                ..Default::default()
            })
            .unwrap();
    }
    let msg = sub.next_message().expect("the 0.9 image");
    assert_eq!(msg.frame(), u64::from(last), "episode {e}");
    assert_eq!(stamp_of(&msg.payload()[12..]), Some(u64::from(last)));
    assert!(
        sub.next().is_none(),
        "episode {e}: end of file after destroy"
    );
}

#[test]
fn a_thousand_short_episodes_keep_resident_memory_flat() {
    let _gate = exclusive();
    let _quiet = QuietLog::warnings_only();
    let port = common::free_port_base();
    let server = Arc::new(Server::with_config(Config {
        bind_ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
        stream_timeout: WAIT,
        ..Config::default()
    }));
    server.connect(u32::from(port), T).unwrap();
    let addr = server.listen_streaming(0).expect("streaming port");
    let (tx, ids) = mpsc::channel();
    let host = {
        let server = server.clone();
        thread::spawn(move || host(&server, tx))
    };

    let started = Instant::now();
    let mut client = None;
    let mut base = None;
    let mut max_rss = 0;
    for e in 0..EPISODES {
        if e % NEW_CLIENT_EVERY == 0 {
            drop(client.take()); // the previous client leaves first
            client = Some(Client::connect("127.0.0.1", port, WAIT).expect("connect"));
        }
        client_episode(client.as_mut().unwrap(), e, addr, &ids);
        let usage = Usage::now();
        if e + 1 == WARM_UP {
            base = Some(usage);
        }
        if e + 1 >= WARM_UP {
            max_rss = max_rss.max(usage.rss_kib);
        }
    }
    host.join().expect("host");
    let elapsed = started.elapsed();
    let base = base.unwrap();
    let end = Usage::settle_to(base, 0);
    eprintln!(
        "{EPISODES} episodes in {elapsed:?}; after {WARM_UP}: {base:?}; at the end: {end:?}; \
         max RSS {max_rss} KiB"
    );
    assert!(
        end.rss_kib * 10 <= base.rss_kib * 11,
        "resident memory grew more than 10%: {} -> {} KiB",
        base.rss_kib,
        end.rss_kib
    );
    assert!(
        end.threads <= base.threads,
        "threads leaked: {base:?} -> {end:?}"
    );
    assert!(
        end.fds <= base.fds,
        "descriptors leaked: {base:?} -> {end:?}"
    );
}
