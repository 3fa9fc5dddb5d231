//! Split connections (I-TCP, Bakre and Badrinath 1995): a flow's TCP
//! connection from its source ends at a third node (a base station),
//! which acknowledges the source's segments itself and sends the bytes on
//! to the destination over a connection of its own. Wireless losses on the
//! second connection are then repaired there, out of the source's sight;
//! the price is that an ACK at the source no longer means the data
//! arrived (end-to-end semantics).
//!
//! The split node holds what it has acknowledged to the source and the
//! destination has not yet acknowledged to it, at most `buffer` bytes:
//! its receiving end advertises the room left (in whole segments, never
//! moving the window's right edge left, RFC 9293 3.8.6.2.2), and once
//! the second connection frees room it sends a window update by Linux's
//! rule (`tcp_cleanup_rbuf()`: when the window it can now offer is at
//! least twice what the source has left to use). A source whose window
//! closes with nothing in flight probes it with the persist timer
//! (`transport/tcp/persist.rs`).

use super::World;
use crate::engine::Time;
use crate::packet::FlowId;
use crate::transport::socket::{SockId, SocketKind};

/// A flow's two ends at its split node, and the node's buffer.
pub struct Split {
    /// The end that receives the source's connection.
    pub rx: SockId,
    /// The end that sends to the destination.
    pub tx: SockId,
    /// Bytes the node may hold (acknowledged to the source, not yet by
    /// the destination).
    pub buffer: u64,
    /// The window the receiving end advertises with room to spare (the
    /// flow's).
    pub window: u64,
    /// Bytes handed from `rx` to `tx` so far.
    relayed: u64,
    /// The most bytes held at once (flows.csv `split_max_held_bytes`).
    pub max_held: u64,
    /// The second connection's name in trace.csv: the flow's + "/relay".
    pub trace_name: String,
}

impl Split {
    pub fn new(ends: (SockId, SockId), buffer: u64, window: u64, trace_name: String) -> Self {
        let (rx, tx) = ends;
        Split { rx, tx, buffer, window, relayed: 0, max_held: 0, trace_name }
    }

    /// The window the receiving end can offer with `held` bytes in the
    /// buffer: the room left in whole segments of `mss`, at most the
    /// flow's window.
    pub fn room(&self, held: u64, mss: u64) -> u64 {
        (self.buffer.saturating_sub(held) / mss * mss).min(self.window)
    }
}

impl World {
    /// The split node's receiving end of flow `fid` delivered in order:
    /// the new bytes go to its sending end, and its window shrinks by
    /// them (before the ACK for them is built).
    #[cold]
    #[inline(never)]
    pub(super) fn relay_in(&mut self, now: Time, fid: FlowId) {
        let Some(sp) = self.flows[fid as usize].split.as_mut() else { return };
        let SocketKind::TcpReceiver(rx) = &self.sockets[sp.rx as usize].kind else { unreachable!() };
        let got = rx.delivered() - sp.relayed;
        sp.relayed += got;
        let tx = sp.tx;
        self.relay_window(fid);
        // A segment out of order or repeated delivers nothing new.
        if got > 0 {
            if let SocketKind::TcpSender(s) = &mut self.sockets[tx as usize].kind {
                s.app_write_more(now, got);
            }
            self.tcp_output(now, tx);
        }
    }

    /// The split node's sending end of flow `fid` took an ACK: room may
    /// have opened in the buffer, and the source hears of it by a window
    /// update when it is worth one.
    #[cold]
    #[inline(never)]
    pub(super) fn relay_acked(&mut self, now: Time, fid: FlowId) {
        let Some((left, offered, clamp, mss)) = self.relay_window(fid) else { return };
        // Linux's tcp_cleanup_rbuf(): a window at least twice what the
        // source has left, while what it has left is at most half the
        // largest window.
        if 2 * left <= clamp && offered >= mss.max(2 * left) {
            let rx = self.flows[fid as usize].split.as_ref().map(|s| s.rx).expect("a split flow");
            self.send_ack(now, rx);
        }
    }

    /// Set the window the split node's receiving end advertises from the
    /// room in its buffer. Returns (what the source has left of the last
    /// window advertised, the window now, the configured window, MSS).
    fn relay_window(&mut self, fid: FlowId) -> Option<(u64, u64, u64, u64)> {
        let sp = self.flows[fid as usize].split.as_mut()?;
        let SocketKind::TcpSender(tx) = &self.sockets[sp.tx as usize].kind else { unreachable!() };
        let held = sp.relayed - tx.snd_una.min(sp.relayed);
        sp.max_held = sp.max_held.max(held);
        let SocketKind::TcpReceiver(rx) = &mut self.sockets[sp.rx as usize].kind else { unreachable!() };
        let mss = rx.mss();
        let left = rx.last_edge().saturating_sub(rx.delivered());
        let offered = sp.room(held, mss).max(left);
        let clamp = sp.window;
        rx.window = offered.min(u32::MAX as u64) as u32;
        Some((left, offered, clamp, mss))
    }

    /// The source of a split flow took an ACK or its application wrote:
    /// the persist timer runs while the window holds its data up.
    #[cold]
    #[inline(never)]
    pub(super) fn persist_source(&mut self, now: Time, sid: SockId) {
        if let SocketKind::TcpSender(tx) = &mut self.sockets[sid as usize].kind {
            tx.persist_check(now);
        }
        self.sync_socket_timer(sid);
    }
}
