//! The 0.9 pipeline through the C API: cameras on the copy and zero-copy
//! paths, one camera fanned out to many subscribers, and the lidar model.

use crate::alloc;
use crate::stats::{involuntary_switches, spread, thread_cpu, Spread};
use carla_server::client::{SensorMessage, StreamClient};
use carla_server::ffi::*;
use carla_server::sensor::ActorTransform;
use carla_server::sensor::CaptureContext;
use carla_server::sensor::{LidarHit, PlannedRay};
use carla_server::types::Vector3D;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

pub(crate) use crate::capi_host::Host;

/// A subscriber thread counting messages and bytes until EOF.
pub(crate) struct Reader {
    handle: JoinHandle<(u64, u64)>,
}

impl Reader {
    pub(crate) fn start(port: u32, stream: u32, newest: Arc<AtomicU64>) -> Reader {
        let mut sub =
            StreamClient::subscribe(("127.0.0.1", port as u16), stream, Duration::from_secs(30))
                .expect("subscribe");
        let handle = thread::spawn(move || {
            alloc::ignore_this_thread();
            let mut msg = SensorMessage::default();
            let (mut n, mut bytes) = (0u64, 0u64);
            while sub.next_message_into(&mut msg).is_ok() {
                n += 1;
                bytes += msg.bytes().len() as u64 + 4;
                newest.fetch_max(msg.frame(), Ordering::Relaxed);
            }
            (n, bytes)
        });
        Reader { handle }
    }

    /// (messages, bytes)
    pub(crate) fn join(self) -> (u64, u64) {
        self.handle.join().expect("reader")
    }
}

pub(crate) fn ctx(frame: u64) -> CaptureContext {
    CaptureContext {
        frame,
        timestamp: frame as f64 / 60.0,
        transform: ActorTransform::default(),
    }
}

/// Camera streams' numbers.
#[derive(Debug, Default)]
pub(crate) struct CameraOutcome {
    pub api: Spread,
    /// The game thread's CPU time in the library calls.
    pub cpu: Spread,
    pub delivered_per_subscriber: f64,
    pub mbps: f64,
    pub allocations: u64,
    pub image_bytes: usize,
    /// Involuntary context switches of the game thread per frame.
    pub preempted: f64,
}

/// `cameras` 0.9 camera streams of `w`x`h`, each with `subscribers`
/// readers, asynchronous; the game thread sends `frames` frames as fast as
/// it can, zero-copy (acquire, the engine's write, commit) or copy
/// (`carla_sensor_send_image`). `api` is the time in library calls only.
pub(crate) fn cameras(
    cameras: usize,
    (w, h): (u32, u32),
    subscribers: usize,
    frames: u32,
    zero_copy: bool,
) -> CameraOutcome {
    let host = Host::new();
    let (ws, hs) = (w.to_string(), h.to_string());
    let ids: Vec<u32> = (0..cameras)
        .map(|_| {
            host.sensor(
                "sensor.camera.rgb",
                &[("image_size_x", &ws), ("image_size_y", &hs)],
            )
        })
        .collect();
    let newest = Arc::new(AtomicU64::new(0));
    let readers: Vec<Reader> = ids
        .iter()
        .flat_map(|&id| (0..subscribers).map(move |_| id))
        .map(|id| Reader::start(host.port, id, newest.clone()))
        .collect();
    for &id in &ids {
        host.wait_subscribers(id, subscribers as u32);
    }
    let engine_image = vec![0x42u8; (w * h * 4) as usize];
    let warm_up = 100;
    let mut api = Vec::with_capacity(frames as usize);
    let mut cpu = Vec::with_capacity(frames as usize);
    let mut started = Instant::now();
    let mut switches = 0;
    for f in 0..warm_up + frames {
        if f == warm_up {
            alloc::start();
            started = Instant::now();
            switches = involuntary_switches();
        }
        let c = ctx(u64::from(f) + 1);
        let (mut spent, mut cpu_spent) = (Duration::ZERO, Duration::ZERO);
        for &id in &ids {
            if zero_copy {
                let (mut image, mut pixels, mut size) =
                    (std::ptr::null_mut(), std::ptr::null_mut::<c_void>(), 0u32);
                let (t, c0) = (Instant::now(), thread_cpu());
                assert_eq!(
                    // SAFETY: live server; the outputs are writable locals.
                    unsafe {
                        carla_sensor_acquire_image(
                            host.server,
                            id,
                            &mut image,
                            &mut pixels,
                            &mut size,
                        )
                    },
                    0
                );
                spent += t.elapsed();
                cpu_spent += thread_cpu() - c0;
                // The engine's read-back writes straight into the buffer
                // (not library time: it happens on either path).
                // SAFETY: `pixels` is writable for `size` bytes until commit.
                let dst =
                    unsafe { std::slice::from_raw_parts_mut(pixels as *mut u8, size as usize) };
                dst.copy_from_slice(&engine_image);
                let (t, c0) = (Instant::now(), thread_cpu());
                assert_eq!(
                    // SAFETY: `image` came from acquire and is used once.
                    unsafe { carla_sensor_commit_image(host.server, image, &c) },
                    0
                );
                spent += t.elapsed();
                cpu_spent += thread_cpu() - c0;
            } else {
                let (t, c0) = (Instant::now(), thread_cpu());
                // SAFETY: pixels valid for their length.
                let rc = unsafe {
                    carla_sensor_send_image(
                        host.server,
                        id,
                        &c,
                        engine_image.as_ptr() as *const c_void,
                        engine_image.len() as u32,
                    )
                };
                assert_eq!(rc, 0);
                spent += t.elapsed();
                cpu_spent += thread_cpu() - c0;
            }
        }
        if f >= warm_up {
            api.push(spent);
            cpu.push(cpu_spent);
        }
    }
    let allocations = alloc::stop();
    let preempted = (involuntary_switches() - switches) as f64 / f64::from(frames);
    // Let the readers finish what was sent, then close the streams.
    let last = u64::from(warm_up + frames);
    let deadline = Instant::now() + Duration::from_secs(30);
    while newest.load(Ordering::Relaxed) < last && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(1));
    }
    let elapsed = started.elapsed();
    drop(host);
    let totals: Vec<(u64, u64)> = readers.into_iter().map(Reader::join).collect();
    let n = totals.len().max(1) as f64;
    let msgs: u64 = totals.iter().map(|t| t.0).sum();
    let bytes: u64 = totals.iter().map(|t| t.1).sum();
    let secs = elapsed.as_secs_f64();
    CameraOutcome {
        api: spread(&mut api),
        cpu: spread(&mut cpu),
        delivered_per_subscriber: msgs as f64 / n / secs,
        mbps: bytes as f64 / secs / 1e6,
        allocations,
        image_bytes: engine_image.len() * cameras,
        preempted,
    }
}

