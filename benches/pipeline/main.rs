//! The library's performance benchmark, in one process and one run:
//! `cargo bench --bench pipeline` (set `BENCH_SCALE=0.1` for a quick pass).
//!
//! 1. The 0.8 protocol through the C API with a client on loopback: sync
//!    and async x five workloads; delivered frames/s and MB/s, game-thread
//!    time per frame, end-to-end latency, frames lost, allocations, beside
//!    the memcpy and raw loopback TCP baselines of the same bytes.
//! 2. 0.9 cameras, 4 x 800x600 async: copy path vs zero-copy path.
//! 3. Fan-out: one camera stream to 1 and to 8 subscribers.
//! 4. Lidar: 64 channels at 1.3 M points/s, CPU per second of sensor time.
//! 5. The library threads' scheduling policy: batch (default) vs normal.
//! 6. The 0.9.16 protocol: synchronous tick round trip through the RPC port
//!    (no sensor, one 800x600 camera) beside raw TCP round trips, and the
//!    game thread's time per tick with 100 actors.
//! 7. A stalled subscriber on one camera stream: the game thread's time per
//!    frame in each delivery mode, beside a memcpy of the image.
//!
//! `BENCH_ONLY=legacy,cameras,fanout,lidar,policy,rpc,stall` picks sections;
//! `BENCH_ALLOC_TRACE=1` prints where counted allocations come from.

mod alloc;
mod baseline;
#[path = "../../tests/common/capi_host.rs"]
mod capi_host;
mod legacy;
mod recorder;
mod ros2;
mod rpc;
mod sensors;
mod stall;
mod stats;

use legacy::{Length, Workload};
use stats::us;
use std::time::Duration;

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

fn scale_factor() -> f64 {
    std::env::var("BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1.0)
}

fn scale(n: u32) -> u32 {
    ((f64::from(n) * scale_factor()) as u32).max(20)
}

fn free_port() -> u16 {
    // Three consecutive free ports for the 0.8 server.
    for _ in 0..100 {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let p = l.local_addr().unwrap().port();
        drop(l);
        if p < 60000 && (1..3).all(|i| std::net::TcpListener::bind(("0.0.0.0", p + i)).is_ok()) {
            return p;
        }
    }
    panic!("no three free ports");
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cpu}, {cores} cores")
}

