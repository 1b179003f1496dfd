//! Output: every write to stdout goes through [`outln!`], [`write_out`] or [`Output`],
//! which turn a reader that went away into [`CommandError::reader_left`] (a quiet exit)
//! instead of `println!`'s panic; notes on stderr go through [`errln!`]. Long output for
//! people: colour when it reaches a terminal, a pager (`$PAGER`, else `less -FRX`) when
//! stdout is one, as git does, and the one way every command shows a time.
//!
//! A list ([`crate::commands::print_list`]) prints only its table on stdout, header row
//! first, so a pipe reads a header and rows (`svc branch list | head -1` is the header);
//! whatever is said about it (what it lists, counts, that it has no rows, how to see
//! more) follows it on stderr, where a person still reads it (and which stays quiet when
//! the reader went away before the table). `--json` prints no such notes: the JSON holds
//! it all.

use std::io::{self, IsTerminal, Write};
use std::process::{Child, Command, Stdio};

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::error::{CommandError, Result};

/// `println!` that answers the write's failure instead of panicking: `outln!(...)?`.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::terminal::write_out(format!("{}\n", format_args!($($arg)*)).as_bytes())
    };
}

/// `eprintln!` that never panics: a note nobody can read (stderr closed) is dropped, as
/// there is nowhere left to say so.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub(crate) use {errln, outln};

/// Writes `bytes` to stdout.
pub fn write_out(bytes: &[u8]) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(stdout_failed)
}

/// A failed write to stdout as a command's error: the reader going away ends the command
/// quietly (see [`crate::error::Kind::ReaderLeft`]); anything else is a failure.
pub fn stdout_failed(e: io::Error) -> CommandError {
    if e.kind() == io::ErrorKind::BrokenPipe {
        CommandError::reader_left()
    } else {
        CommandError::internal("cannot write to stdout").because(&e)
    }
}

