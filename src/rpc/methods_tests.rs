use super::*;

/// The methods the stock 0.9.16 client (`carla` on PyPI) sends, from its
/// LibCarla client (`client/detail/Client.cpp`). The last test checks each
/// against the installed wheel.
#[rustfmt::skip]
const CLIENT_0916: &[&str] = &[
    "version", "get_episode_info", "get_sensor_token", "get_episode_settings",
    "set_episode_settings", "tick_cue", "get_required_files", "request_file",
    "query_lights_state", "update_lights_state", "update_day_night_cycle",
    "get_actor_definitions", "get_map_info", "get_map_data", "get_navigation_mesh",
    "get_weather_parameters", "set_weather_parameters", "get_imui_gravity",
    "set_imui_gravity", "get_available_maps", "load_new_episode",
    "load_map_layer", "unload_map_layer", "copy_opendrive_to_file",
    "apply_batch", "draw_debug_shape", "spawn_actor", "spawn_actor_with_parent",
    "destroy_actor", "get_actor_bounding_box", "get_actors_by_id", "get_spectator",
    "set_actor_transform", "set_actor_location", "set_actor_target_velocity",
    "apply_control_to_vehicle", "show_vehicle_debug_telemetry",
    "get_group_traffic_lights", "get_vehicle_light_states", "get_vehicle_light_state",
    "is_traffic_manager_running", "get_traffic_manager_running",
    "add_traffic_manager_running", "destroy_traffic_manager",
    "set_actor_simulate_physics", "set_actor_enable_gravity", "set_actor_collisions",
    "set_actor_autopilot", "enable_actor_constant_velocity",
    "disable_actor_constant_velocity", "set_actor_target_angular_velocity",
    "add_actor_impulse", "add_actor_impulse_at_location", "add_actor_force",
    "add_actor_force_at_location", "add_actor_angular_impulse", "add_actor_torque",
    "apply_control_to_walker", "set_vehicle_light_state",
    "apply_ackermann_control_to_vehicle", "apply_ackermann_controller_settings",
    "apply_physics_control", "open_vehicle_door", "close_vehicle_door",
    "set_actor_dead", "set_traffic_light_state", "set_traffic_light_green_time",
    "set_traffic_light_yellow_time", "set_traffic_light_red_time",
    "freeze_traffic_light", "reset_traffic_light_group", "set_bones_transform",
    "blend_pose", "get_pose_from_animation", "freeze_all_traffic_lights",
    "reset_all_traffic_lights", "enable_gbuffers", "are_gbuffers_enabled",
    "get_gbuffer_token", "get_physics_control", "get_telemetry_data",
    "get_bones_transform", "get_ackermann_controller_settings",
    "get_actor_component_names", "get_actor_socket_names",
    "get_actor_socket_relative_transforms", "get_actor_socket_world_transforms",
    "get_actor_component_relative_transform", "get_actor_component_world_transform",
    "get_actor_bone_world_transforms", "get_actor_bone_relative_transforms",
    "get_actor_bone_names", "get_vehicle_bone_world_transforms",
    "get_wheel_steer_angle", "set_wheel_steer_direction", "get_wheel_pitch_angle",
    "set_wheel_pitch_angle", "start_recorder", "stop_recorder",
    "show_recorder_file_info", "show_recorder_collisions",
    "show_recorder_actors_blocked", "replay_file", "stop_replayer",
    "set_replayer_time_factor", "set_replayer_ignore_hero",
    "set_replayer_ignore_spectator", "enable_sensor_for_ros",
    "disable_sensor_for_ros", "is_sensor_enabled_for_ros", "send",
    "apply_color_texture_to_objects", "apply_float_color_texture_to_objects",
    "get_names_of_all_objects", "enable_carsim", "use_carsim_road",
    "enable_chrono_physics", "restore_physx_physics", "get_light_boxes",
    "get_all_level_BBs", "get_environment_objects", "enable_environment_objects",
    "project_point", "cast_ray", "set_annotations_traverse_translucency",
    "set_ignored_vehicles",
];

/// In the table, not sent by the stock client: the project's own, and
/// what older releases' clients send.
const NOT_THE_CLIENTS: &[&str] = &[
    "get_actor_stream_token",
    "clear_debug_shape",
    "clear_debug_string",
];

#[test]
fn no_method_is_listed_twice_for_the_same_argument_count() {
    for (i, a) in METHODS.iter().enumerate() {
        for b in &METHODS[i + 1..] {
            if a.name != b.name {
                continue;
            }
            let overlap =
                a.args == ANY || b.args == ANY || a.args.iter().any(|n| b.args.contains(n));
            assert!(
                !overlap,
                "{} is listed twice for one argument count",
                a.name
            );
        }
    }
}

