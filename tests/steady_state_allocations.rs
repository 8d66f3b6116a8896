//! Steady state allocates nothing per frame on the server side: a counting
//! allocator counts every allocation of the process except on the clients'
//! threads, while
//! - a synchronous 0.8 episode runs (camera + lidar records, 30 agents,
//!   controls back);
//! - 0.9 streams run through the C API with subscribers reading: a camera
//!   on the copy and zero-copy paths (synchronous, asynchronous and queued)
//!   and a lidar.
//!
//! The tests take turns (`ONE_AT_A_TIME`): the count is process-wide.

mod common;

use carla_server::client::Client;
use carla_server::types::*;
use carla_server::Server;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

struct Counting;
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);
thread_local! {
    static IGNORED: Cell<bool> = const { Cell::new(false) };
}

// SAFETY: forwards to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) && !IGNORED.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) && !IGNORED.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: `ptr` came from this allocator with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const T: u32 = 5000;
const WARM_UP: u32 = 50;
const MEASURED: u32 = 200;

/// 0.9 streams: frames measured, and the most allocations allowed in them.
/// A stream makes a payload block (and, past its first four, a message
/// shell) only when a send meets a new in-flight peak: one block being
/// filled, one being written and one waiting per subscriber, one freed
/// just after the last reclaim. On a busy machine that peak can come late,
/// so the bound is that peak, not zero; an allocation per frame would give
/// at least `STREAM_FRAMES`.
const STREAM_FRAMES: u32 = 1000;
const STREAM_PEAK_ALLOCATIONS: u64 = 6;

/// A std mutex: a test thread waiting here must not allocate while another
/// test counts (parking_lot allocates a thread's parking data lazily).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn my_turn() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn a_steady_synchronous_episode_allocates_nothing_per_frame() {
    let _turn = my_turn();
    let port = common::free_port_base();
    let server = Arc::new(Server::new());
    server.connect(u32::from(port), T).unwrap();
    // The client stays connected until counting has stopped: its leaving
    // is logged, and a log line allocates.
    let (counted, counted_rx) = std::sync::mpsc::channel::<()>();
    let client = thread::spawn(move || {
        IGNORED.with(|c| c.set(true)); // the client's own allocations do not count
        let mut client = Client::connect("127.0.0.1", port, Duration::from_secs(5)).unwrap();
        client
            .load_settings(&common::ini(true, &["Cam", "Lid"], ""))
            .unwrap();
        client.start_episode(0).unwrap();
        for _ in 0..WARM_UP + MEASURED {
            let frame = client.read_frame().unwrap();
            assert_eq!(frame.sensors.len(), 2);
            client
                .send_control(&Control {
                    throttle: 0.5,
                    ..Default::default()
                })
                .unwrap();
        }
        counted_rx.recv().unwrap();
    });
    server.read_request_new_episode(T).unwrap();
    let sensors = [
        SensorDefinition {
            id: 1,
            r#type: CARLA_SERVER_CAMERA,
            name: "Cam".into(),
        },
        SensorDefinition {
            id: 2,
            r#type: CARLA_SERVER_LIDAR_RAY_CAST,
            name: "Lid".into(),
        },
    ];
    server
        .write_scene_description("Town", &[Transform::default()], &sensors, T)
        .unwrap();
    server.read_episode_start(T).unwrap();
    server.write_episode_ready(true, T).unwrap();
    let image = vec![7u8; 800 * 600 * 4];
    let lidar = vec![1u8; 32 * 3000 * 12];
    let agents: Vec<Agent> = (0..30)
        .map(|i| Agent {
            id: i,
            r#type: CARLA_SERVER_AGENT_VEHICLE,
            ..Default::default()
        })
        .collect();
    let mut before = 0;
    for f in 1..=WARM_UP + MEASURED {
        if f == WARM_UP + 1 {
            before = ALLOCATIONS.load(Ordering::SeqCst);
            COUNTING.store(true, Ordering::SeqCst);
        }
        server.write_sensor_data(1, &[0; 24], &image).unwrap();
        server.write_sensor_data(2, &[0; 144], &lidar).unwrap();
        let m = MeasurementsHeader {
            frame_number: f,
            ..Default::default()
        };
        server.write_measurements(&m, &agents).unwrap();
        server.read_control(T).unwrap();
    }
    COUNTING.store(false, Ordering::SeqCst);
    let n = ALLOCATIONS.load(Ordering::SeqCst) - before;
    counted.send(()).unwrap();
    client.join().unwrap();
    assert_eq!(n, 0, "{n} allocations in {MEASURED} steady-state frames");
}

