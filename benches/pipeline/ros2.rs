//! ROS 2 publishing under load: 4 cameras at a size and rate, read over DDS
//! by 2 native reader processes on Eclipse Cyclone DDS (one reliable, one
//! best effort, each reading every camera; `ros2_native/reader.c`), and
//! the game thread's time per frame with publishing off and on.

use crate::stats::{involuntary_switches, median, process_cpu, spread, thread_cpu, Spread};
use carla_server::ros2::SensorNames;
use carla_server::types::CaptureContext;
use carla_server::Server;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Seconds of frames sent before the timed ones.
const WARM_UP_S: f64 = 1.5;

/// What one run measured.
pub(crate) struct Outcome {
    pub game: Spread,
    /// The game thread's time of each timed frame (the rounds' samples are
    /// pooled for the row's p99: 5 s at 20 Hz is 100 frames, whose p99
    /// alone is their largest but one).
    pub samples: Vec<Duration>,
    /// The game thread's CPU time per frame (what it did itself).
    pub game_cpu: Spread,
    /// Times the game thread was descheduled against its will while timed.
    pub preempted: u64,
    /// CPU time of the process's other threads while timed (the library's
    /// ROS 2 and DDS threads; the native publisher and the readers are
    /// processes of their own).
    pub others_cpu: Duration,
    pub frames: usize,
    /// Image blocks the cameras' pools allocated while timed (a send that
    /// found no idle block: the allocator's fresh pages, on the game thread).
    pub allocations: u64,
    /// Per reader: its QoS and the frames a second it got of each camera.
    pub readers: Vec<(&'static str, Vec<f64>)>,
    pub published: u64,
    pub dropped: u64,
}

/// One run's load: cameras of `size` sent at `hz` for `seconds`.
pub(crate) struct Load {
    pub cameras: usize,
    pub size: (u32, u32),
    pub hz: f64,
    pub seconds: f64,
    /// The game thread on CPU 0 and the readers on CPU 1 (Linux), as on a
    /// machine where the engine's game thread has a core of its own and
    /// the consumers run elsewhere; the library's threads go anywhere.
    pub placed: bool,
}

/// Who publishes the cameras on DDS in a run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Publisher {
    /// Nobody: the game thread's time with publishing off.
    Off,
    /// The library (`start_ros2`, `publish_sensor_on_ros2`).
    Library,
    /// A native Cyclone DDS publisher process (`ros2_native/writer.c`)
    /// sends the same images to the same readers while the library's
    /// publishing is off: what that traffic costs the game thread on this
    /// machine when none of it is the library's.
    Native,
}

/// Builds the native reader and writer (Debian's `cyclonedds-dev`: `idlc`
/// and `libddsc`) into `target/ros2-native`; the reader's path (the writer
/// is beside it); `Err` says what is missing.
pub(crate) fn native_reader() -> Result<PathBuf, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("benches/pipeline/ros2_native");
    let idl = root.join("tests/native_dds/ros_types.idl");
    let out = root.join("target/ros2-native");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let run = |cmd: &mut Command| -> Result<(), String> {
        let status = cmd.current_dir(&out).status().map_err(|e| e.to_string())?;
        status
            .success()
            .then_some(())
            .ok_or(format!("{cmd:?} failed"))
    };
    run(Command::new("idlc").arg(idl))
        .map_err(|e| format!("{e} (apt-get install cyclonedds-dev)"))?;
    for exe in ["reader", "writer"] {
        run(Command::new("cc").args(["-O2", "-I.", "-o", exe]).args([
            src.join(format!("{exe}.c")).as_os_str(),
            "ros_types.c".as_ref(),
            "-lddsc".as_ref(),
        ]))?;
    }
    Ok(out.join("reader"))
}

/// `exe`, on CPU 1 if the run is placed.
fn command(exe: &Path, load: &Load) -> Command {
    if load.placed {
        let mut c = Command::new("taskset");
        c.args(["-c", "1"]).arg(exe);
        c
    } else {
        Command::new(exe)
    }
}

fn reader(exe: &Path, qos: &str, load: &Load, domain: u32, topics: &[String]) -> Child {
    let window = WARM_UP_S + load.seconds + 4.0;
    command(exe, load)
        .args(["image", qos, &window.to_string(), &domain.to_string()])
        .args(topics)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("a reader process")
}

/// Frames a second per topic from the reader's lines
/// (`TOPIC QOS: S samples, F frames in ...`), over the sending `seconds`.
fn per_topic_rates(text: &str, seconds: f64) -> Vec<f64> {
    text.lines()
        .filter_map(|l| {
            let frames = l.split(", ").nth(1)?.split(' ').next()?;
            frames.parse::<f64>().ok().map(|f| f / seconds)
        })
        .collect()
}

