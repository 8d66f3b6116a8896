//! An RGB camera's `gamma` and `exposure_compensation`, as CARLA's camera
//! blueprint documents them, applied to its image as one table per
//! camera (no work per pixel beyond a lookup).
//!
//! The picture is drawn for CARLA's defaults (gamma 2.2, exposure
//! compensation 0): its levels are light encoded as `level = 255 ·
//! light^(1/2.2)`. Another camera's level is `255 · (light ·
//! 2^exposure_compensation)^(1/gamma)`: a lower gamma darkens the middle
//! tones, each step of exposure doubles or halves the light.

/// A camera's tone table: the level each level becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tone([u8; 256]);

impl Tone {
    /// The table for `gamma` and `exposure_compensation`, or `None` for
    /// CARLA's defaults (the picture as drawn). Non-finite values read as
    /// the defaults; gamma is kept within 0.1-10, exposure within ±10.
    pub(crate) fn new(gamma: f32, exposure: f32) -> Option<Tone> {
        let gamma = if gamma.is_finite() {
            gamma.clamp(0.1, 10.0)
        } else {
            2.2
        };
        let exposure = if exposure.is_finite() {
            exposure.clamp(-10.0, 10.0)
        } else {
            0.0
        };
        if (gamma - 2.2).abs() < 1e-4 && exposure.abs() < 1e-4 {
            return None;
        }
        let gain = exposure.exp2();
        Some(Tone(std::array::from_fn(|level| {
            let light = (level as f32 / 255.0).powf(2.2) * gain;
            (255.0 * light.min(1.0).powf(1.0 / gamma)).round() as u8
        })))
    }

    /// Maps the colour bytes of BGRA `pixels` (alpha kept).
    pub(crate) fn apply(&self, pixels: &mut [u8]) {
        for p in pixels.chunks_exact_mut(4) {
            p[0] = self.0[usize::from(p[0])];
            p[1] = self.0[usize::from(p[1])];
            p[2] = self.0[usize::from(p[2])];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_and_exposure_move_the_levels_as_carla_documents() {
        assert_eq!(Tone::new(2.2, 0.0), None);
        assert_eq!(Tone::new(f32::NAN, f32::INFINITY), None);
        let brighter = Tone::new(2.2, 1.0).unwrap();
        let darker = Tone::new(2.2, -1.0).unwrap();
        let linear = Tone::new(1.0, 0.0).unwrap();
        // One stop: twice the light, 2^(1/2.2) = 1.37 times the level.
        assert_eq!(brighter.0[100], 137);
        assert_eq!(darker.0[137], 100);
        // Gamma 1 darkens the middle, keeps the ends.
        assert!(linear.0[128] < 70, "{}", linear.0[128]);
        assert_eq!((linear.0[0], linear.0[255]), (0, 255));
        // Saturation, and alpha untouched.
        let mut px = [200, 250, 255, 255];
        brighter.apply(&mut px);
        assert_eq!(px, [255, 255, 255, 255]);
        let mut px = [10, 128, 255, 7];
        darker.apply(&mut px);
        assert_eq!(px, [darker.0[10], darker.0[128], darker.0[255], 7]);
        // Every table rises with the level.
        for t in [&brighter, &darker, &linear, &Tone::new(0.1, -10.0).unwrap()] {
            assert!(t.0.windows(2).all(|w| w[0] <= w[1]));
        }
    }
}
