//! Transport endpoints: demultiplexing arriving packets to sockets, putting
//! out what sockets want to send, socket timers, and the applications.

use super::{Ev, TraceKind, World};
use crate::engine::Time;
use crate::packet::{flags, Ecn, FlowId, NodeId, Packet, PktId, TcpHeader, Transport, UdpHeader, UDP_HEADER};
use crate::transport::app::App;
use crate::transport::socket::{SockId, SocketKind, SplitRole};
use crate::transport::tcp::sender::OutSegment;

impl World {
    /// The socket of node `n` bound to this packet's destination port and
    /// source address (sockets per node are few: a linear search).
    fn socket_for(&self, n: NodeId, p: &Packet) -> Option<SockId> {
        let (sport, dport) = p.ports()?;
        self.nodes[n as usize]
            .sockets
            .iter()
            .copied()
            .find(|&s| self.sockets[s as usize].matches(dport, p.ip.src, sport))
    }

    /// A TCP or UDP packet addressed to node `n` arrives at its socket.
    /// The packet is read where it lies in the pool (copying its 160 bytes
    /// out at every delivery was a tenth of the instructions of delivery)
    /// and released once read, before anything is sent in answer.
    // Inlined into its one caller, `at_node_slow`: two calls per delivery
    // became one.
    #[inline(always)]
    pub(super) fn deliver(&mut self, now: Time, n: NodeId, id: PktId) {
        let p = self.pool.get(id);
        let Some(sid) = self.socket_for(n, p) else {
            return self.no_socket(now, n, id);
        };
        self.delivered += 1;
        let sock = &mut self.sockets[sid as usize];
        let (fid, role) = (sock.flow, sock.split);
        match (&mut sock.kind, &p.l4) {
            (SocketKind::TcpReceiver(rx), Transport::Tcp(h)) if h.flags & flags::SYN != 0 => {
                // ns-2's one-way TCP: the SYN is acknowledged at once
                // (TCPSink's SYN_immediate_ack_), carrying no data, or
                // when a delaying receiver's timer expires.
                let ack_now = rx.note_syn(now);
                self.pool.release(id);
                if ack_now {
                    self.send_ack_flagged(now, sid, flags::SYN);
                } else {
                    self.sync_socket_timer(sid);
                }
            }
            (SocketKind::TcpReceiver(rx), Transport::Tcp(h)) => {
                // Linux's SACK compression: the ACK it held back, as it
                // stands before this segment, goes first
                // (`TcpReceiver::flushes_compressed`).
                let held =
                    if rx.flushes_compressed(h.seq, h.seq + p.payload as u64) { Some(rx.held_ack(now)) } else { None };
                rx.note_ecn(p.ip.ecn == Ecn::Ce, h.flags & flags::CWR != 0);
                rx.note_push(h.flags & flags::PSH != 0);
                if let Some((_, ecr)) = h.ts {
                    rx.note_echo(ecr);
                }
                let ack_now = rx.on_segment(now, h.seq, p.payload, h.ts.map(|t| t.0));
                let (delivered, reads) = (rx.delivered(), rx.has_linux_window());
                self.pool.release(id);
                if delivered >= sock.first_bytes_due {
                    sock.first_bytes_due = u64::MAX;
                    self.flows[fid as usize].first_bytes_at = Some(now);
                }
                if role == SplitRole::RelayIn {
                    self.relay_in(now, fid);
                }
                if let Some((h, len)) = held {
                    self.send_held_ack(now, sid, h, len);
                }
                if ack_now {
                    self.send_ack(now, sid);
                } else {
                    self.sync_socket_timer(sid);
                }
                if reads {
                    self.application_reads(now, sid);
                }
            }
            (SocketKind::TcpSender(tx), Transport::Tcp(h)) if self.trace.is_none() => {
                // Untraced (the common case): the ACK read where it lies,
                // the socket and packet not looked up again.
                tx.note_ack_ttl(p.ip.ttl);
                tx.on_ack(now, h);
                self.pool.release(id);
                self.tcp_output(now, sid);
                if role != SplitRole::None {
                    self.split_acked(now, sid, role);
                }
            }
            (SocketKind::TcpSender(tx), Transport::Tcp(h)) => {
                // Traced: the ACK's rows first, then as above.
                let (h, snd_una) = (*h, tx.snd_una);
                // The SYN's answer acknowledges nothing new (the SYN takes
                // no sequence number here, as in ns-2) but is no duplicate.
                let new = h.ack > snd_una || tx.awaits_syn_ack();
                let kind = match new {
                    true => TraceKind::Ack,
                    false if tx.tells_window(&h, tx.peer_window()) => TraceKind::WindowUpdate,
                    false => TraceKind::DupAck,
                };
                self.trace_sock(now, sid, kind, h.ack, 0);
                for b in h.sack_blocks().iter() {
                    self.trace_sock(now, sid, TraceKind::Sack, b.start, (b.end - b.start) as u32);
                }
                let p = self.pool.get(id);
                if let (SocketKind::TcpSender(tx), Transport::Tcp(h)) = (&mut self.sockets[sid as usize].kind, &p.l4) {
                    tx.note_ack_ttl(p.ip.ttl);
                    tx.on_ack(now, h);
                }
                self.pool.release(id);
                self.tcp_output(now, sid);
                if role != SplitRole::None {
                    self.split_acked(now, sid, role);
                }
            }
            (SocketKind::UdpSink(u), Transport::Udp(_)) => {
                u.stats.packets_received += 1;
                u.stats.bytes_received += p.payload as u64;
                u.last_rx = now;
                self.pool.release(id);
            }
            _ => {
                self.delivered -= 1;
                self.nodes[n as usize].stats.drops_no_socket += 1;
                self.pool.release(id);
            }
        }
    }

