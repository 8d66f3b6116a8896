//! The 0.9 cameras of a tick: cameras that see the same view (same parent,
//! mount, size and field of view; an RGB, a depth and a segmentation camera
//! on one mount, say) are rendered once, stripe by stripe, and each writes
//! its own output from the same G-buffer.

use super::sensors::{parent_pose, pose, Kind, Sensor09, Tick};
use crate::world::rendering::gbuffer::{Channels, GBuffer, Output};
use crate::world::rendering::motion::{Motion, Reprojection};
use crate::world::rendering::render::CameraPose;
use carla_server::log_warn;
use carla_server::sensor::{
    ActorTransform, CaptureContext, GBufferTexture, PendingGBuffer, PendingImage,
};
use carla_server::types::Transform;

/// A parent's transform in the form sensor poses take.
fn as_transform(t: ActorTransform) -> Transform {
    Transform {
        location: t.location,
        rotation: t.rotation,
        ..Transform::default()
    }
}

/// Reused between ticks.
#[derive(Default)]
pub(crate) struct CameraScratch {
    gbuffer: Option<GBuffer>,
    /// (sensor index, its image) of the view being rendered.
    images: Vec<(usize, PendingImage)>,
    /// (sensor index, output, image) of the G-buffer textures clients
    /// listen to in the view being rendered.
    textures: Vec<(usize, Output, PendingGBuffer)>,
    /// Sensors already captured this tick.
    done: Vec<bool>,
    /// Each sensor's image size if it is a camera due this tick.
    sizes: Vec<Option<(u32, u32, f32)>>,
}

/// What makes two cameras see the same image.
fn view_of(s: &Sensor09, size: (u32, u32, f32)) -> (u32, [u32; 6], u32, u32, u32) {
    let (l, r) = (s.mount.location, s.mount.rotation);
    let bits = [l.x, l.y, l.z, r.pitch, r.yaw, r.roll].map(f32::to_bits);
    (s.parent, bits, size.0, size.1, size.2.to_bits())
}

