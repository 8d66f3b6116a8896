//! Each 0.9 client's share of the server: one client
//! cannot take every sensor, actor, byte of sensor data, place in the
//! simulator's queue or connection; a refusal names the limit, and the
//! other clients are served.

use crate::common;

use carla_server::client::{RpcClient, RpcError};
use carla_server::rpc::ClientBudget;
use common::rpc_host::{origin, RpcHost};
use rmpv::Value;
use std::sync::atomic::Ordering;
use std::time::Duration;

fn spawn(rpc: &mut RpcClient, blueprint: &str, attrs: &[(&str, &str)]) -> Result<u32, String> {
    let attrs = attrs
        .iter()
        .map(|(k, v)| Value::Array(vec![(*k).into(), 4.into(), (*v).into()]))
        .collect();
    let description = Value::Array(vec![0.into(), blueprint.into(), Value::Array(attrs)]);
    match rpc.call("spawn_actor", &[description, origin()]) {
        Ok(actor) => Ok(actor[0].as_u64().unwrap() as u32),
        Err(RpcError::Failed(e)) => Err(e),
        Err(e) => panic!("{e}"),
    }
}

fn failed(r: Result<Value, RpcError>) -> String {
    match r {
        Err(RpcError::Failed(e)) => e,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn one_client_cannot_take_every_sensor() {
    let host = RpcHost::start();
    let (mut a, mut b) = (host.client(), host.client());
    let share = ClientBudget::default().max_sensors;
    for i in 0..share {
        spawn(&mut a, "sensor.other.gnss", &[]).unwrap_or_else(|e| panic!("sensor {i}: {e}"));
    }
    let e = spawn(&mut a, "sensor.other.gnss", &[]).unwrap_err();
    assert!(
        e.contains("max_sensors") && e.contains(&format!("{share} sensors")),
        "{e}"
    );
    spawn(&mut b, "sensor.other.gnss", &[]).expect("another client has its own share");
    let usage = host.server.rpc().unwrap().client_usage();
    let a_usage = usage
        .iter()
        .find(|u| u.sensors == share)
        .expect("a's usage");
    assert_eq!((a_usage.actors, a_usage.refused), (share, 1));
}

#[test]
fn actors_and_sensor_bytes_are_bounded_per_client() {
    let host = RpcHost::start();
    host.server.rpc().unwrap().set_client_budget(ClientBudget {
        max_actors: 5,
        max_frame_bytes: 4 << 20,
        ..Default::default()
    });
    let (mut a, mut b) = (host.client(), host.client());
    for _ in 0..5 {
        spawn(&mut a, "vehicle.test.box", &[]).unwrap();
    }
    let e = spawn(&mut a, "vehicle.test.box", &[]).unwrap_err();
    assert!(
        e.contains("max_actors") && e.contains("holds 5 actors"),
        "{e}"
    );
    // 1024 x 1024 BGRA is 4 MiB: one fits, a second does not.
    let big = [("image_size_x", "1024"), ("image_size_y", "1024")];
    spawn(&mut b, "sensor.camera.rgb", &big).unwrap();
    let e = spawn(&mut b, "sensor.camera.rgb", &big).unwrap_err();
    assert!(e.contains("max_frame_bytes"), "{e}");
    // b holds the one camera it was given.
    let usage = host.server.rpc().unwrap().client_usage();
    assert!(usage
        .iter()
        .any(|u| u.sensors == 1 && u.frame_bytes == 4 << 20));
}

#[test]
fn requests_waiting_for_the_simulator_are_bounded_per_client() {
    let host = RpcHost::start();
    let (mut a, mut b) = (host.client(), host.client());
    let car = spawn(&mut a, "vehicle.test.box", &[]).unwrap();
    let control = Value::Array(vec![
        Value::F32(0.5),
        Value::F32(0.0),
        Value::F32(0.0),
        false.into(),
        false.into(),
        false.into(),
        0.into(),
    ]);
    let apply =
        |c: &mut RpcClient| c.call("apply_control_to_vehicle", &[car.into(), control.clone()]);
    host.paused.store(true, Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(100)); // its last poll ends
    let share = ClientBudget::default().max_requests;
    for i in 0..share {
        apply(&mut a).unwrap_or_else(|e| panic!("control {i}: {e}"));
    }
    let e = failed(apply(&mut a));
    assert!(
        e.contains("max_requests") && e.contains("waiting for the simulator"),
        "{e}"
    );
    apply(&mut b).expect("another client has its own share");
    host.paused.store(false, Ordering::Relaxed);
    let mut served = false;
    for _ in 0..200 {
        if apply(&mut a).is_ok() {
            served = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        served,
        "a's share came back once the simulator took its requests"
    );
}

#[test]
fn one_address_gets_its_share_of_connections() {
    let host = RpcHost::start();
    host.server.rpc().unwrap().set_client_budget(ClientBudget {
        max_connections_per_address: 3,
        ..Default::default()
    });
    let mut held: Vec<RpcClient> = (0..3).map(|_| host.client()).collect();
    for c in &mut held {
        c.call("get_episode_info", &[]).expect("within the share");
    }
    let mut fourth = host.client();
    assert!(
        fourth.call("get_episode_info", &[]).is_err(),
        "the fourth is refused"
    );
    held.pop();
    std::thread::sleep(Duration::from_millis(200));
    host.client()
        .call("get_episode_info", &[])
        .expect("served once one left");
}
