//! A mail server for tests: speaks plain SMTP on a loopback socket (HELO/EHLO, MAIL,
//! RCPT, DATA, RSET, NOOP, QUIT) and keeps every message it is given. It lives as long
//! as the test process.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// One message as delivered: its envelope and its data (dot-unstuffed).
#[derive(Debug, Clone, Default)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    pub data: String,
}

impl Mail {
    /// The body as a reader shows it: quoted-printable decoded (soft line breaks joined,
    /// `=XX` escapes read) when the message says it is so encoded.
    pub fn text(&self) -> String {
        let (head, body) = self.data.split_once("\n\n").unwrap_or(("", &self.data));
        if !head
            .to_ascii_lowercase()
            .contains("content-transfer-encoding: quoted-printable")
        {
            return body.to_owned();
        }
        let joined = body.replace("=\n", "");
        let bytes = joined.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let escape = (bytes[i] == b'=')
                .then(|| joined.get(i + 1..i + 3))
                .flatten()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok());
            match escape {
                Some(b) => {
                    out.push(b);
                    i += 3;
                }
                None => {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// A running sink.
pub struct SmtpSink {
    pub port: u16,
    mails: Arc<Mutex<Vec<Mail>>>,
}

impl SmtpSink {
    /// Listens on loopback, on a thread and runtime of its own, so a test that blocks
    /// (running `svc`) does not stall it.
    pub async fn start() -> SmtpSink {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind sink");
        listener.set_nonblocking(true).expect("nonblocking sink");
        let port = listener.local_addr().expect("sink addr").port();
        let mails: Arc<Mutex<Vec<Mail>>> = Arc::default();
        let kept = mails.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("sink runtime");
            runtime.block_on(async move {
                let listener = TcpListener::from_std(listener).expect("sink listener");
                while let Ok((stream, _)) = listener.accept().await {
                    let kept = kept.clone();
                    tokio::spawn(async move {
                        let _ = session(stream, kept).await;
                    });
                }
            });
        });
        SmtpSink { port, mails }
    }

    /// Every message delivered so far.
    pub fn mails(&self) -> Vec<Mail> {
        self.mails.lock().expect("mails").clone()
    }

    /// Waits (up to 10 s) for a message to `to`.
    pub async fn wait_for(&self, to: &str) -> Mail {
        for _ in 0..200 {
            if let Some(mail) = self
                .mails()
                .into_iter()
                .find(|m| m.to.iter().any(|t| t == to))
            {
                return mail;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "no mail to {to} reached the sink; it has {:?}",
            self.mails()
        );
    }
}

/// The address inside `FROM:<...>` or `TO:<...>`.
fn address(arg: &str) -> String {
    let start = arg.find('<').map_or(0, |i| i + 1);
    let end = arg[start..].find('>').map_or(arg.len(), |i| start + i);
    arg[start..end].to_owned()
}

async fn session(stream: TcpStream, kept: Arc<Mutex<Vec<Mail>>>) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    write.write_all(b"220 sink ESMTP ready\r\n").await?;
    let mut mail = Mail::default();
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end();
        let verb = command
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        let reply: &[u8] = match verb.as_str() {
            "EHLO" => b"250-sink\r\n250 8BITMIME\r\n",
            "HELO" | "NOOP" => b"250 ok\r\n",
            "RSET" => {
                mail = Mail::default();
                b"250 ok\r\n"
            }
            "MAIL" => {
                mail = Mail {
                    from: address(&command[4..]),
                    ..Mail::default()
                };
                b"250 ok\r\n"
            }
            "RCPT" => {
                mail.to.push(address(&command[4..]));
                b"250 ok\r\n"
            }
            "DATA" => {
                write.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                let mut data = String::new();
                loop {
                    line.clear();
                    if lines.read_line(&mut line).await? == 0 {
                        return Ok(());
                    }
                    let text = line.trim_end_matches(['\r', '\n']);
                    if text == "." {
                        break;
                    }
                    data.push_str(text.strip_prefix('.').unwrap_or(text));
                    data.push('\n');
                }
                mail.data = data;
                kept.lock().expect("mails").push(std::mem::take(&mut mail));
                b"250 kept\r\n"
            }
            "QUIT" => {
                write.write_all(b"221 bye\r\n").await?;
                return Ok(());
            }
            _ => b"502 not here\r\n",
        };
        write.write_all(reply).await?;
    }
}
