//! The 0.9.16 half of [`Server`]: binding the RPC endpoint the `carla`
//! Python package connects to, and [`Rpc`], the handle through which the
//! host polls requests and sends each tick's episode state.

use super::Server;
use crate::rpc::RpcServer;
use crate::Error;
use crate::Release;
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::ops::Deref;
use std::sync::Arc;

impl Server {
    /// Binds the CARLA 0.9.16 RPC port (`port` 0 picks a free one) on the
    /// configured address and returns its address. Streams (sensors and the
    /// world observer) go out on the streaming port, which is bound here on
    /// `port + 1` (CARLA's default) if it is not listening yet.
    ///
    /// One port for both protocols: if `port` is the 0.8 world port of this
    /// server (`connect` first), the two share it. Each new connection is
    /// told apart by its first four bytes (`net::sniff`); 0.8 clients are
    /// served as before, 0.9 clients by this endpoint. The streaming port
    /// must then be another than P + 1 (0.8's stream port): bind it first
    /// with `listen_streaming`, or it is bound on P + 3.
    pub fn listen_rpc(&self, port: u16) -> Result<SocketAddr, Error> {
        let mut slot = self.rpc.write();
        if let Some(r) = slot.as_ref() {
            let e = format!("the RPC port is already listening on {}", r.addr());
            crate::log_error!("{}", e);
            return Err(Error::AlreadyStarted(e));
        }
        let world = self
            .local_addrs()
            .map(|a| a[0])
            .filter(|a| port != 0 && a.port() == port);
        let stream_addr = match self.streaming_addr() {
            Some(a) => a,
            None if port == 0 => self.listen_streaming(0)?,
            None if world.is_some() => self.listen_streaming(port.saturating_add(3))?,
            None => self.listen_streaming(port.saturating_add(1))?,
        };
        let config = self.config();
        let rpc = match world {
            Some(addr) => {
                let rpc = RpcServer::on_shared_port(
                    addr,
                    self.sensors.clone(),
                    stream_addr.port(),
                    config.stream_timeout,
                )?;
                *self.divert.write() = Some(Arc::new(rpc.acceptor(crate::Release::NATIVE)));
                rpc
            }
            None => RpcServer::bind(
                config.bind_ip,
                port,
                self.sensors.clone(),
                stream_addr.port(),
                config.stream_timeout,
            )?,
        };
        let addr = rpc.addr();
        *slot = Some(Arc::new(rpc));
        Ok(addr)
    }

    /// Serves clients of another CARLA release, `release` (0.9.12 …
    /// 0.9.15; see [`Release`]), on their own RPC port (`port` 0 picks
    /// one), in the same world as the 0.9.16 port: the same actors, ticks
    /// and streams, in that release's numbering. A client never says its
    /// release, so the port it dials decides it. [`Server::listen_rpc`]
    /// first ([`Error::InvalidArgument`] otherwise); a release already
    /// served is [`Error::AlreadyStarted`].
    pub fn listen_rpc_release(&self, release: Release, port: u16) -> Result<SocketAddr, Error> {
        let rpc = self.rpc.read().clone().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "cannot serve CARLA {release} clients: the RPC port is not listening (listen_rpc first)"
            ))
        })?;
        rpc.listen_release(self.config().bind_ip, port, release)
    }

    /// The RPC port's address, if listening.
    pub fn rpc_addr(&self) -> Option<SocketAddr> {
        self.rpc.read().as_ref().map(|r| r.addr())
    }

    /// The RPC endpoint, for the host's side of the 0.9 protocol: poll
    /// engine requests, send episode states, describe blueprints, the map
    /// and the host's actors (see [`RpcServer`]'s methods). Not listening
    /// ([`Server::listen_rpc`] first) is [`Error::InvalidArgument`].
    pub fn rpc(&self) -> Result<Rpc<'_>, Error> {
        let rpc = self.rpc.read().clone().ok_or_else(|| {
            Error::InvalidArgument("the RPC port is not listening (listen_rpc first)".into())
        })?;
        Ok(Rpc {
            rpc,
            _server: PhantomData,
        })
    }
}

/// The RPC endpoint of a [`Server`], from [`Server::rpc`]; its methods are
/// [`RpcServer`]'s. It borrows the server, so it cannot outlive it.
pub struct Rpc<'a> {
    rpc: Arc<RpcServer>,
    _server: PhantomData<&'a Server>,
}

impl Deref for Rpc<'_> {
    type Target = RpcServer;

    fn deref(&self) -> &RpcServer {
        &self.rpc
    }
}
