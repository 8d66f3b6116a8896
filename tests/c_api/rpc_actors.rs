//! The host's own 0.9.16 world from C: `tests/c/rpc_actors_host.c` (built
//! with the `cc` crate, linked to this build's library) adds an actor of
//! its own with `carla_rpc_add_actor`, removes it, starts a new episode,
//! counts clients and refuses a spawn, while the Rust RPC client and a
//! world-stream subscriber check what a 0.9 client sees. On Windows the
//! host is compiled with mingw-w64 beforehand.
#![cfg(any(target_os = "linux", windows))]

use crate::common;

use carla_server::client::{RpcClient, RpcError, StreamClient};
use common::chost::{build, Host};
use rmpv::Value;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(10);
/// Sensor header, then the episode header; actor records of 119 bytes.
const RECORDS_AT: usize = 36;
const RECORD_SIZE: usize = 119;

/// The host's answer to `command`: its next stdout line, which must start
/// with `word`; the rest of the line.
fn ask(host: &mut Host, command: &str, word: &str) -> String {
    host.send_line(command);
    next_with(host, word)
}

/// The host's next stdout line, which must start with `word`.
fn next_with(host: &Host, word: &str) -> String {
    let line = host.next_line();
    line.strip_prefix(word)
        .unwrap_or_else(|| panic!("expected `{word} ...` from the host, got {line:?}"))
        .trim()
        .to_owned()
}

fn description(blueprint: &str) -> Value {
    Value::Array(vec![0.into(), blueprint.into(), Value::Array(vec![])])
}

fn transform() -> Value {
    let v = || Value::Array(vec![0.0f32.into(), 0.0f32.into(), 2.0f32.into()]);
    Value::Array(vec![v(), v()])
}

/// `get_actors_by_id([id])`: the actor's `[id, parent, [uid, blueprint,
/// attributes], ...]`, or None if the server does not know it.
fn actor(rpc: &mut RpcClient, id: u32) -> Option<Value> {
    let ids = Value::Array(vec![id.into()]);
    let list = rpc
        .call("get_actors_by_id", &[ids])
        .expect("get_actors_by_id");
    let list = list.as_array().expect("a list of actors").clone();
    assert!(list.len() <= 1, "{list:?}");
    list.into_iter().next()
}

fn episode_info(rpc: &mut RpcClient) -> (u64, u32) {
    let info = rpc.call("get_episode_info", &[]).expect("get_episode_info");
    let token = info[1][0].as_slice().expect("a token: [bytes]");
    let stream = u32::from_le_bytes(token[..4].try_into().unwrap());
    (info[0].as_u64().expect("an episode id"), stream)
}

/// The next world snapshot with episode id `episode`, after asking the host
/// for states (the subscription registers asynchronously: ask until one
/// arrives): the actor ids it lists.
fn snapshot_ids(host: &mut Host, world: &mut StreamClient, episode: u64) -> Vec<u32> {
    let deadline = Instant::now() + TIMEOUT;
    for frame in 1.. {
        assert!(
            Instant::now() < deadline,
            "no snapshot of episode {episode}"
        );
        assert_eq!(ask(host, &format!("state {frame}"), "STATE"), "0");
        if !world.wait_for_data(Duration::from_millis(50)).unwrap() {
            continue;
        }
        let msg = world.next_message().expect("a snapshot");
        let p = msg.payload();
        if u64::from_le_bytes(p[..8].try_into().unwrap()) != episode {
            continue; // an older state
        }
        assert_eq!((p.len() - RECORDS_AT) % RECORD_SIZE, 0);
        return p[RECORDS_AT..]
            .chunks(RECORD_SIZE)
            .map(|r| u32::from_le_bytes(r[..4].try_into().unwrap()))
            .collect();
    }
    unreachable!()
}

