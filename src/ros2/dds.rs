//! The DDS side: one `rustdds` participant, its writers (created on a
//! sensor's first message, as CARLA does) and the hero vehicles' control
//! readers. Only the ROS 2 thread (`hub.rs`) touches it.

use super::Ros2Options;
use rustdds::bytes::Bytes;
use rustdds::no_key::{DataReader, DataWriter};
use rustdds::policy::{Durability, History, ResourceLimits};
use rustdds::{
    DomainParticipant, DomainParticipantBuilder, DomainParticipantStatusEvent,
    DomainParticipantStatusListener, LostReason, Publisher, QosPolicies, QosPolicyBuilder,
    RepresentationIdentifier, StatusEvented, Subscriber, Topic, TopicKind, GUID,
};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::time::{Duration, Instant};

/// A message already in CDR (the DDS layer adds the encapsulation header),
/// in two parts sent one after the other: an image's header, and its
/// pixels in the pooled buffer the sensor sent them in (`Bytes` holding
/// that buffer until DDS has sent the sample and no reader needs it
/// again). Other messages are all in `head`.
pub(crate) struct Cdr {
    head: Bytes,
    tail: Bytes,
}

impl Cdr {
    /// `head` then `tail`, neither copied.
    pub(crate) fn in_parts(head: Vec<u8>, tail: Bytes) -> Cdr {
        Cdr {
            head: Bytes::from(head),
            tail,
        }
    }
}

impl From<Vec<u8>> for Cdr {
    fn from(whole: Vec<u8>) -> Cdr {
        Cdr::in_parts(whole, Bytes::new())
    }
}

impl fmt::Debug for Cdr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cdr({} + {} bytes)", self.head.len(), self.tail.len())
    }
}

/// Writes [`Cdr`] as it is, little-endian CDR.
pub(crate) struct CdrAdapter;

/// A sample as received: its bytes and whether they are little-endian.
#[derive(Debug)]
pub(crate) struct Received {
    pub(crate) bytes: Vec<u8>,
    pub(crate) little_endian: bool,
}

/// [`CdrAdapter`] never fails.
#[derive(Debug)]
pub(crate) struct Never;

impl fmt::Display for Never {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for Never {}

impl rustdds::no_key::SerializerAdapter<Cdr> for CdrAdapter {
    type Error = Never;
    fn output_encoding() -> RepresentationIdentifier {
        RepresentationIdentifier::CDR_LE
    }
    fn to_bytes(value: &Cdr) -> Result<Bytes, Never> {
        if value.tail.is_empty() {
            return Ok(value.head.clone());
        }
        Ok([&value.head[..], &value.tail[..]].concat().into())
    }
    /// The patched writer's way (`third_party/rustdds/PATCHES.md`, 10): no
    /// copy of either part.
    fn to_parts(value: &Cdr) -> Result<(Bytes, Bytes), Never> {
        Ok((value.head.clone(), value.tail.clone()))
    }
}

const CDR: [RepresentationIdentifier; 2] = [
    RepresentationIdentifier::CDR_LE,
    RepresentationIdentifier::CDR_BE,
];

impl rustdds::no_key::DeserializerAdapter<Received> for CdrAdapter {
    type Error = Never;
    type Decoded = Received;
    fn supported_encodings() -> &'static [RepresentationIdentifier] {
        &CDR
    }
    fn transform_decoded(decoded: Received) -> Received {
        decoded
    }
}

/// Copies a sample's bytes out (they are decoded, bounds-checked, later).
#[derive(Clone)]
pub(crate) struct RawDecoder;

impl<'de> rustdds::no_key::Decode<'de, Received> for RawDecoder {
    type Error = Never;
    fn decode_bytes(
        self,
        bytes: &'de [u8],
        encoding: RepresentationIdentifier,
    ) -> Result<Received, Never> {
        Ok(Received {
            bytes: bytes.to_vec(),
            little_endian: encoding == RepresentationIdentifier::CDR_LE,
        })
    }
}

impl rustdds::no_key::DefaultDecoder<Received> for CdrAdapter {
    type Decoder = RawDecoder;
    const DECODER: RawDecoder = RawDecoder;
}

type Writer = DataWriter<Cdr, CdrAdapter>;
pub(crate) type Reader = DataReader<Received, CdrAdapter>;

/// Samples a writer keeps for readers that have not acknowledged them
/// (its window, below): at most this many of a sensor's pooled buffers
/// are held by DDS.
pub(crate) const WINDOW: usize = 4;

