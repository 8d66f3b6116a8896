use super::*;
use crate::world::math::v3;
use carla_server::types::Rotation3D;

fn pose(x: f32, y: f32, yaw: f32) -> CameraPose {
    let rotation = Rotation3D {
        yaw,
        ..Default::default()
    };
    CameraPose::new(v3(x, y, 0.0), &rotation)
}

/// A 4 × 2 G-buffer of one depth and actor.
fn gbuffer(depth: f32, actor: u32) -> GBuffer {
    let mut g = GBuffer::new();
    g.resize(4, 0, 2);
    g.image_height = 2;
    g.depth.fill(depth);
    g.actor.fill(actor);
    g
}

fn flow(g: &GBuffer, m: &Motion) -> Vec<[f32; 2]> {
    let mut out = vec![0; g.depth.len() * 8];
    g.write_flow(m, &mut out);
    out.chunks_exact(8)
        .map(|p| {
            let f = |b: &[u8]| f32::from_le_bytes(b.try_into().unwrap());
            [f(&p[..4]), f(&p[4..])]
        })
        .collect()
}

fn still(_: u32) -> Option<(ActorTransform, ActorTransform)> {
    None
}

/// Pixel coordinates of camera-local point `p` (x forward) in a 4 × 2
/// image of 90° fov.
fn project(p: Vector3D) -> (f32, f32) {
    let step = 2.0 / 4.0;
    ((p.y / p.x + 1.0) / step, (-p.z / p.x + 0.5) / step)
}

#[test]
fn moving_forward_the_static_world_flows_out_of_the_centre() {
    let g = gbuffer(10.0, 0);
    let m = Motion {
        now: pose(0.0, 0.0, 0.0),
        before: pose(-1.0, 0.0, 0.0),
        fov_deg: 90.0,
        moved: &still,
    };
    let f = flow(&g, &m);
    // Top-left pixel (0.5, 0.5): its ray (1, -0.75, 0.25) at depth 10, seen
    // from 1 m further back.
    let (xb, yb) = project(v3(11.0, -7.5, 2.5));
    let want = [(0.5 - xb) * 2.0 / 4.0, -(0.5 - yb) * 2.0 / 2.0];
    assert!((f[0][0] - want[0]).abs() < 1e-5 && (f[0][1] - want[1]).abs() < 1e-5);
    assert!(f[0][0] < 0.0 && f[0][1] > 0.0, "up and left: {:?}", f[0]);
    // Bottom-right pixel: down and right.
    assert!(f[7][0] > 0.0 && f[7][1] < 0.0, "{:?}", f[7]);
    // Symmetric about the centre.
    assert!((f[0][0] + f[7][0]).abs() < 1e-5 && (f[0][1] + f[7][1]).abs() < 1e-5);
}

#[test]
fn turning_moves_even_the_sky() {
    let g = gbuffer(f32::INFINITY, 0);
    let m = Motion {
        now: pose(0.0, 0.0, 10.0),
        before: pose(5.0, 5.0, 0.0),
        fov_deg: 90.0,
        moved: &still,
    };
    let f = flow(&g, &m);
    // Turning right by 10°, the sky slides left by tan 10° of the half
    // width, whatever the translation.
    let centre_ray = 0.25f32.atan().to_degrees(); // pixel 2's ray, 0.25 right
    let xb = ((centre_ray + 10.0).to_radians().tan() + 1.0) / 0.5;
    assert!((f[2][0] - (2.5 - xb) * 0.5).abs() < 1e-4, "{:?}", f[2]);
    assert!(f.iter().all(|p| p[0] < 0.0));
}

#[test]
fn points_on_a_moving_actor_move_with_it() {
    let mut g = gbuffer(10.0, 0);
    g.actor[1] = 7;
    g.actor[2] = 7;
    let moved = |id: u32| {
        (id == 7).then(|| {
            let at = |y: f32| ActorTransform {
                location: v3(10.0, y, 0.0),
                rotation: Rotation3D::default(),
            };
            (at(1.0), at(0.0))
        })
    };
    let m = Motion {
        now: pose(0.0, 0.0, 0.0),
        before: pose(0.0, 0.0, 0.0),
        fov_deg: 90.0,
        moved: &moved,
    };
    let f = flow(&g, &m);
    // 1 m to the right at 10 m: 0.1 of the half width to the right.
    for i in [1, 2] {
        assert!(
            (f[i][0] - 0.1).abs() < 1e-5 && f[i][1].abs() < 1e-6,
            "{:?}",
            f[i]
        );
    }
    for i in [0, 3, 4, 5, 6, 7] {
        assert_eq!(f[i], [0.0, 0.0], "pixel {i}");
    }
}

#[test]
fn a_point_that_was_behind_the_camera_has_no_flow() {
    let g = gbuffer(1.0, 0);
    let m = Motion {
        now: pose(0.0, 0.0, 0.0),
        before: pose(3.0, 0.0, 0.0),
        fov_deg: 90.0,
        moved: &still,
    };
    assert!(flow(&g, &m).iter().all(|p| *p == [0.0, 0.0]));
}

#[test]
fn normals_and_cosmos_outputs_encode_the_g_buffer() {
    use super::super::gbuffer::Output;
    use crate::world::scene::tags::tag;
    let mut g = gbuffer(1.0, 0);
    g.normal
        .fill(super::super::shade::normal_bgra(v3(0.0, 0.0, 1.0)));
    g.tag.copy_from_slice(&[
        tag::VEHICLES,
        tag::PEDESTRIANS,
        tag::BUILDINGS,
        tag::ROADS,
        0,
        0,
        0,
        0,
    ]);
    let mut out = [0; 32];
    g.write(Output::Normals, &mut out);
    assert_eq!(out[..4], [255, 128, 128, 255], "z up: B full, G and R mid");
    g.write(Output::Cosmos, &mut out);
    assert_eq!(
        out[..16],
        [0, 0, 255, 255, 0, 255, 0, 255, 0, 0, 0, 255, 221, 103, 56, 255]
    );
}

#[test]
fn the_reprojection_gives_the_flow_cameras_pixel_motion() {
    // A camera that moved and turned, the world still: the motion in
    // pixels is the optical flow's, in its units.
    let g = gbuffer(7.0, 0);
    let m = Motion {
        now: pose(0.0, 0.0, 10.0),
        before: pose(-0.8, 0.3, 4.0),
        fov_deg: 90.0,
        moved: &still,
    };
    let f = flow(&g, &m);
    let r = Reprojection::of(&m, 4, 2).expect("the camera moved");
    for (i, want) in f.iter().enumerate() {
        let (dx, dy) = r.pixels(i % 4, i / 4, 7.0);
        assert!(
            (dx * 2.0 / 4.0 - want[0]).abs() < 1e-4,
            "{i}: {dx} {want:?}"
        );
        assert!(
            (-dy * 2.0 / 2.0 - want[1]).abs() < 1e-4,
            "{i}: {dy} {want:?}"
        );
    }
    // A camera that stood still: nothing to reproject.
    let still_camera = Motion { before: m.now, ..m };
    assert!(Reprojection::of(&still_camera, 4, 2).is_none());
}
