//! A process-wide deadline for work that a driver may not let us interrupt.
//!
//! Vulkan offers no way to cancel a running dispatch or a pipeline compilation, and a blocked
//! `map_async`/`poll` cannot be abandoned safely (the driver still owns the memory). A caller
//! that must not run past a time limit — the CLI's `--timeout` — arms a [`Deadline`] around the
//! work; if the work is still running when it expires, the watchdog thread prints the reason on
//! stderr and ends the process at once with the given exit code (`_exit`: no destructors, no
//! atexit handlers, which could block on the busy driver). Dropping the guard disarms it.

use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

struct Armed {
    id: u64,
    at: Instant,
    message: String,
    exit_code: i32,
}

#[derive(Default)]
struct State {
    next_id: u64,
    armed: Vec<Armed>,
}

struct Watchdog {
    state: Mutex<State>,
    wake: Condvar,
}

fn watchdog() -> &'static Watchdog {
    static W: OnceLock<&'static Watchdog> = OnceLock::new();
    W.get_or_init(|| {
        let w: &'static Watchdog = Box::leak(Box::new(Watchdog {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("ptxcross watchdog".into())
            .spawn(move || w.watch())
            .expect("spawn the watchdog thread");
        w
    })
}

impl Watchdog {
    fn watch(&self) {
        let mut st = match self.state.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        };
        loop {
            let now = Instant::now();
            if let Some(a) = st.armed.iter().find(|a| a.at <= now) {
                use std::io::Write;
                let _ = std::io::stdout().flush();
                let _ = writeln!(std::io::stderr(), "{}", a.message);
                let _ = std::io::stderr().flush();
                // SAFETY: `_exit` ends the process without running any code of ours or the
                // driver's; nothing can be left half-done that a later step would observe.
                unsafe { libc::_exit(a.exit_code) };
            }
            let next = st.armed.iter().map(|a| a.at).min();
            st = match next {
                Some(at) => match self.wake.wait_timeout(st, at.saturating_duration_since(now)) {
                    Ok((s, _)) => s,
                    Err(p) => p.into_inner().0,
                },
                None => match self.wake.wait(st) {
                    Ok(s) => s,
                    Err(p) => p.into_inner(),
                },
            };
        }
    }
}

/// An armed deadline; disarmed when dropped.
#[must_use = "the deadline is disarmed when the guard is dropped"]
pub struct Deadline {
    id: u64,
}

impl Deadline {
    /// Ends the process with `exit_code` after printing `message` on stderr unless this guard
    /// is dropped within `limit`.
    pub fn arm(limit: Duration, message: String, exit_code: i32) -> Deadline {
        let w = watchdog();
        let mut st = match w.state.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        };
        let id = st.next_id;
        st.next_id += 1;
        // A limit too far away to represent never fires.
        if let Some(at) = Instant::now().checked_add(limit) {
            st.armed.push(Armed { id, at, message, exit_code });
            w.wake.notify_all();
        }
        Deadline { id }
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        let w = watchdog();
        let mut st = match w.state.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        };
        st.armed.retain(|a| a.id != self.id);
    }
}