/// Writers as CARLA's: reliable, transient-local, keep the last sample (a
/// late reader gets the newest; a slow reader never makes the history
/// grow).
///
/// `max_samples` is the window of unacknowledged samples: with the
/// patched rustdds (`third_party/rustdds/PATCHES.md`) a KEEP_LAST writer
/// whose window is full drops its oldest sample for the reader that has
/// not acknowledged it, so a stalled reader costs at most 4 samples per
/// writer and holds nothing back for the others.
fn writer_qos() -> QosPolicies {
    QosPolicyBuilder::new()
        .reliable(rustdds::Duration::from_millis(0))
        .durability(Durability::TransientLocal)
        .history(History::KeepLast { depth: 1 })
        .resource_limits(ResourceLimits {
            max_samples: WINDOW as i32,
            max_instances: 1,
            max_samples_per_instance: WINDOW as i32,
        })
        .build()
}

/// Readers as CARLA's: best effort, volatile, the last sample.
fn reader_qos() -> QosPolicies {
    QosPolicyBuilder::new()
        .best_effort()
        .durability(Durability::Volatile)
        .history(History::KeepLast { depth: 1 })
        .build()
}

/// Remote readers matched to our writers, remembered at most (each is a
/// live reader DDS discovered; past this, new ones are not remembered).
const MATCHED_KEPT: usize = 4096;

/// An RTPS message's header, in bytes: a UDP datagram's first.
const RTPS_HEADER: usize = 20;

/// The participant and its topics.
pub(crate) struct Dds {
    participant: DomainParticipant,
    publisher: Publisher,
    subscriber: Subscriber,
    topics: HashMap<String, Topic>,
    status: DomainParticipantStatusListener,
    /// Remote readers matched to one of our writers.
    matched: HashSet<GUID>,
}

impl Dds {
    pub(crate) fn new(options: Ros2Options) -> Result<Dds, String> {
        let domain_id = options.domain_id;
        // The builder's budget counts the bytes after the RTPS header.
        let payload = (options.other_host_datagram as usize).saturating_sub(RTPS_HEADER);
        let participant = DomainParticipantBuilder::new(domain_id)
            .other_host_datagram_payload(payload)
            .build()
            .map_err(|e| format!("cannot join DDS domain {domain_id}: {e}"))?;
        let publisher = participant
            .create_publisher(&writer_qos())
            .map_err(|e| format!("DDS publisher: {e}"))?;
        let subscriber = participant
            .create_subscriber(&reader_qos())
            .map_err(|e| format!("DDS subscriber: {e}"))?;
        let status = participant.status_listener();
        Ok(Dds {
            participant,
            publisher,
            subscriber,
            topics: HashMap::new(),
            status,
            matched: HashSet::new(),
        })
    }

    /// Reads what discovery reported since the last call; true if a peer
    /// with a reader of our topics was dropped because its lease ended.
    ///
    /// rustdds renews a peer's lease only when one of its announcements
    /// gets through a queue of 8 notices, which a burst of announcements
    /// (participants joining and leaving, a flood) overflows: a live peer
    /// is then dropped, and its readers get nothing more from our writers
    /// even once it is found again. A new participant (a rejoin) is found
    /// by every live peer within a second or so.
    pub(crate) fn lost_a_reading_peer(&mut self) -> bool {
        let mut lost = false;
        while let Some(event) = self.status.try_recv_status() {
            match event {
                DomainParticipantStatusEvent::RemoteReaderMatched { remote_reader, .. } => {
                    // A user topic's reader (not discovery's own endpoints).
                    let user = remote_reader.entity_id.entity_kind.is_user_defined();
                    if user && self.matched.len() < MATCHED_KEPT {
                        self.matched.insert(remote_reader);
                    }
                }
                DomainParticipantStatusEvent::ReaderLost { guid, .. } => {
                    self.matched.remove(&guid);
                }
                DomainParticipantStatusEvent::ParticipantLost { id, reason } => {
                    let before = self.matched.len();
                    self.matched.retain(|g| g.prefix != id);
                    let had_readers = self.matched.len() < before;
                    if had_readers && matches!(reason, LostReason::Timeout { .. }) {
                        crate::log_warn!(
                            "ros2: DDS dropped a peer with readers of our topics: no word from \
                             it within its lease ({:?})",
                            reason
                        );
                        lost = true;
                    }
                }
                _ => {}
            }
        }
        lost
    }

