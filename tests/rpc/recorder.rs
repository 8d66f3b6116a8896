//! The recorder through the Rust API while the world runs: replays
//! started and stopped from another thread as fast as it can while the
//! game thread sends episode states and answers requests (the recorder's
//! lock against the actors' lock: a wrong order deadlocks here), and a
//! recording restarted under the same load.

use carla_server::rpc::{ActorState, Blueprint, EpisodeFrame, CARLA_ACTOR_VEHICLE};
use carla_server::types::ActorTransform;
use carla_server::Server;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn state(id: u32, x: f32) -> ActorState {
    let mut s = ActorState {
        id,
        kind: CARLA_ACTOR_VEHICLE,
        ..Default::default()
    };
    s.transform.location.x = x;
    s
}

#[test]
fn replays_and_recordings_started_and_stopped_from_another_thread_never_block_the_game_thread() {
    let server = Arc::new(Server::new());
    server.listen_rpc(0).unwrap();
    let rpc = server.rpc().unwrap();
    let folder = std::env::temp_dir().join(format!("carla-rec-stress-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    rpc.set_recording_folder(&folder);
    rpc.add_blueprint(Blueprint {
        id: "vehicle.test.box".into(),
        attributes: Vec::new(),
        bounding_box: Default::default(),
        library_sensor: false,
        physics: None,
    });
    for id in [500, 501] {
        rpc.add_actor(id, "vehicle.test.box", &[], ActorTransform::default())
            .unwrap();
    }
    let mut frame = 0u64;
    let mut tick = |server: &Server, x: f32| {
        frame += 1;
        let f = EpisodeFrame {
            frame,
            elapsed_seconds: frame as f64 * 0.05,
            delta_seconds: 0.05,
            platform_seconds: 0.0,
        };
        let rpc = server.rpc().unwrap();
        rpc.send_episode_state(&f, &[state(500, x), state(501, -x)])
            .unwrap();
        while let Some(req) = rpc.poll(Duration::ZERO) {
            req.succeed(0);
        }
    };
    rpc.start_recorder("stress.log", true).unwrap();
    for i in 0..40 {
        // Actor 502 lives from frame 11 to 30: a replay from 0.6 s spawns
        // it at its first step, and stop_replayer(false) destroys it (the
        // actors' write lock).
        if i == 10 {
            rpc.add_actor(502, "vehicle.test.box", &[], ActorTransform::default())
                .unwrap();
        }
        if i == 30 {
            rpc.remove_actor(502).unwrap();
        }
        tick(&server, i as f32);
    }
    let summary = rpc.stop_recorder().unwrap();
    assert_eq!((summary.frames, summary.error), (40, None));

    let done = Arc::new(AtomicBool::new(false));
    let rounds_run = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let other = {
        let (server, done, rounds_run) = (server.clone(), done.clone(), rounds_run.clone());
        std::thread::spawn(move || {
            let rpc = server.rpc().unwrap();
            let mut rounds = 0;
            while !done.load(Ordering::Relaxed) {
                let text = rpc.replay_file("stress.log", 0.6, 0.0, 0, false).unwrap();
                assert!(text.contains("Total time recorded: 1.95"), "{text}");
                std::thread::sleep(Duration::from_micros(200));
                rpc.stop_replayer(rounds % 2 == 0);
                if rounds % 10 == 0 {
                    rpc.start_recorder("again.log", false).unwrap();
                    std::thread::sleep(Duration::from_micros(200));
                    rpc.stop_recorder();
                }
                rounds += 1;
                rounds_run.store(rounds, Ordering::Relaxed);
            }
            rounds
        })
    };
    // A deadlock must fail the test, not hang the run.
    {
        let done = done.clone();
        std::thread::spawn(move || {
            let until = Instant::now() + Duration::from_secs(120);
            while Instant::now() < until {
                if done.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            eprintln!("the game thread and the replayer deadlocked (no progress in 120 s)");
            std::process::abort();
        });
    }
    // At least 3,000 ticks and 30 rounds of the other thread beside them
    // (on a busy machine the ticks alone can finish before it ran ten).
    let started = Instant::now();
    let mut slowest = Duration::ZERO;
    let mut i = 0u32;
    while (i < 3000 || rounds_run.load(Ordering::Relaxed) < 30)
        && started.elapsed() < Duration::from_secs(60)
    {
        let t0 = Instant::now();
        tick(&server, i as f32);
        slowest = slowest.max(t0.elapsed());
        i += 1;
    }
    done.store(true, Ordering::Relaxed);
    let rounds = other.join().unwrap();
    assert!(
        rounds >= 30,
        "only {rounds} replay rounds ran beside {i} ticks in {:?}",
        started.elapsed()
    );
    // A deadlock would hang above; a tick that waited for the other
    // thread's file work would take far longer than this.
    assert!(slowest < Duration::from_secs(2), "a tick took {slowest:?}");
    let _ = std::fs::remove_dir_all(&folder);
}
