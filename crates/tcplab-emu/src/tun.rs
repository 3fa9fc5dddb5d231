//! TUN devices (IP packets without a link header, no packet-information
//! prefix), created inside a namespace. The device is not persistent: it
//! disappears when its descriptor closes, also on a crash.

use crate::netns::Netns;
use crate::EmuError;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

pub struct Tun {
    file: File,
    pub name: String,
}

impl Tun {
    /// Create TUN device `name` in namespace `ns` (non-blocking).
    pub fn create(ns: &Netns, name: &str) -> Result<Tun, EmuError> {
        if name.len() >= libc::IFNAMSIZ {
            return Err(EmuError::Setup(format!("TUN name {name:?} too long")));
        }
        let file = ns.run(|| -> io::Result<File> {
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
                .open("/dev/net/tun")?;
            let mut req = IfReq {
                name: [0; libc::IFNAMSIZ],
                flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short,
                _pad: [0; 22],
            };
            req.name[..name.len()].copy_from_slice(name.as_bytes());
            // SAFETY: TUNSETIFF reads and writes an ifreq we own.
            if unsafe { libc::ioctl(f.as_raw_fd(), TUNSETIFF as _, &mut req) } < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(f)
        })?;
        let file = file.map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => {
                EmuError::NoTun("/dev/net/tun does not exist: load the tun module (modprobe tun)".into())
            }
            io::ErrorKind::PermissionDenied => EmuError::NotRoot(format!("cannot open /dev/net/tun ({e})")),
            _ => EmuError::NoTun(format!("cannot create TUN device {name}: {e}")),
        })?;
        Ok(Tun { file, name: name.to_string() })
    }

    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }

    /// One packet, or None when nothing is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: read into a buffer we own, bounded by its length.
        let n = unsafe { libc::read(self.fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::WouldBlock { Ok(None) } else { Err(e) };
        }
        Ok(Some(n as usize))
    }

    pub fn send(&self, pkt: &[u8]) -> io::Result<()> {
        // SAFETY: write from a buffer we own.
        let n = unsafe { libc::write(self.fd(), pkt.as_ptr().cast(), pkt.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}