    fn topic(&mut self, name: &str, type_name: &str) -> Result<Topic, String> {
        if let Some(t) = self.topics.get(name) {
            return Ok(t.clone());
        }
        let topic = self
            .participant
            .create_topic(
                name.to_owned(),
                type_name.to_owned(),
                &writer_qos(),
                TopicKind::NoKey,
            )
            .map_err(|e| format!("DDS topic {name}: {e}"))?;
        self.topics.insert(name.to_owned(), topic.clone());
        Ok(topic)
    }

    /// A writer of `type_name` on topic `name` (`rt/...`).
    pub(crate) fn writer(&mut self, name: &str, type_name: &str) -> Result<TopicWriter, String> {
        let topic = self.topic(name, type_name)?;
        let writer = self
            .publisher
            .create_datawriter_no_key(&topic, Some(writer_qos()))
            .map_err(|e| format!("DDS writer {name}: {e}"))?;
        Ok(TopicWriter {
            topic: name.to_owned(),
            writer,
            refused_since: None,
        })
    }

    /// A reader of `type_name` on topic `name`.
    pub(crate) fn reader(&mut self, name: &str, type_name: &str) -> Result<Reader, String> {
        let topic = self.topic(name, type_name)?;
        self.subscriber
            .create_datareader_no_key(&topic, Some(reader_qos()))
            .map_err(|e| format!("DDS reader {name}: {e}"))
    }
}

/// A writer and its topic, and since when DDS has refused every sample
/// written on it.
pub(crate) struct TopicWriter {
    topic: String,
    writer: Writer,
    refused_since: Option<Instant>,
}

impl TopicWriter {
    pub(crate) fn topic(&self) -> &str {
        &self.topic
    }

    /// Writes one message; false if DDS refused it (4 samples wait unsent
    /// for a socket that cannot send: this one is dropped for DDS), logged
    /// rate-limited, never fatal.
    pub(crate) fn write(&mut self, cdr: impl Into<Cdr>) -> bool {
        match self.writer.write(cdr.into(), None) {
            Ok(()) => {
                self.refused_since = None;
                true
            }
            Err(e) => {
                self.refused_since.get_or_insert_with(Instant::now);
                crate::log_warn!("ros2: a sample on {} was dropped: {:?}", self.topic, e);
                false
            }
        }
    }

    /// How long every sample written has been refused, as of `now`.
    pub(crate) fn refused_for(&self, now: Instant) -> Duration {
        self.refused_since
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t))
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests;

/// A sample in two parts (patch 10 of `third_party/rustdds/PATCHES.md`):
/// what rustdds cuts into fragments and sends is the two joined, and the
/// fragments within a part are views of it, not copies.
#[cfg(test)]
mod parts {
    use super::{Cdr, CdrAdapter};
    use rustdds::bytes::Bytes;
    use rustdds::no_key::SerializerAdapter;
    use rustdds::{RepresentationIdentifier, SerializedPayload};

    #[test]
    fn a_sample_in_two_parts_is_sent_as_one_and_the_tail_is_not_copied() {
        let tail = Bytes::from((0..100u8).collect::<Vec<u8>>());
        let cdr = Cdr::in_parts(b"head-".to_vec(), tail.clone());
        let (head, rest) = CdrAdapter::to_parts(&cdr).unwrap();
        let joined = CdrAdapter::to_bytes(&cdr).unwrap();
        assert_eq!(joined, [b"head-".as_slice(), &tail].concat());
        let p = SerializedPayload::new_in_parts(RepresentationIdentifier::CDR_LE, head, rest);
        let whole = [&[0, 1, 0, 0][..], &joined].concat(); // the encapsulation, then the CDR
        assert_eq!(p.len_serialized(), whole.len());
        assert_eq!(
            Bytes::from(p.clone()),
            whole,
            "a sample small enough for one DATA"
        );
        for from in 0..=whole.len() {
            for to in from..whole.len() + 3 {
                let got = p.bytes_slice(from, to);
                assert_eq!(got, whole[from..to.min(whole.len())], "bytes {from}..{to}");
            }
        }
        // Fragments within the tail: the pixels' own memory.
        let in_tail = p.bytes_slice(4 + 5 + 11, 4 + 5 + 60);
        assert_eq!(in_tail.as_ptr(), tail[11..].as_ptr());
    }
}
