//! The workload, in the spirit of TTCP: per flow a receiver that reads
//! everything (and notes when the first N bytes arrived) and a sender that
//! connects at the application's start time and writes a transfer of
//! `bytes` in `write`-byte blocks and its later writes at their times (or
//! writes until its stop time, bulk; or writes each message at its time).
//! Completion is when every byte written has been acknowledged: the kernel's
//! send queue (SIOCOUTQ) is empty. Each runs on a thread inside its end's
//! namespace, with the socket knobs of the run.

use crate::netns::Netns;
use crate::series::{self, Reading};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tcplab_core::engine::Time;

/// Socket-level knobs of one flow.
#[derive(Clone, Debug, Default)]
pub struct SockKnobs {
    /// Congestion control module (TCP_CONGESTION), e.g. "reno", "cubic", "bbr".
    pub cc: String,
    /// TCP_MAXSEG on both ends: the MSS option value (payload plus the
    /// options every segment carries, i.e. 12 with timestamps).
    pub maxseg: Option<u32>,
    /// TCP_WINDOW_CLAMP on the receiver: the largest window it advertises.
    /// Set on the listener (the SYN-ACK's window and scale follow it) and
    /// set again on the connection after every read: this kernel replaces
    /// the clamp with the receive buffer's whole space when it re-estimates
    /// the buffer's overhead (first full-sized segment) and when autotuning
    /// grows the buffer (see `receive`).
    pub window_clamp: Option<u32>,
    /// TCP_NODELAY on the sender: an application that writes again after
    /// pauses (later writes, messages) has each write sent as soon as the
    /// window allows, as the simulator's sender does; Nagle's rule would
    /// hold a short message while an earlier short one is unacknowledged.
    pub nodelay: bool,
    /// SO_RCVBUF on the receiver, SO_SNDBUF on the sender (bytes as given to
    /// the kernel, which doubles them). Set with SO_RCVBUFFORCE /
    /// SO_SNDBUFFORCE (the emulator runs as root): plain SO_RCVBUF caps the
    /// value at net.core.rmem_max (wmem_max), so `--rcvbuf 8000000` gave a
    /// 4 MB buffer here without a word.
    pub rcvbuf: Option<u32>,
    pub sndbuf: Option<u32>,
}

#[derive(Clone, Debug)]
pub enum Work {
    /// `bytes` in `write`-byte blocks, then each of `more` (time, bytes)
    /// at its time; complete when the last is acknowledged.
    Transfer { bytes: u64, write: u32, more: Vec<(Time, u64)> },
    /// Write 64 KB blocks until `stop` (or the end of the run).
    Bulk { stop: Option<Time> },
    /// One write of each message at its time (the simulator's own draws,
    /// `scenario::build::message_writes`) until `stop` or the end of the
    /// run.
    Messages { writes: Vec<(Time, u64)>, stop: Option<Time> },
}

impl Work {
    /// The application's stop: its rates are measured up to it.
    pub fn stop(&self) -> Option<Time> {
        match self {
            Work::Bulk { stop } | Work::Messages { stop, .. } => *stop,
            Work::Transfer { .. } => None,
        }
    }

    /// Writes after the first, at their times.
    pub fn timed(&self) -> &[(Time, u64)] {
        match self {
            Work::Transfer { more, .. } => more,
            Work::Messages { writes, .. } => writes,
            Work::Bulk { .. } => &[],
        }
    }
}

#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub name: String,
    /// The sending end (0 or 1).
    pub from: usize,
    pub port: u16,
    pub start: Time,
    pub work: Work,
    pub first_bytes: Option<u64>,
    pub knobs: SockKnobs,
    /// `output.sample_interval`: the sender's state is read at its
    /// multiples (series.csv).
    pub sample_every: Option<Time>,
}