/// Renders and sends every camera due this tick.
pub(crate) fn capture_all(sensors: &mut [Sensor09], t: &Tick, scratch: &mut CameraScratch) {
    if !t.rendering {
        return;
    }
    let CameraScratch {
        gbuffer,
        images,
        textures,
        done,
        sizes,
    } = scratch;
    let gbuffer = gbuffer.get_or_insert_with(GBuffer::new);
    done.clear();
    done.resize(sensors.len(), false);
    // Which cameras capture now (sensor_tick), and their sizes.
    sizes.clear();
    sizes.extend(sensors.iter_mut().map(|s| {
        if !matches!(s.kind, Kind::Camera(_)) || !s.due(t.time) {
            return None;
        }
        let sensor = t.server.sensor(s.stream).ok()?;
        sensor.camera().map(|(w, h, fov, _)| (w, h, fov))
    }));
    for first in 0..sensors.len() {
        let Some(size) = sizes[first].filter(|_| !done[first]) else {
            continue;
        };
        let view = view_of(&sensors[first], size);
        images.clear();
        textures.clear();
        for (i, s) in sensors.iter().enumerate().skip(first) {
            if done[i] || sizes[i].is_none_or(|z| view_of(s, z) != view) {
                continue;
            }
            done[i] = true;
            let Ok(sensor) = t.server.sensor(s.stream) else {
                continue;
            };
            match sensor.acquire_image() {
                Ok(image) => images.push((i, image)),
                Err(e) => log_warn!("camera {}: {}", s.actor, e),
            }
            if s.kind == Kind::Camera(Output::Rgb) && s.blueprint == "sensor.camera.rgb" {
                acquire_textures(&sensor, i, textures);
            }
        }
        if images.is_empty() {
            continue;
        }
        let s = &sensors[first];
        let parent = parent_pose(t.world, s.parent);
        let at = pose(s, &parent);
        let camera = CameraPose::new(at.location, &at.rotation);
        let (w, h, fov) = size;
        let moved = |id: u32| {
            let now = t.world.actor_transform(id)?;
            let now = ActorTransform {
                location: now.location,
                rotation: now.rotation,
            };
            Some((now, (t.previous)(id).unwrap_or(now)))
        };
        let motion = Motion {
            now: camera,
            before: (t.previous)(s.parent).map_or(camera, |p| {
                let before = pose(s, &as_transform(p));
                CameraPose::new(before.location, &before.rotation)
            }),
            fov_deg: fov,
            moved: &moved,
        };
        // Only the planes these outputs read (an RGB camera: no tags, ids,
        // normals or depth written; a semantic one: no shading).
        let kinds = images.iter().filter_map(|(i, _)| match sensors[*i].kind {
            Kind::Camera(output) => Some(output),
            _ => None,
        });
        let outputs = kinds.chain(textures.iter().map(|(_, output, _)| *output));
        let mut channels = outputs.fold(Channels::NONE, |c, o| c.and(Channels::of(o)));
        // A moving camera's motion blur reads each pixel's depth.
        let reproject = Reprojection::of(&motion, w as usize, h as usize);
        let blurred = |s: &Sensor09| s.optics.as_ref().is_some_and(|o| o.blurs());
        if reproject.is_some() && images.iter().any(|(i, _)| blurred(&sensors[*i])) {
            channels.depth = true;
        }
        // So does a distance blur.
        let far = |s: &Sensor09| s.optics.as_ref().is_some_and(|o| o.blurs_far());
        if images.iter().any(|(i, _)| far(&sensors[*i])) {
            channels.depth = true;
        }
        gbuffer.fill_only(channels);
        t.world.render_stripes(&camera, w, h, fov, gbuffer, |g| {
            for (i, image) in images.iter_mut() {
                let s = &mut sensors[*i];
                match s.kind {
                    Kind::Camera(Output::Flow) => {
                        g.write_flow(&motion, g.rows_of_sized(image.pixels_mut(), 8));
                    }
                    Kind::Camera(output) => {
                        let rows = g.rows_of(image.pixels_mut());
                        g.write(output, rows);
                        if let Some(tone) = &s.tone {
                            tone.apply(rows);
                        }
                        let o = s.optics.as_deref_mut().filter(|_| output == Output::Rgb);
                        if let Some(o) = o {
                            if o.blurs_far() {
                                o.blur_far(rows, w as usize, g.depth());
                            }
                            if let Some(r) = reproject.as_ref().filter(|_| o.blurs()) {
                                let at = (w as usize, g.first_row(), h as usize);
                                o.blur_motion(rows, at, g.depth(), r);
                            }
                        }
                    }
                    _ => {}
                }
            }
            for (_, output, image) in textures.iter_mut() {
                g.write(*output, g.rows_of(image.pixels_mut()));
            }
        });
        // The lens and post-processing, on the whole picture.
        for (i, image) in images.iter_mut() {
            let s = &mut sensors[*i];
            if let Some(optics) = s.optics.as_deref_mut() {
                let colour = s.blueprint == "sensor.camera.rgb";
                optics.apply(image.pixels_mut(), w as usize, h as usize, colour);
            }
        }
        let ctx = CaptureContext {
            frame: t.frame,
            timestamp: f64::from(t.time),
            transform: at,
        };
        for (i, image) in images.drain(..) {
            let s = &sensors[i];
            let sent = t
                .server
                .sensor(s.stream)
                .and_then(|sensor| sensor.commit_image(&ctx, image));
            if let Err(e) = sent {
                log_warn!("camera {}: {}", s.actor, e);
            }
        }
        for (i, _, image) in textures.drain(..) {
            let s = &sensors[i];
            let sent = t
                .server
                .sensor(s.stream)
                .and_then(|sensor| sensor.commit_gbuffer(&ctx, image));
            if let Err(e) = sent {
                log_warn!("camera {} G-buffer: {}", s.actor, e);
            }
        }
    }
}

/// The G-buffer textures the demo world renders, with the output each is
/// written from; the others (GBufferB to F but A, Velocity, SSAO) are
/// never sent, as when CARLA's scene lacks them.
const TEXTURES: [(GBufferTexture, Output); 6] = [
    (GBufferTexture::SceneColor, Output::Rgb),
    (GBufferTexture::SceneDepth, Output::Depth),
    (GBufferTexture::SceneStencil, Output::Stencil),
    (GBufferTexture::GBufferA, Output::Normals),
    (GBufferTexture::CustomDepth, Output::CustomDepth),
    (GBufferTexture::CustomStencil, Output::CustomStencil),
];

/// Buffers for the textures of RGB camera `sensor` (index `i`) that
/// clients listen to.
fn acquire_textures(
    sensor: &carla_server::Sensor<'_>,
    i: usize,
    textures: &mut Vec<(usize, Output, PendingGBuffer)>,
) {
    for (texture, output) in TEXTURES {
        match sensor.acquire_gbuffer(texture) {
            Ok(Some(image)) => textures.push((i, output, image)),
            Ok(None) => {}
            Err(e) => log_warn!("G-buffer {:?}: {}", texture, e),
        }
    }
}
