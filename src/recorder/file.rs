//! Reading a recording packet by packet, with bounded memory: a packet is
//! read into one reused buffer, and a packet larger than [`MAX_PACKET`]
//! is an error, not an allocation.

use super::format::{self, FormatError, Get, Info};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// The largest packet read (an `EventAdd` of 65,535 actors with long
/// attribute lists stays far below it).
pub(crate) const MAX_PACKET: usize = 64 << 20;

/// Why a file cannot be read as a recording.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// It cannot be opened (missing, a directory, no permission).
    Missing,
    /// Its header is cut short or its magic is not CARLA's.
    NotARecording,
}

/// A recording open for reading.
pub(crate) struct Packets {
    r: BufReader<File>,
    buf: Vec<u8>,
    /// The offset of the next packet.
    pub(crate) offset: u64,
    len: u64,
}

impl Packets {
    /// Opens `path` and reads its header.
    pub(crate) fn open(path: &Path) -> Result<(Info, Packets), OpenError> {
        let file = File::open(path).map_err(|_| OpenError::Missing)?;
        let meta = file.metadata().map_err(|_| OpenError::Missing)?;
        if meta.is_dir() {
            return Err(OpenError::Missing);
        }
        let mut r = BufReader::new(file);
        let mut head = vec![0u8; 2 + 2 + format::MAGIC.len()];
        r.read_exact(&mut head)
            .map_err(|_| OpenError::NotARecording)?;
        let mut g = Get::new(&head);
        let version = g.u16().map_err(|_| OpenError::NotARecording)?;
        let magic = g.string().map_err(|_| OpenError::NotARecording)?;
        if magic != format::MAGIC {
            return Err(OpenError::NotARecording);
        }
        let mut date = [0u8; 8];
        r.read_exact(&mut date)
            .map_err(|_| OpenError::NotARecording)?;
        let mut n = [0u8; 2];
        r.read_exact(&mut n).map_err(|_| OpenError::NotARecording)?;
        let mut map = vec![0u8; u16::from_le_bytes(n) as usize];
        r.read_exact(&mut map)
            .map_err(|_| OpenError::NotARecording)?;
        let map = map.split(|b| *b == 0).next().unwrap_or_default();
        let info = Info {
            version,
            magic,
            date: i64::from_le_bytes(date),
            map: String::from_utf8_lossy(map).into_owned(),
        };
        let offset = r.stream_position().map_err(|_| OpenError::Missing)?;
        Ok((
            info,
            Packets {
                r,
                buf: Vec::new(),
                offset,
                len: meta.len(),
            },
        ))
    }

    /// The next packet's id and data; `Ok(None)` at the end of the file.
    pub(crate) fn next(&mut self) -> Result<Option<(u8, Get<'_>)>, FormatError> {
        let Some((id, size)) = self.head()? else {
            return Ok(None);
        };
        self.buf.clear();
        self.buf.resize(size, 0);
        self.r
            .read_exact(&mut self.buf)
            .map_err(|e| FormatError(format!("reading packet {id}: {e}")))?;
        self.offset += size as u64;
        Ok(Some((id, Get::new(&self.buf))))
    }

    /// The next packet's id, its data skipped (`Ok(None)` at the end).
    pub(crate) fn skip(&mut self) -> Result<Option<u8>, FormatError> {
        let Some((id, size)) = self.head()? else {
            return Ok(None);
        };
        self.r
            .seek_relative(size as i64)
            .map_err(|e| FormatError(format!("skipping packet {id}: {e}")))?;
        self.offset += size as u64;
        Ok(Some(id))
    }

    fn head(&mut self) -> Result<Option<(u8, usize)>, FormatError> {
        if self.offset >= self.len {
            return Ok(None);
        }
        let mut h = [0u8; 5];
        self.r.read_exact(&mut h).map_err(|_| {
            FormatError(format!(
                "the file ends inside a packet header at offset {}",
                self.offset
            ))
        })?;
        let id = h[0];
        let size = u32::from_le_bytes([h[1], h[2], h[3], h[4]]) as usize;
        let left = self.len - self.offset - 5;
        if size as u64 > left {
            return Err(FormatError(format!(
                "packet {id} at offset {} says {size} bytes but the file has {left} left (cut short?)",
                self.offset
            )));
        }
        if size > MAX_PACKET {
            return Err(FormatError(format!(
                "packet {id} at offset {} is {size} bytes, over the {MAX_PACKET} this reader takes",
                self.offset
            )));
        }
        self.offset += 5;
        Ok(Some((id, size)))
    }

    /// Back to the first packet.
    pub(crate) fn rewind_to(&mut self, offset: u64) -> Result<(), FormatError> {
        self.r
            .seek(SeekFrom::Start(offset))
            .map_err(|e| FormatError(format!("seeking: {e}")))?;
        self.offset = offset;
        Ok(())
    }
}

/// A frame's `FrameStart`: id, duration (to the next frame; -1 for the
/// last), elapsed seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct FrameStart {
    pub(crate) id: u64,
    pub(crate) duration: f64,
    pub(crate) elapsed: f64,
}

impl FrameStart {
    pub(crate) fn read(g: &mut Get<'_>) -> Result<FrameStart, FormatError> {
        Ok(FrameStart {
            id: g.u64()?,
            duration: g.f64()?,
            elapsed: g.f64()?,
        })
    }
}
