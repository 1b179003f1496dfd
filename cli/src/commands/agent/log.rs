//! `svc agent log`, and the transcript printing and following other agent commands share.

use futures_util::StreamExt;
use reqwest::StatusCode;
use reqwest::header::AUTHORIZATION;
use serde::Serialize;
use serde_json::Value;
use svc_protocol::ApiErrorBody;
use svc_protocol::agent::{LiveFrame, Message, Part, Role, Transcript};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{self, Message as Frame};

use crate::client::{Refusal, Session};
use crate::commands::Global;
use crate::error::{CommandError, Result};
use crate::target::{self, MonorepoArgs, MonorepoTarget};
use crate::terminal::{ColorWhen, outln, when, write_out};

/// A tool call's input is cut to this many characters.
const CALL_MAX: usize = 200;
/// A tool result shows this many of its lines.
const RESULT_LINES: usize = 8;
/// Each line of a tool result is cut to this many characters.
const LINE_MAX: usize = 200;

/// Print an agent session's transcript; with --follow, as the agent works
///
/// Each turn under a header with who speaks and when, then what was said: the agent's
/// thinking (marked thinking:, dimmed when coloured), its tool calls as → name(input) and
/// their results as ← output (a failed one as ← error:), long ones cut short. With --json,
/// one message a line as JSON. With --follow, the transcript so far, then each message as
/// the agent says it, until the session is no longer running (idle, stopped or failed).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    #[arg(help = super::ID_HELP)]
    pub id: String,
    /// Keep printing what the agent says until its run ends
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// When to colour
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let mut printer = Printer::new(global.json, args.color.enabled(), 0);
    if args.follow {
        return follow(&target, &args.id, &mut printer);
    }
    let transcript = transcript(&target, &args.id)?;
    for message in &transcript.items {
        printer.print(message)?;
    }
    Ok(())
}

/// Messages a transcript page holds at most.
const PAGE: usize = 1000;

/// The whole transcript, oldest first, read a page at a time.
pub fn transcript(target: &MonorepoTarget, id: &str) -> Result<Transcript> {
    let path = super::session_path(target, id);
    let mut items = Vec::new();
    loop {
        let page: Transcript = target.session.get(&format!(
            "{path}/transcript?from={}&limit={PAGE}",
            items.len()
        ))?;
        let full = page.items.len() == PAGE;
        items.extend(page.items);
        if !full {
            return Ok(Transcript { items });
        }
    }
}

/// Prints transcript messages: as JSON lines, or for people, each turn under one header.
pub struct Printer {
    json: bool,
    palette: Palette,
    /// Who spoke last, tool results aside: an agent's turn keeps one header across them.
    speaker: Option<Role>,
    /// The index of the next message to print: those before it are not printed (again).
    next: i64,
}

impl Printer {
    /// A printer that starts at the message `from`.
    pub fn new(json: bool, color: bool, from: i64) -> Printer {
        Printer {
            json,
            palette: Palette::new(color),
            speaker: None,
            next: from,
        }
    }

    /// Prints `message`, unless it was printed already or comes before the start.
    pub fn print(&mut self, message: &Message) -> Result<()> {
        if message.index < self.next {
            return Ok(());
        }
        self.next = message.index + 1;
        if self.json {
            return json_line(message);
        }
        let text = self.render(message);
        write_out(text.as_bytes())
    }

