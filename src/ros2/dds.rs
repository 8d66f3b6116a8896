//! The DDS side: one `rustdds` participant, its writers (created on a
//! sensor's first message, as CARLA does) and the hero vehicles' control
//! readers. Only the ROS 2 thread (`hub.rs`) touches it.

use rustdds::bytes::Bytes;
use rustdds::no_key::{DataReader, DataWriter};
use rustdds::policy::{Durability, History, ResourceLimits};
use rustdds::{
    DomainParticipant, Publisher, QosPolicies, QosPolicyBuilder, RepresentationIdentifier,
    Subscriber, Topic, TopicKind,
};
use std::collections::HashMap;
use std::fmt;

/// A message already in CDR (the DDS layer adds the encapsulation header).
pub(crate) struct Cdr(pub(crate) Bytes);

impl fmt::Debug for Cdr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cdr({} bytes)", self.0.len())
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
        Ok(value.0.clone())
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

pub(crate) type Writer = DataWriter<Cdr, CdrAdapter>;
pub(crate) type Reader = DataReader<Received, CdrAdapter>;

/// Writers as CARLA's: reliable, transient-local, keep the last sample (a
/// late reader gets the newest; a slow reader never makes the history
/// grow).
///
/// rustdds keeps every sample a reliable reader has not acknowledged (up
/// to 8192) whatever the history depth says; `max_samples` bounds that, so
/// a stalled reader costs at most 4 samples per writer.
fn writer_qos() -> QosPolicies {
    QosPolicyBuilder::new()
        .reliable(rustdds::Duration::from_millis(0))
        .durability(Durability::TransientLocal)
        .history(History::KeepLast { depth: 1 })
        .resource_limits(ResourceLimits {
            max_samples: 4,
            max_instances: 1,
            max_samples_per_instance: 4,
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

/// The participant and its topics.
pub(crate) struct Dds {
    participant: DomainParticipant,
    publisher: Publisher,
    subscriber: Subscriber,
    topics: HashMap<String, Topic>,
}

impl Dds {
    pub(crate) fn new(domain_id: u16) -> Result<Dds, String> {
        let participant = DomainParticipant::new(domain_id)
            .map_err(|e| format!("cannot join DDS domain {domain_id}: {e}"))?;
        let publisher = participant
            .create_publisher(&writer_qos())
            .map_err(|e| format!("DDS publisher: {e}"))?;
        let subscriber = participant
            .create_subscriber(&reader_qos())
            .map_err(|e| format!("DDS subscriber: {e}"))?;
        Ok(Dds {
            participant,
            publisher,
            subscriber,
            topics: HashMap::new(),
        })
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
    pub(crate) fn writer(&mut self, name: &str, type_name: &str) -> Result<Writer, String> {
        let topic = self.topic(name, type_name)?;
        self.publisher
            .create_datawriter_no_key(&topic, Some(writer_qos()))
            .map_err(|e| format!("DDS writer {name}: {e}"))
    }

    /// A reader of `type_name` on topic `name`.
    pub(crate) fn reader(&mut self, name: &str, type_name: &str) -> Result<Reader, String> {
        let topic = self.topic(name, type_name)?;
        self.subscriber
            .create_datareader_no_key(&topic, Some(reader_qos()))
            .map_err(|e| format!("DDS reader {name}: {e}"))
    }
}

/// Writes one message; false if DDS refused it (a reliable reader still
/// holds the writer's 4 samples unacknowledged: this one is dropped for
/// DDS), logged rate-limited, never fatal.
pub(crate) fn write(writer: &Writer, topic: &str, cdr: Vec<u8>) -> bool {
    match writer.write(Cdr(Bytes::from(cdr)), None) {
        Ok(()) => true,
        Err(e) => {
            crate::log_warn!("ros2: a sample on {} was dropped: {:?}", topic, e);
            false
        }
    }
}