mod pipeline {
    use super::*;
    use carla_server::client::{SensorMessage, StreamClient};
    use carla_server::ffi::*;
    use carla_server::sensor::CaptureContext;
    use carla_server::sensor::{LidarHit, PlannedRay};
    use std::ffi::c_void;

    use common::capi_host::Host;

    /// A subscriber thread reading until the stream ends; returns the
    /// frames it saw, in order (its allocations are not counted).
    fn subscribe(host: &Host, id: u32) -> thread::JoinHandle<Vec<u64>> {
        let mut sub =
            StreamClient::subscribe(("127.0.0.1", host.port as u16), id, Duration::from_secs(10))
                .unwrap();
        let reader = thread::spawn(move || {
            IGNORED.with(|c| c.set(true));
            let mut msg = SensorMessage::default();
            let mut frames = Vec::new();
            while sub.next_message_into(&mut msg).is_ok() {
                frames.push(msg.frame());
            }
            frames
        });
        host.wait_subscribers(id, 1);
        reader
    }

    fn ctx(frame: u64) -> CaptureContext {
        CaptureContext {
            frame,
            timestamp: frame as f64 * 0.05,
            transform: Default::default(),
        }
    }

    /// Runs `tick` WARM_UP times, then STREAM_FRAMES times while counting.
    fn count(mut tick: impl FnMut(u64)) -> u64 {
        for f in 1..=u64::from(WARM_UP) {
            tick(f);
        }
        COUNTING.store(true, Ordering::SeqCst);
        let before = ALLOCATIONS.load(Ordering::SeqCst);
        for f in u64::from(WARM_UP) + 1..=u64::from(WARM_UP + STREAM_FRAMES) {
            tick(f);
        }
        COUNTING.store(false, Ordering::SeqCst);
        ALLOCATIONS.load(Ordering::SeqCst) - before
    }

