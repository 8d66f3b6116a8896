//! The CARLA 0.9.16 calls this server knows but does not carry out, each
//! with the reason a client is given: a failed `Response` its Python
//! raises as `RuntimeError` (for a call that waits), or one log line per
//! method (for an asynchronous call, whose answer the client discards).
//! Nothing here is answered as if it had worked. docs/compatibility.md
//! lists them beside what is supported.

use parking_lot::Mutex;
use std::collections::BTreeSet;

/// `(method, returns void, why)`, one method a line.
#[rustfmt::skip]
const UNSUPPORTED: &[(&str, bool, &str)] = &[
    ("load_map_layer", true, "this server's maps have no layers"),
    ("unload_map_layer", true, "this server's maps have no layers"),
    ("apply_color_texture_to_objects", true, "textures are not supported by this server"),
    ("apply_float_color_texture_to_objects", true, "textures are not supported by this server"),
    ("get_names_of_all_objects", false, "the level's object names are not available on this server"),
    ("get_navigation_mesh", false, "use get_required_files(\"Nav\") and request_file"),
    ("set_wheel_steer_direction", true, "wheels cannot be turned by hand on this server (they follow the steer)"),
    ("get_wheel_pitch_angle", false, "wheel angles are not available on this server"),
    ("set_wheel_pitch_angle", true, "wheel angles are not available on this server"),
    ("enable_carsim", true, "CarSim is not available on this server"),
    ("use_carsim_road", true, "CarSim is not available on this server"),
    ("enable_chrono_physics", true, "Chrono is not available on this server"),
    ("restore_physx_physics", true, "Chrono and CarSim are not available on this server"),
    ("get_actor_bone_world_transforms", false, "skeletons are not available on this server"),
    ("get_actor_bone_relative_transforms", false, "skeletons are not available on this server"),
    ("get_actor_bone_names", false, "skeletons are not available on this server"),
    ("get_vehicle_bone_world_transforms", false, "skeletons are not available on this server"),
    ("get_light_boxes", false, "traffic-light lamp boxes are not available on this server"),
    ("get_all_level_BBs", false, "the level's bounding boxes are not available on this server"),
    ("get_environment_objects", false, "the level's environment objects are not available on this server"),
    ("enable_environment_objects", true, "the level's environment objects are not available on this server"),
    ("project_point", false, "ray queries (project_point, ground_projection) are not available on this server"),
    ("cast_ray", false, "ray queries (cast_ray) are not available on this server"),
    ("set_annotations_traverse_translucency", true, "annotation settings are not available on this server"),
    ("set_ignored_vehicles", true, "sensor ignore lists are not available on this server"),
    ("update_lights_state", true, "street and building lights are not available on this server"),
    ("update_day_night_cycle", true, "street and building lights are not available on this server"),
];

/// Methods already logged (asynchronous calls are logged once each).
static LOGGED: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());

/// Why `method` is not carried out, and whether it returns void; `None`
/// for methods not in the list.
pub(crate) fn reason(method: &str) -> Option<(bool, String)> {
    let &(name, void, why) = UNSUPPORTED.iter().find(|(m, _, _)| *m == method)?;
    if LOGGED.lock().insert(name) {
        crate::log_info!(
            "rpc: a client called {}: {} (answered with that error)",
            name,
            why
        );
    }
    Some((void, format!("{name}: {why}")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_method_is_listed_once() {
        let mut names: Vec<&str> = super::UNSUPPORTED.iter().map(|m| m.0).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