/// When to colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// When stdout is a terminal and NO_COLOR is not set
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    pub fn enabled(self) -> bool {
        match self {
            Self::Always => true,
            Self::Never => false,
            Self::Auto => {
                io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

/// Where output goes: the pager's stdin, or stdout.
pub struct Output {
    pager: Option<Child>,
    out: Box<dyn Write>,
}

impl Output {
    /// Through the pager when stdout is a terminal and `paging` is on; straight to stdout
    /// otherwise, or when the pager cannot start.
    pub fn open(paging: bool) -> Output {
        let stdout = || Output {
            pager: None,
            out: Box::new(io::stdout().lock()),
        };
        if !paging || !io::stdout().is_terminal() {
            return stdout();
        }
        let pager = std::env::var("PAGER").unwrap_or_else(|_| "less -FRX".to_owned());
        if pager.trim().is_empty() || pager.trim() == "cat" {
            return stdout();
        }
        let mut command = Command::new("sh");
        command.args(["-c", &pager]).stdin(Stdio::piped());
        if std::env::var_os("LESS").is_none() {
            command.env("LESS", "FRX");
        }
        match command.spawn() {
            Ok(mut child) => match child.stdin.take() {
                Some(stdin) => Output {
                    pager: Some(child),
                    out: Box::new(stdin),
                },
                None => stdout(),
            },
            Err(_) => stdout(),
        }
    }

    /// Flushes, then (on drop) waits for the reader to quit the pager.
    pub fn finish(mut self) -> Result<()> {
        self.out.flush().map_err(stdout_failed)
    }
}

impl Drop for Output {
    /// Closes the pager's input and waits, so it keeps the terminal until the reader quits,
    /// whether the command finished or failed.
    fn drop(&mut self) {
        self.out = Box::new(io::sink());
        if let Some(mut pager) = self.pager.take() {
            let _ = pager.wait();
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A time as every command shows it: relative ("3 minutes ago") on a terminal, RFC 3339
/// in UTC otherwise, so piped output is exact and stable (`--json` carries RFC 3339 too).
pub fn when(t: OffsetDateTime) -> String {
    if io::stdout().is_terminal() {
        relative(t, OffsetDateTime::now_utc())
    } else {
        exact(t)
    }
}

/// A time to come as every command shows it: "in 5 minutes" on a terminal, RFC 3339 in
/// UTC otherwise, as [`when`] does.
pub fn until(t: OffsetDateTime) -> String {
    if io::stdout().is_terminal() {
        ahead(t, OffsetDateTime::now_utc())
    } else {
        exact(t)
    }
}

/// RFC 3339 in UTC, to the second.
pub fn exact(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    t.replace_nanosecond(0)
        .unwrap_or(t)
        .format(&Rfc3339)
        .unwrap_or_else(|_| t.unix_timestamp().to_string())
}

/// `t` as seen from `now`: "just now", "5 minutes ago", "2 days ago", then the date.
fn relative(t: OffsetDateTime, now: OffsetDateTime) -> String {
    let secs = (now - t).whole_seconds();
    let ago = |n: i64, unit: &str| match n {
        1 => format!("1 {unit} ago"),
        n => format!("{n} {unit}s ago"),
    };
    match secs {
        s if s < 60 => "just now".to_owned(),
        s if s < 3600 => ago(s / 60, "minute"),
        s if s < 86_400 => ago(s / 3600, "hour"),
        s if s < 30 * 86_400 => ago(s / 86_400, "day"),
        _ => {
            let d = t.to_offset(time::UtcOffset::UTC).date();
            format!("on {d}")
        }
    }
}

/// `t` as seen from `now`, when it is to come: "now", "in 10 seconds", "in 5 minutes",
/// "in 2 hours", then the date.
fn ahead(t: OffsetDateTime, now: OffsetDateTime) -> String {
    let secs = (t - now).whole_seconds();
    let within = |n: i64, unit: &str| match n {
        1 => format!("in 1 {unit}"),
        n => format!("in {n} {unit}s"),
    };
    match secs {
        s if s <= 0 => "now".to_owned(),
        s if s < 60 => within(s, "second"),
        s if s < 3600 => within(s / 60, "minute"),
        s if s < 86_400 => within(s / 3600, "hour"),
        s if s < 30 * 86_400 => within(s / 86_400, "day"),
        _ => {
            let d = t.to_offset(time::UtcOffset::UTC).date();
            format!("on {d}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::Duration;
    use time::macros::datetime;

    #[test]
    fn times_read_relative_or_exact() {
        let now = datetime!(2026-03-04 05:06:07.5 UTC);
        let at = |d: Duration| relative(now - d, now);
        assert_eq!(at(Duration::seconds(5)), "just now");
        assert_eq!(at(Duration::seconds(-5)), "just now");
        assert_eq!(at(Duration::minutes(1)), "1 minute ago");
        assert_eq!(at(Duration::minutes(3)), "3 minutes ago");
        assert_eq!(at(Duration::hours(5)), "5 hours ago");
        assert_eq!(at(Duration::days(2)), "2 days ago");
        assert_eq!(at(Duration::days(40)), "on 2026-01-23");
        assert_eq!(exact(now), "2026-03-04T05:06:07Z");
    }

    #[test]
    fn times_to_come_read_ahead() {
        let now = datetime!(2026-03-04 05:06:07.5 UTC);
        let at = |d: Duration| ahead(now + d, now);
        assert_eq!(at(Duration::seconds(-5)), "now");
        assert_eq!(at(Duration::seconds(1)), "in 1 second");
        assert_eq!(at(Duration::seconds(10)), "in 10 seconds");
        assert_eq!(at(Duration::minutes(5)), "in 5 minutes");
        assert_eq!(at(Duration::minutes(30)), "in 30 minutes");
        assert_eq!(at(Duration::hours(2)), "in 2 hours");
        assert_eq!(at(Duration::days(3)), "in 3 days");
        assert_eq!(at(Duration::days(40)), "on 2026-04-13");
    }
}
