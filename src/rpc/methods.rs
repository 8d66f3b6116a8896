//! Every RPC method this server answers, in one table: its name, how many
//! arguments it takes, how the client reads its answer, and what runs it.
//! A request is looked up here by name and argument count; a method not in
//! the table gets rpclib's "could not find function" error, as from
//! CARLA's server. `tests` checks the table against the methods the stock
//! 0.9.16 client sends.

use super::actor_commands;
use super::actors;
use super::call::{Call, Handler, Out};
use super::calls as c;
use super::engine::EngineCall;
use super::error::RpcError;
use super::part_calls as part;
use super::recording as rec;
use super::ros_calls as ros;
use super::wire::{self, ArgResult};
use super::RpcShared;
use crate::release::Release;
use parking_lot::Mutex;
use rmpv::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

/// How the stock client reads a method's answer when it waits for it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Answer {
    /// A `Response<T>` (or the call is asynchronous: the client discards
    /// the answer).
    Value,
    /// A `Response<void>` (LibCarla's `CallAndWait<void>`).
    Void,
}

/// What carries a method out.
#[derive(Clone, Copy)]
pub(crate) enum Run {
    /// A function of its own.
    Handler(Handler),
    /// An actor command (`actor_commands::from_rpc` parses it by name),
    /// queued for the engine as `set_actor_*` and the like are.
    Actor,
    /// A world command (`actor_commands::world_from_rpc`).
    World,
    /// Known, not carried out here: the client is told why (a failed
    /// `Response`; an asynchronous call's reason is logged once).
    Unsupported(&'static str),
}

/// One row of the table.
pub(crate) struct Method {
    pub name: &'static str,
    /// The argument counts it takes (0.9.16 sends some methods an argument
    /// more than older releases); [`ANY`] for any count.
    pub args: &'static [usize],
    pub answer: Answer,
    pub run: Run,
}

/// How a method was handled.
pub(crate) enum Outcome {
    /// The result is in the output.
    Done,
    /// No such method with that many arguments.
    Unknown,
}

/// Any number of arguments (an unsupported method is refused whatever it
/// is sent).
pub(crate) const ANY: &[usize] = &[];

const fn m(name: &'static str, args: &'static [usize], run: Handler) -> Method {
    row(name, args, Answer::Value, Run::Handler(run))
}

const fn row(name: &'static str, args: &'static [usize], answer: Answer, run: Run) -> Method {
    Method {
        name,
        args,
        answer,
        run,
    }
}

/// A method known and not carried out here, whatever it is sent.
const fn not_here(name: &'static str, answer: Answer, why: &'static str) -> Method {
    row(name, ANY, answer, Run::Unsupported(why))
}

/// Every method, grouped as the modules that run them.
#[rustfmt::skip]
pub(crate) const METHODS: &[Method] = &[
    // The episode, its settings and ticks (`calls`).
    m("version", &[0], c::version),
    m("get_episode_info", &[0], c::get_episode_info),
    m("get_sensor_token", &[1], c::get_sensor_token),
    // Not CARLA's: the stream of any library sensor by its actor id.
    m("get_actor_stream_token", &[1], c::get_actor_stream_token),
    m("get_episode_settings", &[0], c::get_episode_settings),
    m("set_episode_settings", &[1], c::set_episode_settings),
    m("tick_cue", &[0], c::tick_cue),
    m("get_required_files", &[1], c::get_required_files),
    m("request_file", &[1], c::request_file),
    m("query_lights_state", &[1], c::query_lights_state),
    m("get_actor_definitions", &[0], c::get_actor_definitions),
    m("get_map_info", &[0], c::get_map_info),
    m("get_map_data", &[0], c::get_map_data),
    m("get_weather_parameters", &[0], c::get_weather_parameters),
    m("set_weather_parameters", &[1], c::set_weather_parameters),
    m("get_imui_gravity", &[0], c::get_imui_gravity),
    m("set_imui_gravity", &[1], c::set_imui_gravity),
    m("get_available_maps", &[0], c::get_available_maps),
    row("load_new_episode", &[3], Answer::Void, Run::Handler(c::load_new_episode)),
    row("copy_opendrive_to_file", &[2], Answer::Void, Run::Handler(c::copy_opendrive_to_file)),
    m("apply_batch", &[2], c::apply_batch),
    // Debug drawing goes to the engine's viewport; a headless server has
    // none, so there is nothing to draw or clear.
    m("draw_debug_shape", &[1], c::nothing_to_draw),
    m("clear_debug_shape", &[0], c::nothing_to_draw),
    m("clear_debug_string", &[0], c::nothing_to_draw),
    // Actors (`calls`).
    m("spawn_actor", &[2], c::spawn_actor),
    m("spawn_actor_with_parent", &[4, 5], c::spawn_actor_with_parent),
    m("destroy_actor", &[1], c::destroy_actor),
    m("get_actor_bounding_box", &[1], c::get_actor_bounding_box),
    m("get_actors_by_id", &[1], c::get_actors_by_id),
    m("get_spectator", &[0], c::get_spectator),
    m("set_actor_transform", &[2], c::set_actor_transform),
    m("set_actor_location", &[2], c::set_actor_location),
    m("set_actor_target_velocity", &[2], c::set_actor_target_velocity),
    m("apply_control_to_vehicle", &[2], c::apply_control_to_vehicle),
    m("show_vehicle_debug_telemetry", &[2], c::show_vehicle_debug_telemetry),
    m("get_group_traffic_lights", &[1], c::get_group_traffic_lights),
    m("get_vehicle_light_states", &[0], c::get_vehicle_light_states),
    m("get_vehicle_light_state", &[1], c::get_vehicle_light_state),
    // Traffic Managers (`calls`).
    m("is_traffic_manager_running", &[1], c::is_traffic_manager_running),
    m("get_traffic_manager_running", &[1], c::get_traffic_manager_running),
    m("add_traffic_manager_running", &[1], c::add_traffic_manager_running),
    m("destroy_traffic_manager", &[1], c::destroy_traffic_manager),
    // Commands to one actor, queued for the engine (`actor_commands`).
    row("set_actor_simulate_physics", &[2], Answer::Void, Run::Actor),
    row("set_actor_enable_gravity", &[2], Answer::Value, Run::Actor),
    row("set_actor_collisions", &[2], Answer::Void, Run::Actor),
    row("set_actor_autopilot", &[2], Answer::Value, Run::Actor),
    row("enable_actor_constant_velocity", &[2], Answer::Value, Run::Actor),
    row("disable_actor_constant_velocity", &[1], Answer::Value, Run::Actor),
    row("set_actor_target_angular_velocity", &[2], Answer::Value, Run::Actor),
    row("add_actor_impulse", &[2], Answer::Value, Run::Actor),
    row("add_actor_impulse_at_location", &[3], Answer::Value, Run::Actor),
    row("add_actor_force", &[2], Answer::Value, Run::Actor),
    row("add_actor_force_at_location", &[3], Answer::Value, Run::Actor),
    row("add_actor_angular_impulse", &[2], Answer::Value, Run::Actor),
    row("add_actor_torque", &[2], Answer::Value, Run::Actor),
    row("apply_control_to_walker", &[2], Answer::Value, Run::Actor),
    row("set_vehicle_light_state", &[2], Answer::Value, Run::Actor),
    row("apply_ackermann_control_to_vehicle", &[2], Answer::Value, Run::Actor),
    row("apply_ackermann_controller_settings", &[2], Answer::Value, Run::Actor),
    row("apply_physics_control", &[2], Answer::Value, Run::Actor),
    row("open_vehicle_door", &[2], Answer::Value, Run::Actor),
    row("close_vehicle_door", &[2], Answer::Value, Run::Actor),
    row("set_actor_dead", &[1], Answer::Value, Run::Actor),
    row("set_traffic_light_state", &[2], Answer::Value, Run::Actor),
    row("set_traffic_light_green_time", &[2], Answer::Value, Run::Actor),
    row("set_traffic_light_yellow_time", &[2], Answer::Value, Run::Actor),
    row("set_traffic_light_red_time", &[2], Answer::Value, Run::Actor),
    row("freeze_traffic_light", &[2], Answer::Value, Run::Actor),
    row("reset_traffic_light_group", &[1], Answer::Value, Run::Actor),
    row("send", &[2], Answer::Value, Run::Actor),
    row("set_bones_transform", &[2], Answer::Value, Run::Actor),
    row("blend_pose", &[2], Answer::Value, Run::Actor),
    row("get_pose_from_animation", &[1], Answer::Value, Run::Actor),
    // Commands to the world (`actor_commands`).
    row("freeze_all_traffic_lights", &[1], Answer::Value, Run::World),
    row("reset_all_traffic_lights", &[0], Answer::Void, Run::World),
    // A part of one actor (`part_calls`).
    row("enable_gbuffers", &[2], Answer::Void, Run::Handler(part::enable_gbuffers)),
    m("are_gbuffers_enabled", &[1], part::are_gbuffers_enabled),
    m("get_gbuffer_token", &[2], part::get_gbuffer_token),
    m("get_physics_control", &[1], part::get_physics_control),
    m("get_telemetry_data", &[1], part::get_telemetry_data),
    m("get_bones_transform", &[1], part::get_bones_transform),
    m("get_ackermann_controller_settings", &[1], part::get_ackermann_controller_settings),
    m("get_actor_component_names", &[1], part::get_actor_component_names),
    m("get_actor_socket_names", &[1], part::get_actor_socket_names),
    m("get_actor_socket_relative_transforms", &[1], |c, a, out| part::socket_transforms(c, a, out, part::parts)),
    m("get_actor_socket_world_transforms", &[1], |c, a, out| part::socket_transforms(c, a, out, part::world_parts)),
    m("get_actor_component_relative_transform", &[2], |c, a, out| part::component_transform(c, a, out, part::parts)),
    m("get_actor_component_world_transform", &[2], |c, a, out| part::component_transform(c, a, out, part::world_parts)),
    m("get_wheel_steer_angle", &[2], part::get_wheel_steer_angle),
    // The recorder and replayer (`recording`).
    m("start_recorder", &[2], rec::start_recorder),
    m("stop_recorder", &[0], rec::stop_recorder),
    m("show_recorder_file_info", &[2], rec::show_recorder_file_info),
    m("show_recorder_collisions", &[3], rec::show_recorder_collisions),
    m("show_recorder_actors_blocked", &[3], rec::show_recorder_actors_blocked),
    // 0.9.16 sends the follow offset; older releases do not.
    m("replay_file", &[5, 6], rec::replay_file),
    m("stop_replayer", &[1], rec::stop_replayer),
    m("set_replayer_time_factor", &[1], rec::set_replayer_time_factor),
    m("set_replayer_ignore_hero", &[1], |c, a, out| rec::set_replayer_ignore(c, a, out, true)),
    m("set_replayer_ignore_spectator", &[1], |c, a, out| rec::set_replayer_ignore(c, a, out, false)),
    // ROS 2 publishing, by stream id (`ros`).
    m("enable_sensor_for_ros", &[1], ros::enable_sensor_for_ros),
    m("disable_sensor_for_ros", &[1], ros::disable_sensor_for_ros),
    m("is_sensor_enabled_for_ros", &[1], ros::is_sensor_enabled_for_ros),
    // Known, not carried out here (docs/compatibility.md lists them).
    not_here("load_map_layer", Answer::Void, "this server's maps have no layers"),
    not_here("unload_map_layer", Answer::Void, "this server's maps have no layers"),
    not_here("apply_color_texture_to_objects", Answer::Void, "textures are not supported by this server"),
    not_here("apply_float_color_texture_to_objects", Answer::Void, "textures are not supported by this server"),
    not_here("get_names_of_all_objects", Answer::Value, "the level's object names are not available on this server"),
    not_here("get_navigation_mesh", Answer::Value, "use get_required_files(\"Nav\") and request_file"),
    not_here("set_wheel_steer_direction", Answer::Void, "wheels cannot be turned by hand on this server (they follow the steer)"),
    not_here("get_wheel_pitch_angle", Answer::Value, "wheel angles are not available on this server"),
    not_here("set_wheel_pitch_angle", Answer::Void, "wheel angles are not available on this server"),
    not_here("enable_carsim", Answer::Void, "CarSim is not available on this server"),
    not_here("use_carsim_road", Answer::Void, "CarSim is not available on this server"),
    not_here("enable_chrono_physics", Answer::Void, "Chrono is not available on this server"),
    not_here("restore_physx_physics", Answer::Void, "Chrono and CarSim are not available on this server"),
    not_here("get_actor_bone_world_transforms", Answer::Value, "skeletons are not available on this server"),
    not_here("get_actor_bone_relative_transforms", Answer::Value, "skeletons are not available on this server"),
    not_here("get_actor_bone_names", Answer::Value, "skeletons are not available on this server"),
    not_here("get_vehicle_bone_world_transforms", Answer::Value, "skeletons are not available on this server"),
    not_here("get_light_boxes", Answer::Value, "traffic-light lamp boxes are not available on this server"),
    not_here("get_all_level_BBs", Answer::Value, "the level's bounding boxes are not available on this server"),
    not_here("get_environment_objects", Answer::Value, "the level's environment objects are not available on this server"),
    not_here("enable_environment_objects", Answer::Void, "the level's environment objects are not available on this server"),
    not_here("project_point", Answer::Value, "ray queries (project_point, ground_projection) are not available on this server"),
    not_here("cast_ray", Answer::Value, "ray queries (cast_ray) are not available on this server"),
    not_here("set_annotations_traverse_translucency", Answer::Void, "annotation settings are not available on this server"),
    not_here("set_ignored_vehicles", Answer::Void, "sensor ignore lists are not available on this server"),
    not_here("update_lights_state", Answer::Void, "street and building lights are not available on this server"),
    not_here("update_day_night_cycle", Answer::Void, "street and building lights are not available on this server"),
];

/// The rows by name (several rows may share one, with other counts).
fn by_name() -> &'static HashMap<&'static str, Vec<&'static Method>> {
    static INDEX: OnceLock<HashMap<&'static str, Vec<&'static Method>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index: HashMap<_, Vec<_>> = HashMap::new();
        for method in METHODS {
            index.entry(method.name).or_default().push(method);
        }
        index
    })
}

