//! What a walker wears: shirt, skin, hair, trousers and shoes, picked
//! from palettes by a seed (its blueprint), as [`super::figure`] draws
//! them.

const SKIN: [[u8; 3]; 4] = [[224, 172, 140], [198, 134, 96], [141, 85, 54], [90, 56, 37]];
const HAIR: [[u8; 3]; 4] = [[40, 28, 20], [90, 60, 30], [20, 20, 22], [170, 140, 90]];
const TROUSERS: [[u8; 3]; 4] = [[55, 70, 110], [62, 62, 66], [140, 120, 90], [28, 28, 32]];
const SHOES: [[u8; 3]; 3] = [[30, 30, 30], [80, 50, 30], [200, 200, 200]];

/// A walker's clothes and colouring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Dress {
    pub shirt: [u8; 3],
    pub skin: [u8; 3],
    pub hair: [u8; 3],
    pub trousers: [u8; 3],
    pub shoes: [u8; 3],
    pub long_sleeves: bool,
}

impl Dress {
    /// The clothes of `seed` (a walker's blueprint or id) with this shirt.
    pub(crate) fn of(seed: u32, shirt: [u8; 3]) -> Dress {
        let h = seed.wrapping_mul(0x9E37_79B9).rotate_left(13) ^ seed;
        let pick = |shift: u32, n: usize| (h >> shift) as usize % n;
        Dress {
            shirt,
            skin: SKIN[pick(0, SKIN.len())],
            hair: HAIR[pick(4, HAIR.len())],
            trousers: TROUSERS[pick(8, TROUSERS.len())],
            shoes: SHOES[pick(12, SHOES.len())],
            long_sleeves: h >> 16 & 1 == 1,
        }
    }
}
