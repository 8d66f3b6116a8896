//! Why an episode ended, and the one log line that says so.
//!
//! An episode has one stream and one control connection. When either ends,
//! or the client does not open them in time, or the world client leaves,
//! the episode is over: the agent server closes every agent connection at
//! once (the client sees end of file), refuses new ones, reports the cause
//! to the host once, and logs one line naming the deadline or event and
//! what the client should do. When the client misbehaved (a deadline, a bad
//! message) its world connection is closed too; when it closed an agent
//! connection itself, which the 0.8.4 client does right before it requests
//! the next episode, the world connection stays open for that request.

use crate::Error;
use std::net::SocketAddr;
use std::time::Duration;

/// An agent port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AgentPort {
    Stream = 0,
    Control = 1,
}

impl AgentPort {
    pub(crate) fn name(self) -> &'static str {
        match self {
            AgentPort::Stream => "stream",
            AgentPort::Control => "control",
        }
    }

    fn number(self) -> &'static str {
        match self {
            AgentPort::Stream => "P+1",
            AgentPort::Control => "P+2",
        }
    }
}

/// What ends the current episode with a cause: the agent server's handle,
/// which the world port holds to end the episode when its client leaves
/// (the world port does not know the agent server otherwise).
pub(crate) trait EndsEpisode: Send + Sync {
    fn end(&self, cause: EndCause);
}

/// What ended an episode.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum EndCause {
    /// No client opened `port` within the server time-out of EpisodeReady.
    NotOpened(AgentPort),
    /// The client's connection on `port` ended with `error`.
    ConnectionEnded {
        port: AgentPort,
        peer: SocketAddr,
        error: Error,
    },
    /// The world client left (or its connection failed).
    WorldClientLeft,
}

impl EndCause {
    /// Whether the client closed the connection itself (no misbehaviour).
    fn closed_by_client(&self) -> bool {
        matches!(
            self,
            EndCause::ConnectionEnded {
                error: Error::PeerClosed | Error::BrokenPipe | Error::ConnectionReset,
                ..
            }
        )
    }

    /// Whether the world connection is closed too.
    pub(crate) fn closes_world(&self) -> bool {
        match self {
            EndCause::NotOpened(_) => true,
            EndCause::ConnectionEnded { .. } => !self.closed_by_client(),
            EndCause::WorldClientLeft => false,
        }
    }

    /// What the host is told (once) by `read_control` / `write_measurements`.
    pub(crate) fn error(&self) -> Error {
        match self {
            EndCause::NotOpened(_) => Error::DeadlinePassed,
            EndCause::ConnectionEnded { error, .. } => error.clone(),
            EndCause::WorldClientLeft => Error::Aborted,
        }
    }

    /// The log line; `t` is the server time-out.
    pub(crate) fn describe(&self, t: Duration) -> String {
        let t = t.as_millis();
        let closed = if self.closes_world() {
            "every connection of the episode is closed (stream, control and world): \
             connect again and request a new episode"
        } else {
            "the stream and control connections are closed; the world connection stays \
             open for the next RequestNewEpisode"
        };
        match self {
            EndCause::NotOpened(port) => format!(
                "episode ended: no client opened the {} port ({}) within {t} ms of \
                 EpisodeReady (the agent-connection deadline, the server time-out); a client \
                 connects to P+1 and P+2 right after EpisodeReady; {closed}",
                port.name(),
                port.number()
            ),
            EndCause::ConnectionEnded {
                port: AgentPort::Control,
                peer,
                error: Error::DeadlinePassed,
            } => format!(
                "episode ended: control client {peer} sent no control for {t} ms (the control \
                 deadline, the server time-out); a client must send a control at least every \
                 {t} ms; {closed}"
            ),
            EndCause::ConnectionEnded {
                port: AgentPort::Stream,
                peer,
                error: Error::DeadlinePassed,
            } => format!(
                "episode ended: stream client {peer} took more than {t} ms to read a frame \
                 (the stream write deadline, the server time-out); {closed}"
            ),
            EndCause::ConnectionEnded { port, peer, error } if self.closed_by_client() => {
                format!(
                    "episode ended: {} client {peer} closed its connection ({error}); {closed}",
                    port.name()
                )
            }
            EndCause::ConnectionEnded { port, peer, error } => format!(
                "episode ended: {} client {peer}: {error}; {closed}",
                port.name()
            ),
            EndCause::WorldClientLeft => {
                "episode ended: the world client left; the stream and control connections \
                 are closed"
                    .to_owned()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_are_named_and_close_the_world_connection_closes_by_the_client_do_not() {
        let peer: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let t = Duration::from_millis(3000);
        let deadline = EndCause::ConnectionEnded {
            port: AgentPort::Control,
            peer,
            error: Error::DeadlinePassed,
        };
        let line = deadline.describe(t);
        assert!(
            line.contains("sent no control for 3000 ms (the control deadline"),
            "{line}"
        );
        assert!(line.contains("stream, control and world"), "{line}");
        assert!(deadline.closes_world());
        assert_eq!(deadline.error(), Error::DeadlinePassed);

        let closed = EndCause::ConnectionEnded {
            port: AgentPort::Stream,
            peer,
            error: Error::PeerClosed,
        };
        assert!(!closed.closes_world());
        assert!(closed.describe(t).contains("stays open"));

        let not_opened = EndCause::NotOpened(AgentPort::Stream);
        assert!(not_opened.closes_world());
        assert!(not_opened
            .describe(t)
            .contains("no client opened the stream port (P+1) within 3000 ms"));
        for cause in [deadline, closed, not_opened, EndCause::WorldClientLeft] {
            assert!(!cause.describe(t).contains("deadline or disconnect"));
        }
    }
}