fn wait_count(host: &mut Host, want: &str) {
    let deadline = Instant::now() + TIMEOUT;
    while ask(host, "count", "COUNT") != want {
        assert!(
            Instant::now() < deadline,
            "the client count never became {want}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn host_actors_episodes_client_count_and_a_refused_spawn_from_c() {
    let exe = build("rpc_actors_host.c", "rpc_actors_host", None);
    let mut host = Host::spawn(&exe, &[]);
    let line = host.next_line();
    host.assert_loaded_library();
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        (words.len(), words[0], words[2]),
        (4, "RPC", "STREAM"),
        "{line}"
    );
    let (port, stream_port): (u16, u16) = (words[1].parse().unwrap(), words[3].parse().unwrap());

    // The client count goes 0 -> 1 -> 0.
    assert_eq!(ask(&mut host, "count", "COUNT"), "0");
    let mut rpc = RpcClient::connect(("127.0.0.1", port), TIMEOUT).expect("connect");
    assert_eq!(rpc.call("version", &[]).unwrap().as_str(), Some("0.9.16"));
    assert_eq!(ask(&mut host, "count", "COUNT"), "1");

    // The host's actor 500: its blueprint, its attributes over the defaults.
    let a = actor(&mut rpc, 500).expect("actor 500 is listed");
    assert_eq!((a[0].as_u64(), a[1].as_u64()), (Some(500), Some(0)));
    assert_eq!(a[2][1].as_str(), Some("vehicle.test.box"));
    let attributes: Vec<(String, u64, String)> = a[2][2]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            let s = |v: &Value| v.as_str().unwrap().to_owned();
            (s(&x[0]), x[1].as_u64().unwrap(), s(&x[2]))
        })
        .collect();
    let want = [
        ("role_name", 4, "hero"),
        ("color", 5, "0,255,0"),
        ("number_of_wheels", 2, "4"),
    ]
    .map(|(k, t, v)| (k.to_owned(), t, v.to_owned()));
    assert_eq!(attributes, want);
    // ... and in the world snapshots, as `world.get_actors()` lists them.
    let (first_episode, world_stream) = episode_info(&mut rpc);
    let mut world = StreamClient::subscribe(("127.0.0.1", stream_port), world_stream, TIMEOUT)
        .expect("subscribe to the world stream");
    let ids = snapshot_ids(&mut host, &mut world, first_episode);
    assert!(ids.contains(&500), "snapshot ids {ids:?}");

    // Its telemetry: asked of the host, which reports it from C; bad
    // reports were refused by name (wheels, a NaN, not a vehicle, NULL).
    let t = rpc
        .call("get_telemetry_data", &[500u32.into()])
        .expect("get_telemetry_data");
    let f = |v: &Value| v.as_f64().unwrap();
    assert_eq!(
        (f(&t[0]), f(&t[2]), f(&t[4])),
        (12.5, 0.75, 3100.0),
        "{t:?}"
    );
    assert_eq!((t[5].as_i64(), f(&t[6])), (Some(3), 57.0), "{t:?}");
    let wheels = t[7].as_array().expect("wheels");
    assert_eq!(wheels.len(), 2, "{t:?}");
    assert_eq!(
        (f(&wheels[0][0]), f(&wheels[1][4]), f(&wheels[1][8])),
        (3.5, 3600.0, -250.0)
    );
    assert_eq!(next_with(&host, "TELEMETRY"), "500 -2 -2 -2 -1");
    for id in [1u32, 9999] {
        let refused = rpc.call("get_telemetry_data", &[id.into()]);
        assert!(
            matches!(refused, Err(RpcError::Failed(_))),
            "{id}: {refused:?}"
        );
    }

    // Removing it: no longer listed; a second removal is refused.
    assert_eq!(ask(&mut host, "remove 500", "REMOVE"), "0");
    assert!(actor(&mut rpc, 500).is_none());
    assert!(!snapshot_ids(&mut host, &mut world, first_episode).contains(&500));
    assert_eq!(ask(&mut host, "remove 500", "REMOVE"), "-2");

    // A refused sensor spawn: the client gets the host's message, the actor
    // is not known, and its sensor was destroyed before the host's answer
    // returned (carla_sensor_type_id: UNKNOWN_SENSOR at once).
    let refused = rpc.call(
        "spawn_actor",
        &[description("sensor.camera.depth"), transform()],
    );
    match refused {
        Err(RpcError::Failed(m)) => assert!(m.contains("no depth cameras here"), "{m}"),
        other => panic!("a refused spawn answered {other:?}"),
    }
    let refusal = next_with(&host, "REFUSED");
    let r: Vec<i64> = refusal.split(' ').map(|w| w.parse().unwrap()).collect();
    let (refused_actor, refused_sensor) = (r[0] as u32, r[1] as u32);
    assert!(refused_sensor != 0, "{refusal}");
    assert_eq!(r[2], -4, "the sensor outlived its refusal: {refusal}");
    assert!(actor(&mut rpc, refused_actor).is_none());
    let token = rpc.call("get_sensor_token", &[refused_sensor.into()]);
    assert!(matches!(token, Err(RpcError::Failed(_))), "{token:?}");

    // Each client's share, set from C: defaults read back, one sensor
    // each; this client's second sensor is refused naming the limit.
    let budget = ask(&mut host, "sensors 1", "BUDGET");
    assert_eq!(budget, format!("1 2500 1024 {} 32", 128u64 << 20));
    let gnss = rpc
        .call(
            "spawn_actor",
            &[description("sensor.other.gnss"), transform()],
        )
        .expect("the client's one sensor");
    assert!(next_with(&host, "SPAWNED").starts_with(&format!("{} ", gnss[0])));
    let second = rpc.call(
        "spawn_actor",
        &[description("sensor.other.gnss"), transform()],
    );
    match second {
        Err(RpcError::Failed(m)) => assert!(m.contains("max_sensors"), "{m}"),
        other => panic!("a second sensor answered {other:?}"),
    }
    assert!(ask(&mut host, "sensors 64", "BUDGET").starts_with("64 "));

    // An accepted spawn, then a new episode: a new id, the actor forgotten.
    let camera = rpc
        .call(
            "spawn_actor",
            &[description("sensor.camera.rgb"), transform()],
        )
        .expect("spawn a camera");
    let camera = camera[0].as_u64().unwrap() as u32;
    assert!(next_with(&host, "SPAWNED").starts_with(&format!("{camera} ")));
    assert!(actor(&mut rpc, camera).is_some());
    let answer = ask(&mut host, "new_episode", "EPISODE");
    let (code, new_episode) = answer.split_once(' ').unwrap();
    let new_episode: u64 = new_episode.parse().unwrap();
    assert_eq!(code, "0");
    assert_ne!(new_episode, first_episode);
    assert_eq!(episode_info(&mut rpc).0, new_episode);
    assert!(
        actor(&mut rpc, camera).is_none(),
        "the camera outlived its episode"
    );
    let ids = snapshot_ids(&mut host, &mut world, new_episode);
    assert!(!ids.contains(&camera), "snapshot ids {ids:?}");
    assert_eq!(ids.len(), 1, "only the spectator is left: {ids:?}");

    drop(rpc);
    wait_count(&mut host, "0");
    host.close_stdin();
    let output = host.finish();
    assert!(output.contains("DONE"), "{output}");
}

