//! Long output for people: colour when it reaches a terminal, and a pager (`$PAGER`, else
//! `less -FRX`) when stdout is one, as git does.

use std::io::{self, IsTerminal, Write};
use std::process::{Child, Command, Stdio};

use crate::error::Result;

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
        match self.out.flush() {
            Err(e) if !reader_left(&e) => Err(e.into()),
            _ => Ok(()),
        }
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

/// A write that failed because the reader went away (pager quit, `| head`): stop quietly.
pub fn reader_left(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}