/// What the sender's kernel reports (TCP_INFO) at the end.
#[derive(Clone, Debug, Default)]
pub struct TcpInfo {
    pub snd_mss: u32,
    pub rtt_us: u32,
    pub rto_us: u32,
    /// Segments; `INFINITE_SSTHRESH` while unset.
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    pub total_retrans: u32,
    pub bytes_acked: u64,
    pub min_rtt_us: u32,
    pub data_segs_out: u32,
    /// tcp_ca_state: 0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss.
    pub ca_state: u8,
    /// Bytes per second.
    pub pacing_rate: u64,
    /// Data bytes sent, retransmissions included, and retransmitted.
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
}

/// Linux's ssthresh before it has one (TCP_INFINITE_SSTHRESH).
pub(crate) const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// How often the sender's TCP_INFO is read for the time averages.
const SAMPLE_EVERY: Duration = Duration::from_millis(1);

/// Time averages of the sender's cwnd, ssthresh, srtt and rto over its
/// active time, as the simulator's flows table has them (the core's type):
/// from TCP_INFO read every `SAMPLE_EVERY` (the kernel tells its state only
/// when asked), each reading held until the next; ssthresh only while set,
/// srtt once measured.
pub use tcplab_core::transport::tcp::averages::WindowAverages as InfoAverages;

/// Running sums of (value x seconds, seconds held) per quantity.
#[derive(Default)]
struct InfoSums {
    sums: [(f64, f64); 4],
}

impl InfoSums {
    /// Reading `i` held for `dt` seconds.
    fn add(&mut self, i: &TcpInfo, dt: f64) {
        let mss = i.snd_mss as f64;
        let vals = [
            Some(i.snd_cwnd as f64 * mss),
            (i.snd_ssthresh < INFINITE_SSTHRESH).then_some(i.snd_ssthresh as f64 * mss),
            (i.rtt_us > 0).then_some(i.rtt_us as f64 / 1e6),
            Some(i.rto_us as f64 / 1e6),
        ];
        for (s, v) in self.sums.iter_mut().zip(vals) {
            if let Some(v) = v {
                s.0 += v * dt;
                s.1 += dt;
            }
        }
    }

    fn averages(&self) -> InfoAverages {
        let [c, ss, r, o] = self.sums.map(|(v, t)| (t > 0.0).then(|| v / t));
        InfoAverages { cwnd_bytes: c, ssthresh_bytes: ss, srtt_s: r, rto_s: o }
    }
}

/// What the sampler of a sender's state found.
#[derive(Default)]
struct Sampled {
    averages: InfoAverages,
    series: Vec<Reading>,
    /// Largest delay of a series reading after its instant.
    late_max: Time,
    /// Instants passed without a reading (the thread woke after the next).
    missed: u64,
}

/// Read socket `fd`'s TCP_INFO every `SAMPLE_EVERY` until `done` is set,
/// for the time averages; with `every`, also at each multiple of it on the
/// run clock, for series.csv (`delivered`: the receiving application's
/// count of bytes read).
fn sample_info(
    fd: RawFd,
    clock: Arc<Clock>,
    done: Arc<AtomicBool>,
    every: Option<Time>,
    delivered: Arc<AtomicU64>,
) -> std::thread::JoinHandle<Sampled> {
    std::thread::spawn(move || {
        let mut out = Sampled::default();
        let mut sums = InfoSums::default();
        let mut last: Option<(Time, TcpInfo)> = None;
        let mut next = every.map(|e| series::next_instant(clock.now(), e));
        let bbr = every.is_some() && series::runs_bbr(fd);
        loop {
            let stop = done.load(Ordering::Acquire);
            let now = clock.now();
            if let Some((t, i)) = &last {
                sums.add(i, (now - t) as f64 / 1e9);
            }
            if stop {
                break;
            }
            last = tcp_info(fd).map(|i| (now, i));
            let mut nap = SAMPLE_EVERY;
            if let (Some(e), Some(at)) = (every, next) {
                if now >= at {
                    if let Some((_, info)) = &last {
                        out.series.push(Reading {
                            at,
                            info: info.clone(),
                            in_flight_bytes: series::in_flight_bytes(fd).unwrap_or(0),
                            bbr: if bbr { series::bbr_info(fd) } else { None },
                            delivered: delivered.load(Ordering::Acquire),
                        });
                        out.late_max = out.late_max.max(now - at);
                    }
                    let n = series::next_instant(now + 1, e);
                    out.missed += (n - at) / e - 1;
                    next = Some(n);
                }
                let due = next.expect("set with `every`");
                nap = nap.min(Duration::from_nanos(due.saturating_sub(clock.now())));
            }
            std::thread::sleep(nap);
        }
        out.averages = sums.averages();
        out
    })
}