/// Synchronous mode: the sensors clients spawn wait for slow subscribers
/// by default (up to the server time-out); after `carla_rpc_set_stream_queue`
/// they queue instead and the host's sends never wait. With a subscriber
/// that reads nothing, every send returns at once (waiting would time out,
/// which stops the host's loop) and the subscriber later reads fewer images
/// than were sent, the oldest ones, in order.
#[test]
fn a_synchronous_world_queues_for_a_stalled_subscriber_when_the_host_asks_from_c() {
    const SENT: u32 = 30;
    let exe = build("rpc_actors_host.c", "rpc_actors_host", None);
    let mut host = Host::spawn(&exe, &[]);
    let line = host.next_line();
    let words: Vec<&str> = line.split_whitespace().collect();
    let (port, stream_port): (u16, u16) = (words[1].parse().unwrap(), words[3].parse().unwrap());
    let mut rpc = RpcClient::connect(("127.0.0.1", port), TIMEOUT).expect("connect");
    let settings = rpc.call("get_episode_settings", &[]).unwrap();
    let mut s = settings.as_array().unwrap().clone();
    s[0] = Value::Boolean(true);
    s[2] = Value::Array(vec![Value::Boolean(true), Value::F64(0.05)]);
    rpc.call("set_episode_settings", &[Value::Array(s)])
        .expect("synchronous mode");
    assert_eq!(ask(&mut host, "queue 4", "QUEUE"), "0");

    // A camera of the default 800x600, spawned after the call: it queues too.
    rpc.call(
        "spawn_actor",
        &[description("sensor.camera.rgb"), transform()],
    )
    .expect("spawn a camera");
    let spawned = next_with(&host, "SPAWNED");
    let sensor: u32 = spawned.split(' ').nth(1).unwrap().parse().unwrap();
    let stalled = common::stalled::subscribe(stream_port, sensor);
    assert_eq!(
        ask(&mut host, &format!("images {sensor} {SENT}"), "IMAGES"),
        format!("{SENT} 0"),
        "a send failed or waited past the time-out"
    );

    drop(rpc);
    host.close_stdin();
    let output = host.finish();
    assert!(output.contains("DONE"), "{output}");
    let frames = common::stalled::frames_read(stalled, 48 + 12 + 800 * 600 * 4);
    assert!(
        !frames.is_empty() && frames.len() < SENT as usize,
        "the stalled subscriber read {} of {SENT} images: {frames:?}",
        frames.len()
    );
    assert!(frames.windows(2).all(|p| p[0] < p[1]), "{frames:?}");
    assert_eq!(frames[0], 1, "the queue keeps the oldest: {frames:?}");
}