    /// The ACK Linux's SACK compression held back, made before the
    /// segment that sends it was taken (`TcpReceiver::held_ack`).
    #[cold]
    #[inline(never)]
    fn send_held_ack(&mut self, now: Time, sid: SockId, h: TcpHeader, len: u32) {
        let s = &self.sockets[sid as usize];
        let end = (s.flow, s.node, s.remote);
        self.emit_from(now, end, Transport::Tcp(h), len, 0, Ecn::NotEct);
    }

    /// A packet for node `n` that no socket takes: handed out to the
    /// emulator (`external.rs`) or dropped.
    #[cold]
    #[inline(never)]
    fn no_socket(&mut self, now: Time, n: NodeId, id: PktId) {
        let p = self.pool.get(id);
        let (uid, ce) = (p.uid, p.ip.ecn == Ecn::Ce);
        if self.hand_out(now, uid, ce) {
            self.delivered += 1;
        } else {
            self.nodes[n as usize].stats.drops_no_socket += 1;
        }
        self.pool.release(id);
    }

    /// Send from socket `sid`'s node a packet with this transport header.
    #[inline(always)]
    fn emit(&mut self, now: Time, sid: SockId, l4: Transport, l4_len: u32, payload: u32, ecn: Ecn) {
        let s = &self.sockets[sid as usize];
        self.emit_from(now, (s.flow, s.node, s.remote), l4, l4_len, payload, ecn);
    }

    /// `emit` for a socket whose (flow, node, remote node) the caller has
    /// at hand: the socket is not looked up again.
    #[inline(always)]
    fn emit_from(
        &mut self,
        now: Time,
        end: (FlowId, NodeId, NodeId),
        l4: Transport,
        l4_len: u32,
        payload: u32,
        ecn: Ecn,
    ) {
        let (flow, node, remote) = end;
        let mut p = Packet::new(flow, node, remote, l4, l4_len, payload, now);
        p.ip.ecn = ecn;
        let id = self.pool.insert(p);
        self.at_node(now, node, id);
    }

    /// ns-2's packet 0 without a SYN: on the wire with its payload's bytes
    /// only (`Ns2Rules::ns2_headerless_first`; a capture still shows its
    /// headers).
    #[cold]
    #[inline(never)]
    fn emit_headerless(&mut self, now: Time, end: (FlowId, NodeId, NodeId), seg: OutSegment, ecn: Ecn) {
        let (flow, node, remote) = end;
        let mut p =
            Packet::new(flow, node, remote, Transport::Tcp(seg.header), seg.header.wire_len(), seg.payload, now);
        p.ip.ecn = ecn;
        p.size = seg.payload;
        let id = self.pool.insert(p);
        self.at_node(now, node, id);
    }

    /// Let a TCP sender put out everything its window allows. The socket
    /// is looked up once a segment (three times until 2026-11-29).
    #[inline(always)]
    pub(super) fn tcp_output(&mut self, now: Time, sid: SockId) {
        loop {
            let s = &mut self.sockets[sid as usize];
            let SocketKind::TcpSender(tx) = &mut s.kind else { unreachable!() };
            debug_assert_eq!(tx.averaged_until(), now, "time averages not brought up to the event");
            let Some(seg) = tx.poll_segment(now) else { break };
            // Read after the poll, so nothing is held across it.
            let end = (s.flow, s.node, s.remote);
            let kind = if seg.retransmit { TraceKind::Retransmit } else { TraceKind::Send };
            self.trace_sock(now, sid, kind, seg.header.seq, seg.payload);
            let ecn = if seg.ect { Ecn::Ect0 } else { Ecn::NotEct };
            if seg.headerless {
                self.emit_headerless(now, end, seg, ecn);
                continue;
            }
            self.emit_from(now, end, Transport::Tcp(seg.header), seg.header.wire_len(), seg.payload, ecn);
        }
        self.sync_socket_timer(sid);
    }