#[derive(Clone, Debug, Default)]
pub struct FlowOutcome {
    /// Time connect() took (the handshake: one round trip plus SYN delays).
    pub connect_ns: Option<Time>,
    /// All data acknowledged (transfers only), on the run clock.
    pub completed_at: Option<Time>,
    pub info: Option<TcpInfo>,
    /// Time averages of the sender's state over its active time.
    pub averages: InfoAverages,
    /// Bytes the receiving application read: by the end of the run, or, for
    /// a bulk flow with a `stop`, by its stop time (what the sender wrote
    /// still drains after the stop; counting it over the active time gave
    /// rates above the line rate).
    pub delivered: u64,
    pub first_bytes_at: Option<Time>,
    pub last_delivery: Option<Time>,
    /// SO_RCVBUF of the receiver's connection and SO_SNDBUF of the
    /// sender's, as the kernel reports them after `--rcvbuf`/`--sndbuf`
    /// (twice the value asked for); None when not set.
    pub rcvbuf: Option<u32>,
    pub sndbuf: Option<u32>,
    pub error: Option<String>,
    /// The sender's state at the sampling instants (series.csv).
    pub series: Vec<Reading>,
    pub series_late_max: Time,
    pub series_missed: u64,
}

fn setopt(fd: RawFd, level: i32, name: i32, val: &[u8], what: &str) -> io::Result<()> {
    // SAFETY: the option value is a live byte slice of the given length.
    if unsafe { libc::setsockopt(fd, level, name, val.as_ptr().cast(), val.len() as u32) } != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(())
}

/// Whether this kernel lets a socket use congestion control `cc` (loading
/// its module if needed: as root, setting it does).
pub fn cc_usable(cc: &str) -> io::Result<()> {
    let s = tcp_socket()?;
    setopt(s.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_CONGESTION, cc.as_bytes(), "TCP_CONGESTION")
}

/// A new, unconnected TCP socket.
fn tcp_socket() -> io::Result<TcpStream> {
    // SAFETY: a new socket; ownership passes to the TcpStream.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(unsafe { TcpStream::from_raw_fd(fd) })
}

fn setopt_int(fd: RawFd, level: i32, name: i32, v: u32, what: &str) -> io::Result<()> {
    setopt(fd, level, name, &(v as i32).to_ne_bytes(), what)
}

fn getopt_int(fd: RawFd, level: i32, name: i32) -> Option<u32> {
    let mut v: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `v`.
    let r = unsafe { libc::getsockopt(fd, level, name, (&mut v as *mut libc::c_int).cast(), &mut len) };
    (r == 0).then_some(v as u32)
}

