//! Named views of the request kinds whose values are packed into
//! `carla_rpc_request`'s `numbers`, `scalar`, `value` and `location`: a C
//! host reads `carla_rpc_request_ackermann_control(&req, &control)` instead
//! of knowing that `numbers[2]` is the speed. Each accessor checks the kind
//! (another kind is `CARLA_SERVER_INVALID_ARGUMENT`), so a host that
//! confuses two kinds hears about it instead of reading another command's
//! numbers. The packed fields stay, with the same meaning: the struct's
//! layout is the released ABI.

use super::args::{array, read, write};
use super::codes::Fail;
use super::rpc_commands::{
    CARLA_RPC_ACKERMANN_CONTROL, CARLA_RPC_ACKERMANN_SETTINGS, CARLA_RPC_PHYSICS_CONTROL,
    CARLA_RPC_SET_WALKER_BONES,
};
use super::rpc_request::carla_rpc_request;
use crate::rpc::BoneTransform;
use crate::types::Vector3D;

/// `CARLA_RPC_ACKERMANN_CONTROL`: a client's
/// `carla.VehicleAckermannControl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct carla_ackermann_control {
    /// Radians, positive to the right.
    pub steer: f32,
    /// Radians per second.
    pub steer_speed: f32,
    /// Metres per second.
    pub speed: f32,
    /// Metres per second squared.
    pub acceleration: f32,
    /// Metres per second cubed.
    pub jerk: f32,
}

/// `CARLA_RPC_ACKERMANN_SETTINGS`: a client's
/// `carla.AckermannControllerSettings` (the controller's PID gains).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct carla_ackermann_settings {
    pub speed_kp: f32,
    pub speed_ki: f32,
    pub speed_kd: f32,
    pub accel_kp: f32,
    pub accel_ki: f32,
    pub accel_kd: f32,
}

/// `CARLA_RPC_PHYSICS_CONTROL`: the parts of a client's
/// `carla.VehiclePhysicsControl` a C host is given (a Rust host gets all
/// of it).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct carla_physics_control {
    /// Kilograms.
    pub mass: f32,
    /// Metres, in the vehicle's frame.
    pub center_of_mass: Vector3D,
    pub wheel_count: u32,
    /// Degrees: the largest of the wheels'.
    pub max_steer_angle: f32,
    pub drag_coefficient: f32,
    pub max_rpm: f32,
    pub final_ratio: f32,
    /// The first wheel's.
    pub tire_friction: f32,
}

/// Reads a `CARLA_RPC_ACKERMANN_CONTROL` request's values into `control`.
/// `CARLA_SERVER_NULL_ARGUMENT`: a NULL pointer;
/// `CARLA_SERVER_INVALID_ARGUMENT`: a request of another kind.
///
/// # Safety
/// `request` NULL or a request `carla_rpc_poll` filled; `control` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_request_ackermann_control(
    request: *const carla_rpc_request,
    control: *mut carla_ackermann_control,
) -> i32 {
    export!({
        let (req, out) = (read(request)?, write(control)?);
        let [steer, steer_speed, speed, acceleration, jerk] =
            of_kind(req, CARLA_RPC_ACKERMANN_CONTROL)?.numbers;
        *out = carla_ackermann_control {
            steer,
            steer_speed,
            speed,
            acceleration,
            jerk,
        };
        Ok(())
    })
}

/// Reads a `CARLA_RPC_ACKERMANN_SETTINGS` request's gains into
/// `settings`. `CARLA_SERVER_NULL_ARGUMENT`: a NULL pointer;
/// `CARLA_SERVER_INVALID_ARGUMENT`: a request of another kind.
///
/// # Safety
/// `request` NULL or a request `carla_rpc_poll` filled; `settings` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_request_ackermann_settings(
    request: *const carla_rpc_request,
    settings: *mut carla_ackermann_settings,
) -> i32 {
    export!({
        let (req, out) = (read(request)?, write(settings)?);
        let req = of_kind(req, CARLA_RPC_ACKERMANN_SETTINGS)?;
        let [speed_kp, speed_ki, speed_kd, accel_kp, accel_ki] = req.numbers;
        *out = carla_ackermann_settings {
            speed_kp,
            speed_ki,
            speed_kd,
            accel_kp,
            accel_ki,
            accel_kd: req.scalar,
        };
        Ok(())
    })
}

/// Reads a `CARLA_RPC_PHYSICS_CONTROL` request's values into `control`.
/// `CARLA_SERVER_NULL_ARGUMENT`: a NULL pointer;
/// `CARLA_SERVER_INVALID_ARGUMENT`: a request of another kind.
///
/// # Safety
/// `request` NULL or a request `carla_rpc_poll` filled; `control` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_request_physics_control(
    request: *const carla_rpc_request,
    control: *mut carla_physics_control,
) -> i32 {
    export!({
        let (req, out) = (read(request)?, write(control)?);
        let req = of_kind(req, CARLA_RPC_PHYSICS_CONTROL)?;
        let [max_steer_angle, drag_coefficient, max_rpm, final_ratio, tire_friction] = req.numbers;
        *out = carla_physics_control {
            mass: req.scalar,
            center_of_mass: req.location,
            wheel_count: req.value,
            max_steer_angle,
            drag_coefficient,
            max_rpm,
            final_ratio,
            tire_friction,
        };
        Ok(())
    })
}

/// Copies bone `index` of a `CARLA_RPC_SET_WALKER_BONES` request to
/// `bone` (the same as reading `request->bones[index]`, with the index
/// checked). `CARLA_SERVER_INVALID_ARGUMENT`: another kind of request, or
/// `index` not below `bone_count`.
///
/// # Safety
/// `request` NULL or a request `carla_rpc_poll` filled, not polled over
/// since (its bones are still there); `bone` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_request_bone(
    request: *const carla_rpc_request,
    index: u32,
    bone: *mut BoneTransform,
) -> i32 {
    export!({
        let (req, out) = (read(request)?, write(bone)?);
        let req = of_kind(req, CARLA_RPC_SET_WALKER_BONES)?;
        if index >= req.bone_count {
            return Err(Fail::Lib(crate::Error::InvalidArgument(format!(
                "bone {index} of a request of {}",
                req.bone_count
            ))));
        }
        *out = array(req.bones, req.bone_count)?[index as usize];
        Ok(())
    })
}

/// `request` if it is of `kind`.
fn of_kind(request: &carla_rpc_request, kind: u32) -> Result<&carla_rpc_request, Fail> {
    if request.kind == kind {
        Ok(request)
    } else {
        Err(Fail::Lib(crate::Error::InvalidArgument(format!(
            "a request of kind {} is not of kind {kind}",
            request.kind
        ))))
    }
}