fn legacy_matrix() {
    let w = |name, n: usize, (x, y): (u32, u32), agents, sync_frames| {
        let cameras = vec![(x, y); n];
        (
            Workload {
                name,
                cameras,
                agents,
            },
            sync_frames,
        )
    };
    // Synchronous frame counts: 10,000 where a frame takes under a
    // millisecond (the stall check), fewer for the big images.
    let workloads = [
        w("measurements only", 0, (0, 0), 0, 10_000),
        w("1 camera 800x600", 1, (800, 600), 0, 10_000),
        w("4 cameras 800x600", 4, (800, 600), 0, 2_000),
        w("4 cameras 1920x1080", 4, (1920, 1080), 0, 300),
        w("30 non-player agents", 0, (0, 0), 30, 10_000),
    ];
    println!("\n## 1. 0.8 protocol through the C API, client on loopback\n");
    println!("| mode | workload | bytes/frame | frames/s | MB/s | raw TCP MB/s | ratio | raw TCP + copy MB/s | ratio | lost | allocs/frame |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut game = Vec::new();
    let async_time = Duration::from_secs_f64(3.0 * scale_factor()).max(Duration::from_millis(300));
    for (w, sync_frames) in &workloads {
        for sync in [true, false] {
            let frames = scale(*sync_frames);
            let length = if sync {
                Length::Frames(frames)
            } else {
                Length::Time(async_time, 3_000_000)
            };
            let o = legacy::run(free_port(), sync, w, length, (frames / 10).clamp(10, 100));
            let tcp_frames = baseline::frames_for(o.bytes_per_frame, 2_000_000_000);
            let tcp = baseline::tcp_throughput(o.bytes_per_frame, tcp_frames, false);
            let tcp_loaded = baseline::tcp_throughput(o.bytes_per_frame, tcp_frames, true);
            let copy = baseline::memcpy(o.image_bytes.max(o.bytes_per_frame), 200);
            let mode = if sync { "sync" } else { "async" };
            println!(
                "| {mode} | {} | {} | {:.0} | {:.1} | {:.1} | {:.2} | {:.1} | {:.2} | {} ({:.1}%) | {:.3} |",
                w.name,
                o.bytes_per_frame,
                o.fps,
                o.mbps,
                tcp,
                o.mbps / tcp,
                tcp_loaded,
                o.mbps / tcp_loaded,
                u64::from(o.frames) - o.delivered,
                100.0 * (u64::from(o.frames) - o.delivered) as f64 / f64::from(o.frames),
                o.allocations as f64 / f64::from(o.frames),
            );
            let rt = sync.then(|| baseline::tcp_round_trips(o.bytes_per_frame, o.frames as usize));
            game.push((mode, w.name, o, copy, rt));
        }
    }
    println!("\nGame-thread time per frame in library calls (sync: without the wait for the client's control), µs;");
    println!("memcpy of the frame's image bytes (or its whole bytes without images), same run:\n");
    println!("| mode | workload | p50 | p99 | max | CPU p50 | CPU p99 | memcpy p50 | p99 / memcpy | CPU p99 / memcpy | e2e latency p50 | e2e p99 |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (mode, name, o, copy, _) in &game {
        let (copy_p50, ratio, cpu_ratio) = if o.image_bytes > 0 {
            let r = o.api.p99.as_secs_f64() / copy.p50.as_secs_f64();
            let c = o.cpu.p99.as_secs_f64() / copy.p50.as_secs_f64();
            (us(copy.p50), format!("{r:.2}"), format!("{c:.2}"))
        } else {
            ("-".into(), "-".into(), "-".into())
        };
        println!(
            "| {mode} | {name} | {} | {} | {} | {} | {} | {copy_p50} | {ratio} | {cpu_ratio} | {} | {} |",
            us(o.api.p50),
            us(o.api.p99),
            us(o.api.max),
            us(o.cpu.p50),
            us(o.cpu.p99),
            us(o.latency.p50),
            us(o.latency.p99)
        );
    }
    println!("\nSynchronous frame time (write, client round trip, control), µs, against raw TCP round trips of the same bytes:\n");
    println!("| workload | frames | p50 | p99 | max | max / p99 | raw TCP p50 | raw p99 | raw max | raw max / p99 |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (_, name, o, _, rt) in &game {
        if let Some(rt) = rt {
            println!(
                "| {name} | {} | {} | {} | {} | {:.2} | {} | {} | {} | {:.2} |",
                o.frames,
                us(o.frame.p50),
                us(o.frame.p99),
                us(o.frame.max),
                o.frame.max.as_secs_f64() / o.frame.p99.as_secs_f64(),
                us(rt.p50),
                us(rt.p99),
                us(rt.max),
                rt.max.as_secs_f64() / rt.p99.as_secs_f64()
            );
        }
    }
}

fn camera_paths() {
    println!("\n## 2. 0.9 cameras, 4 x 800x600, asynchronous, one subscriber each\n");
    println!("| path | game-thread p50 µs | p99 | max | CPU p50 | CPU p99 | memcpy of 4 images p50 | p99 / memcpy | CPU p99 / memcpy | delivered/s per stream | MB/s | allocs/frame | preempted/frame |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let frames = scale(1_000);
    for zero_copy in [false, true] {
        let o = sensors::cameras(4, (800, 600), 1, frames, zero_copy);
        let copy = baseline::memcpy(o.image_bytes, 200);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.0} | {:.0} | {:.3} | {:.2} |",
            if zero_copy {
                "zero-copy (acquire + commit)"
            } else {
                "copy (carla_sensor_send_image)"
            },
            us(o.api.p50),
            us(o.api.p99),
            us(o.api.max),
            us(o.cpu.p50),
            us(o.cpu.p99),
            us(copy.p50),
            o.api.p99.as_secs_f64() / copy.p50.as_secs_f64(),
            o.cpu.p99.as_secs_f64() / copy.p50.as_secs_f64(),
            o.delivered_per_subscriber,
            o.mbps,
            o.allocations as f64 / f64::from(frames),
            o.preempted
        );
    }
}

