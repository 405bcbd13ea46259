//! Running a command in a pseudo-terminal for the tests that need a real
//! terminal (`live_terminal.rs`, `progress.rs`).

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, CommandBuilder, ExitStatus, PtySize};

/// Runs `cmd` in a `rows`×`cols` pseudo-terminal until it exits, within
/// `timeout` (or the test fails, instead of hanging): every byte the
/// terminal got, and how the command exited. A machine where no
/// pseudo-terminal can be opened fails the test, naming `untested`: it
/// must not pass without having run.
pub fn run(
    cmd: CommandBuilder,
    rows: u16,
    cols: u16,
    what: &str,
    untested: &str,
    timeout: Duration,
) -> (Vec<u8>, ExitStatus) {
    let size = PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    };
    let pair = native_pty_system()
        .openpty(size)
        .unwrap_or_else(|e| panic!("cannot open a pseudo-terminal ({e}): {untested} needs one"));
    let mut child = pair
        .slave
        .spawn_command(cmd)
        .unwrap_or_else(|e| panic!("{what}: cannot spawn: {e}"));
    // The slave stays open here until the child has exited and every byte
    // it wrote has been read: a slave closed with output still unread may
    // lose that output (the master then reads EIO early), which a loaded
    // machine makes likely. Dropping it afterwards ends the reader.
    let slave = pair.slave;
    let mut reader = pair
        .master
        .try_clone_reader()
        .unwrap_or_else(|e| panic!("{what}: no reader: {e}"));
    let (tx, rx) = mpsc::channel();
    let read = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&read);
    std::thread::spawn(move || {
        let mut raw = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        let end = loop {
            match reader.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    raw.extend_from_slice(&buf[..n]);
                    counted.fetch_add(n, Ordering::SeqCst);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // The slave side is closed: Linux says EIO, not EOF.
                Err(e) if e.raw_os_error() == Some(5) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        let _ = tx.send(end.map(|()| raw));
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(None) => {
                let _ = child.kill();
                panic!("{what}: did not exit within {timeout:?}");
            }
            Err(e) => panic!("{what}: wait failed: {e}"),
        }
    };
    // The child is gone: what it wrote is in the terminal's buffer. Wait
    // until the reader has taken it all (no byte for a while), then close
    // the slave so that the reader sees the end.
    let mut seen = read.load(Ordering::SeqCst);
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let now = read.load(Ordering::SeqCst);
        if now == seen || started.elapsed() > timeout {
            break;
        }
        seen = now;
    }
    drop(slave);
    let raw = match rx.recv_timeout(timeout) {
        Ok(Ok(raw)) => raw,
        Ok(Err(e)) => {
            let _ = child.kill();
            panic!("{what}: reading the pty failed: {e}");
        }
        Err(_) => {
            let _ = child.kill();
            panic!("{what}: no end of output within {timeout:?}");
        }
    };
    drop(pair.master);
    (raw, status)
}
