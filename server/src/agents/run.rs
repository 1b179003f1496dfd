//! One run of a runner: the coding agent as a child process in its own process group,
//! the prompt on its standard input, its output read line by line into transcript
//! messages as they come, and its end (exit, stop, time limit or flood) told apart.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use svc_protocol::agent::NewMessage;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};

use super::format::{Format, LINE_MAX, Outcome, Reader};
use super::network::{self, Net};
use super::secrets::Masker;
use crate::git::child::dies_with_server;

/// How much of the runner's standard error is kept to explain a failed run.
const STDERR_KEPT: usize = 4 * 1024;

/// What a runner is run inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sandbox {
    /// A bubblewrap (`bwrap`) sandbox: the runner sees the system's programs and
    /// libraries read-only, its checkout and its HOME, and nothing else of the machine
    /// (not the data dir, the database, other sessions or the server's settings); its
    /// network is its own or the host's (`[agents] network`).
    Bwrap,
    /// No sandbox: for a server whose runners are already isolated (a user or a
    /// container of their own per session).
    None,
}

/// System paths a runner sees read-only, when the machine has them: programs and
/// libraries, and of `/etc` only what name lookup, TLS and Debian's program links need
/// (the rest of `/etc` may hold the server's own settings).
const SYSTEM_PATHS: [&str; 9] = [
    "/usr",
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
];

/// How a bubblewrap sandbox reaches the network (`[agents] network`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// A network namespace of its own (pasta): the network, but of the host's loopback
    /// only svc's port and the runner's `host_ports`.
    Isolated,
    /// The host's network, loopback services and all.
    Host,
}

/// What to run, where, and within what.
#[derive(Debug, Clone)]
pub struct Spec {
    pub sandbox: Sandbox,
    /// The sandbox's network.
    pub net: Net,
    /// The program and its arguments.
    pub command: Vec<String>,
    pub format: Format,
    /// The working directory (the session's checkout).
    pub dir: PathBuf,
    /// The runner's own HOME.
    pub home: PathBuf,
    /// The environment beyond `HOME`, `PATH` and `LANG`: nothing of the server's own
    /// environment reaches the runner but the secrets its settings name.
    pub env: Vec<(String, String)>,
    /// Masks the runner's secrets out of its transcript and its failure's reason.
    pub masker: Masker,
    /// Host paths shown read-only at the same path (`ro_paths`).
    pub ro_paths: Vec<PathBuf>,
    pub prompt: String,
    /// Bytes of standard output a run may write.
    pub max_output_bytes: usize,
    pub max_run: Duration,
    /// The `svc` program, put first on the runner's PATH (as `/opt/svc/bin/svc` in the
    /// sandbox) so it can serve itself svc's tools with `svc mcp`.
    pub tools: Option<PathBuf>,
}

/// Where the sandbox shows the `svc` program.
const TOOLS_DIR: &str = "/opt/svc/bin";

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// The runner exited by itself: its exit code (none when a signal ended it) and the
    /// tail of its standard error.
    Exited { code: Option<i32>, stderr: String },
    /// Stopped on request; its process group was killed.
    Stopped,
    /// Over the run-time limit; killed.
    TimedOut,
    /// Over the output limit; killed.
    Flooded,
    /// Its sandbox's network could not be set up; killed.
    NoNetwork(String),
}

impl Ended {
    /// Whether the session goes idle (the run ended well) rather than failed or stopped.
    pub fn is_success(&self) -> bool {
        matches!(self, Ended::Exited { code: Some(0), .. })
    }

    /// Why a run that did not end well ended, in words for the session's `reason`.
    pub fn reason(&self, outcome: Option<&Outcome>) -> Option<String> {
        let said = outcome.and_then(|o| o.summary.clone().filter(|_| o.is_error));
        match self {
            Ended::Exited { code: Some(0), .. } => None,
            Ended::Exited { code, stderr } => {
                let how = code.map_or("was killed by a signal".to_owned(), |c| {
                    format!("exited with {c}")
                });
                let detail = said.or_else(|| {
                    let tail = stderr.trim();
                    (!tail.is_empty()).then(|| tail.lines().last().unwrap_or(tail).to_owned())
                });
                Some(match detail {
                    Some(d) => format!("the runner {how}: {d}"),
                    None => format!("the runner {how}"),
                })
            }
            Ended::Stopped => Some("stopped".into()),
            Ended::TimedOut => Some("the run went over its time limit".into()),
            Ended::Flooded => Some("the runner wrote more output than a run may".into()),
            Ended::NoNetwork(why) => Some(why.clone()),
        }
    }
}