    fn render(&mut self, message: &Message) -> String {
        let p = &self.palette;
        let mut text = String::new();
        if message.role != Role::Tool && self.speaker != Some(message.role) {
            if self.speaker.is_some() {
                text.push('\n');
            }
            let who = match message.role {
                Role::User => "user",
                Role::Assistant | Role::Tool => "agent",
            };
            text.push_str(&format!(
                "{}── {who} {}{}\n",
                p.bold,
                when(message.at),
                p.reset
            ));
            self.speaker = Some(message.role);
        }
        for part in &message.parts {
            match part {
                Part::Text { text: said } => {
                    if !said.trim().is_empty() {
                        text.push_str(said.trim_end());
                        text.push('\n');
                    }
                }
                Part::Thinking { text: thought } => {
                    for (i, line) in thought.trim().lines().enumerate() {
                        let lead = if i == 0 { "thinking: " } else { "          " };
                        text.push_str(&format!("{}{lead}{line}{}\n", p.dim, p.reset));
                    }
                }
                Part::ToolCall { name, input, .. } => {
                    let input = match input {
                        Value::Null => String::new(),
                        Value::Object(fields) if fields.is_empty() => String::new(),
                        input => cut(&input.to_string(), CALL_MAX),
                    };
                    text.push_str(&format!("{}→ {name}({input}){}\n", p.call, p.reset));
                }
                Part::ToolResult {
                    output, is_error, ..
                } => text.push_str(&result(output, *is_error, p)),
            }
        }
        text
    }
}

/// Prints `value` as one line of JSON.
pub fn json_line<T: Serialize>(value: &T) -> Result<()> {
    let line = serde_json::to_string(value)
        .map_err(|e| CommandError::internal("cannot encode the answer as JSON").because(&e))?;
    outln!("{line}")
}

/// A tool result: `← ` (or `← error: `) and its first lines, each cut short.
fn result(output: &Value, is_error: bool, p: &Palette) -> String {
    let output = match output {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let (lead, colour) = if is_error {
        ("← error: ", p.error)
    } else {
        ("← ", "")
    };
    let reset = if colour.is_empty() { "" } else { p.reset };
    let lines: Vec<&str> = output.trim_end().lines().collect();
    if lines.iter().all(|l| l.trim().is_empty()) {
        return format!("{colour}{lead}(no output){reset}\n");
    }
    let mut text = String::new();
    for (i, line) in lines.iter().take(RESULT_LINES).enumerate() {
        let lead = if i == 0 { lead } else { "  " };
        text.push_str(&format!("{colour}{lead}{}{reset}\n", cut(line, LINE_MAX)));
    }
    if lines.len() > RESULT_LINES {
        let more = lines.len() - RESULT_LINES;
        let s = if more == 1 { "" } else { "s" };
        text.push_str(&format!("{}  … {more} more line{s}{}\n", p.dim, p.reset));
    }
    text
}

/// `text` up to `max` characters, `…` standing for the rest.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The escape codes of a coloured transcript, or none.
struct Palette {
    bold: &'static str,
    dim: &'static str,
    call: &'static str,
    error: &'static str,
    reset: &'static str,
}

impl Palette {
    fn new(color: bool) -> Palette {
        if color {
            Palette {
                bold: "\x1b[1m",
                dim: "\x1b[2m",
                call: "\x1b[36m",
                error: "\x1b[31m",
                reset: "\x1b[m",
            }
        } else {
            Palette {
                bold: "",
                dim: "",
                call: "",
                error: "",
                reset: "",
            }
        }
    }
}

/// Prints the transcript as the session's live socket sends it (what was said so far,
/// then each message as it comes) until the server closes the socket: the session is no
/// longer running and everything was sent.
pub fn follow(target: &MonorepoTarget, id: &str, printer: &mut Printer) -> Result<()> {
    let session = &target.session;
    let ws = session.server.replacen("http", "ws", 1);
    let url = format!("{ws}{}/live", super::session_path(target, id));
    let mut request = url.as_str().into_client_request().map_err(|e| {
        CommandError::internal(format!("cannot make a request for {url}")).because(&e)
    })?;
    let auth = format!("Bearer {}", session.token()?)
        .parse()
        .map_err(|_| {
            CommandError::user("the credential is not a valid header")
                .hint(format!("run svc login --server {}", session.server))
        })?;
    request.headers_mut().insert(AUTHORIZATION, auth);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CommandError::internal("cannot start the async runtime").because(&e))?;
    runtime.block_on(async {
        let (mut socket, _) = tokio_tungstenite::connect_async(request)
            .await
            .map_err(|e| refused(session, e))?;
        while let Some(frame) = socket.next().await {
            match frame.map_err(|e| lost(target, id, &e))? {
                Frame::Text(text) => {
                    // A frame of a kind this svc does not know is skipped.
                    let Ok(LiveFrame::Messages { messages, .. }) = serde_json::from_str(&text)
                    else {
                        continue;
                    };
                    for message in &messages {
                        printer.print(message)?;
                    }
                }
                Frame::Close(Some(close)) if close.code != CloseCode::Normal => {
                    let why = match close.reason.trim() {
                        "" => format!("code {}", u16::from(close.code)),
                        reason => reason.to_owned(),
                    };
                    return Err(CommandError::network(format!(
                        "{} ended the live transcript: {why}",
                        session.server
                    ))
                    .hint(again(target, id)));
                }
                Frame::Close(_) => return Ok(()),
                _ => {}
            }
        }
        Ok(())
    })
}

