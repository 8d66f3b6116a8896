//! ROS 2 publishing under load: 4 cameras at a size and rate, read over DDS
//! by 2 native reader processes on Eclipse Cyclone DDS (one reliable, one
//! best effort, each reading every camera; `ros2_native/reader.c`), and
//! the game thread's time per frame with publishing off and on.

use crate::stats::{spread, Spread};
use carla_server::ros2::SensorNames;
use carla_server::types::CaptureContext;
use carla_server::Server;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What one run measured.
pub(crate) struct Outcome {
    pub game: Spread,
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
}

/// Builds the native reader (Debian's `cyclonedds-dev`: `idlc` and
/// `libddsc`) into `target/ros2-native`; `Err` says what is missing.
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
    run(Command::new("cc")
        .args(["-O2", "-I.", "-o", "reader"])
        .args([
            src.join("reader.c").as_os_str(),
            "ros_types.c".as_ref(),
            "-lddsc".as_ref(),
        ]))?;
    Ok(out.join("reader"))
}

fn reader(exe: &Path, qos: &str, seconds: f64, domain: u32, topics: &[String]) -> Child {
    Command::new(exe)
        .args(["image", qos, &seconds.to_string(), &domain.to_string()])
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

/// One run; with `ros2`, the cameras are also published on DDS and read
/// by the 2 native readers (`exe`).
pub(crate) fn run(exe: &Path, load: &Load, ros2: bool) -> Outcome {
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
        let window = load.seconds + 4.0;
        for qos in ["reliable", "best_effort"] {
            children.push((qos, reader(exe, qos, window, domain, &topics)));
        }
    }
    let pixels = vec![7u8; (w * h * 4) as usize];
    if ros2 {
        // One frame first, so the writers exist (a writer is made at its
        // sensor's first message) and discovery matches them before timing.
        let ctx = CaptureContext::default();
        for id in &ids {
            let _ = server.sensor(*id).unwrap().send_image(&ctx, &pixels);
        }
        std::thread::sleep(Duration::from_millis(2500));
    }
    let mut samples = Vec::new();
    let period = Duration::from_secs_f64(1.0 / load.hz);
    let start = Instant::now();
    let mut next = start;
    let mut frame = 0u64;
    while start.elapsed().as_secs_f64() < load.seconds {
        frame += 1;
        let ctx = CaptureContext {
            frame,
            timestamp: frame as f64 / load.hz,
            ..Default::default()
        };
        let t = Instant::now();
        for id in &ids {
            let _ = server.sensor(*id).unwrap().send_image(&ctx, &pixels);
        }
        samples.push(t.elapsed());
        next += period;
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let readers = children
        .into_iter()
        .map(|(qos, c)| {
            let out = c.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            (qos, per_topic_rates(&text, load.seconds))
        })
        .collect();
    let stats = server.ros2_stats();
    Outcome {
        game: spread(&mut samples),
        readers,
        published: stats.published,
        dropped: stats.dropped,
    }
}
