//! A CI job's log as a terminal showed it: SGR escape codes become colour and weight
//! classes (`a-f1` … for the 16 colours, `a-b`, `a-i`, `a-u`, `a-d`), every other escape
//! (cursor moves, Buildkite's `\x1b_bk;t=…\x07` timestamps, titles) is dropped, and a
//! carriage return starts its line over, as a progress bar does. The text stays text:
//! the template escapes it. anstyle-parse (clap's VT parser) reads the bytes, so a log
//! cut in the middle of an escape or a UTF-8 character loses only that.

use anstyle_parse::{DefaultCharAccumulator, Params, Parser, Perform};

/// One line of the log, in runs of one style.
#[derive(Debug, Default, PartialEq)]
pub struct Line {
    pub runs: Vec<Run>,
}

/// Text in one style; `class` is empty for the terminal's default.
#[derive(Debug, PartialEq)]
pub struct Run {
    pub class: String,
    pub text: String,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Style {
    fg: Option<u8>,
    bg: Option<u8>,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
}

impl Style {
    fn class(&self) -> String {
        let mut c = Vec::new();
        if let Some(f) = self.fg {
            c.push(format!("a-f{f}"));
        }
        if let Some(b) = self.bg {
            c.push(format!("a-g{b}"));
        }
        for (on, name) in [
            (self.bold, "a-b"),
            (self.dim, "a-d"),
            (self.italic, "a-i"),
            (self.underline, "a-u"),
        ] {
            if on {
                c.push(name.to_owned());
            }
        }
        c.join(" ")
    }

    /// Applies one SGR sequence's parameters.
    fn apply(&mut self, params: &Params) {
        let mut it = params.iter().map(|p| p.first().copied().unwrap_or(0));
        if params.is_empty() {
            *self = Style::default();
        }
        while let Some(p) = it.next() {
            match p {
                0 => *self = Style::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                3 => self.italic = true,
                4 => self.underline = true,
                22 => (self.bold, self.dim) = (false, false),
                23 => self.italic = false,
                24 => self.underline = false,
                30..=37 => self.fg = Some((p - 30) as u8),
                90..=97 => self.fg = Some((p - 90 + 8) as u8),
                39 => self.fg = None,
                40..=47 => self.bg = Some((p - 40) as u8),
                100..=107 => self.bg = Some((p - 100 + 8) as u8),
                49 => self.bg = None,
                // 256 colours and true colour, brought to the nearest of the 16.
                38 | 48 => {
                    let colour = match it.next() {
                        Some(5) => it.next().map(from_256),
                        Some(2) => match (it.next(), it.next(), it.next()) {
                            (Some(r), Some(g), Some(b)) => Some(from_rgb(r, g, b)),
                            _ => None,
                        },
                        _ => None,
                    };
                    if p == 38 {
                        self.fg = colour;
                    } else {
                        self.bg = colour;
                    }
                }
                _ => {}
            }
        }
    }
}

/// The 16 colours' index for one of the 256.
fn from_256(n: u16) -> u8 {
    match n {
        0..=15 => n as u8,
        16..=231 => {
            let n = n - 16;
            let scale = |v: u16| v * 51;
            from_rgb(scale(n / 36), scale(n / 6 % 6), scale(n % 6))
        }
        _ => {
            if n < 244 {
                8
            } else {
                7
            }
        }
    }
}

/// The nearest of the 16 colours (by channel being on, bright when any is high).
fn from_rgb(r: u16, g: u16, b: u16) -> u8 {
    let on = |v: u16| u8::from(v >= 96);
    let base = on(r) | on(g) << 1 | on(b) << 2;
    let bright = r.max(g).max(b) >= 200;
    base + if bright && base != 0 { 8 } else { 0 }
}

struct Screen {
    lines: Vec<Line>,
    line: Line,
    style: Style,
    /// The style's classes, made when it changes rather than for every character.
    class: String,
    /// A carriage return came: the next text starts the line over.
    over: bool,
}

impl Screen {
    fn end_line(&mut self) {
        self.lines.push(std::mem::take(&mut self.line));
        self.over = false;
    }
}

impl Perform for Screen {
    fn print(&mut self, c: char) {
        if self.over {
            self.line.runs.clear();
            self.over = false;
        }
        match self.line.runs.last_mut() {
            Some(run) if run.class == self.class => run.text.push(c),
            _ => self.line.runs.push(Run {
                class: self.class.clone(),
                text: c.to_string(),
            }),
        }
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' => self.end_line(),
            b'\r' => self.over = true,
            b'\t' => self.print('\t'),
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: u8) {
        if action == b'm' && intermediates.is_empty() && !ignore {
            self.style.apply(params);
            self.class = self.style.class();
        }
    }
}

/// `log` as lines of styled runs. A final line without its newline is kept.
pub fn render(log: &[u8]) -> Vec<Line> {
    let mut screen = Screen {
        lines: Vec::new(),
        line: Line::default(),
        style: Style::default(),
        class: String::new(),
        over: false,
    };
    let mut parser = Parser::<DefaultCharAccumulator>::new();
    let mut rest = log;
    while !rest.is_empty() {
        // An application command (`ESC _ … BEL`, Buildkite's timestamps) ends at BEL
        // as well as at ST; the parser knows only ST and would swallow the text after.
        if let Some(after) = rest.strip_prefix(b"\x1b_") {
            let end = after
                .iter()
                .enumerate()
                .find_map(|(i, &b)| match b {
                    0x07 => Some(i + 1),
                    0x1b if after.get(i + 1) == Some(&b'\\') => Some(i + 2),
                    _ => None,
                })
                .unwrap_or(after.len());
            rest = &after[end..];
            continue;
        }
        parser.advance(&mut screen, rest[0]);
        rest = &rest[1..];
    }
    if !screen.line.runs.is_empty() {
        screen.end_line();
    }
    screen.lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(log: &str) -> Vec<Vec<(String, String)>> {
        render(log.as_bytes())
            .into_iter()
            .map(|l| l.runs.into_iter().map(|r| (r.class, r.text)).collect())
            .collect()
    }

    fn run(class: &str, text: &str) -> (String, String) {
        (class.to_owned(), text.to_owned())
    }

    #[test]
    fn colours_become_classes_and_other_escapes_go() {
        assert_eq!(
            runs("\x1b[1;31mred\x1b[0m plain \x1b[92;44mgreen\x1b[39m on blue\n"),
            vec![vec![
                run("a-f1 a-b", "red"),
                run("", " plain "),
                run("a-f10 a-g4", "green"),
                run("a-g4", " on blue"),
            ]]
        );
        assert_eq!(
            runs("\x1b_bk;t=1700000000000\x07step\x1b[2K\x1b]0;title\x07 done"),
            vec![vec![run("", "step done")]]
        );
        assert_eq!(
            runs("\x1b[38;5;196mx\x1b[38;2;0;0;160my\x1b[mz"),
            vec![vec![run("a-f9", "x"), run("a-f4", "y"), run("", "z")]]
        );
    }

    #[test]
    fn a_carriage_return_starts_the_line_over() {
        assert_eq!(
            runs("10%\r50%\r100%\nnext\r\n"),
            vec![vec![run("", "100%")], vec![run("", "next")]]
        );
    }

    #[test]
    fn markup_stays_text_and_cut_bytes_do_not_panic() {
        assert_eq!(runs("<b>&"), vec![vec![run("", "<b>&")]]);
        let cut = "é\x1b[31".as_bytes();
        assert_eq!(render(&cut[1..]).len(), 0);
    }
}