fn tcp_info(fd: RawFd) -> Option<TcpInfo> {
    let mut b = [0u8; 256];
    let mut len = b.len() as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `b`.
    let r = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_INFO, b.as_mut_ptr().cast(), &mut len) };
    if r != 0 || len < 160 {
        return None;
    }
    // struct tcp_info (linux/tcp.h): 8 one-byte fields, then u32 fields
    // (rto at 8), then u64s from offset 104.
    let u32_at = |o: usize| u32::from_ne_bytes(b[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_ne_bytes(b[o..o + 8].try_into().unwrap());
    Some(TcpInfo {
        snd_mss: u32_at(16),
        rtt_us: u32_at(68),
        rto_us: u32_at(8),
        snd_ssthresh: u32_at(76),
        snd_cwnd: u32_at(80),
        total_retrans: u32_at(100),
        // The kernel counts the SYN as one acknowledged byte.
        bytes_acked: u64_at(120).saturating_sub(1),
        min_rtt_us: u32_at(148),
        data_segs_out: u32_at(156),
        ca_state: b[1],
        pacing_rate: u64_at(104),
        // (Since Linux 4.19.)
        bytes_sent: if len >= 216 { u64_at(200) } else { 0 },
        bytes_retrans: if len >= 216 { u64_at(208) } else { 0 },
    })
}

/// Bytes not yet acknowledged (sent or not) in the socket's send queue.
fn outq(fd: RawFd) -> Option<i32> {
    let mut n: libc::c_int = 0;
    // SAFETY: SIOCOUTQ writes one int.
    (unsafe { libc::ioctl(fd, libc::TIOCOUTQ, &mut n) } == 0).then_some(n)
}

pub struct Clock {
    pub t0: Instant,
}

impl Clock {
    pub fn now(&self) -> Time {
        self.t0.elapsed().as_nanos() as Time
    }
    fn sleep_until(&self, t: Time, stop: &AtomicBool) {
        while !stop.load(Ordering::Acquire) {
            let now = self.now();
            if now >= t {
                return;
            }
            std::thread::sleep(Duration::from_nanos((t - now).min(20_000_000)));
        }
    }
}

/// A listening socket for one flow, made before anything starts.
pub fn listen(ns: &Netns, addr: Ipv4Addr, spec: &FlowSpec) -> Result<TcpListener, String> {
    let k = spec.knobs.clone();
    let port = spec.port;
    ns.run(move || -> io::Result<TcpListener> {
        let l = TcpListener::bind(SocketAddrV4::new(addr, port))?;
        let fd = l.as_raw_fd();
        // Options of a listening socket are inherited by the connections it
        // accepts (the kernel reads them when the SYN arrives).
        if let Some(m) = k.maxseg {
            setopt_int(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, m, "TCP_MAXSEG")?;
        }
        if let Some(c) = k.window_clamp {
            setopt_int(fd, libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP, c, "TCP_WINDOW_CLAMP")?;
        }
        if let Some(b) = k.rcvbuf {
            setopt_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, b, "SO_RCVBUFFORCE")?;
        }
        l.set_nonblocking(true)?;
        Ok(l)
    })
    .map_err(|e| e.to_string())?
    .map_err(|e| format!("flow {}: listen on {addr}:{port}: {e}", spec.name))
}

/// What the receiving application got.
#[derive(Clone, Copy, Debug, Default)]
pub struct Received {
    /// Bytes read, in all.
    pub bytes: u64,
    /// Bytes read by the flow's stop time (a bulk flow with a `stop`).
    pub by_stop: Option<u64>,
    pub first_bytes_at: Option<Time>,
    pub last_delivery: Option<Time>,
    /// SO_RCVBUF of the connection when `rcvbuf` was set.
    pub rcvbuf: Option<u32>,
}

