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
    // Boxed like the TCP ends, so that the kind is two words and a socket
    // fits one cache line (`Socket`).
    UdpSender(Box<UdpFlow>),
    UdpSink(Box<UdpFlow>),
}

/// One cache line, in this order (`repr(C, align(64))`): a delivery reads
/// the addressing to find the socket, then its kind, in one line. (96
/// bytes with the UDP state inline: every delivery at 1000 flows missed
/// on two lines, the ports and the kind; docs/architecture.md.)
#[repr(C, align(64))]
pub struct Socket {
    pub kind: SocketKind,
    pub node: NodeId,
    pub port: u16,
    pub remote_port: u16,
    pub remote: NodeId,
    /// The flow this socket belongs to, for traces and reports.
    pub flow: FlowId,
    pub timer: TimerSlot,
    /// A receiving socket whose flow measures the time to its first
    /// `first_bytes` bytes: that threshold until it is reached (the flow
    /// then records when), so that a delivery reads the flow's entry only
    /// once; `u64::MAX` otherwise.
    pub first_bytes_due: u64,
    /// Its part in a split connection (in the line's spare bytes).
    pub split: SplitRole,
}

/// A socket's part in a split connection (I-TCP, `sim/split.rs`): the
/// source's sender, or the split node's receiving or sending end; the
/// destination's receiver is an ordinary one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SplitRole {
    #[default]
    None,
    Source,
    RelayIn,
    RelayOut,
}

impl Socket {
    pub fn new(node: NodeId, port: u16, remote: NodeId, remote_port: u16, flow: FlowId, kind: SocketKind) -> Self {
        Socket {
            kind,
            node,
            port,
            remote_port,
            remote,
            flow,
            timer: TimerSlot::default(),
            first_bytes_due: u64::MAX,
            split: SplitRole::None,
        }
    }

    /// The socket's next timer deadline (one per socket).
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        match &self.kind {
            SocketKind::TcpSender(tx) => tx.timer_deadline(),
            SocketKind::TcpReceiver(rx) => rx.delack_deadline(),
            SocketKind::UdpSender(_) | SocketKind::UdpSink(_) => None,
        }
    }

    pub fn matches(&self, port: u16, remote: NodeId, remote_port: u16) -> bool {
        self.port == port && self.remote == remote && self.remote_port == remote_port
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// A socket is one cache line, and the TCP sender's per-ACK state
    /// (through the leading fields of its configuration) lies in its first
    /// nine lines: the layouts the speed notes in docs/architecture.md
    /// ("A flow's state in fewer lines") were measured with.
    #[test]
    fn hot_state_stays_in_its_lines() {
        assert_eq!(size_of::<Socket>(), 64);
        assert_eq!(align_of::<TcpSender>(), 64);
        assert!(offset_of!(TcpSender, cfg) + offset_of!(crate::transport::tcp::TcpConfig, mss) <= 9 * 64);
    }
}
