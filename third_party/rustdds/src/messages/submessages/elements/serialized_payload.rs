use std::{cmp::min, io};

use bytes::{Bytes, BytesMut};
use speedy::{Context, Writable, Writer};
use byteorder::ReadBytesExt;
use log::warn;

use crate::RepresentationIdentifier;

/// A SerializedPayload submessage element contains the serialized
/// representation of either value of an application-defined data-object or
/// the value of the key that uniquely identifies the data-object
/// See RTPS spec v2.3 section 10.
/// Standard representation identifier values are defined in sections 10.2 -
/// 10.5 representation_options "shall be interpreted in the context of the
/// RepresentationIdentifier, such that each RepresentationIdentifier may define
/// the representation_options that it requires." and "The [2.3] version of the
/// protocol does not use the representation_options: The sender shall set the
/// representation_options to zero. The receiver shall ignore the value of the
/// representation_options."
#[derive(Debug, PartialEq, Eq, Clone)]
pub struct SerializedPayload {
  pub representation_identifier: RepresentationIdentifier,
  // Can represent payload protection kind. Currently not used outside security.
  pub representation_options: [u8; 2],
  pub value: Bytes,
  /// carla_server patch: the payload's rest, after `value` (empty unless
  /// the sample was written in two parts, `SerializerAdapter::to_parts`):
  /// an image's pixels stay in the buffer they were sent from, rather than
  /// being copied after the message's header into one.
  pub tail: Bytes,
}

// header length
// 2 bytes for representation identifier
// + 2 bytes for representation options
const H_LEN: usize = 2 + 2;

impl SerializedPayload {
  pub fn new(rep_id: RepresentationIdentifier, payload: Vec<u8>) -> Self {
    Self {
      representation_identifier: rep_id,
      representation_options: [0, 0],
      value: Bytes::from(payload),
      tail: Bytes::new(),
    }
  }

  pub fn new_from_bytes(rep_id: RepresentationIdentifier, payload: Bytes) -> Self {
    Self::new_in_parts(rep_id, payload, Bytes::new())
  }

  /// carla_server patch: a payload of `head` followed by `tail`, neither
  /// copied.
  pub fn new_in_parts(rep_id: RepresentationIdentifier, head: Bytes, tail: Bytes) -> Self {
    Self {
      representation_identifier: rep_id,
      representation_options: [0, 0],
      value: head,
      tail,
    }
  }

  pub(crate) fn reallocate(&mut self) {
    let mut all = BytesMut::with_capacity(self.value.len() + self.tail.len());
    all.extend_from_slice(&self.value);
    all.extend_from_slice(&self.tail);
    self.value = all.freeze();
    self.tail = Bytes::new();
  }

  /// serialized size in bytes
  pub fn len_serialized(&self) -> usize {
    H_LEN + self.value.len() + self.tail.len()
  }

  // a slice of serialized data
  // The data to be sliced is header + value + tail (carla_server patch:
  // the tail). A slice within value or within tail is not copied; one that
  // spans the header or the seam between value and tail is.
  pub fn bytes_slice(&self, from: usize, to_before: usize) -> Bytes {
    // sanitize inputs. These are unsigned values, so always at least zero.
    let to_before = min(to_before, self.len_serialized());
    let from = min(from, to_before);
    let tail_start = H_LEN + self.value.len();

    if from >= tail_start {
      self.tail.slice(from - tail_start..to_before - tail_start)
    } else if from >= H_LEN && to_before <= tail_start {
      self.value.slice(from - H_LEN..to_before - H_LEN)
    } else {
      let mut b = BytesMut::with_capacity(to_before - from);
      let header = [
        self.representation_identifier.bytes[0],
        self.representation_identifier.bytes[1],
        self.representation_options[0],
        self.representation_options[1],
      ];
      let parts: [&[u8]; 3] = [&header, &self.value, &self.tail];
      let mut start = 0;
      for part in parts {
        let end = start + part.len();
        let (lo, hi) = (from.max(start), to_before.min(end));
        if lo < hi {
          b.extend_from_slice(&part[lo - start..hi - start]);
        }
        start = end;
      }
      b.freeze()
    }
  }

  // Implement deserialization here, because Speedy just makes it difficult.
  pub fn from_bytes(bytes: &Bytes) -> io::Result<Self> {
    let mut reader = io::Cursor::new(&bytes);
    let representation_identifier = RepresentationIdentifier {
      bytes: [reader.read_u8()?, reader.read_u8()?],
    };
    let representation_options = [reader.read_u8()?, reader.read_u8()?];
    let value = if bytes.len() >= H_LEN {
      bytes.slice(H_LEN..)
    } else {
      warn!("DATA submessage was smaller than submessage header: {bytes:?}");
      return Err(io::Error::other("Too short DATA submessage."));
    };

    Ok(Self {
      representation_identifier,
      representation_options,
      value,
      tail: Bytes::new(),
    })
  }
}

impl<C: Context> Writable<C> for SerializedPayload {
  fn write_to<T: ?Sized + Writer<C>>(&self, writer: &mut T) -> Result<(), C::Error> {
    writer.write_u8(self.representation_identifier.bytes[0])?;
    writer.write_u8(self.representation_identifier.bytes[1])?;
    writer.write_u8(self.representation_options[0])?;
    writer.write_u8(self.representation_options[1])?;
    writer.write_bytes(&self.value)?;
    writer.write_bytes(&self.tail)?;
    Ok(())
  }
}

// Infallible: payload is already in memory as Bytes with a fixed 4-byte header.
impl From<SerializedPayload> for Bytes {
  fn from(sp: SerializedPayload) -> Bytes {
    let mut b = BytesMut::with_capacity(sp.len_serialized());
    b.extend_from_slice(&sp.representation_identifier.bytes);
    b.extend_from_slice(&sp.representation_options);
    b.extend_from_slice(&sp.value);
    b.extend_from_slice(&sp.tail);
    b.freeze()
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  // carla_server patch: a payload in two parts is sliced, written and
  // joined as the concatenation, and a slice within a part is a view of it.
  #[test]
  fn a_payload_in_two_parts_is_sliced_as_one() {
    let head = Bytes::from_static(b"abc");
    let tail = Bytes::from((0..50u8).collect::<Vec<u8>>());
    let p = SerializedPayload::new_in_parts(RepresentationIdentifier::CDR_LE, head, tail.clone());
    let whole = [&[0u8, 1, 0, 0][..], b"abc", &tail].concat();
    assert_eq!(p.len_serialized(), whole.len());
    assert_eq!(Bytes::from(p.clone()), whole);
    assert_eq!(
      p.write_to_vec_with_ctx(speedy::Endianness::LittleEndian)
        .unwrap(),
      whole
    );
    for from in 0..=whole.len() {
      for to in from..whole.len() + 2 {
        assert_eq!(p.bytes_slice(from, to), whole[from..to.min(whole.len())]);
      }
    }
    assert_eq!(p.bytes_slice(10, 30).as_ptr(), tail[3..].as_ptr());
    let mut moved = p.clone();
    moved.reallocate();
    assert_eq!(Bytes::from(moved), whole);
  }
}
