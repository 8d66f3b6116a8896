//! The recording's file, written on a thread of its own: the game thread
//! encodes a frame into a buffer and hands it over without waiting.
//!
//! A frame's `FrameStart` carries its duration, which is known only when
//! the next frame starts (CARLA patches it in place): the thread keeps the
//! last frame in memory, sets its duration from the next one's elapsed
//! time and only then writes it, so the file always ends on a whole
//! frame. A write that fails (a full disk) stops the recording: the file
//! is cut back to its last whole frame and the error is logged with the
//! path and the frames kept; `stop` returns it too.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::thread::JoinHandle;

/// Frames waiting for the thread, at most: past that the game thread
/// drops frames (counted, logged) rather than wait for the disk.
const QUEUE: usize = 256;

/// Buffers given back for reuse, at most.
const SPARE: usize = 8;

/// Where the frames go: a file, or a test's failing disk.
pub(crate) trait Sink: Write + Send + 'static {
    /// Cuts the output back to `len` bytes, the next write going there.
    fn cut(&mut self, len: u64) -> std::io::Result<()>;
    fn sync(&mut self) -> std::io::Result<()>;
}

impl Sink for File {
    fn cut(&mut self, len: u64) -> std::io::Result<()> {
        self.set_len(len)?;
        self.seek(SeekFrom::Start(len))?;
        Ok(())
    }
    fn sync(&mut self) -> std::io::Result<()> {
        self.sync_all()
    }
}

/// One encoded frame: its packets from `FrameStart` to `FrameEnd`, with
/// the duration field still unset.
pub(crate) struct Frame {
    pub(crate) bytes: Vec<u8>,
    pub(crate) elapsed: f64,
}

/// What became of a frame handed to the writer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Pushed {
    Queued,
    /// The disk fell behind: the frame was dropped.
    Dropped,
    /// The recording stopped (a write error).
    Stopped,
}

/// How a recording ended.
#[derive(Clone, Debug, Default)]
pub struct RecordingSummary {
    pub path: PathBuf,
    pub frames: u64,
    pub bytes: u64,
    /// Frames the game thread dropped because the disk fell behind.
    pub dropped: u64,
    /// The write error that stopped the recording early, if any.
    pub error: Option<String>,
}

pub(crate) struct Writer {
    frames: Option<SyncSender<Frame>>,
    spare: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<RecordingSummary>>,
    pub(crate) dropped: u64,
    pub(crate) path: PathBuf,
}

impl Writer {
    /// Creates `path` (refusing one that exists as a directory) and writes
    /// `header`; the rest goes through [`Writer::push`].
    pub(crate) fn create(path: &Path, header: &[u8]) -> std::io::Result<Writer> {
        let file = File::create(path)?;
        Writer::to_sink(file, path, header).inspect_err(|_| {
            let _ = std::fs::remove_file(path);
        })
    }

    /// [`Writer::create`] of any sink (`path` names it in messages).
    pub(crate) fn to_sink<S: Sink>(
        mut file: S,
        path: &Path,
        header: &[u8],
    ) -> std::io::Result<Writer> {
        file.write_all(header)?;
        let (tx, rx) = sync_channel::<Frame>(QUEUE);
        let (spare_tx, spare_rx) = sync_channel::<Vec<u8>>(SPARE);
        let owned = path.to_owned();
        let start = header.len() as u64;
        let thread = std::thread::Builder::new()
            .name("carla-recorder".into())
            .spawn(move || write_frames(file, owned, start, rx, spare_tx))?;
        Ok(Writer {
            frames: Some(tx),
            spare: spare_rx,
            thread: Some(thread),
            dropped: 0,
            path: path.to_owned(),
        })
    }

    /// An empty buffer, reused when the thread has one.
    pub(crate) fn buffer(&self) -> Vec<u8> {
        self.spare.try_recv().unwrap_or_default()
    }

    /// Hands a frame over; the queue being full drops it (counted).
    pub(crate) fn push(&mut self, frame: Frame) -> Pushed {
        let Some(tx) = &self.frames else {
            return Pushed::Stopped;
        };
        match tx.try_send(frame) {
            Ok(()) => Pushed::Queued,
            Err(TrySendError::Full(_)) => {
                self.dropped += 1;
                if self.dropped.is_power_of_two() {
                    crate::log_warn!(
                        "recorder: the disk fell behind; {} frame(s) of {} dropped",
                        self.dropped,
                        self.path.display()
                    );
                }
                Pushed::Dropped
            }
            Err(TrySendError::Disconnected(_)) => Pushed::Stopped,
        }
    }

    /// Writes what is queued, closes the file and says how it went.
    pub(crate) fn finish(mut self) -> RecordingSummary {
        self.frames = None;
        let mut summary = self
            .thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_else(|| RecordingSummary {
                path: self.path.clone(),
                error: Some("the recorder's thread panicked".into()),
                ..Default::default()
            });
        summary.dropped = self.dropped;
        summary
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.frames = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The byte offset of a frame's duration inside its `FrameStart` packet:
/// packet id (1), size (4), frame id (8).
const DURATION_AT: usize = 13;

fn write_frames<S: Sink>(
    mut file: S,
    path: PathBuf,
    start: u64,
    frames: Receiver<Frame>,
    spare: SyncSender<Vec<u8>>,
) -> RecordingSummary {
    let mut summary = RecordingSummary {
        path,
        bytes: start,
        ..Default::default()
    };
    let mut held: Option<Frame> = None;
    let mut write = |f: &mut Frame, duration: f64, s: &mut RecordingSummary| {
        f.bytes[DURATION_AT..DURATION_AT + 8].copy_from_slice(&duration.to_le_bytes());
        match file.write_all(&f.bytes) {
            Ok(()) => {
                s.frames += 1;
                s.bytes += f.bytes.len() as u64;
                true
            }
            Err(e) => {
                // Cut a partial frame off: the file ends on a whole one.
                let cut = file.cut(s.bytes);
                let kept = if cut.is_ok() {
                    format!("the file keeps its {} whole frame(s)", s.frames)
                } else {
                    "its last frame may be cut short".into()
                };
                let message = format!("writing {} failed ({e}); {kept}", s.path.display());
                crate::log_error!("recorder: {}; recording stopped", message);
                s.error = Some(message);
                false
            }
        }
    };
    for next in frames.iter() {
        if let Some(mut f) = held.take() {
            let duration = next.elapsed - f.elapsed;
            if !write(&mut f, duration, &mut summary) {
                return summary;
            }
            f.bytes.clear();
            let _ = spare.try_send(f.bytes);
        }
        held = Some(next);
    }
    // The last frame has no successor: its duration stays -1, as CARLA
    // leaves it.
    if let Some(mut f) = held.take() {
        if !write(&mut f, -1.0, &mut summary) {
            return summary;
        }
    }
    if let Err(e) = file.flush().and_then(|_| file.sync()) {
        summary.error = Some(format!("closing {} failed: {e}", summary.path.display()));
    }
    summary
}