    /// Delivery modes of `camera_run`.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Mode {
        Synchronous,
        Asynchronous,
        /// Queued, this deep: the sender never waits, so a subscriber may
        /// fall up to this far behind, which costs up to this many blocks
        /// and shells more, once.
        Queued(u32),
    }

    fn camera_run(mode: Mode) {
        let host = Host::new();
        let id = host.sensor(
            "sensor.camera.rgb",
            &[("image_size_x", "64"), ("image_size_y", "48")],
        );
        let (synchronous, peak) = match mode {
            Mode::Synchronous => (true, STREAM_PEAK_ALLOCATIONS),
            Mode::Asynchronous => (false, STREAM_PEAK_ALLOCATIONS),
            Mode::Queued(depth) => (false, STREAM_PEAK_ALLOCATIONS + 2 * u64::from(depth)),
        };
        let rc = match mode {
            // SAFETY: live server.
            Mode::Synchronous => unsafe { carla_sensor_set_synchronous(host.server, id, 5000) },
            // SAFETY: live server.
            Mode::Queued(depth) => unsafe { carla_sensor_set_queued(host.server, id, depth) },
            Mode::Asynchronous => 0,
        };
        assert_eq!(rc, 0);
        let reader = subscribe(&host, id);
        // A queued stream's subscriber may fall behind this unpaced sender:
        // each stall logs a line when it starts and one when it ends, and a
        // log line is formatted into a String. Those lines are bounded by
        // the per-site limiter (`log::LINES_PER_WINDOW` a second), not per
        // frame; the count here is the stream's own. Below Error, lines are
        // discarded before formatting.
        let quiet = matches!(mode, Mode::Queued(_));
        if quiet {
            carla_server::log::set_max_level(carla_server::log::Level::Error);
        }
        let pixels = vec![9u8; 64 * 48 * 4];
        let n = count(|f| {
            let c = ctx(f);
            if f % 2 == 0 {
                // SAFETY: pixels valid for their length.
                let rc = unsafe {
                    carla_sensor_send_image(
                        host.server,
                        id,
                        &c,
                        pixels.as_ptr() as *const c_void,
                        pixels.len() as u32,
                    )
                };
                assert_eq!(rc, 0);
            } else {
                let (mut image, mut px, mut size) = (std::ptr::null_mut(), std::ptr::null_mut(), 0);
                // SAFETY: live server, writable outputs.
                let rc = unsafe {
                    carla_sensor_acquire_image(host.server, id, &mut image, &mut px, &mut size)
                };
                assert_eq!((rc, size as usize), (0, pixels.len()));
                // SAFETY: `px` is writable for `size` bytes until commit.
                unsafe {
                    std::ptr::copy_nonoverlapping(pixels.as_ptr(), px as *mut u8, pixels.len())
                };
                assert_eq!(
                    // SAFETY: `image` came from acquire; used once.
                    unsafe { carla_sensor_commit_image(host.server, image, &c) },
                    0
                );
            }
        });
        if quiet {
            carla_server::log::set_max_level(carla_server::log::Level::Info);
        }
        drop(host);
        let frames = reader.join().unwrap();
        assert!(!frames.is_empty() && frames.windows(2).all(|w| w[0] < w[1]));
        if synchronous {
            assert_eq!(
                frames.len() as u32,
                WARM_UP + STREAM_FRAMES,
                "synchronous mode dropped frames"
            );
        }
        eprintln!("camera, {mode:?}: {n} allocations in {STREAM_FRAMES} frames (at most {peak})");
        assert!(
            n <= peak,
            "{n} allocations in {STREAM_FRAMES} steady camera frames ({mode:?})"
        );
    }

    #[test]
    fn a_steady_camera_stream_allocates_nothing_per_frame_on_either_path() {
        let _turn = my_turn();
        camera_run(Mode::Synchronous);
        camera_run(Mode::Asynchronous);
        camera_run(Mode::Queued(4));
    }

    #[test]
    fn a_steady_lidar_stream_allocates_nothing_per_tick() {
        let _turn = my_turn();
        let host = Host::new();
        let id = host.sensor(
            "sensor.lidar.ray_cast",
            &[
                ("channels", "32"),
                ("points_per_second", "100000"),
                ("range", "50"),
            ],
        );
        let reader = subscribe(&host, id);
        let mut hits: Vec<LidarHit> = Vec::with_capacity(1 << 16);
        let n = count(|f| {
            let (mut rays, mut count) = (std::ptr::null::<PlannedRay>(), 0u32);
            assert_eq!(
                // SAFETY: live server, writable outputs.
                unsafe { carla_lidar_plan(host.server, id, 0.05, &mut rays, &mut count) },
                0
            );
            // SAFETY: the plan's rays are valid until the next plan.
            let planned = unsafe { std::slice::from_raw_parts(rays, count as usize) };
            hits.clear();
            hits.extend(planned.iter().enumerate().map(|(i, r)| LidarHit {
                ray_index: i as u32,
                hit: 1,
                distance_m: 10.0,
                point_sensor: Vector3D {
                    x: r.direction.x * 10.0,
                    y: r.direction.y * 10.0,
                    z: r.direction.z * 10.0,
                },
                normal_sensor: Vector3D {
                    x: 0.0,
                    y: 0.0,
                    z: 1.0,
                },
                actor_id: 0,
                semantic_tag: 1,
            }));
            let c = ctx(f);
            // SAFETY: hits valid for their length.
            let rc = unsafe {
                carla_lidar_send_hits(host.server, id, &c, hits.as_ptr(), hits.len() as u32)
            };
            assert_eq!(rc, 0);
        });
        drop(host);
        assert!(!reader.join().unwrap().is_empty());
        assert!(
            n <= STREAM_PEAK_ALLOCATIONS,
            "{n} allocations in {STREAM_FRAMES} steady lidar ticks"
        );
    }
}