/// A started run: stop it, or wait for its end.
pub struct Running {
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<(Ended, Option<Outcome>)>,
}

impl Running {
    /// Asks the run to stop (its process group is killed); `wait` then answers.
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// How the run ended, and what its output said of it.
    pub async fn wait(self) -> (Ended, Option<Outcome>) {
        self.done.await.unwrap_or((Ended::Stopped, None))
    }
}

/// Starts the runner; its messages go to `messages` as they are read. Fails only when
/// the program cannot be started.
pub fn start(spec: Spec, messages: mpsc::Sender<NewMessage>) -> std::io::Result<Running> {
    let command = sandboxed(&spec);
    let Some((program, args)) = command.split_first() else {
        return Err(std::io::Error::other("the runner has no command"));
    };
    let mut path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
    let tools_dir = match spec.sandbox {
        Sandbox::Bwrap => Some(TOOLS_DIR.to_owned()),
        Sandbox::None => spec
            .tools
            .as_ref()
            .and_then(|t| t.parent())
            .map(|d| d.display().to_string()),
    };
    if let Some(dir) = tools_dir.filter(|_| spec.tools.is_some()) {
        path = format!("{dir}:{path}");
    }
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(&spec.dir)
        .env_clear()
        .env("HOME", &spec.home)
        .env("PATH", path)
        .env("LANG", "C.UTF-8")
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    dies_with_server(&mut cmd);
    let child = cmd.spawn()?;
    let (stop, stopped) = oneshot::channel();
    let done = tokio::spawn(watch(child, spec, messages, stopped));
    Ok(Running {
        stop: Some(stop),
        done,
    })
}

/// The runner's command inside its sandbox (as is, for [`Sandbox::None`]).
fn sandboxed(spec: &Spec) -> Vec<String> {
    // A runner installed outside /usr (by path) is shown on its own, read-only.
    let program = spec
        .command
        .first()
        .filter(|p| p.starts_with('/') && !p.starts_with("/usr/"))
        .map(PathBuf::from);
    let mut shown: Vec<(PathBuf, PathBuf)> = program.map(|p| (p.clone(), p)).into_iter().collect();
    if let Some(tools) = &spec.tools {
        shown.push((tools.clone(), PathBuf::from(format!("{TOOLS_DIR}/svc"))));
    }
    shown.extend(spec.ro_paths.iter().map(|p| (p.clone(), p.clone())));
    confine(
        spec.sandbox,
        &spec.net,
        &Place {
            work: &spec.dir,
            home: &spec.home,
            shown: &shown,
        },
        &spec.command,
    )
}

/// What a sandbox shows of the machine beyond the system paths.
pub struct Place<'a> {
    /// The session's checkout, writable, and the working directory.
    pub work: &'a Path,
    /// The session's HOME, writable.
    pub home: &'a Path,
    /// Host files shown read-only, each at a path of its own (host, in the sandbox).
    pub shown: &'a [(PathBuf, PathBuf)],
}

/// `command` inside a session's sandbox: for bubblewrap, a fresh mount namespace holding
/// the system paths read-only, the checkout and HOME writable at their own paths, a
/// private `/tmp`, `/proc` and `/dev`; new user, PID, IPC and UTS namespaces (whatever
/// it starts dies when it ends); the network of `net` (an isolated one is connected
/// once started, by [`connect`]). It dies with the server and cannot reach the server's
/// terminal. Whatever the server runs over files a runner wrote (git in the checkout)
/// runs in here too, never on the host.
pub fn confine(sandbox: Sandbox, net: &Net, place: &Place<'_>, command: &[String]) -> Vec<String> {
    if sandbox == Sandbox::None {
        return command.to_vec();
    }
    let mut out: Vec<String> = [
        "bwrap",
        "--die-with-parent",
        "--new-session",
        "--unshare-all",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
    ]
    .map(str::to_owned)
    .to_vec();
    // `--unshare-all` gives it a network of its own holding only loopback; the host's
    // or pasta's is shared into it.
    if *net != Net::Offline {
        out.push("--share-net".into());
    }
    for path in SYSTEM_PATHS {
        out.extend(["--ro-bind-try", path, path].map(str::to_owned));
    }
    // Debian's merged /usr: the top-level program and library links.
    for (link, target) in [
        ("/bin", "usr/bin"),
        ("/sbin", "usr/sbin"),
        ("/lib", "usr/lib"),
        ("/lib64", "usr/lib64"),
    ] {
        out.extend(["--symlink", target, link].map(str::to_owned));
    }
    for (host, inside) in place.shown {
        out.extend([
            "--ro-bind".into(),
            host.display().to_string(),
            inside.display().to_string(),
        ]);
    }
    for dir in [place.home, place.work] {
        let dir = dir.display().to_string();
        out.extend(["--bind".into(), dir.clone(), dir]);
    }
    out.extend([
        "--chdir".into(),
        place.work.display().to_string(),
        "--".into(),
    ]);
    out.extend(command.iter().cloned());
    match net {
        Net::Host | Net::Offline => out,
        Net::Isolated { ports } => network::wrap(ports, out),
    }
}