/// One run; unless `publisher` is `Off`, the cameras (or the native
/// publisher's) are published on DDS and read by the 2 native readers
/// (`exe`).
pub(crate) fn run(exe: &Path, load: &Load, publisher: Publisher) -> Outcome {
    let ros2 = publisher == Publisher::Library;
    let server = Server::new();
    // Sensors need the streaming port; no TCP subscriber reads it here.
    let _stream = server.listen_streaming(0).unwrap();
    let (w, h) = load.size;
    let (ws, hs) = (w.to_string(), h.to_string());
    let ids: Vec<u32> = (0..load.cameras)
        .map(|_| {
            server
                .create_sensor(
                    "sensor.camera.rgb",
                    &[("image_size_x", &ws), ("image_size_y", &hs)],
                )
                .unwrap()
        })
        .collect();
    let domain = 200 + std::process::id() % 30;
    let mut topics = Vec::new();
    let mut children = Vec::new();
    if ros2 {
        server.start_ros2(domain as u16).unwrap();
        for (i, id) in ids.iter().enumerate() {
            let name = format!("cam{i}");
            topics.push(format!("rt/carla/bench/{name}/image"));
            let names = SensorNames {
                base: format!("rt/carla/bench/{name}"),
                frame_id: name,
                parent_frame: "bench".into(),
                publish_tf: false,
                transform: Default::default(),
            };
            server.publish_sensor_on_ros2(*id, names).unwrap();
        }
    }
    let mut native = None;
    if publisher == Publisher::Native {
        topics = (0..load.cameras)
            .map(|i| format!("rt/carla/bench/cam{i}/image"))
            .collect();
        native = Some(
            // Anywhere, as the library's threads are.
            Command::new(exe.with_file_name("writer"))
                .arg((WARM_UP_S + load.seconds).to_string())
                .arg(load.hz.to_string())
                .args([w.to_string(), h.to_string(), domain.to_string()])
                .args(&topics)
                .stdout(Stdio::piped())
                .spawn()
                .expect("the native writer process"),
        );
    }
    if publisher != Publisher::Off {
        for qos in ["reliable", "best_effort"] {
            children.push((qos, reader(exe, qos, load, domain, &topics)));
        }
    }
    let pixels = vec![7u8; (w * h * 4) as usize];
    if publisher != Publisher::Off {
        // One frame first, so the writers exist (a writer is made at its
        // sensor's first message) and discovery matches them before timing
        // (the native writer waits as long before it starts).
        let ctx = CaptureContext::default();
        for id in &ids {
            let _ = server.sensor(*id).unwrap().send_image(&ctx, &pixels);
        }
        std::thread::sleep(Duration::from_millis(2500));
    }
    if load.placed {
        pin_to(Some(0));
    }
    let allocated = |ids: &[u32]| -> u64 {
        ids.iter()
            .map(|id| server.sensor(*id).unwrap().stats().pool_allocations)
            .sum()
    };
    let period = Duration::from_secs_f64(1.0 / load.hz);
    let start = Instant::now();
    let mut next = start;
    let mut frame = 0u64;
    let (mut samples, mut cpu) = (Vec::new(), Vec::new());
    let (mut allocated_before, mut switches) = (0, 0);
    // The process's and the game thread's CPU time when timing began.
    let (mut process_before, mut game_before) = (Duration::ZERO, Duration::ZERO);
    // WARM_UP_S untimed first, in every mode: the pools grow to what the
    // run keeps in flight (with publishing, the frames waiting for the
    // ROS 2 thread), once per sensor, as in any session's first second.
    while start.elapsed().as_secs_f64() < WARM_UP_S + load.seconds {
        frame += 1;
        let timed = start.elapsed().as_secs_f64() >= WARM_UP_S;
        if timed && samples.is_empty() {
            (allocated_before, switches) = (allocated(&ids), involuntary_switches());
            (process_before, game_before) = (process_cpu(), thread_cpu());
        }
        let ctx = CaptureContext {
            frame,
            timestamp: frame as f64 / load.hz,
            ..Default::default()
        };
        let (t, c) = (Instant::now(), thread_cpu());
        for id in &ids {
            let _ = server.sensor(*id).unwrap().send_image(&ctx, &pixels);
        }
        if timed {
            samples.push(t.elapsed());
            cpu.push(thread_cpu().saturating_sub(c));
        }
        next += period;
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let preempted = involuntary_switches() - switches;
    let others_cpu = (process_cpu() - process_before).saturating_sub(thread_cpu() - game_before);
    let allocations = allocated(&ids) - allocated_before;
    if load.placed {
        pin_to(None);
    }
    let readers = children
        .into_iter()
        .map(|(qos, c)| {
            let out = c.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            (qos, per_topic_rates(&text, WARM_UP_S + load.seconds))
        })
        .collect();
    if let Some(writer) = native {
        let out = writer.wait_with_output().expect("the native writer ends");
        eprint!("{}", String::from_utf8_lossy(&out.stdout));
    }
    let stats = server.ros2_stats();
    Outcome {
        game: spread(&mut samples),
        frames: samples.len(),
        samples,
        game_cpu: spread(&mut cpu),
        preempted,
        others_cpu,
        allocations,
        readers,
        published: stats.published,
        dropped: stats.dropped,
    }
}

/// Keeps the calling thread on CPU `cpu`, or lets it run anywhere again.
/// Every CPU online, not `available_parallelism` (which counts the CPUs
/// the calling thread may use: 1 while pinned, so the thread stayed on CPU
/// 0 after the first placed row, and the threads and readers it started
/// in the rows after it with it).
#[cfg(target_os = "linux")]
fn pin_to(cpu: Option<usize>) {
    // SAFETY: sysconf only reads a system value.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    let cpus = usize::try_from(online)
        .unwrap_or(1)
        .clamp(1, libc::CPU_SETSIZE as usize);
    // SAFETY: an all-zero cpu_set_t is an empty set; the CPU_* helpers and
    // sched_setaffinity read and write only that local set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for c in 0..cpus {
            if cpu.is_none_or(|only| only == c) {
                libc::CPU_SET(c, &mut set);
            }
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

#[cfg(not(target_os = "linux"))]
fn pin_to(_cpu: Option<usize>) {}

/// The game thread's p99 per frame over all rounds' frames together.
pub(crate) fn pooled_p99(outcomes: &[Outcome]) -> Duration {
    let mut all: Vec<Duration> = (outcomes.iter())
        .flat_map(|o| o.samples.iter().copied())
        .collect();
    spread(&mut all).p99
}

/// A report row's cells after the publisher's name: medians over the
/// rounds, each round's p99, the p99 of all rounds' frames together
/// against off's, and each reader's frames a second per camera (lowest and
/// highest over the cameras and rounds).
pub(crate) fn row(outcomes: &[Outcome], off_p99: Duration) -> String {
    let us = |d: Duration| d.as_micros();
    let p99s: Vec<String> = outcomes
        .iter()
        .map(|o| us(o.game.p99).to_string())
        .collect();
    let p99 = pooled_p99(outcomes);
    let frames: usize = outcomes.iter().map(|o| o.frames).sum();
    let preempted: u64 = outcomes.iter().map(|o| o.preempted).sum();
    let rates = |qos: &str| {
        let all: Vec<f64> = outcomes
            .iter()
            .flat_map(|o| o.readers.iter().filter(|(q, _)| *q == qos))
            .flat_map(|(_, r)| r.iter().copied())
            .collect();
        if all.is_empty() {
            return "—".to_owned();
        }
        let min = all.iter().copied().fold(f64::INFINITY, f64::min);
        let max = all.iter().copied().fold(0.0, f64::max);
        format!("{min:.1}–{max:.1}")
    };
    format!(
        "{} | {} | {} | {:+.0}% | {} / {} | {:.2} | {:.1} | {:.2} | {} | {} | {} / {} |",
        us(median(outcomes.iter().map(|o| o.game.p50))),
        p99s.join(", "),
        us(p99),
        (p99.as_secs_f64() / off_p99.as_secs_f64().max(1e-9) - 1.0) * 100.0,
        us(median(outcomes.iter().map(|o| o.game_cpu.p50))),
        us(median(outcomes.iter().map(|o| o.game_cpu.p99))),
        preempted as f64 / frames.max(1) as f64,
        outcomes
            .iter()
            .map(|o| o.others_cpu.as_secs_f64())
            .sum::<f64>()
            * 1e3
            / frames.max(1) as f64,
        outcomes.iter().map(|o| o.allocations).sum::<u64>() as f64 / frames.max(1) as f64,
        rates("reliable"),
        rates("best_effort"),
        outcomes.iter().map(|o| o.published).sum::<u64>(),
        outcomes.iter().map(|o| o.dropped).sum::<u64>(),
    )
}