/// Why the socket could not be opened: the server's refusal, or the network.
fn refused(session: &Session, e: tungstenite::Error) -> CommandError {
    match e {
        tungstenite::Error::Http(response) => {
            let status =
                StatusCode::from_u16(response.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
            let error = response
                .body()
                .as_deref()
                .and_then(|body| serde_json::from_slice::<ApiErrorBody>(body).ok())
                .map(|body| body.error);
            session.refusal(Refusal { status, error })
        }
        e => CommandError::network(format!("cannot reach {}", session.server))
            .because(&e)
            .hint("check --server, your network, or that svc-server is running"),
    }
}

/// The socket failing after it was opened.
fn lost(target: &MonorepoTarget, id: &str, e: &tungstenite::Error) -> CommandError {
    CommandError::network(format!(
        "lost the live transcript from {}",
        target.session.server
    ))
    .because(e)
    .hint(again(target, id))
}

/// How to pick the transcript up again.
fn again(target: &MonorepoTarget, id: &str) -> String {
    format!(
        "svc agent log -R {} {id} --follow picks it up again",
        target.label()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use time::OffsetDateTime;

    fn message(index: i64, role: Role, parts: Vec<Part>) -> Message {
        Message {
            index,
            role,
            at: OffsetDateTime::UNIX_EPOCH,
            parts,
        }
    }

    #[test]
    fn a_turn_reads_with_one_header_across_tool_results() {
        let mut printer = Printer::new(false, false, 0);
        let text = |t: &str| Part::Text { text: t.to_owned() };
        let mut out = printer.render(&message(0, Role::User, vec![text("Fix it")]));
        out.push_str(&printer.render(&message(
            1,
            Role::Assistant,
            vec![
                Part::Thinking {
                    text: "Look first.\nThen fix.".to_owned(),
                },
                Part::ToolCall {
                    id: "c1".to_owned(),
                    name: "read".to_owned(),
                    input: json!({"path": "a.rs"}),
                },
            ],
        )));
        out.push_str(&printer.render(&message(
            2,
            Role::Tool,
            vec![Part::ToolResult {
                id: "c1".to_owned(),
                output: json!("no such file"),
                is_error: true,
            }],
        )));
        out.push_str(&printer.render(&message(3, Role::Assistant, vec![text("Done.\n")])));
        let at = when(OffsetDateTime::UNIX_EPOCH);
        assert_eq!(
            out,
            format!(
                "── user {at}\nFix it\n\n── agent {at}\nthinking: Look first.\n          Then fix.\n\
                 → read({{\"path\":\"a.rs\"}})\n← error: no such file\nDone.\n"
            )
        );
    }

    #[test]
    fn long_tool_results_are_cut_short() {
        let output = (1..=10)
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let text = result(&json!(output), false, &Palette::new(false));
        assert_eq!(
            text,
            "← 1\n  2\n  3\n  4\n  5\n  6\n  7\n  8\n  … 2 more lines\n"
        );
        assert_eq!(
            result(&json!(""), false, &Palette::new(false)),
            "← (no output)\n"
        );
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(cut("abc", 3), "abc");
    }
}
