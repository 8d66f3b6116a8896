//! The recorder's cost to the game thread: `send_episode_state` with 100
//! moving host vehicles (plus the spectator), recording off, on, and on
//! with `additional_data`, alternating in rounds so a noisy neighbour hits
//! every mode alike. The file goes to a temporary folder.

use crate::stats::{spread, thread_cpu, Spread};
use carla_server::rpc::{ActorState, Blueprint, EpisodeFrame, CARLA_ACTOR_VEHICLE};
use carla_server::types::ActorTransform;
use carla_server::Server;
use std::time::Instant;

pub(crate) struct Outcome {
    pub wall: Spread,
    pub cpu: Spread,
    pub allocations_per_frame: f64,
    /// Bytes per recorded frame (0 when off).
    pub bytes_per_frame: f64,
    pub dropped: u64,
}

/// Modes: 0 off, 1 on, 2 on with additional data.
pub(crate) fn run(actors: u32, frames: u32, rounds: u32) -> [Outcome; 3] {
    let server = Server::new();
    server.listen_rpc(0).unwrap();
    let rpc = server.rpc().unwrap();
    let folder = std::env::temp_dir().join(format!("carla-bench-rec-{}", std::process::id()));
    rpc.set_recording_folder(&folder);
    rpc.add_blueprint(Blueprint {
        id: "vehicle.bench.box".into(),
        attributes: Vec::new(),
        bounding_box: Default::default(),
        library_sensor: false,
        physics: None,
    });
    for i in 0..actors {
        rpc.add_actor(
            10_000 + i,
            "vehicle.bench.box",
            &[],
            ActorTransform::default(),
        )
        .unwrap();
    }
    let mut states: Vec<ActorState> = (0..actors)
        .map(|i| ActorState {
            id: 10_000 + i,
            kind: CARLA_ACTOR_VEHICLE,
            ..Default::default()
        })
        .collect();
    let mut wall: [Vec<_>; 3] = Default::default();
    let mut cpu: [Vec<_>; 3] = Default::default();
    let mut allocations = [0u64; 3];
    let mut bytes = [0u64; 3];
    let mut recorded = [0u64; 3];
    let mut dropped = 0;
    let mut frame = 0u64;
    for _ in 0..rounds {
        for mode in 0..3 {
            if mode > 0 {
                rpc.start_recorder("bench.log", mode == 2).unwrap();
            }
            for i in 0..frames {
                frame += 1;
                for (k, s) in states.iter_mut().enumerate() {
                    s.transform.location.x = frame as f32 * 0.5 + k as f32;
                    s.transform.rotation.yaw = (frame % 360) as f32;
                }
                let header = EpisodeFrame {
                    frame,
                    elapsed_seconds: frame as f64 * 0.05,
                    delta_seconds: 0.05,
                    platform_seconds: 0.0,
                };
                // The first frames of each run warm the buffers.
                let timed = i >= 10;
                if timed {
                    crate::alloc::start_marked();
                }
                let (t0, c0) = (Instant::now(), thread_cpu());
                rpc.send_episode_state(&header, &states).unwrap();
                if timed {
                    wall[mode].push(t0.elapsed());
                    cpu[mode].push(thread_cpu() - c0);
                    allocations[mode] += crate::alloc::stop();
                }
            }
            if mode > 0 {
                let s = rpc.stop_recorder().unwrap();
                bytes[mode] += s.bytes;
                recorded[mode] += s.frames;
                dropped += s.dropped;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&folder);
    let timed = f64::from(rounds * (frames - 10));
    std::array::from_fn(|m| Outcome {
        wall: spread(&mut wall[m]),
        cpu: spread(&mut cpu[m]),
        allocations_per_frame: allocations[m] as f64 / timed,
        bytes_per_frame: if recorded[m] > 0 {
            bytes[m] as f64 / recorded[m] as f64
        } else {
            0.0
        },
        dropped: if m == 0 { 0 } else { dropped },
    })
}
