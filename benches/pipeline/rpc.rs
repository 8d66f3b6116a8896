//! The 0.9.16 protocol: a synchronous tick round trip through the RPC port
//! (client `tick_cue` → host poll → episode state → client sees the frame),
//! with no sensor and with one 800x600 camera, and the game thread's time
//! per tick for the RPC and episode-state work with 100 actors.

use crate::stats::{spread, thread_cpu, Spread};
use carla_server::client::{RpcClient, StreamClient};
use carla_server::rpc::{ActorState, EngineCall, EpisodeFrame, CARLA_ACTOR_VEHICLE};
use carla_server::sensor::CaptureContext;
use carla_server::Server;
use rmpv::Value;
use std::time::{Duration, Instant};

pub(crate) struct Outcome {
    /// Client-side tick round trip (until the state, and the image if any).
    pub round_trip: Spread,
    /// Game-thread wall time per tick: answer + image commit + state.
    pub game: Spread,
    pub game_cpu: Spread,
    pub allocations_per_tick: f64,
}

fn stream_id(token: &Value) -> u32 {
    let bytes = token.as_slice().expect("token bytes");
    u32::from_le_bytes(bytes[..4].try_into().unwrap())
}

/// `ticks` synchronous ticks with `actors` host actors in every state.
pub(crate) fn ticks(camera: bool, ticks: u32, actors: u32) -> Outcome {
    let server = Server::new();
    let addr = server.listen_rpc(0).unwrap();
    let stream = server.streaming_addr().unwrap();
    let warm = (ticks / 10).max(10);
    let client = std::thread::spawn(move || {
        crate::alloc::ignore_this_thread();
        let t = Duration::from_secs(30);
        let mut rpc = RpcClient::connect(addr, t).unwrap();
        let info = rpc.call("get_episode_info", &[]).unwrap();
        let mut world = StreamClient::subscribe(stream, stream_id(&info[1][0]), t).unwrap();
        let mut s = rpc
            .call("get_episode_settings", &[])
            .unwrap()
            .as_array()
            .unwrap()
            .clone();
        s[0] = Value::Boolean(true);
        s[2] = Value::Array(vec![Value::Boolean(true), Value::F64(0.05)]);
        rpc.call("set_episode_settings", &[Value::Array(s)])
            .unwrap();
        let mut cam = camera.then(|| {
            let attr = |k: &str, v: &str| Value::Array(vec![k.into(), 2.into(), v.into()]);
            let desc = Value::Array(vec![
                0.into(),
                "sensor.camera.rgb".into(),
                Value::Array(vec![
                    attr("image_size_x", "800"),
                    attr("image_size_y", "600"),
                ]),
            ]);
            let zero = || Value::Array(vec![Value::F32(0.0); 3]);
            let transform = Value::Array(vec![zero(), zero()]);
            let actor = rpc.call("spawn_actor", &[desc, transform]).unwrap();
            let id = stream_id(&actor[5]);
            StreamClient::subscribe(stream, id, t).unwrap()
        });
        std::thread::sleep(Duration::from_millis(100)); // subscriptions in place
        let mut samples = Vec::with_capacity(ticks as usize);
        let (mut state, mut image) = Default::default();
        for i in 0..warm + ticks {
            let started = Instant::now();
            let frame = rpc.call("tick_cue", &[]).unwrap().as_u64().unwrap();
            loop {
                world.next_message_into(&mut state).unwrap();
                if state.frame() >= frame {
                    break;
                }
            }
            if let Some(c) = cam.as_mut() {
                loop {
                    c.next_message_into(&mut image).unwrap();
                    if image.frame() >= frame {
                        break;
                    }
                }
            }
            if i >= warm {
                samples.push(started.elapsed());
            }
        }
        spread(&mut samples)
    });
    let states: Vec<ActorState> = (0..actors)
        .map(|i| ActorState {
            id: 10_000 + i,
            kind: CARLA_ACTOR_VEHICLE,
            ..Default::default()
        })
        .collect();
    let (mut frame, mut sensor) = (0u64, None);
    let (mut game, mut cpu) = (Vec::new(), Vec::new());
    let mut allocations = 0;
    while !client.is_finished() {
        let Some(req) = server.rpc().unwrap().poll(Duration::from_millis(20)) else {
            continue;
        };
        if frame == u64::from(warm) {
            crate::alloc::start_marked();
        }
        let (t0, c0) = (Instant::now(), thread_cpu());
        match req.call() {
            EngineCall::SpawnActor { sensor_id, .. } => {
                sensor = Some(*sensor_id);
                req.succeed(0);
                continue;
            }
            EngineCall::Tick => {
                frame += 1;
                if let Some(id) = sensor {
                    let ctx = CaptureContext {
                        frame,
                        timestamp: frame as f64 * 0.05,
                        ..Default::default()
                    };
                    let s = server.sensor(id).unwrap();
                    let image = s.acquire_image().unwrap(); // the engine renders into it
                    s.commit_image(&ctx, image).unwrap();
                }
                let header = EpisodeFrame {
                    frame,
                    elapsed_seconds: frame as f64 * 0.05,
                    delta_seconds: 0.05,
                    platform_seconds: 0.0,
                };
                server
                    .rpc()
                    .unwrap()
                    .send_episode_state(&header, &states)
                    .unwrap();
                req.succeed(frame);
            }
            _ => {
                req.succeed(0);
                continue;
            }
        }
        if frame > u64::from(warm) {
            game.push(t0.elapsed());
            cpu.push(thread_cpu() - c0);
        }
    }
    allocations += crate::alloc::stop();
    let round_trip = client.join().unwrap();
    Outcome {
        round_trip,
        game: spread(&mut game),
        game_cpu: spread(&mut cpu),
        allocations_per_tick: allocations as f64 / f64::from(ticks),
    }
}
