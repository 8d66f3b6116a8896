//! ROS 2 publishing under load: 4 cameras 1920x1080 at 20 Hz, read by 2
//! subscriber processes over DDS (Eclipse Cyclone DDS's Python binding)
//! and 2 over the library's TCP streams, in one run; the game thread's
//! time per frame (4 image sends) with publishing off and on.

use crate::stats::{spread, Spread};
use carla_server::ros2::SensorNames;
use carla_server::types::CaptureContext;
use carla_server::Server;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What one run measured.
pub(crate) struct Outcome {
    pub game: Spread,
    /// (frames/s, MB/s) per reader process, TCP ones first.
    pub readers: Vec<(&'static str, f64, f64)>,
    pub published: u64,
    pub dropped: u64,
}

/// The venv scripts/test.sh makes (carla + cyclonedds), if present.
pub(crate) fn python() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let p = root.join("target/venv-carla-0.9.16/bin/python");
    p.exists().then_some(p)
}

fn reader(python: &PathBuf, args: &[String]) -> Child {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/pipeline/ros2_reader.py");
    Command::new(python)
        .arg(script)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("a reader process")
}

/// `seconds` of 20 Hz frames of 4 cameras `(w, h)`; with `ros2`, also
/// published on DDS and read by 2 DDS readers.
pub(crate) fn run(python: &PathBuf, (w, h): (u32, u32), seconds: f64, ros2: bool) -> Outcome {
    let server = Server::new();
    let stream = server.listen_streaming(0).unwrap();
    let (ws, hs) = (w.to_string(), h.to_string());
    let ids: Vec<u32> = (0..4)
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
    let window = seconds + 3.0;
    let mut children = Vec::new();
    for _ in 0..2 {
        let mut args = vec!["tcp".into(), stream.port().to_string(), window.to_string()];
        args.extend(ids.iter().map(|i| i.to_string()));
        children.push(("TCP", reader(python, &args)));
    }
    if ros2 {
        for _ in 0..2 {
            let mut args = vec!["dds".into(), domain.to_string(), window.to_string()];
            args.extend(topics.iter().cloned());
            children.push(("DDS", reader(python, &args)));
        }
    }
    // Subscriptions and discovery settle.
    std::thread::sleep(Duration::from_millis(2000));
    let pixels = vec![7u8; (w * h * 4) as usize];
    let mut samples = Vec::new();
    let period = Duration::from_millis(50);
    let start = Instant::now();
    let mut next = start;
    let mut frame = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        frame += 1;
        let ctx = CaptureContext {
            frame,
            timestamp: frame as f64 * 0.05,
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
        .map(|(kind, c)| {
            let out = c.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            let mut it = text
                .split_whitespace()
                .map(|n| n.parse::<f64>().unwrap_or(0.0));
            let (frames, bytes) = (it.next().unwrap_or(0.0), it.next().unwrap_or(0.0));
            (kind, frames / seconds, bytes / seconds / 1e6)
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