/// Receive everything, keeping the advertised window at the clamp.
pub fn receive(
    l: TcpListener,
    spec: &FlowSpec,
    clock: &Clock,
    stopped: &dyn Fn() -> bool,
    read: &AtomicU64,
) -> io::Result<Received> {
    let stop_at = spec.work.stop();
    let mut r = Received { by_stop: stop_at.map(|_| 0), ..Default::default() };
    let mut s = loop {
        match l.accept() {
            Ok((s, _)) => break s,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if stopped() {
                    return Ok(r);
                }
                // Wait for the connection itself, not a fixed 2 ms: the
                // first data segment follows the handshake by a segment's
                // transmission time, and until the clamp is set again after
                // the first read, each segment widens the window.
                let mut p = libc::pollfd { fd: l.as_raw_fd(), events: libc::POLLIN, revents: 0 };
                // SAFETY: one pollfd we own.
                unsafe { libc::poll(&mut p, 1, 20) };
            }
            Err(e) => return Err(e),
        }
    };
    s.set_nonblocking(false)?;
    s.set_read_timeout(Some(Duration::from_millis(20)))?;
    if spec.knobs.rcvbuf.is_some() {
        r.rcvbuf = getopt_int(s.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVBUF);
    }
    // The window clamp the listener passed on holds only until the kernel
    // (6.x) replaces it by the space of the receive buffer: on the first
    // segment longer than its initial estimate of the MSS (536 bytes) it
    // re-measures the buffer's overhead (scaling_ratio) and resets the
    // clamp, and receive-buffer autotuning resets it whenever it grows the
    // buffer (inside the read). Setting it again after every read puts it
    // back before the next segment can widen the window; between the reset
    // and the next read the window can grow by one segment's increment
    // (2 MSS), once, at the first full-sized segment (docs/emulator.md).
    let clamp = |s: &TcpStream| -> io::Result<()> {
        match spec.knobs.window_clamp {
            Some(c) => setopt_int(s.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP, c, "TCP_WINDOW_CLAMP"),
            None => Ok(()),
        }
    };
    clamp(&s)?;
    let mut buf = vec![0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let now = clock.now();
                clamp(&s)?;
                r.bytes += n as u64;
                read.store(r.bytes, Ordering::Release);
                r.last_delivery = Some(now);
                if stop_at.is_some_and(|st| now <= st) {
                    r.by_stop = Some(r.bytes);
                }
                if r.first_bytes_at.is_none() && spec.first_bytes.is_some_and(|f| r.bytes >= f) {
                    r.first_bytes_at = Some(now);
                }
            }
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                if stopped() {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(r)
}

fn connect(dst: SocketAddrV4, k: &SockKnobs, stop: &AtomicBool) -> io::Result<TcpStream> {
    let s = tcp_socket()?;
    let fd = s.as_raw_fd();
    if !k.cc.is_empty() {
        setopt(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, k.cc.as_bytes(), "TCP_CONGESTION").map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("{e} (congestion control {:?}; see net.ipv4.tcp_available_congestion_control)", k.cc),
            )
        })?;
    }
    if let Some(m) = k.maxseg {
        setopt_int(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, m, "TCP_MAXSEG")?;
    }
    if let Some(b) = k.sndbuf {
        setopt_int(fd, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, b, "SO_SNDBUFFORCE")?;
    }
    if k.nodelay {
        setopt_int(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, 1, "TCP_NODELAY")?;
    }
    s.set_nonblocking(true)?;
    let sa = libc::sockaddr_in {
        sin_family: libc::AF_INET as u16,
        sin_port: dst.port().to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from(*dst.ip()).to_be() },
        sin_zero: [0; 8],
    };
    // SAFETY: a sockaddr_in of the right size.
    let r = unsafe { libc::connect(fd, (&sa as *const libc::sockaddr_in).cast(), std::mem::size_of_val(&sa) as u32) };
    if r != 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINPROGRESS) {
            return Err(e);
        }
        loop {
            let mut p = libc::pollfd { fd, events: libc::POLLOUT, revents: 0 };
            // SAFETY: one pollfd we own.
            let n = unsafe { libc::poll(&mut p, 1, 20) };
            if n > 0 {
                break;
            }
            if stop.load(Ordering::Acquire) {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "run ended during connect"));
            }
        }
        if let Some(e) = s.take_error()? {
            return Err(e);
        }
    }
    s.set_nonblocking(false)?;
    Ok(s)
}

