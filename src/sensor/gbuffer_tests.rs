use super::*;
use crate::client::stream::StreamClient;
use crate::sensor::serialize::IMAGE_HEADER_SIZE;
use crate::sensor::CaptureContext;
use crate::Error;
use std::time::{Duration, Instant};

use crate::test_util::streaming_server as server;

#[test]
fn texture_ids_are_the_clients() {
    assert_eq!(GBufferTexture::from_id(0), Some(GBufferTexture::SceneColor));
    assert_eq!(GBufferTexture::from_id(3), Some(GBufferTexture::GBufferA));
    assert_eq!(
        GBufferTexture::from_id(12),
        Some(GBufferTexture::CustomStencil)
    );
    assert_eq!(GBufferTexture::from_id(13), None);
    for (i, t) in GBufferTexture::ALL.iter().enumerate() {
        assert_eq!(*t as usize, i);
    }
}

#[test]
fn a_texture_goes_out_only_when_enabled_and_listened_to() {
    let server = server();
    let pairs = [("image_size_x", "4"), ("image_size_y", "2")];
    let id = server.create_sensor("sensor.camera.rgb", &pairs).unwrap();
    let camera = server.sensor(id).unwrap();
    let texture = GBufferTexture::GBufferA;
    let ctx = CaptureContext {
        frame: 7,
        ..CaptureContext::default()
    };
    // No stream yet: not wanted, and sending is a no-op.
    assert!(!camera.gbuffer_wanted(texture).unwrap());
    camera.send_gbuffer(texture, &ctx, &[1; 32]).unwrap();
    let entry = server.sensors.get(id).unwrap();
    let stream = server.sensors.gbuffer_stream(id, texture).unwrap();
    assert_ne!(stream, id, "a stream of its own");
    assert_eq!(
        server.sensors.gbuffer_stream(id, texture).unwrap(),
        stream,
        "created once"
    );
    let other = server
        .sensors
        .gbuffer_stream(id, GBufferTexture::SceneDepth);
    assert_ne!(other.unwrap(), stream);
    let addr = server.streaming_addr().unwrap();
    let mut client = StreamClient::subscribe(addr, stream, Duration::from_secs(5)).unwrap();
    let end = Instant::now() + Duration::from_secs(5);
    while entry.instance.gbuffers().unwrap().wanted(texture).is_none() {
        entry.instance.gbuffers().unwrap().set_enabled(true);
        assert!(Instant::now() < end, "the subscription never registered");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(camera.gbuffer_wanted(texture).unwrap());
    let bad = camera.send_gbuffer(texture, &ctx, &[1; 31]);
    assert!(matches!(bad, Err(Error::InvalidArgument(_))));
    camera.send_gbuffer(texture, &ctx, &[9; 32]).unwrap();
    let m = client.next_message().unwrap();
    assert_eq!((m.sensor_type(), m.frame()), (18, 7));
    assert_eq!(m.payload()[..8], [4, 0, 0, 0, 2, 0, 0, 0]);
    assert_eq!(m.payload()[IMAGE_HEADER_SIZE..], [9; 32]);
    // Disabled: nothing more goes out; destroyed: the stream ends.
    entry.instance.gbuffers().unwrap().set_enabled(false);
    assert!(!camera.gbuffer_wanted(texture).unwrap());
    server.destroy_sensor(id).unwrap();
    assert!(
        client.next().is_none(),
        "end of file after the camera is destroyed"
    );
}

#[test]
fn only_rgb_cameras_have_g_buffers() {
    let server = server();
    let depth = server.create_sensor("sensor.camera.depth", &[]).unwrap();
    let wrong = server
        .sensors
        .gbuffer_stream(depth, GBufferTexture::SceneColor);
    assert!(matches!(wrong, Err(Error::WrongSensorKind { .. })));
    let camera = server.sensor(depth).unwrap();
    let wrong = camera.gbuffer_wanted(GBufferTexture::SceneColor);
    assert!(matches!(wrong, Err(Error::WrongSensorKind { .. })));
}