    /// The receiving application reads what arrived in order, after the
    /// segment's own ACK, a buffer at a time: under Linux's window a read
    /// may send a window update, and the application then sets its window
    /// clamp again.
    #[cold]
    #[inline(never)]
    fn application_reads(&mut self, now: Time, sid: SockId) {
        loop {
            let SocketKind::TcpReceiver(rx) = &mut self.sockets[sid as usize].kind else { return };
            let Some(update) = rx.read_chunk(now) else { return };
            if update {
                self.send_ack(now, sid);
            }
            if let SocketKind::TcpReceiver(rx) = &mut self.sockets[sid as usize].kind {
                rx.clamp_after_read();
            }
        }
    }

    #[inline(always)]
    pub(super) fn send_ack(&mut self, now: Time, sid: SockId) {
        self.send_ack_flagged(now, sid, 0);
    }

    /// An ACK with `extra` flags too: the SYN's answer is a SYN-ACK (nothing
    /// in the simulation reads the SYN bit on it; captures show a handshake
    /// Wireshark recognises).
    fn send_ack_flagged(&mut self, now: Time, sid: SockId, extra: u8) {
        let s = &mut self.sockets[sid as usize];
        let end = (s.flow, s.node, s.remote);
        let SocketKind::TcpReceiver(rx) = &mut s.kind else { unreachable!() };
        let mut h = if extra & flags::SYN != 0 { rx.syn_ack_header(now) } else { rx.ack_header(now) };
        h.flags |= extra;
        let len = rx.ack_wire_len(&h);
        self.emit_from(now, end, Transport::Tcp(h), len, 0, Ecn::NotEct);
    }

    /// The source of a split flow: if its timer was the persist timer,
    /// the window probe goes out (`transport/tcp/persist.rs`).
    #[cold]
    #[inline(never)]
    fn persist_timer(&mut self, now: Time, sid: SockId) -> bool {
        let s = &mut self.sockets[sid as usize];
        let end = (s.flow, s.node, s.remote);
        let SocketKind::TcpSender(tx) = &mut s.kind else { return false };
        let Some(seg) = tx.on_persist_timer(now) else { return false };
        self.trace_sock(now, sid, TraceKind::WindowProbe, seg.header.seq, 0);
        self.emit_from(now, end, Transport::Tcp(seg.header), seg.header.wire_len(), 0, Ecn::NotEct);
        self.sync_socket_timer(sid);
        true
    }

    /// A sender of a split flow took an ACK (`split.rs`).
    #[cold]
    #[inline(never)]
    fn split_acked(&mut self, now: Time, sid: SockId, role: SplitRole) {
        match role {
            SplitRole::Source => self.persist_source(now, sid),
            SplitRole::RelayOut => self.relay_acked(now, self.sockets[sid as usize].flow),
            SplitRole::RelayIn | SplitRole::None => {}
        }
    }

    /// Make sure an event exists at or before the socket's deadline.
    #[inline(always)]
    pub(super) fn sync_socket_timer(&mut self, sid: SockId) {
        let s = &mut self.sockets[sid as usize];
        if let Some(at) = s.timer.arm(s.deadline(), self.q.now()) {
            self.q.schedule(at, Ev::Socket(sid));
        }
    }

    pub(super) fn socket_timer(&mut self, now: Time, sid: SockId) {
        let s = &mut self.sockets[sid as usize];
        if !s.timer.fire(now) {
            return; // superseded by an earlier event
        }
        if s.split == SplitRole::Source && self.persist_timer(now, sid) {
            return;
        }
        let s = &mut self.sockets[sid as usize];
        match &mut s.kind {
            SocketKind::TcpSender(tx) => {
                if tx.on_timeout(now) {
                    self.tcp_output(now, sid);
                } else {
                    self.sync_socket_timer(sid);
                }
            }
            SocketKind::TcpReceiver(rx) => {
                if rx.on_delack_timer(now) {
                    self.send_ack(now, sid);
                } else {
                    self.sync_socket_timer(sid);
                }
            }
            SocketKind::UdpSender(_) | SocketKind::UdpSink(_) => {}
        }
    }

    // ---- applications ------------------------------------------------