/// Lidar numbers: CPU of the game thread from hits in to bytes out.
#[derive(Debug, Default)]
pub(crate) struct LidarOutcome {
    pub sensor_seconds: f64,
    pub points: u64,
    pub cpu: Duration,
    pub bytes: u64,
    pub allocations: u64,
}

/// A 64-channel lidar at 1.3 M points/s ticked at `hz` for `seconds` of
/// sensor time; the engine's ray traces are replaced by a synthetic scene
/// (ground plane and a ring of walls) computed before the timed calls.
pub(crate) fn lidar(seconds: u32, hz: u32, dropoff: &str) -> LidarOutcome {
    let host = Host::new();
    let id = host.sensor(
        "sensor.lidar.ray_cast",
        &[
            ("channels", "64"),
            ("points_per_second", "1300000"),
            ("rotation_frequency", "20"),
            ("range", "100"),
            ("upper_fov", "2"),
            ("lower_fov", "-24.8"),
            ("dropoff_general_rate", dropoff),
        ],
    );
    // Synchronous: every tick's bytes reach the reader (waiting is not CPU).
    assert_eq!(
        // SAFETY: live server.
        unsafe { carla_sensor_set_synchronous(host.server, id, 10_000) },
        0
    );
    let newest = Arc::new(AtomicU64::new(0));
    let reader = Reader::start(host.port, id, newest.clone());
    host.wait_subscribers(id, 1);
    let dt = 1.0 / hz as f32;
    let mut hits: Vec<LidarHit> = Vec::new();
    let mut out = LidarOutcome::default();
    let ticks = seconds * hz;
    let warm_up = hz;
    for t in 0..warm_up + ticks {
        if t == warm_up {
            alloc::start();
        }
        let cpu0 = thread_cpu();
        let (mut rays, mut count) = (std::ptr::null::<PlannedRay>(), 0u32);
        assert_eq!(
            // SAFETY: live server, writable outputs.
            unsafe { carla_lidar_plan(host.server, id, dt, &mut rays, &mut count) },
            0
        );
        let cpu1 = thread_cpu();
        // SAFETY: the plan's rays are valid until the next plan.
        let planned = unsafe { std::slice::from_raw_parts(rays, count as usize) };
        hits.clear();
        hits.extend(planned.iter().enumerate().map(|(i, r)| trace(i as u32, r)));
        let cpu2 = thread_cpu();
        let c = ctx(u64::from(t) + 1);
        assert_eq!(
            // SAFETY: hits valid for their length.
            unsafe { carla_lidar_send_hits(host.server, id, &c, hits.as_ptr(), hits.len() as u32) },
            0
        );
        let cpu3 = thread_cpu();
        if t >= warm_up {
            out.cpu += (cpu1 - cpu0) + (cpu3 - cpu2);
            out.points += u64::from(count);
        }
    }
    out.allocations = alloc::stop();
    out.sensor_seconds = f64::from(ticks) * f64::from(dt);
    let last = u64::from(warm_up + ticks);
    let deadline = Instant::now() + Duration::from_secs(30);
    while newest.load(Ordering::Relaxed) < last && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(1));
    }
    drop(host);
    out.bytes = reader.join().1;
    out
}

/// The synthetic scene: rays going down hit the ground 2 m below, the
/// others a cylinder of walls 30 m away.
fn trace(i: u32, r: &PlannedRay) -> LidarHit {
    let d = r.direction;
    let t = if d.z < -0.01 {
        (2.0 / -d.z).min(30.0)
    } else {
        30.0 / (d.x * d.x + d.y * d.y).sqrt().max(1e-3)
    };
    LidarHit {
        ray_index: i,
        hit: u32::from(t < 100.0),
        distance_m: t,
        point_sensor: Vector3D {
            x: d.x * t,
            y: d.y * t,
            z: d.z * t,
        },
        normal_sensor: Vector3D {
            x: 0.0,
            y: 0.0,
            z: 1.0,
        },
        actor_id: 0,
        semantic_tag: 1,
    }
}
