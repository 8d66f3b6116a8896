//! `show_recorder_file_info(show_all)`'s block for a `PhysicsControl`
//! packet (written by CARLA with `additional_data`; this server does not
//! write them, but reads CARLA's files).

use super::format::{FormatError, Get};
use super::text::g32;
use std::fmt::Write;

type Pairs = Vec<(f32, f32)>;

fn pairs(d: &mut Get<'_>) -> Result<Pairs, FormatError> {
    let n = d.u32()? as usize;
    if n > d.left() / 8 {
        return Err(FormatError(format!(
            "a curve of {n} points in a shorter packet"
        )));
    }
    (0..n).map(|_| Ok((d.f32()?, d.f32()?))).collect()
}

/// A curve as CARLA prints it after its round trip through a UE curve:
/// sorted by x, the later of equal keys first.
fn curve(o: &mut String, name: &str, mut points: Pairs) {
    points.reverse();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let _ = write!(o, "   {name} =");
    for (x, y) in points {
        let _ = write!(o, " ({}, {})", g32(x), g32(y));
    }
    o.push('\n');
}

/// Prints the packet's records; `frame_line(o, count)` prints the frame
/// line first when needed.
pub(crate) fn print(
    d: &mut Get<'_>,
    o: &mut String,
    frame_line: &mut dyn FnMut(&mut String, usize),
) -> Result<(), FormatError> {
    let n = d.u16()? as usize;
    frame_line(o, n);
    let _ = writeln!(o, " Physics Control events: {n}");
    for _ in 0..n {
        let id = d.u32()?;
        let names = [
            "max_rpm",
            "MOI",
            "damping_rate_full_throttle",
            "damping_rate_zero_throttle_clutch_engaged",
            "damping_rate_zero_throttle_clutch_disengaged",
        ];
        let _ = writeln!(o, "  Id: {id}");
        for name in names {
            let _ = writeln!(o, "   {name} = {}", g32(d.f32()?));
        }
        let autobox = d.bool()?;
        let _ = writeln!(o, "   use_gear_auto_box = {autobox}");
        // Not stored in the file: the struct's default.
        let _ = writeln!(o, "   gear_switch_time = 0.5");
        for name in ["clutch_strength", "final_ratio", "mass", "drag_coefficient"] {
            let _ = writeln!(o, "   {name} = {}", g32(d.f32()?));
        }
        let com = d.vec3()?.map(|v| (v * 100.0) * 0.01);
        let _ = writeln!(
            o,
            "   center_of_mass = ({}, {}, {})",
            g32(com[0]),
            g32(com[1]),
            g32(com[2])
        );
        let torque = pairs(d)?;
        let ng = d.u32()? as usize;
        if ng > d.left() / 12 {
            return Err(FormatError(format!("{ng} gears in a shorter packet")));
        }
        let gears: Vec<[f32; 3]> = (0..ng)
            .map(|_| Ok([d.f32()?, d.f32()?, d.f32()?]))
            .collect::<Result<_, FormatError>>()?;
        let steering = pairs(d)?;
        let nw = d.u32()? as usize;
        if nw > d.left() / 48 {
            return Err(FormatError(format!("{nw} wheels in a shorter packet")));
        }
        curve(o, "torque_curve", torque);
        curve(o, "steering_curve", steering);
        let _ = writeln!(o, "   forward_gears:");
        for (i, [r, down, up]) in gears.iter().enumerate() {
            let _ = writeln!(
                o,
                "    gear {i}: ratio {} down_ratio {} up_ratio {}",
                g32(*r),
                g32(*down),
                g32(*up)
            );
        }
        let _ = writeln!(o, "   wheels:");
        for i in 0..nw {
            let w: Vec<f32> = (0..12).map(|_| d.f32()).collect::<Result<_, _>>()?;
            let _ = writeln!(
                o,
                "    wheel {i}: tire_friction {} damping_rate {} max_steer_angle {} radius {} \
                 max_brake_torque {} max_handbrake_torque {} position ({}, {}, {})",
                g32(w[0]),
                g32(w[1]),
                g32(w[2]),
                g32(w[3]),
                g32(w[4]),
                g32(w[5]),
                g32(w[9]),
                g32(w[10]),
                g32(w[11])
            );
        }
    }
    Ok(())
}
