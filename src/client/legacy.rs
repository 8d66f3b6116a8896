//! A Rust client for the 0.8.4 protocol (what the official Python client
//! does): connect, load a settings ini, start an episode, read frames
//! (measurements + sensor records), send controls.
//!
//! ```no_run
//! use carla_server::client::Client;
//! use std::time::Duration;
//! let mut client = Client::connect("127.0.0.1", 2000, Duration::from_secs(10))?;
//! let scene = client.load_settings("[CARLA/Server]\nSynchronousMode=true\n")?;
//! client.start_episode(0)?;
//! let frame = client.read_frame()?;
//! println!("frame {} with {} sensor records", frame.measurements.frame_number, frame.sensors.len());
//! client.send_control(&Default::default())?;
//! # Ok::<(), std::io::Error>(())
//! ```

use crate::legacy::encode::control_to_proto;
use crate::legacy::framing::DEFAULT_MAX_MESSAGE;
use crate::legacy::proto;
use crate::types::Control;
use prost::Message;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// One frame from the stream port.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pub measurements: proto::Measurements,
    pub sensors: Vec<SensorRecord>,
}

/// One sensor record: its id and the bytes after the id (header + data).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SensorRecord {
    pub id: u32,
    pub data: Vec<u8>,
}

/// A protocol-level error as an `io::Error` (kind `InvalidData`).
pub fn protocol_error(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

/// Reads one length-prefixed message, refusing lengths above `max`.
pub fn read_message(stream: &mut impl Read, max: u32) -> io::Result<Vec<u8>> {
    let len = read_prefix(stream, max)?;
    let mut buf = vec![0; len as usize];
    stream.read_exact(&mut buf)?;
    Ok(buf)
}

/// Reads a length prefix, refusing lengths above `max`.
fn read_prefix(stream: &mut impl Read, max: u32) -> io::Result<u32> {
    let mut prefix = [0u8; 4];
    stream.read_exact(&mut prefix)?;
    let len = u32::from_le_bytes(prefix);
    if len > max {
        return Err(protocol_error(format!(
            "message of {len} bytes exceeds {max}"
        )));
    }
    Ok(len)
}

/// Writes one length-prefixed message.
pub fn write_message(stream: &mut impl Write, payload: &[u8]) -> io::Result<()> {
    let mut framed = Vec::with_capacity(payload.len() + 4);
    framed.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    framed.extend_from_slice(payload);
    stream.write_all(&framed)
}

/// A connected client.
pub struct Client {
    host: String,
    port: u16,
    timeout: Duration,
    /// Largest message accepted from the server (default 256 MiB).
    pub max_message: u32,
    world: TcpStream,
    stream: Option<TcpStream>,
    control: Option<TcpStream>,
    scene: Option<proto::SceneDescription>,
}

fn open(host: &str, port: u16, timeout: Duration) -> io::Result<TcpStream> {
    let addr = (host, port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| protocol_error(format!("cannot resolve {host}")))?;
    let stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

impl Client {
    /// Connects to the world port.
    pub fn connect(host: &str, port: u16, timeout: Duration) -> io::Result<Client> {
        let world = open(host, port, timeout)?;
        Ok(Client {
            host: host.to_owned(),
            port,
            timeout,
            max_message: DEFAULT_MAX_MESSAGE.max(256 << 20),
            world,
            stream: None,
            control: None,
            scene: None,
        })
    }

    /// The scene description of the last `load_settings`.
    pub fn scene(&self) -> Option<&proto::SceneDescription> {
        self.scene.as_ref()
    }

    /// Closes the stream and control connections (as the Python client does
    /// before every new-episode request).
    pub fn close_agent_connections(&mut self) {
        for s in [self.stream.take(), self.control.take()]
            .into_iter()
            .flatten()
        {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// Sends a `RequestNewEpisode` with `ini` and returns the scene.
    pub fn load_settings(&mut self, ini: &str) -> io::Result<proto::SceneDescription> {
        self.close_agent_connections();
        let request = proto::RequestNewEpisode {
            ini_file: ini.to_owned(),
        };
        write_message(&mut self.world, &request.encode_to_vec())?;
        let bytes = read_message(&mut self.world, self.max_message)?;
        if bytes.is_empty() {
            return Err(protocol_error("empty SceneDescription"));
        }
        let scene = proto::SceneDescription::decode(&bytes[..])
            .map_err(|e| protocol_error(format!("bad SceneDescription: {e}")))?;
        self.scene = Some(scene.clone());
        Ok(scene)
    }

    /// Sends `EpisodeStart`, waits for `EpisodeReady`, then connects the
    /// stream and control ports (retrying briefly, like the Python client).
    pub fn start_episode(&mut self, player_start_index: u32) -> io::Result<()> {
        let start = proto::EpisodeStart {
            player_start_spot_index: player_start_index,
        };
        write_message(&mut self.world, &start.encode_to_vec())?;
        let bytes = read_message(&mut self.world, self.max_message)?;
        let ready = proto::EpisodeReady::decode(&bytes[..])
            .map_err(|e| protocol_error(format!("bad EpisodeReady: {e}")))?;
        if !ready.ready {
            return Err(protocol_error("server answered EpisodeReady{ready: false}"));
        }
        self.stream = Some(self.open_retrying(self.port + 1)?);
        self.control = Some(self.open_retrying(self.port + 2)?);
        Ok(())
    }

    fn open_retrying(&self, port: u16) -> io::Result<TcpStream> {
        let mut last = None;
        for _ in 0..50 {
            match open(&self.host, port, self.timeout) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(last.unwrap_or_else(|| protocol_error("connect failed")))
    }

    /// Reads one frame: a `Measurements`, then sensor records up to the
    /// empty terminator. Records of ids not in the scene are an error.
    pub fn read_frame(&mut self) -> io::Result<Frame> {
        let mut frame = Frame::default();
        self.read_frame_into(&mut frame)?;
        Ok(frame)
    }

    /// `read_frame` into an existing frame, reusing its record buffers:
    /// once warm, large images cost no allocation and no page faults (for
    /// clients that read every frame at high rates).
    pub fn read_frame_into(&mut self, frame: &mut Frame) -> io::Result<()> {
        let max = self.max_message;
        let stream = self
            .stream
            .as_mut()
            .ok_or_else(|| protocol_error("no episode started"))?;
        let bytes = read_message(stream, max)?;
        if bytes.is_empty() {
            return Err(protocol_error("empty Measurements"));
        }
        frame.measurements = proto::Measurements::decode(&bytes[..])
            .map_err(|e| protocol_error(format!("bad Measurements: {e}")))?;
        let mut count = 0;
        loop {
            let len = read_prefix(stream, max)?;
            if len == 0 {
                break;
            }
            if len < 4 {
                return Err(protocol_error("sensor record shorter than its id"));
            }
            let mut id = [0u8; 4];
            stream.read_exact(&mut id)?;
            let id = u32::from_le_bytes(id);
            let known = self
                .scene
                .as_ref()
                .is_some_and(|s| s.sensors.iter().any(|x| x.id == id));
            if !known {
                return Err(protocol_error(format!("record for unknown sensor id {id}")));
            }
            if frame.sensors.len() == count {
                frame.sensors.push(SensorRecord::default());
            }
            let record = &mut frame.sensors[count];
            record.id = id;
            // Growing zero-fills only the new part; shrinking keeps the block.
            record.data.resize(len as usize - 4, 0);
            stream.read_exact(&mut record.data)?;
            count += 1;
        }
        frame.sensors.truncate(count);
        Ok(())
    }

    /// Sends one control.
    pub fn send_control(&mut self, control: &Control) -> io::Result<()> {
        let stream = self
            .control
            .as_mut()
            .ok_or_else(|| protocol_error("no episode started"))?;
        write_message(stream, &control_to_proto(control).encode_to_vec())
    }
}
