//! Unnamed network namespaces held by file descriptors.
//!
//! A namespace is created by a short-lived thread that calls
//! `unshare(CLONE_NEWNET)` and opens its own `/proc/thread-self/ns/net`; the
//! descriptor keeps the namespace alive. Nothing is bind-mounted under
//! /var/run/netns, so when the process ends for any reason (exit, Ctrl-C,
//! SIGKILL) the kernel frees the namespaces and with them every TUN device,
//! address and route made inside: there is nothing to clean up by name.
//! Other code enters a namespace per thread (`setns` affects only the calling
//! thread), so the emulator, the sender and the receiver live in one process.

use crate::EmuError;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::process::Command;

pub struct Netns {
    fd: OwnedFd,
    /// Inode of the namespace (as in `ls -l /proc/PID/ns/net`), for reports
    /// and for the tests that check it is gone after a kill.
    pub inode: u64,
}

fn enter(fd: i32) -> io::Result<()> {
    // SAFETY: plain syscall on a descriptor we own.
    if unsafe { libc::setns(fd, libc::CLONE_NEWNET) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl Netns {
    pub fn new() -> Result<Netns, EmuError> {
        let made = std::thread::spawn(|| -> io::Result<File> {
            // SAFETY: affects only this (short-lived) thread.
            if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
                return Err(io::Error::last_os_error());
            }
            File::open("/proc/thread-self/ns/net")
        })
        .join()
        .map_err(|_| EmuError::Setup("namespace thread panicked".into()))?;
        let file = made.map_err(|e| {
            if e.raw_os_error() == Some(libc::EPERM) {
                EmuError::NotRoot(format!("cannot create a network namespace ({e})"))
            } else {
                EmuError::Setup(format!("cannot create a network namespace: {e}"))
            }
        })?;
        let inode = file.metadata().map(|m| m.ino()).unwrap_or(0);
        Ok(Netns { fd: file.into(), inode })
    }

    /// Move the calling thread into this namespace (for good: use it only on
    /// threads made for the purpose).
    pub fn enter_current_thread(&self) -> io::Result<()> {
        enter(self.fd.as_raw_fd())
    }

    /// Run `f` on a fresh thread inside the namespace and wait for it.
    pub fn run<T: Send>(&self, f: impl FnOnce() -> T + Send) -> Result<T, EmuError> {
        std::thread::scope(|s| {
            s.spawn(|| -> Result<T, EmuError> {
                self.enter_current_thread().map_err(|e| EmuError::Setup(format!("setns: {e}")))?;
                Ok(f())
            })
            .join()
            .map_err(|_| EmuError::Setup("namespace thread panicked".into()))?
        })
    }

    /// A command that runs inside the namespace (e.g. `ip`).
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        let fd = self.fd.as_raw_fd();
        // SAFETY: setns is async-signal-safe; the descriptor stays open in
        // the child until exec (it is not close-on-exec'd before pre_exec).
        unsafe {
            c.pre_exec(move || enter(fd));
        }
        c
    }

    /// Run `ip ARGS...` inside the namespace; an error names the command.
    pub fn ip(&self, args: &[&str]) -> Result<(), EmuError> {
        let out = self
            .command("ip")
            .args(args)
            .output()
            .map_err(|e| EmuError::Setup(format!("cannot run `ip` (iproute2): {e}")))?;
        if !out.status.success() {
            return Err(EmuError::Setup(format!(
                "`ip {}` failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }

    /// Write a sysctl of this namespace (`net.ipv4.tcp_sack` style name).
    pub fn sysctl(&self, name: &str, value: &str) -> Result<(), EmuError> {
        let path = format!("/proc/sys/{}", name.replace('.', "/"));
        self.run(|| std::fs::write(&path, value))?
            .map_err(|e| EmuError::Setup(format!("cannot set {name} = {value} in the namespace: {e}")))
    }

    /// Read a file of /proc/thread-self/net (per-namespace counters).
    pub fn read_proc_net(&self, file: &str) -> Result<String, EmuError> {
        let path = format!("/proc/thread-self/net/{file}");
        self.run(|| std::fs::read_to_string(&path))?.map_err(|e| EmuError::Setup(format!("cannot read {path}: {e}")))
    }

    /// A duplicate descriptor of the namespace.
    pub fn dup_fd(&self) -> io::Result<OwnedFd> {
        // SAFETY: dup of a descriptor we own; the result is owned by the caller.
        let fd = unsafe { libc::fcntl(self.fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }
}