/// Connect at the start time, write the work, wait until all is acknowledged.
pub fn send(
    dst: SocketAddrV4,
    spec: &FlowSpec,
    clock: &Arc<Clock>,
    stop: &AtomicBool,
    delivered: Arc<AtomicU64>,
    out: &mut FlowOutcome,
) -> io::Result<()> {
    clock.sleep_until(spec.start, stop);
    if stop.load(Ordering::Acquire) {
        return Ok(());
    }
    let t = clock.now();
    let mut s = connect(dst, &spec.knobs, stop)?;
    out.connect_ns = Some(clock.now() - t);
    if spec.knobs.sndbuf.is_some() {
        out.sndbuf = getopt_int(s.as_raw_fd(), libc::SOL_SOCKET, libc::SO_SNDBUF);
    }
    s.set_write_timeout(Some(Duration::from_millis(20)))?;
    let fd = s.as_raw_fd();
    // (Stopped before `s` closes: the sampler only reads the open socket.)
    let sampled = Arc::new(AtomicBool::new(false));
    let sampler = sample_info(fd, clock.clone(), sampled.clone(), spec.sample_every, delivered);
    let r = send_work(&mut s, spec, clock, stop, out);
    sampled.store(true, Ordering::Release);
    let got = sampler.join().unwrap_or_default();
    out.averages = got.averages;
    (out.series, out.series_late_max, out.series_missed) = (got.series, got.late_max, got.missed);
    r
}

