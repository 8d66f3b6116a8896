//! Steady state allocates nothing per frame on the server side: a counting
//! allocator counts every allocation of the process except on the client's
//! thread, while a synchronous episode runs (camera + lidar records, 30
//! agents, controls back).

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

#[test]
fn a_steady_synchronous_episode_allocates_nothing_per_frame() {
    let port = common::free_port_base();
    let server = Arc::new(Server::new());
    server.connect(u32::from(port), T).unwrap();
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
    for f in 1..=WARM_UP + MEASURED {
        if f == WARM_UP + 1 {
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
    client.join().unwrap();
    let n = ALLOCATIONS.load(Ordering::SeqCst);
    assert_eq!(n, 0, "{n} allocations in {MEASURED} steady-state frames");
}
