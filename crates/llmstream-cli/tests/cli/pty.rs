//! Running a command in a pseudo-terminal for the tests that need a real
//! terminal (`live_terminal.rs`, `progress.rs`).

use std::io::Read;
use std::sync::mpsc;
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
    // Only the child may hold the slave: the master reads EOF (EIO on
    // Linux) once it exits.
    drop(pair.slave);
    let mut reader = pair
        .master
        .try_clone_reader()
        .unwrap_or_else(|e| panic!("{what}: no reader: {e}"));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut raw = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        let end = loop {
            match reader.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => raw.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // The slave side is closed: Linux says EIO, not EOF.
                Err(e) if e.raw_os_error() == Some(5) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        let _ = tx.send(end.map(|()| raw));
    });
    let started = Instant::now();
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
    drop(pair.master);
    (raw, status)
}