/// The row of `name` taking `args` arguments.
pub(crate) fn find(name: &str, args: usize) -> Option<&'static Method> {
    by_name()
        .get(name)?
        .iter()
        .copied()
        .find(|m| m.args == ANY || m.args.contains(&args))
}

/// Whether the client reads `name`'s answer as a `Response<void>`.
pub(crate) fn answers_void(name: &str) -> bool {
    by_name()
        .get(name)
        .is_some_and(|rows| rows.iter().any(|m| m.answer == Answer::Void))
}

/// Runs `method` for connection `caller`; `Err` is a failed `Response`
/// with that message.
pub(crate) fn call(
    s: &RpcShared,
    caller: u64,
    release: Release,
    method: &str,
    a: &[Value],
    out: &mut Out,
) -> ArgResult<Outcome> {
    let Some(row) = find(method, a.len()) else {
        return Ok(Outcome::Unknown);
    };
    let call = Call {
        s,
        caller,
        release,
        method: row.name,
    };
    match row.run {
        Run::Handler(run) => run(&call, a, out)?,
        Run::Actor => {
            let parsed = actor_commands::from_rpc(row.name, a)
                .ok_or_else(|| format!("{}: not an actor command", row.name))?;
            wire::void(out, || {
                let (actor_id, command) = parsed?;
                actors::command(s, actor_id, command)
            });
        }
        Run::World => {
            let parsed = actor_commands::world_from_rpc(row.name, a)
                .ok_or_else(|| format!("{}: not a world command", row.name))?;
            wire::void(out, || s.tell(EngineCall::World(parsed?)));
        }
        Run::Unsupported(why) => {
            let why = unsupported(row.name, why);
            match row.answer {
                Answer::Void => wire::void_failed(out, &why),
                Answer::Value => return Err(RpcError::Unsupported(why)),
            }
        }
    }
    Ok(Outcome::Done)
}

/// The message for an unsupported method, logged once per method.
fn unsupported(name: &'static str, why: &str) -> String {
    static LOGGED: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    if LOGGED.lock().insert(name) {
        crate::log_info!(
            "rpc: a client called {}: {} (answered with that error)",
            name,
            why
        );
    }
    format!("{name}: {why}")
}

#[cfg(test)]
#[path = "methods_tests.rs"]
mod tests;