/// `send` once connected: the writes, the wait for completion, TCP_INFO.
fn send_work(
    s: &mut TcpStream,
    spec: &FlowSpec,
    clock: &Clock,
    stop: &AtomicBool,
    out: &mut FlowOutcome,
) -> io::Result<()> {
    let fd = s.as_raw_fd();
    let stop_at = spec.work.stop();
    let whole = match spec.work {
        Work::Transfer { bytes, write, .. } => write_all(s, Some(bytes), write as usize, stop_at, clock, stop)?,
        Work::Bulk { .. } => write_all(s, None, 65536, stop_at, clock, stop)?,
        Work::Messages { .. } => true,
    };
    if whole {
        // (A messages app's writes all come before its stop.)
        for &(at, bytes) in spec.work.timed() {
            clock.sleep_until(at, stop);
            let block = bytes.clamp(1, 65536) as usize;
            if stop.load(Ordering::Acquire) || !write_all(s, Some(bytes), block, stop_at, clock, stop)? {
                break;
            }
        }
    }
    // A messages app is measured up to its stop (or the run's end), as a
    // bulk flow is: TCP_INFO then, not after its last message.
    if matches!(spec.work, Work::Messages { .. }) {
        clock.sleep_until(stop_at.unwrap_or(Time::MAX), stop);
    }
    // Completion: the send queue is empty, every byte acknowledged.
    if matches!(spec.work, Work::Transfer { .. }) {
        while !stop.load(Ordering::Acquire) {
            if outq(fd) == Some(0) {
                out.completed_at = Some(clock.now());
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    out.info = tcp_info(fd);
    let _ = s.shutdown(Shutdown::Write);
    Ok(())
}

/// Write `total` bytes (None: until the stop) in `block`-byte writes; false
/// when the run or the application's stop ended it first. A write into a
/// full send buffer blocks until the link drains it (a 64 KB block: 55 s at
/// 9600 bit/s): it may wait only until the stop, which ends the flow's
/// writing and is when its TCP_INFO is taken.
fn write_all(
    s: &mut TcpStream,
    total: Option<u64>,
    block: usize,
    stop_at: Option<Time>,
    clock: &Clock,
    stop: &AtomicBool,
) -> io::Result<bool> {
    let data = vec![0x5au8; block];
    let mut written = 0u64;
    while total.is_none_or(|t| written < t) {
        let n = total.map_or(block, |t| (t - written).min(block as u64) as usize);
        let mut off = 0;
        while off < n {
            if let Some(st) = stop_at {
                let now = clock.now();
                if now >= st {
                    return Ok(false);
                }
                s.set_write_timeout(Some(Duration::from_nanos((st - now).min(20_000_000))))?;
            }
            match s.write(&data[off..n]) {
                Ok(k) => {
                    off += k;
                    written += k as u64;
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                    ) =>
                {
                    if stop.load(Ordering::Acquire) {
                        return Ok(false);
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(true)
}

/// Run one flow's sender and receiver threads; the outcome when both end.
/// With `realtime` the receiver runs at the relay's real-time priority:
/// it must set the window clamp again as soon as the kernel has replaced
/// it (see `receive`), and on a loaded machine an ordinary thread can wait
/// milliseconds for a CPU while further segments widen the window.
pub fn run_flow(
    nets: [Arc<Netns>; 2],
    addrs: [Ipv4Addr; 2],
    listener: TcpListener,
    spec: FlowSpec,
    clock: Arc<Clock>,
    stop: Arc<AtomicBool>,
    realtime: bool,
) -> std::thread::JoinHandle<FlowOutcome> {
    std::thread::spawn(move || {
        let to = 1 - spec.from;
        // Set when the sender fails, so the receiver does not wait for it.
        let abort = Arc::new(AtomicBool::new(false));
        // Bytes the receiving application has read (for series.csv).
        let read = Arc::new(AtomicU64::new(0));
        let rx = {
            let (spec, clock, stop, ns, abort, read) =
                (spec.clone(), clock.clone(), stop.clone(), nets[to].clone(), abort.clone(), read.clone());
            std::thread::spawn(move || {
                ns.enter_current_thread()?;
                if realtime {
                    crate::set_realtime();
                }
                let stopped = || stop.load(Ordering::Acquire) || abort.load(Ordering::Acquire);
                receive(listener, &spec, &clock, &stopped, &read)
            })
        };
        let mut out = FlowOutcome::default();
        let sent = nets[spec.from]
            .enter_current_thread()
            .and_then(|_| send(SocketAddrV4::new(addrs[to], spec.port), &spec, &clock, &stop, read, &mut out));
        if let Err(e) = sent {
            out.error = Some(format!("flow {}: {e}", spec.name));
            abort.store(true, Ordering::Release);
        }
        // The receiver ends at EOF (after the sender's shutdown) or at stop.
        match rx.join() {
            Ok(Ok(r)) => {
                out.delivered = r.by_stop.unwrap_or(r.bytes);
                out.first_bytes_at = r.first_bytes_at;
                out.last_delivery = r.last_delivery;
                out.rcvbuf = r.rcvbuf;
            }
            Ok(Err(e)) => out.error = out.error.take().or(Some(format!("flow {} receiver: {e}", spec.name))),
            Err(_) => out.error = Some(format!("flow {}: receiver panicked", spec.name)),
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(cwnd: u32, ssthresh: u32, rtt_us: u32, rto_us: u32) -> TcpInfo {
        TcpInfo { snd_mss: 1000, snd_cwnd: cwnd, snd_ssthresh: ssthresh, rtt_us, rto_us, ..Default::default() }
    }

    /// Each reading counts for the time until the next; an unset ssthresh
    /// (Linux's infinite one) and an unmeasured RTT count no time.
    #[test]
    fn readings_are_weighted_by_the_time_they_held() {
        let mut s = InfoSums::default();
        s.add(&info(10, INFINITE_SSTHRESH, 0, 1_000_000), 1.0);
        s.add(&info(20, 8, 100_000, 300_000), 3.0);
        let a = s.averages();
        assert_eq!(a.cwnd_bytes, Some((10_000.0 + 3.0 * 20_000.0) / 4.0));
        assert_eq!(a.ssthresh_bytes, Some(8000.0));
        assert!((a.srtt_s.unwrap() - 0.1).abs() < 1e-12);
        assert!((a.rto_s.unwrap() - (1.0 + 3.0 * 0.3) / 4.0).abs() < 1e-12);
        assert_eq!(InfoSums::default().averages(), InfoAverages::default());
    }
}
