//! The 0.8 protocol through the C API: a host loop on this thread (the
//! game thread) and a client on loopback reading every frame it gets.

use crate::alloc;
use crate::stats::{spread, thread_cpu, Spread};
use carla_server::client::{Client, Frame};
use carla_server::ffi::*;
use carla_server::types::*;
use prost::Message;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

const T: u32 = 10_000;

/// What the host sends each frame.
#[derive(Clone, Debug)]
pub(crate) struct Workload {
    pub name: &'static str,
    pub cameras: Vec<(u32, u32)>,
    pub agents: u32,
}

/// One run's numbers.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub frames: u32,
    pub delivered: u64,
    pub bytes_per_frame: usize,
    pub image_bytes: usize,
    pub fps: f64,
    pub mbps: f64,
    /// Time inside library calls, except the synchronous control wait.
    pub api: Spread,
    /// The game thread's CPU time in those calls (without preemption).
    pub cpu: Spread,
    /// Whole tick, control wait included (synchronous mode).
    pub frame: Spread,
    pub latency: Spread,
    pub allocations: u64,
}

fn now_ns(epoch: Instant) -> u64 {
    epoch.elapsed().as_nanos() as u64
}

fn ini(sync: bool, w: &Workload) -> String {
    let names: Vec<String> = (0..w.cameras.len()).map(|i| format!("Cam{i}")).collect();
    format!(
        "[CARLA/Server]\nSynchronousMode={sync}\nSendNonPlayerAgentsInfo={}\n[CARLA/Sensor]\nSensors={}\n",
        w.agents > 0,
        names.join(",")
    )
}

/// The client: reads frames until the host's final one, records arrival
/// times, sends a control per frame.
fn client(
    port: u16,
    ini: String,
    last: Arc<AtomicU64>,
    arrived: Arc<Vec<AtomicU64>>,
    epoch: Instant,
) -> (u64, usize) {
    alloc::ignore_this_thread();
    let mut c = Client::connect("127.0.0.1", port, Duration::from_secs(10)).expect("connect");
    c.load_settings(&ini).expect("settings");
    c.start_episode(0).expect("episode");
    let mut frame = Frame::default();
    let (mut delivered, mut bytes) = (0u64, 0usize);
    let control = Control {
        throttle: 0.5,
        ..Default::default()
    };
    loop {
        c.read_frame_into(&mut frame).expect("frame");
        let n = frame.measurements.frame_number;
        arrived[n as usize].store(now_ns(epoch), Ordering::Relaxed);
        delivered += 1;
        if bytes == 0 {
            bytes = 4
                + frame.measurements.encoded_len()
                + frame
                    .sensors
                    .iter()
                    .map(|s| s.data.len() + 8)
                    .sum::<usize>()
                + 4;
        }
        c.send_control(&control).expect("control");
        if n >= last.load(Ordering::Acquire) {
            return (delivered, bytes);
        }
    }
}

/// How long a run lasts: a number of frames (synchronous), or as many
/// frames as the game thread makes in a time (asynchronous: it never waits,
/// so a fixed count of small frames would be over in microseconds).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Length {
    Frames(u32),
    Time(Duration, u32),
}

