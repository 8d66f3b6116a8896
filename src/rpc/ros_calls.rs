//! What the RPC layer does for ROS 2: the methods that publish a sensor,
//! by stream id (`enable_sensor_for_ros` and `disable_sensor_for_ros` are
//! asynchronous in the stock client; its names come from `ros`), and the
//! controls read from DDS, handed to the host.

use super::actor_commands::ActorCommand;
use super::call::{Call, Out};
use super::engine::EngineCall;
use super::error::refused;
use super::ros::sensor_names;
use super::wire::{self, as_u32, ArgResult};
use super::RpcShared;
use crate::release::Release;
use crate::ros2::RosControl;
use rmpv::Value;
use std::sync::{Arc, Weak};

/// The library stream id in a stream id a client sends.
fn stream_id(v: &Value) -> ArgResult<u32> {
    let raw = as_u32(v, "stream id")?;
    Ok(Release::library_stream_id(raw))
}

/// `enable_sensor_for_ros` (asynchronous in the stock client, as
/// `disable_sensor_for_ros`), by stream id.
pub(super) fn enable_sensor_for_ros(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let s = c.s;
    let id = stream_id(&a[0])?;
    let actors = s.world.actors.read();
    let actor = actors.values().find(|x| x.sensor == id && id != 0);
    let entry = s.sensors.get_quiet(id);
    let (Some(actor), Some(entry)) = (actor, entry) else {
        return Err(refused!(
            "no sensor with stream id {id} (destroyed or never spawned)"
        ));
    };
    let names = sensor_names(&actors, actor);
    crate::log_info!(
        "ros2: sensor {} ({}) enabled on {}",
        actor.id,
        actor.blueprint,
        names.base
    );
    s.sensors
        .ros
        .enable_sensor(id, names, entry.instance.stream());
    wire::void_ok(out);
    Ok(())
}

pub(super) fn disable_sensor_for_ros(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    c.s.sensors.ros.disable_sensor(stream_id(&a[0])?);
    wire::void_ok(out);
    Ok(())
}

pub(super) fn is_sensor_enabled_for_ros(c: &Call, a: &[Value], out: &mut Out) -> ArgResult<()> {
    let id = stream_id(&a[0])?;
    wire::ok_head(out);
    wire::boolean(out, c.s.sensors.ros.is_enabled(id));
    Ok(())
}

/// Controls read from DDS for a hero vehicle go to the host as a client's
/// `apply_control` does (without a client's share: the reader is the
/// server's own).
pub(crate) fn install_control_sink(shared: &Arc<RpcShared>) {
    let weak: Weak<RpcShared> = Arc::downgrade(shared);
    shared
        .sensors
        .ros
        .set_control_sink(Arc::new(move |actor_id, control| {
            if let Some(s) = weak.upgrade() {
                let call = match control {
                    RosControl::Vehicle(control) => {
                        EngineCall::ApplyVehicleControl { actor_id, control }
                    }
                    RosControl::Ackermann(values) => EngineCall::Actor {
                        actor_id,
                        command: ActorCommand::AckermannControl(values),
                    },
                };
                if let Err(e) = s.engine.push(call, false, None, None) {
                    crate::log_warn!("ros2: control for actor {} not queued: {}", actor_id, e);
                }
            }
        }));
}
