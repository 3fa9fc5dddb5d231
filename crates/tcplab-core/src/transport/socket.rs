//! Sockets: the transport endpoints a node holds, addressed by the node and a
//! port and bound to one remote (node, port). The world demultiplexes an
//! arriving packet to the socket whose local port and remote address match
//! its header, never by flow. Each socket has one timer slot: a TCP sender's
//! retransmission timer, a receiver's delayed-ACK timer.

use super::tcp::{TcpReceiver, TcpSender};
use super::udp::UdpFlow;
use crate::engine::{Time, TimerSlot};
use crate::packet::{FlowId, NodeId};

/// Index of a socket in the world's socket table.
pub type SockId = u32;

pub enum SocketKind {
    TcpSender(Box<TcpSender>),
    TcpReceiver(Box<TcpReceiver>),
    UdpSender(UdpFlow),
    UdpSink(UdpFlow),
}

pub struct Socket {
    pub node: NodeId,
    pub port: u16,
    pub remote: NodeId,
    pub remote_port: u16,
    /// The flow this socket belongs to, for traces and reports.
    pub flow: FlowId,
    pub kind: SocketKind,
    pub timer: TimerSlot,
}

impl Socket {
    /// The socket's next timer deadline (one per socket).
    pub fn deadline(&self) -> Option<Time> {
        match &self.kind {
            SocketKind::TcpSender(tx) => tx.rto_deadline(),
            SocketKind::TcpReceiver(rx) => rx.delack_deadline(),
            SocketKind::UdpSender(_) | SocketKind::UdpSink(_) => None,
        }
    }

    pub fn matches(&self, port: u16, remote: NodeId, remote_port: u16) -> bool {
        self.port == port && self.remote == remote && self.remote_port == remote_port
    }
}
