//! Bytes that several owners read without a copy: a reference-counted
//! owner and the offset its bytes start at. The 0.8 stream port sends a
//! mirrored camera image straight from the 0.9 message that holds it; this
//! type lets it hold that message without knowing the 0.9 transport (and
//! the ROS 2 publisher hands a camera's pixels to DDS the same way).

use std::sync::Arc;

/// The bytes of `owner` from `offset` on. Cloning shares the owner; the
/// owner (e.g. a pooled block) is released when the last clone is dropped.
#[derive(Clone)]
pub(crate) struct SharedBytes {
    owner: Arc<dyn AsRef<[u8]> + Send + Sync>,
    offset: usize,
}

impl SharedBytes {
    /// The bytes of `owner` from `offset` on (none if `offset` is past
    /// the end).
    pub(crate) fn new(owner: Arc<dyn AsRef<[u8]> + Send + Sync>, offset: usize) -> SharedBytes {
        SharedBytes { owner, offset }
    }

    /// The shared bytes.
    pub(crate) fn as_slice(&self) -> &[u8] {
        (*self.owner)
            .as_ref()
            .get(self.offset..)
            .unwrap_or_default()
    }
}

/// For owners of bytes that know nothing of this type (the DDS writer's
/// `Bytes::from_owner`: an image's pixels published on ROS 2).
impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_from_the_offset_and_shares_the_owner() {
        let owner: Arc<Vec<u8>> = Arc::new(vec![1, 2, 3, 4]);
        let bytes = SharedBytes::new(owner.clone(), 1);
        assert_eq!(bytes.as_slice(), &[2, 3, 4]);
        assert_eq!(Arc::strong_count(&owner), 2);
        assert!(SharedBytes::new(owner.clone(), 9).as_slice().is_empty());
        drop(bytes);
        assert_eq!(Arc::strong_count(&owner), 1);
    }
}
