//! One image's faces (see [`super`]): set up from the scene's blocks in
//! pieces on up to [`threads`] threads, then sorted into bands of rows.
//!
//! The blocks are cut into [`PIECES`] runs of consecutive blocks, handed
//! out from a shared queue; each piece keeps its own face list, so the
//! faces stay in block order whatever thread made them (and the images
//! stay the same from run to run). A face is named by its piece and its
//! place there ([`FaceId`]).

use super::faces::{Face, Faces, Look, View};
use super::BAND;
use crate::world::scene::Scene;
use crate::world::workers::{on_threads, threads};
use parking_lot::Mutex;

/// Runs of blocks an image's set-up is cut into.
const PIECES: usize = 16;
/// A face's place in its piece takes the low bits of its id.
const PLACE_BITS: u32 = 24;
/// Faces a piece holds at most (the rest are not drawn).
pub(super) const MAX_PLACE: usize = (1 << PLACE_BITS) - 1;

/// A face's name: `piece << PLACE_BITS | place`.
pub(super) type FaceId = u32;

/// One image's faces and the faces of each band of rows.
#[derive(Default)]
pub(super) struct Frame {
    /// The faces of the blocks, piece by piece; the actors' last.
    pieces: Vec<Faces>,
    /// CSR: `items[offsets[b]..offsets[b + 1]]` are the faces band `b`
    /// (rows `b · BAND ..`) may cover, in face order.
    pub(super) offsets: Vec<u32>,
    pub(super) items: Vec<FaceId>,
}

impl Frame {
    /// Sets up the faces `view` sees of `scene` (the actors but `ignore`)
    /// and sorts them into the bands of an image `h` rows high.
    pub(super) fn build(&mut self, view: &View, scene: &Scene, ignore: u32, h: usize) {
        let blocks = scene.blocks();
        let per = blocks.len().div_ceil(PIECES).max(1);
        let n = blocks.len().div_ceil(per);
        self.pieces.resize_with(n + 1, Faces::default);
        self.pieces.iter_mut().for_each(Faces::clear);
        let (mine, actors) = self.pieces.split_at_mut(n);
        let queue = Mutex::new(mine.iter_mut().zip(blocks.chunks(per)));
        let work = || loop {
            let Some((faces, blocks)) = queue.lock().next() else {
                return;
            };
            view.add_blocks(scene, blocks, faces);
        };
        on_threads(threads().min(n).max(1), work);
        view.add_actors(scene, ignore, &mut actors[0]);
        self.bin(h);
    }

    /// Face `id`.
    #[inline]
    pub(super) fn face(&self, id: FaceId) -> &Face {
        &self.pieces[(id >> PLACE_BITS) as usize].faces[(id & MAX_PLACE as u32) as usize]
    }

    /// The look of face `id`.
    #[inline]
    pub(super) fn look(&self, id: FaceId) -> &Look {
        &self.pieces[(id >> PLACE_BITS) as usize].looks[(id & MAX_PLACE as u32) as usize]
    }

    /// Every face, in order, with its id.
    fn all(&self) -> impl Iterator<Item = (FaceId, &Face)> {
        self.pieces.iter().enumerate().flat_map(|(p, faces)| {
            let p = (p as u32) << PLACE_BITS;
            (0..).zip(&faces.faces).map(move |(i, f)| (p | i, f))
        })
    }

    /// Sorts the faces into the bands of an image `h` rows high.
    fn bin(&mut self, h: usize) {
        let bands = h.div_ceil(BAND);
        let mut offsets = std::mem::take(&mut self.offsets);
        let mut items = std::mem::take(&mut self.items);
        offsets.clear();
        offsets.resize(bands + 1, 0);
        let rows = |f: &Face| f.v0 / BAND..=(f.v1 / BAND).min(bands - 1);
        for (_, f) in self.all() {
            for b in rows(f) {
                offsets[b + 1] += 1;
            }
        }
        for b in 0..bands {
            offsets[b + 1] += offsets[b];
        }
        items.clear();
        items.resize(offsets[bands] as usize, 0);
        // Fill in face order, with a cursor per band (the offsets, moved
        // up one slot: they end at the next band's start).
        offsets.rotate_right(1);
        for (id, f) in self.all() {
            for b in rows(f) {
                let at = &mut offsets[b + 1];
                items[*at as usize] = id;
                *at += 1;
            }
        }
        offsets[0] = 0;
        (self.offsets, self.items) = (offsets, items);
    }
}