    pub(super) fn app_start(&mut self, now: Time, fid: FlowId) {
        let f = &self.flows[fid as usize];
        let (app, tx) = (f.app.clone(), f.tx);
        if let Some(relay) = f.split.as_ref().map(|s| s.tx) {
            // The split node's connection opens with the source's and
            // sends what the first one delivers (`split.rs`).
            if let SocketKind::TcpSender(s) = &mut self.sockets[relay as usize].kind {
                s.start_averages(now);
                s.set_app_paced();
            }
            self.tcp_output(now, relay);
        }
        match &mut self.sockets[tx as usize].kind {
            SocketKind::TcpSender(s) => {
                s.start_averages(now);
                match app {
                    App::Bulk { .. } => s.app_write(None),
                    // With the default unlimited send buffer the application
                    // writes its whole transfer at once; write size then only
                    // matters for bookkeeping.
                    App::Transfer { bytes, more, .. } => {
                        if !more.is_empty() {
                            s.set_app_paced();
                        }
                        s.app_write(Some(bytes))
                    }
                    App::Messages { .. } => {
                        // ns-2's TelnetApp::start(): the first gap is drawn
                        // now, and nothing is written until it ends.
                        s.set_app_paced();
                        self.schedule_message(now, fid);
                    }
                    App::Cbr { .. } => {}
                }
                self.tcp_output(now, tx);
            }
            _ => self.udp_send(now, fid),
        }
    }

    /// A messages app's next message after an exponential gap of its
    /// current mean (ns-2's TelnetApp::next(): interval_ x -ln(u)).
    fn schedule_message(&mut self, now: Time, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        let App::Messages { interval, .. } = f.app else { return };
        let Some(g) = f.gaps.as_mut() else { return };
        let gap = g.gap(interval);
        self.q.schedule(now + gap, Ev::AppMessage(fid));
    }

    /// A messages app writes its next message (ns-2's TelnetApp::timeout():
    /// one sendmsg() of its size) and draws the gap to the one after.
    pub(super) fn app_message(&mut self, now: Time, fid: FlowId) {
        let f = &self.flows[fid as usize];
        let App::Messages { bytes, .. } = f.app else { return };
        if f.stopped {
            return;
        }
        self.write_more(now, f.tx, bytes);
        self.schedule_message(now, fid);
    }

    /// An application's later write on sender socket `tx`, sent at once
    /// (a split flow's source, held by a closed window, probes it: Linux's
    /// tcp_check_probe_timer() on a write that cannot go).
    fn write_more(&mut self, now: Time, tx: SockId, bytes: u64) {
        if let SocketKind::TcpSender(s) = &mut self.sockets[tx as usize].kind {
            s.app_write_more(now, bytes);
            self.tcp_output(now, tx);
            if self.sockets[tx as usize].split == SplitRole::Source {
                self.persist_source(now, tx);
            }
        }
    }

    /// A transfer writes again (`App::Transfer::more`), or a messages app
    /// takes its next mean gap (the draws after this use it).
    pub(super) fn app_more(&mut self, now: Time, fid: FlowId, i: u32) {
        let f = &mut self.flows[fid as usize];
        let (bytes, tx) = match &mut f.app {
            App::Transfer { more, .. } => (more[i as usize].1, f.tx),
            App::Messages { interval, changes, .. } => {
                *interval = changes[i as usize].1;
                return;
            }
            _ => return,
        };
        self.write_more(now, tx, bytes);
    }

    pub(super) fn app_stop(&mut self, now: Time, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        f.stopped = true;
        f.at_stop = match (&self.sockets[f.tx as usize].kind, &self.sockets[f.rx as usize].kind) {
            (SocketKind::TcpSender(tx), SocketKind::TcpReceiver(rx)) => Some((tx.snd_una, rx.delivered())),
            (_, SocketKind::UdpSink(sink)) => Some((0, sink.stats.bytes_received)),
            _ => None,
        };
        if let SocketKind::TcpSender(tx) = &mut self.sockets[f.tx as usize].kind {
            tx.app_close(now);
        }
    }

    pub(super) fn udp_send(&mut self, now: Time, fid: FlowId) {
        let f = &self.flows[fid as usize];
        let interval = match f.app {
            App::Cbr { interval, .. } => interval,
            _ => return,
        };
        if f.stopped {
            return;
        }
        let sid = f.tx;
        let s = &mut self.sockets[sid as usize];
        let (sport, dport) = (s.port, s.remote_port);
        let SocketKind::UdpSender(u) = &mut s.kind else { unreachable!() };
        let seqno = u.next_seq;
        u.next_seq += 1;
        let payload = u.payload;
        u.stats.packets_sent += 1;
        u.stats.bytes_sent += payload as u64;
        let h = UdpHeader { sport, dport, seqno };
        self.emit(now, sid, Transport::Udp(h), UDP_HEADER, payload, Ecn::NotEct);
        // ns-2's CBR with random_: the interval plus U(-0.5, 0.5) of it.
        let gap = match self.flows[fid as usize].cbr_jitter.as_mut() {
            Some(rng) => (interval as f64 * (0.5 + rng.uniform())).round() as Time,
            None => interval,
        };
        self.q.schedule(now + gap.max(1), Ev::AppSend(fid));
    }
}