/// Connects the isolated network of a command [`confine`] made, once started: answers
/// the pasta serving it, to kill when the command ends (none for the host's network).
/// On failure the command is killed.
pub async fn connect(
    child: &mut Child,
    sandbox: Sandbox,
    net: &Net,
) -> Result<Option<Child>, String> {
    let (Sandbox::Bwrap, Net::Isolated { ports }) = (sandbox, net) else {
        return Ok(None);
    };
    let pid = child.id().unwrap_or_default();
    match network::connect(pid, ports).await {
        Ok(pasta) => Ok(Some(pasta)),
        Err(e) => {
            kill_group(child);
            let _ = child.wait().await;
            Err(format!("cannot give the sandbox its network: {e}"))
        }
    }
}

/// Ends the pasta of a command that has ended.
pub async fn disconnect(pasta: Option<Child>) {
    if let Some(mut pasta) = pasta {
        let _ = pasta.kill().await;
    }
}

/// Feeds the prompt, reads the output and waits for the end, whichever comes first of
/// exit, stop, time limit and flood.
async fn watch(
    mut child: Child,
    spec: Spec,
    messages: mpsc::Sender<NewMessage>,
    stopped: oneshot::Receiver<()>,
) -> (Ended, Option<Outcome>) {
    let pasta = match connect(&mut child, spec.sandbox, &spec.net).await {
        Ok(pasta) => pasta,
        Err(why) => return (Ended::NoNetwork(why), None),
    };
    let (ended, outcome) = watch_connected(&mut child, &spec, &messages, stopped).await;
    disconnect(pasta).await;
    (ended, outcome)
}