fn fan_out() {
    println!("\n## 3. Fan-out: one 800x600 camera stream (zero-copy), asynchronous\n");
    println!("| subscribers | game-thread p50 µs | p99 | max | CPU p99 | delivered/s per subscriber | total MB/s | raw TCP MB/s (1 reader) | allocs/frame | preempted/frame |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let frames = scale(2_000);
    let bytes = 800 * 600 * 4 + 64;
    let tcp = baseline::tcp_throughput(bytes, baseline::frames_for(bytes, 2_000_000_000), false);
    for subs in [1, 8] {
        let o = sensors::cameras(1, (800, 600), subs, frames, true);
        println!(
            "| {subs} | {} | {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.3} | {:.2} |",
            us(o.api.p50),
            us(o.api.p99),
            us(o.api.max),
            us(o.cpu.p99),
            o.delivered_per_subscriber,
            o.mbps,
            tcp,
            o.allocations as f64 / f64::from(frames),
            o.preempted
        );
    }
}

fn stalled_subscriber() {
    println!("\n## 7. A stalled subscriber: one 800x600 camera (zero-copy), one reader that keeps up, one that reads nothing\n");
    println!("| delivery | frames timed (after 50) | game-thread p50 µs | p99 | max | max / memcpy p50 | sends timed out | frames the reader got, of all |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let copy = baseline::memcpy(800 * 600 * 4, 200);
    println!(
        "| (memcpy of the image) | 200 | {} | {} | {} | 1 | | |",
        us(copy.p50),
        us(copy.p99),
        us(copy.max)
    );
    let frames = scale(500);
    for (mode, frames) in [
        (stall::Mode::Asynchronous, frames),
        (stall::Mode::Queued(16), frames),
        (stall::Mode::Synchronous(20), frames.min(100)),
    ] {
        let o = stall::stalled(mode, frames);
        println!(
            "| {mode:?} | {frames} | {} | {} | {} | {:.1} | {} | {} |",
            us(o.api.p50),
            us(o.api.p99),
            us(o.api.max),
            o.api.max.as_secs_f64() / copy.p50.as_secs_f64(),
            o.timed_out,
            o.healthy
        );
    }
}

fn lidar() {
    println!("\n## 4. Lidar, 64 channels, 1.3 M points/s, 20 Hz ticks, one subscriber\n");
    println!("| general drop-off | sensor s | points/s traced | game-thread CPU ms per sensor s | bytes out/s | memcpy of those bytes, ms | allocs/tick |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let seconds = scale(10).clamp(2, 10);
    for dropoff in ["0.0", "0.45"] {
        let o = sensors::lidar(seconds, 20, dropoff);
        let per_s = o.bytes as f64 / o.sensor_seconds;
        let copy = baseline::memcpy((per_s / 20.0) as usize, 100);
        println!(
            "| {dropoff} | {:.0} | {:.0} | {:.1} | {:.1} MB | {:.2} | {:.3} |",
            o.sensor_seconds,
            o.points as f64 / o.sensor_seconds,
            o.cpu.as_secs_f64() * 1e3 / o.sensor_seconds,
            per_s / 1e6,
            copy.p50.as_secs_f64() * 1e3 * 20.0,
            o.allocations as f64 / (o.sensor_seconds * 20.0)
        );
    }
}

/// The library threads' scheduling policy (src/threads.rs): batch (the
/// default) against normal, on the rows where it matters.
fn thread_policy() {
    println!("\n## 5. Library threads: SCHED_BATCH (default) against the normal policy\n");
    println!(
        "| policy | run | game-thread p50 µs | p99 | max | delivered/s | e2e p50 µs | e2e p99 |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    let time = Duration::from_secs_f64(2.0 * scale_factor()).max(Duration::from_millis(300));
    for batch in [true, false] {
        carla_server::set_yield_to_game_thread(batch);
        let policy = if batch { "batch" } else { "normal" };
        for (name, cameras) in [
            ("async measurements only", 0),
            ("async 4 cameras 800x600", 4),
        ] {
            let w = Workload {
                name,
                cameras: vec![(800, 600); cameras],
                agents: 0,
            };
            let o = legacy::run(free_port(), false, &w, Length::Time(time, 3_000_000), 100);
            println!(
                "| {policy} | 0.8 {name} | {} | {} | {} | {:.0} | {} | {} |",
                us(o.api.p50),
                us(o.api.p99),
                us(o.api.max),
                o.fps,
                us(o.latency.p50),
                us(o.latency.p99)
            );
        }
        let o = sensors::cameras(4, (800, 600), 1, scale(1_000), true);
        println!(
            "| {policy} | 0.9 zero-copy 4 cameras 800x600 | {} | {} | {} | {:.0} | - | - |",
            us(o.api.p50),
            us(o.api.p99),
            us(o.api.max),
            o.delivered_per_subscriber
        );
    }
    carla_server::set_yield_to_game_thread(true);
}

fn rpc_ticks() {
    println!("\n## 6. CARLA 0.9.16 protocol: synchronous ticks through the RPC port, 100 actors per state\n");
    println!("| sensors | ticks | round trip p50 µs | p99 | raw TCP round trip p50 | p99 | p50 ratio | game thread p50 µs | p99 | CPU p50 | CPU p99 | allocs/tick |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let ticks = scale(5_000);
    for camera in [false, true] {
        let o = rpc::ticks(camera, ticks, 100);
        // A tick is a ~20-byte request, a 12 KiB state (+ a 1.9 MB image).
        let bytes = 48 + 36 + 119 * 101 + if camera { 800 * 600 * 4 + 60 } else { 0 };
        let raw = baseline::tcp_round_trips(bytes, ticks as usize);
        println!(
            "| {} | {ticks} | {} | {} | {} | {} | {:.2} | {} | {} | {} | {} | {:.3} |",
            if camera { "1 camera 800x600" } else { "none" },
            us(o.round_trip.p50),
            us(o.round_trip.p99),
            us(raw.p50),
            us(raw.p99),
            o.round_trip.p50.as_secs_f64() / raw.p50.as_secs_f64(),
            us(o.game.p50),
            us(o.game.p99),
            us(o.game_cpu.p50),
            us(o.game_cpu.p99),
            o.allocations_per_tick
        );
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return; // `cargo test --benches` probes; nothing to list
    }
    carla_server::log::set_max_level(carla_server::log::Level::Warning);
    println!(
        "# carla_server pipeline benchmark\n\nMachine: {}",
        machine()
    );
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    let run = |s: &str| only.is_empty() || only.split(',').any(|o| o == s);
    if run("legacy") {
        legacy_matrix();
    }
    if run("cameras") {
        camera_paths();
    }
    if run("fanout") {
        fan_out();
    }
    if run("lidar") {
        lidar();
    }
    if run("policy") {
        thread_policy();
    }
    if run("rpc") {
        rpc_ticks();
    }
    if run("stall") {
        stalled_subscriber();
    }
    if run("ros2") {
        ros2_publishing();
    }
    if run("recorder") {
        recording();
    }
}

/// The recorder's cost on the game thread: 100 vehicles per state.
fn recording() {
    println!(
        "\n## 9. Recorder: send_episode_state with 100 moving vehicles, recording off and on\n"
    );
    println!("| recording | frames timed | game thread p50 µs | p99 | max | CPU p50 | p99 | p50 over off | allocs/frame | bytes/frame | frames dropped |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let frames = scale(2_000).max(50);
    let rounds = 3;
    let o = recorder::run(100, frames, rounds);
    for (name, r) in ["off", "on", "on, additional_data"].iter().zip(&o) {
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.0} | {} |",
            rounds * (frames - 10),
            us(r.wall.p50),
            us(r.wall.p99),
            us(r.wall.max),
            us(r.cpu.p50),
            us(r.cpu.p99),
            us(r.wall.p50.saturating_sub(o[0].wall.p50)),
            r.allocations_per_frame,
            r.bytes_per_frame,
            r.dropped
        );
    }
}

/// 4 cameras at 800x600 30 Hz and 1920x1080 20 Hz, read over DDS by 2
/// native reader processes; publishing off, on, and a native publisher's
/// traffic instead, in rounds (the machine's speed drifts within a run).
fn ros2_publishing() {
    use ros2::Publisher;
    println!(
        "\n## 8. ROS 2: 4 cameras, 2 native DDS readers (reliable, best effort) of every camera\n"
    );
    let exe = match ros2::native_reader() {
        Ok(exe) => exe,
        Err(e) => {
            println!("(skipped: cannot build the native reader: {e})");
            return;
        }
    };
    let rmem = std::fs::read_to_string("/proc/sys/net/core/rmem_max").unwrap_or_default();
    let rounds: usize = std::env::var("BENCH_ROS2_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let seconds = (5.0 * scale_factor()).max(3.0);
    println!(
        "Readers' receive buffer: Cyclone's default, or `CYCLONEDDS_URI` if set ({}); net.core.rmem_max {}.\n",
        std::env::var("CYCLONEDDS_URI").unwrap_or_else(|_| "unset".into()),
        rmem.trim()
    );
    println!("{rounds} rounds of {seconds} s per row, off / on / native in turn; medians over the rounds, but the p99 compared with off's: over all rounds' frames together. Native: the library's publishing off while a Cyclone DDS publisher of its own process (`ros2_native/writer.c`) sends the same images to the same readers, the cost of that DDS traffic on this machine when none of it is the library's. Placed: the game thread on CPU 0, the readers on CPU 1 (the engine's game thread with a core of its own); the library's threads and the native publisher run anywhere. Preempted: the game thread descheduled against its will, per frame; other threads' CPU: the bench process's CPU time besides the game thread's, per frame (the library's ROS 2 and DDS threads; the native publisher and the readers are processes of their own); blocks allocated: image blocks the cameras' pools had to allocate, per frame (fresh pages, on the game thread).\n");
    println!("| cameras | placed | publishing | game thread p50 µs | p99 µs, each round | p99 µs, all rounds' frames | its p99 over off's | its CPU p50 / p99 µs | preempted | other threads' CPU ms | blocks allocated | reliable reader, frames/s per camera | best effort | published / dropped for ROS |");
    println!("|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|---:|");
    let publishers = [
        ("off", Publisher::Off),
        ("library", Publisher::Library),
        ("native", Publisher::Native),
    ];
    let only = |var: &str, v: &str| std::env::var(var).map_or(true, |o| o == v);
    for (size, hz) in [((800, 600), 30.0), ((1920, 1080), 20.0)] {
        for placed in [false, true] {
            let yes_no = if placed { "yes" } else { "no" };
            // Placing needs a CPU 1.
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            if !only("BENCH_ROS2_WIDTH", &size.0.to_string())
                || !only("BENCH_ROS2_PLACED", yes_no)
                || (placed && cpus < 2)
            {
                continue;
            }
            let load = ros2::Load {
                cameras: 4,
                size,
                hz,
                seconds,
                placed,
            };
            let mut runs: Vec<Vec<ros2::Outcome>> = publishers.iter().map(|_| Vec::new()).collect();
            for _ in 0..rounds {
                for (k, (_, p)) in publishers.iter().enumerate() {
                    runs[k].push(ros2::run(&exe, &load, *p));
                }
            }
            let label = format!("4 × {}x{} at {hz} Hz", size.0, size.1);
            let off_p99 = ros2::pooled_p99(&runs[0]);
            for ((name, _), outcomes) in publishers.iter().zip(&runs) {
                println!(
                    "| {label} | {} | {name} | {}",
                    yes_no,
                    ros2::row(outcomes, off_p99)
                );
            }
        }
    }
}