#[test]
fn every_method_the_0_9_16_client_sends_is_in_the_table() {
    let missing: Vec<&str> = CLIENT_0916
        .iter()
        .copied()
        .filter(|m| !by_name().contains_key(m))
        .collect();
    assert!(missing.is_empty(), "not in the table: {missing:?}");
}

#[test]
fn every_method_in_the_table_is_the_clients_or_named_as_not() {
    for m in METHODS {
        assert!(
            CLIENT_0916.contains(&m.name) != NOT_THE_CLIENTS.contains(&m.name),
            "{}: in exactly one of CLIENT_0916 and NOT_THE_CLIENTS",
            m.name
        );
    }
}

/// The actor and world rows name what their parsers know, with the same
/// argument counts: a row the parser does not know would answer an error
/// for a method the table lists.
#[test]
fn actor_and_world_rows_are_known_to_their_parsers() {
    for m in METHODS {
        let args = vec![Value::Nil; m.args.first().copied().unwrap_or(0)];
        match m.run {
            Run::Actor => assert!(
                actor_commands::from_rpc(m.name, &args).is_some(),
                "{}",
                m.name
            ),
            Run::World => assert!(
                actor_commands::world_from_rpc(m.name, &args).is_some(),
                "{}",
                m.name
            ),
            _ => {}
        }
    }
}

/// The answers the client reads as `Response<void>`: those it waits for
/// with `CallAndWait<void>`.
#[test]
fn void_answers_are_the_clients_call_and_wait_void() {
    for name in [
        "load_new_episode",
        "copy_opendrive_to_file",
        "enable_gbuffers",
        "set_actor_simulate_physics",
        "set_actor_collisions",
        "reset_all_traffic_lights",
        "load_map_layer",
        "set_ignored_vehicles",
    ] {
        assert!(answers_void(name), "{name}");
    }
    for name in [
        "get_map_data",
        "spawn_actor",
        "apply_batch",
        "start_recorder",
        "tick_cue",
    ] {
        assert!(!answers_void(name), "{name}");
    }
}

#[test]
fn lookup_takes_the_argument_count_into_account() {
    assert!(find("spawn_actor", 2).is_some());
    assert!(find("spawn_actor", 3).is_none());
    assert!(find("replay_file", 5).is_some() && find("replay_file", 6).is_some());
    assert!(find("replay_file", 4).is_none());
    // an unsupported method is refused with its reason whatever it is sent
    assert!(find("cast_ray", 0).is_some() && find("cast_ray", 7).is_some());
    assert!(find("no_such_method", 0).is_none());
}

/// Each name of `CLIENT_0916` is a string in the stock client's library
/// (`libcarla*.so` of the `carla==0.9.16` wheel that `scripts/test.sh`
/// installs in `target/venv-carla-0.9.16`). Without the wheel (a bare
/// `cargo test`) there is nothing to compare with, and the test says so.
#[test]
fn the_client_list_is_in_the_installed_0_9_16_wheel() {
    let venv =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/venv-carla-0.9.16/lib");
    let so = std::fs::read_dir(&venv).ok().and_then(|pythons| {
        pythons.flatten().find_map(|python| {
            let carla = python.path().join("site-packages/carla");
            std::fs::read_dir(carla)
                .ok()?
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("libcarla") && n.ends_with(".so"))
                })
        })
    });
    let Some(so) = so else {
        eprintln!(
            "no carla 0.9.16 wheel under {}: not compared",
            venv.display()
        );
        return;
    };
    let bytes = std::fs::read(&so).expect("the wheel's library reads");
    // The linker stores a string that ends another once ("spawn_actor" in
    // "try_spawn_actor"): a name counts if a string ends with it.
    let names: std::collections::HashSet<&[u8]> =
        CLIENT_0916.iter().map(|m| m.as_bytes()).collect();
    let mut lengths: Vec<usize> = names.iter().map(|n| n.len()).collect();
    lengths.sort_unstable();
    lengths.dedup();
    let mut found = std::collections::HashSet::new();
    let ends_a_name =
        |c: &&[u8]| c.len() >= lengths[0] && c.last().is_some_and(|b| b.is_ascii_lowercase());
    for chunk in bytes.split(|b| *b == 0).filter(ends_a_name) {
        for &n in lengths.iter().take_while(|n| **n <= chunk.len()) {
            if let Some(name) = names.get(&chunk[chunk.len() - n..]) {
                found.insert(*name);
            }
        }
    }
    let absent: Vec<&str> = CLIENT_0916
        .iter()
        .copied()
        .filter(|m| !found.contains(m.as_bytes()))
        .collect();
    assert!(
        absent.is_empty(),
        "not strings of {}: {absent:?}",
        so.display()
    );
}
