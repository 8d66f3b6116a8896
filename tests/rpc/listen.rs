//! `listen()` then `tick()` at once, as a synchronous agent does: the
//! 0.9.14+ client asks for the sensor's token and connects to its stream on
//! another thread, so the tick often reaches the host first. The frame of
//! that tick still reaches the new listener; a listener whose token came
//! after a tick starts at the next tick, as in CARLA.

use crate::common::rpc_host::{origin, synchronous, RpcHost};
use carla_server::client::{RpcClient, StreamClient};
use rmpv::Value;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(10);

/// A new camera and its stream id.
fn camera(host: &RpcHost, rpc: &mut RpcClient) -> u32 {
    let description = Value::Array(vec![
        0.into(),
        "sensor.camera.rgb".into(),
        Value::Array(vec![]),
    ]);
    let spawned = rpc.call("spawn_actor", &[description, origin()]).unwrap();
    let actor = spawned[0].as_u64().unwrap() as u32;
    host.server.rpc().unwrap().sensor_of(actor).unwrap()
}

/// `world.tick()`: the tick is queued and its frame answered at once; the
/// client returns once that frame's state arrived, after its sensor data.
fn tick(host: &RpcHost, rpc: &mut RpcClient) -> u64 {
    let done = host.ticks.load(Ordering::Acquire);
    let frame = rpc.call("tick_cue", &[]).unwrap().as_u64().unwrap();
    let started = Instant::now();
    while host.ticks.load(Ordering::Acquire) == done {
        assert!(started.elapsed() < PATIENCE, "the host never ticked");
        std::thread::sleep(Duration::from_millis(1));
    }
    frame
}

#[test]
fn the_tick_right_after_listen_reaches_the_new_listener() {
    let host = RpcHost::start();
    let stream = host.server.streaming_addr().unwrap();
    let mut rpc = host.client();
    synchronous(&mut rpc, 0.05);
    let id = camera(&host, &mut rpc);
    // listen(): the token, then (late) the connection; the tick between.
    rpc.call("get_sensor_token", &[id.into()]).unwrap();
    let frame = tick(&host, &mut rpc);
    let mut sub = StreamClient::subscribe(stream, id, PATIENCE).unwrap();
    // No further tick: without the held frame this would wait forever.
    assert!(
        sub.wait_for_data(Duration::from_secs(5)).unwrap(),
        "the frame of the tick after listen() never came"
    );
    let first = sub.next_message().unwrap();
    assert_eq!(first.frame(), frame, "that tick's frame");
    let pixels = first.payload();
    assert_eq!(
        pixels[pixels.len() - 4..],
        [(frame % 256) as u8; 4],
        "its image"
    );
    let next = tick(&host, &mut rpc);
    assert_eq!(
        sub.next_message().unwrap().frame(),
        next,
        "then each tick once"
    );
}

#[test]
fn a_listener_whose_token_came_after_a_tick_starts_at_the_next_tick() {
    let host = RpcHost::start();
    let stream = host.server.streaming_addr().unwrap();
    let mut rpc = host.client();
    synchronous(&mut rpc, 0.05);
    let id = camera(&host, &mut rpc);
    let before = tick(&host, &mut rpc);
    rpc.call("get_sensor_token", &[id.into()]).unwrap();
    let mut sub = StreamClient::subscribe(stream, id, PATIENCE).unwrap();
    if sub.wait_for_data(Duration::from_millis(500)).unwrap() {
        let stale = sub.next_message().unwrap();
        panic!(
            "frame {} came, from before the listen() (tick {before})",
            stale.frame()
        );
    }
    let frame = tick(&host, &mut rpc);
    assert_eq!(sub.next_message().unwrap().frame(), frame);
}
