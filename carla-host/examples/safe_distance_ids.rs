//! Prints what a `sensor.other.safe_distance` sensor sends: the ids of the
//! vehicles inside its box, frame by frame. The stock `carla` 0.9.16 Python
//! package cannot decode this sensor (its registry has no such type; a
//! `listen()` on it crashes the client), so read it from Rust:
//!
//! ```text
//! cargo run --release                                   # the town
//! python3 carla-host/examples/safe_distance.py                     # prints the sensor's actor id
//! cargo run --example safe_distance_ids -- 2000 <actor id> [messages]
//! ```
//!
//! It asks the RPC port for the actor's stream token
//! (`get_actor_stream_token`, the library's own call: stock clients get
//! this sensor without one), subscribes to that stream and prints each
//! message: the frame, then the ids (u32 LE each). A pure-Python reader
//! does the same: `python/safe_distance_reader.py`.

use carla_server::client::{RpcClient, StreamClient};
use rmpv::Value;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: safe_distance_ids <rpc port> <sensor actor id> [messages (default 20)]";
    let port: u16 = args.next().ok_or(usage)?.parse()?;
    let actor: u64 = args.next().ok_or(usage)?.parse()?;
    let count: usize = args.next().map_or(Ok(20), |n| n.parse())?;
    let mut rpc = RpcClient::connect(("127.0.0.1", port), Duration::from_secs(10))?;
    // Stock clients get this sensor as a plain actor (no stream token);
    // the library hands the token out by actor id.
    let token = rpc.call("get_actor_stream_token", &[Value::from(actor)])?;
    let token = token.as_slice().ok_or("unexpected token shape")?;
    if token.len() != carla_server::rpc::token::TOKEN_SIZE {
        return Err("not a 24-byte stream token".into());
    }
    let stream = u32::from_le_bytes(token[..4].try_into()?);
    let stream_port = u16::from_le_bytes(token[4..6].try_into()?);
    println!("actor {actor}: stream {stream} on port {stream_port}");
    let mut sub =
        StreamClient::subscribe(("127.0.0.1", stream_port), stream, Duration::from_secs(10))?;
    for _ in 0..count {
        let msg = sub.next_message()?;
        let ids: Vec<u32> = msg
            .payload()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        println!("frame {}: {:?}", msg.frame(), ids);
    }
    Ok(())
}