/// Runs one episode (the first `warm_up` frames not measured).
pub(crate) fn run(port: u16, sync: bool, w: &Workload, length: Length, warm_up: u32) -> Outcome {
    let epoch = Instant::now();
    let (max_frames, duration) = match length {
        Length::Frames(n) => (n, None),
        Length::Time(d, max) => (max, Some(d)),
    };
    let total = warm_up + max_frames + 1;
    let table =
        || -> Arc<Vec<AtomicU64>> { Arc::new((0..=total).map(|_| AtomicU64::new(0)).collect()) };
    let (started, arrived) = (table(), table());
    let final_frame = Arc::new(AtomicU64::new(u64::MAX));
    let server = carla_make_server();
    // SAFETY (all calls below): `server` is live until carla_free_server;
    // every pointer passed points to a local that outlives the call.
    assert_eq!(
        // SAFETY: the server handle is live until carla_free_server; every pointer points to a local that outlives the call.
        unsafe { carla_server_connect(server, u32::from(port), T) },
        0
    );
    let (ini_text, arr, fin) = (ini(sync, w), arrived.clone(), final_frame.clone());
    let reader = thread::spawn(move || client(port, ini_text, fin, arr, epoch));

    let mut req = carla_request_new_episode {
        ini_file: std::ptr::null(),
        ini_file_length: 0,
    };
    assert_eq!(
        // SAFETY: the server handle is live until carla_free_server; every pointer points to a local that outlives the call.
        unsafe { carla_read_request_new_episode(server, &mut req, T) },
        0
    );
    let names: Vec<std::ffi::CString> = (0..w.cameras.len())
        .map(|i| std::ffi::CString::new(format!("Cam{i}")).unwrap())
        .collect();
    let defs: Vec<carla_sensor_definition> = names
        .iter()
        .enumerate()
        .map(|(i, n)| carla_sensor_definition {
            id: i as u32 + 1,
            r#type: CARLA_SERVER_CAMERA,
            name: n.as_ptr(),
        })
        .collect();
    let spot = Transform::default();
    let scene = carla_scene_description {
        map_name: c"Bench".as_ptr(),
        player_start_spots: &spot,
        number_of_player_start_spots: 1,
        sensors: defs.as_ptr(),
        number_of_sensors: defs.len() as u32,
    };
    assert_eq!(
        // SAFETY: the server handle is live until carla_free_server; every pointer points to a local that outlives the call.
        unsafe { carla_write_scene_description(server, &scene, T) },
        0
    );
    let mut start = carla_episode_start {
        player_start_spot_index: 0,
    };
    assert_eq!(
        // SAFETY: the server handle is live until carla_free_server; every pointer points to a local that outlives the call.
        unsafe { carla_read_episode_start(server, &mut start, T) },
        0
    );
    let ready = carla_episode_ready { ready: CBool::TRUE };
    // SAFETY: the server handle is live until carla_free_server; every pointer points to a local that outlives the call.
    assert_eq!(unsafe { carla_write_episode_ready(server, &ready, T) }, 0);

    let images: Vec<Vec<u8>> = w
        .cameras
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| vec![i as u8 + 1; (x * y * 4) as usize])
        .collect();
    let agents: Vec<Agent> = (0..w.agents)
        .map(|i| Agent {
            id: i + 100,
            r#type: CARLA_SERVER_AGENT_VEHICLE,
            ..Default::default()
        })
        .collect();
    let mut api = Vec::with_capacity(max_frames as usize);
    let mut cpu = Vec::with_capacity(max_frames as usize);
    let mut frame_times = Vec::with_capacity(max_frames as usize);
    let mut control = Control::default();
    let mut measured_from = Instant::now();
    let (mut last, mut allocations) = (total - 1, 0);
    for f in 1..=total {
        let time_up = duration.is_some_and(|d| f > warm_up + 20 && measured_from.elapsed() >= d);
        if f == total || time_up {
            // One more frame, not measured, tells the client to stop.
            allocations = alloc::stop();
            last = f - 1;
            final_frame.store(u64::from(f), Ordering::Release);
        }
        if f == warm_up + 1 {
            measured_from = Instant::now();
            alloc::start();
        }
        let (t0, cpu0) = (Instant::now(), thread_cpu());
        started[f as usize].store(now_ns(epoch), Ordering::Relaxed);
        for (i, (img, &(x, y))) in images.iter().zip(&w.cameras).enumerate() {
            let mut header = [0u8; 24];
            header[..8].copy_from_slice(&u64::from(f).to_le_bytes());
            header[8..12].copy_from_slice(&x.to_le_bytes());
            header[12..16].copy_from_slice(&y.to_le_bytes());
            header[16..20].copy_from_slice(&1u32.to_le_bytes());
            header[20..24].copy_from_slice(&90f32.to_le_bytes());
            let data = carla_sensor_data {
                id: i as u32 + 1,
                header: header.as_ptr() as *const c_void,
                header_size: 24,
                data: img.as_ptr() as *const c_void,
                data_size: img.len() as u32,
            };
            // SAFETY: the server handle is live until carla_free_server; every pointer points to a local that outlives the call.
            assert_eq!(unsafe { carla_write_sensor_data(server, &data) }, 0);
        }
        let m = carla_measurements {
            frame_number: f,
            platform_timestamp: f,
            game_timestamp: f * 16,
            player_measurements: PlayerMeasurements::default(),
            non_player_agents: agents.as_ptr(),
            number_of_non_player_agents: agents.len() as u32,
        };
        // SAFETY: the server handle is live until carla_free_server; every pointer points to a local that outlives the call.
        assert_eq!(unsafe { carla_write_measurements(server, &m) }, 0);
        let (before_wait, cpu_before_wait) = (t0.elapsed(), thread_cpu() - cpu0);
        // SAFETY: the server handle is live until carla_free_server; every pointer points to a local that outlives the call.
        let rc = unsafe { carla_read_control(server, &mut control, if sync { T } else { 0 }) };
        assert!(rc == 0 || (!sync && rc == 11), "read control: {rc}");
        let (spent, cpu_spent) = if sync {
            (before_wait, cpu_before_wait)
        } else {
            (t0.elapsed(), thread_cpu() - cpu0)
        };
        if f > last {
            break;
        }
        if f > warm_up {
            api.push(spent);
            cpu.push(cpu_spent);
            frame_times.push(t0.elapsed());
        }
    }
    let (delivered_all, bytes_per_frame) = reader.join().expect("client");
    // SAFETY: the server handle is live until carla_free_server; every pointer points to a local that outlives the call.
    unsafe { carla_free_server(server) };

    let frames = last - warm_up;
    let mut latency = Vec::new();
    let (mut delivered, mut arrived_last) = (0u64, 0u64);
    for f in warm_up + 1..=last {
        let a = arrived[f as usize].load(Ordering::Relaxed);
        if a != 0 {
            delivered += 1;
            arrived_last = arrived_last.max(a);
            latency.push(Duration::from_nanos(
                a - started[f as usize].load(Ordering::Relaxed),
            ));
        }
    }
    let elapsed =
        Duration::from_nanos(arrived_last).saturating_sub(measured_from.duration_since(epoch));
    let _ = delivered_all;
    let secs = elapsed.as_secs_f64().max(1e-9);
    Outcome {
        frames,
        delivered,
        bytes_per_frame,
        image_bytes: images.iter().map(Vec::len).sum(),
        fps: delivered as f64 / secs,
        mbps: delivered as f64 * bytes_per_frame as f64 / secs / 1e6,
        api: spread(&mut api),
        cpu: spread(&mut cpu),
        frame: spread(&mut frame_times),
        latency: spread(&mut latency),
        allocations,
    }
}
