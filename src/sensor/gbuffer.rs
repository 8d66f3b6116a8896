//! G-buffer streams of an RGB camera (`sensor.listen_to_gbuffer(id, cb)`
//! in the 0.9.16 client): one extra stream per Unreal G-buffer texture,
//! created when a client first asks for its token (`get_gbuffer_token`),
//! sent only while the client enabled them (`enable_gbuffers(True)`) and
//! someone subscribes. Each message is a `gbuffer_uint8` one (registry id
//! 18): the 48-byte header, then an image payload of BGRA pixels, which
//! the client decodes as a `carla.Image` (CARLA 0.9.16 sends all thirteen
//! textures that way).

use crate::streaming::stream::{Delivery, Stream};
use parking_lot::Mutex;

/// `carla.GBufferTextureID`: the textures, in the client's numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum GBufferTexture {
    SceneColor = 0,
    SceneDepth = 1,
    SceneStencil = 2,
    GBufferA = 3,
    GBufferB = 4,
    GBufferC = 5,
    GBufferD = 6,
    GBufferE = 7,
    GBufferF = 8,
    Velocity = 9,
    Ssao = 10,
    CustomDepth = 11,
    CustomStencil = 12,
}

/// Number of textures.
pub(crate) const GBUFFER_TEXTURES: usize = 13;

impl GBufferTexture {
    /// Every texture, in id order.
    pub const ALL: [GBufferTexture; GBUFFER_TEXTURES] = [
        GBufferTexture::SceneColor,
        GBufferTexture::SceneDepth,
        GBufferTexture::SceneStencil,
        GBufferTexture::GBufferA,
        GBufferTexture::GBufferB,
        GBufferTexture::GBufferC,
        GBufferTexture::GBufferD,
        GBufferTexture::GBufferE,
        GBufferTexture::GBufferF,
        GBufferTexture::Velocity,
        GBufferTexture::Ssao,
        GBufferTexture::CustomDepth,
        GBufferTexture::CustomStencil,
    ];

    /// The texture with the client's id, if there is one.
    pub fn from_id(id: u32) -> Option<GBufferTexture> {
        Self::ALL.get(id as usize).copied()
    }
}

/// An RGB camera's G-buffer streams.
#[derive(Default)]
pub(crate) struct GBufferStreams {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    enabled: bool,
    streams: [Option<Stream>; GBUFFER_TEXTURES],
    /// The camera's delivery mode, given to streams created later.
    delivery: Option<Delivery>,
}

impl GBufferStreams {
    pub(crate) fn set_enabled(&self, on: bool) {
        self.inner.lock().enabled = on;
    }

    pub(crate) fn enabled(&self) -> bool {
        self.inner.lock().enabled
    }

    /// The stream id of `texture`, its stream created by `create` the
    /// first time.
    pub(crate) fn stream_id(
        &self,
        texture: GBufferTexture,
        create: impl FnOnce() -> Stream,
    ) -> u32 {
        let mut inner = self.inner.lock();
        let delivery = inner.delivery;
        let slot = &mut inner.streams[texture as usize];
        let stream = slot.get_or_insert_with(|| {
            let s = create();
            if let Some(d) = delivery {
                s.set_delivery(d);
            }
            s
        });
        stream.id()
    }

    /// The stream to send `texture` on, if enabled and someone listens.
    pub(crate) fn wanted(&self, texture: GBufferTexture) -> Option<Stream> {
        let inner = self.inner.lock();
        if !inner.enabled {
            return None;
        }
        inner.streams[texture as usize]
            .as_ref()
            .filter(|s| s.stats().subscribers > 0)
            .cloned()
    }

    pub(crate) fn set_delivery(&self, delivery: Delivery) {
        let mut inner = self.inner.lock();
        inner.delivery = Some(delivery);
        for s in inner.streams.iter().flatten() {
            s.set_delivery(delivery);
        }
    }

    /// Closes every stream (the camera is destroyed).
    pub(crate) fn close(&self) {
        for s in self
            .inner
            .lock()
            .streams
            .iter_mut()
            .filter_map(Option::take)
        {
            s.close();
        }
    }
}

#[cfg(test)]
#[path = "gbuffer_tests.rs"]
mod tests;