/// [`watch`], once the runner's network is up.
async fn watch_connected(
    child: &mut Child,
    spec: &Spec,
    messages: &mpsc::Sender<NewMessage>,
    stopped: oneshot::Receiver<()>,
) -> (Ended, Option<Outcome>) {
    let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let prompt = spec.prompt.clone();
    // A runner that does not read its input must not hold the run up.
    tokio::spawn(async move {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(prompt.as_bytes()).await;
            let _ = stdin.shutdown().await;
        }
    });
    let masker = spec.masker.clone();
    let stderr_tail = tokio::spawn(async move {
        let mut kept = Vec::new();
        if let Some(stderr) = stderr {
            let mut reader = BufReader::new(stderr);
            while let Ok(Some(line)) = next_line(&mut reader).await {
                kept.extend_from_slice(masker.text(&line).as_bytes());
                kept.push(b'\n');
                if kept.len() > STDERR_KEPT {
                    kept.drain(..kept.len() - STDERR_KEPT);
                }
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    });
    let mut reader = Reader::new(spec.format);
    let killed = {
        let read = read_output(
            stdout,
            &mut reader,
            messages,
            &spec.masker,
            spec.max_output_bytes,
        );
        tokio::pin!(read);
        let deadline = tokio::time::sleep(spec.max_run);
        tokio::pin!(deadline);
        let mut stopped = stopped;
        let mut reading = true;
        // The output may end before the runner does (or a child it left may hold it open
        // after it exits): stop and the time limit hold throughout.
        loop {
            tokio::select! {
                flooded = &mut read, if reading => {
                    reading = false;
                    if flooded {
                        break Some(Ended::Flooded);
                    }
                }
                _ = child.wait(), if !reading => break None,
                Ok(()) = &mut stopped => break Some(Ended::Stopped),
                () = &mut deadline => break Some(Ended::TimedOut),
            }
        }
    };
    if killed.is_some() {
        kill_group(child);
    }
    let status = child.wait().await;
    let ended = match killed {
        Some(ended) => ended,
        None => Ended::Exited {
            code: status.ok().and_then(|s| s.code()),
            stderr: stderr_tail.await.unwrap_or_default(),
        },
    };
    // What the runner said of its end may name a secret too (a failure's reason).
    let outcome = reader.outcome().cloned().map(|mut o| {
        o.summary = o.summary.map(|s| spec.masker.text(&s).into_owned());
        o
    });
    (ended, outcome)
}

/// Reads standard output to its end, sending each line's messages; answers whether
/// the output went over `max` bytes (and was left unread from there).
async fn read_output(
    stdout: Option<tokio::process::ChildStdout>,
    reader: &mut Reader,
    messages: &mpsc::Sender<NewMessage>,
    masker: &Masker,
    max: usize,
) -> bool {
    let Some(stdout) = stdout else {
        return false;
    };
    let mut stdout = BufReader::new(stdout);
    let mut total = 0usize;
    while let Ok(Some(line)) = next_line(&mut stdout).await {
        total = total.saturating_add(line.len() + 1);
        if total > max {
            return true;
        }
        for mut message in reader.line(&line) {
            masker.message(&mut message);
            if messages.send(message).await.is_err() {
                return false;
            }
        }
    }
    false
}

/// The next line (without its end), at most [`LINE_MAX`] bytes of it: the rest of a
/// longer line is read and dropped, so no line grows without bound. `None` at the end.
async fn next_line<R: AsyncBufRead + Unpin>(r: &mut R) -> std::io::Result<Option<String>> {
    let mut line = Vec::new();
    let mut any = false;
    loop {
        let buf = r.fill_buf().await?;
        if buf.is_empty() {
            break;
        }
        any = true;
        let (chunk, found) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = LINE_MAX.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = found.unwrap_or(buf.len());
        r.consume(used);
        if found.is_some() {
            break;
        }
    }
    Ok(any.then(|| String::from_utf8_lossy(&line).into_owned()))
}

/// Kills the runner and everything it started (its process group).
pub(super) fn kill_group(child: &Child) {
    let Some(pid) = child.id().and_then(|id| i32::try_from(id).ok()) else {
        return;
    };
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_protocol::agent::{Part, Role};

    fn spec(script: &str, dir: &std::path::Path) -> Spec {
        Spec {
            sandbox: Sandbox::None,
            net: Net::Host,
            command: vec!["sh".into(), "-c".into(), script.into()],
            format: Format::SvcJsonl,
            dir: dir.to_path_buf(),
            home: dir.join("home"),
            env: vec![("SVC_AGENT_SESSION".into(), "ag_1".into())],
            masker: Masker::default(),
            ro_paths: Vec::new(),
            prompt: "Fix the bug\n".into(),
            max_output_bytes: 1024 * 1024,
            max_run: Duration::from_secs(30),
            tools: None,
        }
    }

    /// Runs to the end; the messages and how it ended.
    async fn run(spec: Spec) -> (Vec<NewMessage>, Ended, Option<Outcome>) {
        let (tx, mut rx) = mpsc::channel(16);
        let running = start(spec, tx).unwrap();
        let collect = tokio::spawn(async move {
            let mut all = Vec::new();
            while let Some(m) = rx.recv().await {
                all.push(m);
            }
            all
        });
        let (ended, outcome) = running.wait().await;
        (collect.await.unwrap(), ended, outcome)
    }

    fn text(m: &NewMessage) -> &str {
        match &m.parts[..] {
            [Part::Text { text }] => text,
            other => panic!("not one text part: {other:?}"),
        }
    }

    #[tokio::test]
    async fn the_prompt_goes_in_and_every_line_comes_out_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let script = r#"read p; printf '{"role":"assistant","parts":[{"type":"text","text":"on it: %s"}]}\n' "$p"; echo 'not json'; echo oops >&2"#;
        let (messages, ended, outcome) = run(spec(script, dir.path())).await;
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].role, Role::Assistant);
        assert_eq!(text(&messages[0]), "on it: Fix the bug");
        assert_eq!(text(&messages[1]), "not json");
        assert_eq!(
            ended,
            Ended::Exited {
                code: Some(0),
                stderr: "oops\n".into()
            }
        );
        assert!(ended.is_success());
        assert_eq!(ended.reason(outcome.as_ref()), None);
    }

    #[tokio::test]
    async fn the_runner_sees_its_own_environment_and_none_of_the_servers() {
        let dir = tempfile::tempdir().unwrap();
        let (messages, _, _) = run(spec("env | cut -d= -f1 | sort; pwd", dir.path())).await;
        let names: Vec<&str> = messages.iter().map(text).collect();
        let (cwd, names) = names.split_last().unwrap();
        assert_eq!(*cwd, dir.path().to_str().unwrap());
        // The shell adds PWD, SHLVL and `_` of its own.
        let ours: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| !matches!(*n, "PWD" | "SHLVL" | "_" | "OLDPWD"))
            .collect();
        assert_eq!(ours, ["HOME", "LANG", "PATH", "SVC_AGENT_SESSION"]);
    }

    #[tokio::test]
    async fn a_failed_run_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let (_, ended, outcome) = run(spec("echo 'fatal: no model' >&2; exit 3", dir.path())).await;
        assert!(!ended.is_success());
        assert_eq!(
            ended.reason(outcome.as_ref()).unwrap(),
            "the runner exited with 3: fatal: no model"
        );
    }

    #[tokio::test]
    async fn stop_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let script = format!(
            "sleep 300 & echo $! > {}; echo started; wait",
            pid_file.display()
        );
        let (tx, mut rx) = mpsc::channel(16);
        let mut running = start(spec(&script, dir.path()), tx).unwrap();
        assert_eq!(text(&rx.recv().await.unwrap()), "started");
        let grandchild = std::fs::read_to_string(&pid_file).unwrap();
        let proc = PathBuf::from(format!("/proc/{}", grandchild.trim()));
        assert!(proc.exists());
        running.stop();
        let (ended, _) = running.wait().await;
        assert_eq!(ended, Ended::Stopped);
        // The grandchild was killed too (and reaped by init: gone, or a zombie for a moment).
        let mut gone = false;
        for _ in 0..100 {
            let state = std::fs::read_to_string(proc.join("stat")).unwrap_or_default();
            if state.is_empty() || state.contains(") Z ") {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(gone, "the runner's child outlived the stop");
    }

    #[tokio::test]
    async fn time_and_output_limits_end_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let mut slow = spec("sleep 30", dir.path());
        slow.max_run = Duration::from_millis(200);
        let (_, ended, _) = run(slow).await;
        assert_eq!(ended, Ended::TimedOut);

        let (tx, _rx) = mpsc::channel(100_000);
        let mut flood = spec("yes", dir.path());
        flood.max_output_bytes = 64 * 1024;
        // Nobody reads the messages here: the channel is large enough for the limit.
        let (ended, _) = start(flood, tx).unwrap().wait().await;
        assert_eq!(ended, Ended::Flooded);
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_cut_and_the_next_one_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut long = spec(
            "head -c 1500000 /dev/zero | tr '\\0' x; echo; echo after",
            dir.path(),
        );
        long.max_output_bytes = 4 * 1024 * 1024;
        let (messages, _, _) = run(long).await;
        assert_eq!(messages.len(), 2);
        assert_eq!(text(&messages[0]).len(), LINE_MAX);
        assert_eq!(text(&messages[1]), "after");
    }

    #[tokio::test]
    async fn in_its_sandbox_a_runner_sees_its_checkout_and_home_and_nothing_else() {
        let found = std::process::Command::new("bwrap")
            .arg("--version")
            .output();
        assert!(
            found.is_ok_and(|o| o.status.success()),
            "this test needs bubblewrap on PATH (Debian: apt-get install -y bubblewrap)"
        );
        let dir = tempfile::tempdir().unwrap();
        let (work, home, other) = (
            dir.path().join("work"),
            dir.path().join("home"),
            dir.path().join("other"),
        );
        for d in [&work, &home, &other] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(other.join("secret"), "another session's file").unwrap();
        std::fs::write(work.join("README"), "the checkout\n").unwrap();
        let script = format!(
            "cat README; echo made > $HOME/note && echo home writable; \\
             cat {} 2>/dev/null || echo other unseen; \\
             ls /etc/svc* /root 2>/dev/null || echo settings unseen; \\
             echo $$",
            other.join("secret").display()
        );
        let mut sandboxed = spec(&script, &work);
        sandboxed.sandbox = Sandbox::Bwrap;
        sandboxed.home = home.clone();
        let (messages, ended, _) = run(sandboxed).await;
        let lines: Vec<&str> = messages.iter().map(text).collect();
        assert!(ended.is_success(), "{ended:?} {lines:?}");
        assert_eq!(
            lines[..4],
            [
                "the checkout",
                "home writable",
                "other unseen",
                "settings unseen"
            ]
        );
        // Its own PID namespace: the shell is an early process there.
        assert!(lines[4].parse::<u32>().unwrap() < 10, "{lines:?}");
        assert_eq!(
            std::fs::read_to_string(home.join("note")).unwrap(),
            "made\n"
        );
    }
}
