//! `svc-server`: serves the API, the git door and the sign-in pages.

use std::io::{BufRead, IsTerminal};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use svc_server::config::{Config, LogFormat, ServeArgs};
use svc_server::people;
use svc_server::store::{Store, users};

#[derive(Parser)]
#[command(
    name = "svc-server",
    version,
    about = "The svc monorepo hosting server"
)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve (the default when no command is given)
    Serve,
    /// Create the first user (unless that email already has one), print its credential, then serve
    Quickstart {
        /// The first user's email; the login derives from it
        #[arg(long)]
        email: String,
        /// Read the browser sign-in password from standard input (else it is asked for
        /// on a terminal)
        #[arg(long)]
        password_stdin: bool,
    },
    /// Manage users of the built-in local identity provider
    #[command(subcommand)]
    User(UserCommand),
    /// Maintain repositories now, fully: prune, repack with a multi-pack index and
    /// bitmap, rewrite the commit-graph; prints what was done per repo
    Maintain {
        /// One repo, as <owner>/<monorepo>/<repo path> [default: every repo]
        repo: Option<String>,
    },
}

#[derive(Subcommand)]
enum UserCommand {
    /// Make an account (its email counts as verified) and print a one-time sign-in link,
    /// valid 7 days, where the person sets their password
    Add {
        /// The person's email; invites waiting for it become memberships
        email: String,
        /// Their login [default: derived from the email]
        #[arg(long)]
        login: Option<String>,
        /// Their name
        #[arg(long)]
        name: Option<String>,
        /// Make them a site admin (they manage people with svc admin)
        #[arg(long)]
        admin: bool,
    },
    /// List every account: login, email, name, site admin, disabled
    List,
    /// Disable an account: its credentials and sessions end, and it cannot sign in
    Disable {
        /// The person's login
        login: String,
    },
    /// Let a disabled account sign in again
    Enable {
        /// The person's login
        login: String,
    },
    /// Set the password a user signs in with in the browser, read from standard input
    SetPassword {
        /// The user's login
        login: String,
    },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = Config::resolve(&cli.serve).and_then(|config| {
        init_tracing(config.log_format);
        let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
        runtime.block_on(run(cli.command.unwrap_or(Command::Serve), config))
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("svc-server: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(command: Command, config: Config) -> anyhow::Result<()> {
    match command {
        Command::Serve => {
            let listener = tokio::net::TcpListener::bind(config.listen)
                .await
                .with_context(|| format!("cannot listen on {}", config.listen))?;
            svc_server::launch(listener, config, shutdown_signal()).await
        }
        Command::Quickstart {
            email,
            password_stdin,
        } => {
            first_user(&config, &email, password_stdin).await?;
            Box::pin(run(Command::Serve, config)).await
        }
        Command::User(UserCommand::SetPassword { login }) => set_password(&config, &login).await,
        Command::User(UserCommand::Add {
            email,
            login,
            name,
            admin,
        }) => {
            let new = people::NewPerson {
                email: &email,
                login: login.as_deref(),
                name: name.as_deref(),
                admin,
            };
            add_user(&config, new).await
        }
        Command::User(UserCommand::List) => list_users(&config).await,
        Command::User(UserCommand::Disable { login }) => set_disabled(&config, &login, true).await,
        Command::User(UserCommand::Enable { login }) => set_disabled(&config, &login, false).await,
        Command::Maintain { repo } => maintain(&config, repo.as_deref()).await,
    }
}

async fn open_store(config: &Config) -> anyhow::Result<Store> {
    std::fs::create_dir_all(&config.data_dir)?;
    Ok(Store::open(&config.database_url).await?)
}

/// `user add`: the account and its sign-in link, printed for the operator to pass on.
async fn add_user(config: &Config, new: people::NewPerson<'_>) -> anyhow::Result<()> {
    let store = open_store(config).await?;
    let mut tx = store.begin().await?;
    let (user, link) = people::add(&mut tx, config.base(), new, None)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    tx.commit().await?;
    store.close().await;
    let admin = if user.site_admin { " (site admin)" } else { "" };
    let expires = link
        .expires_at
        .format(&time::format_description::well_known::Rfc3339)?;
    println!(
        "Created user {}{admin} <{}>",
        user.login,
        user.email.as_deref().unwrap_or_default()
    );
    println!("Send them this sign-in link (it works once, until {expires}) to set a password:");
    println!("{}", link.url);
    Ok(())
}

/// `user list`: every account, by login.
async fn list_users(config: &Config) -> anyhow::Result<()> {
    let store = open_store(config).await?;
    let mut conn = store.read().await?;
    let mut after: Option<String> = None;
    println!("LOGIN\tEMAIL\tNAME\tADMIN\tDISABLED");
    loop {
        let rows = users::page(conn.h(), after.as_deref(), 500).await?;
        for u in &rows {
            println!(
                "{}\t{}\t{}\t{}\t{}",
                u.login,
                u.email.as_deref().unwrap_or(""),
                u.name.as_deref().unwrap_or(""),
                if u.site_admin { "admin" } else { "" },
                if u.disabled_at.is_some() {
                    "disabled"
                } else {
                    ""
                },
            );
        }
        match rows.last() {
            Some(last) if rows.len() == 500 => after = Some(last.login.clone()),
            _ => break,
        }
    }
    drop(conn);
    store.close().await;
    Ok(())
}

/// `user disable` / `user enable`.
async fn set_disabled(config: &Config, login: &str, disabled: bool) -> anyhow::Result<()> {
    let store = open_store(config).await?;
    let login = login.to_ascii_lowercase();
    let mut tx = store.begin().await?;
    let Some(user) = users::by_login(tx.h(), &login).await? else {
        bail!("no user has the login {login} (see svc-server user list)");
    };
    if disabled {
        let revoked = people::disable(&mut tx, &user).await?;
        tx.commit().await?;
        println!(
            "Disabled {login}: {} credential(s) revoked; they cannot sign in until svc-server user enable {login}",
            revoked.len()
        );
        if store.postgres().is_none() {
            println!(
                "A running server stops taking their credentials within 15 seconds \
                 (at once when a site admin disables them with svc admin user disable)."
            );
        }
    } else {
        users::set_disabled(tx.h(), &user.id, None).await?;
        tx.commit().await?;
        println!("Enabled {login}: they may sign in again");
    }
    store.close().await;
    Ok(())
}

/// Makes the user for `email` with a machine credential (printed once) and a password
/// for browser sign-in, then says what to run next.
async fn first_user(config: &Config, email: &str, password_stdin: bool) -> anyhow::Result<()> {
    use svc_protocol::user::CredentialKind;
    use svc_server::accounts::{self, NewUser};
    std::fs::create_dir_all(&config.data_dir)?;
    let store = Store::open(&config.database_url).await?;
    let next_step = format!(
        "Next, sign this machine in:\n  svc login --server {}",
        config.base()
    );
    // No transaction stays open while a person types.
    let existing = users::by_email(store.read().await?.h(), &email.to_ascii_lowercase()).await?;
    if let Some(user) = existing {
        if password_stdin {
            let hash = hash(&read_password_line()?)?;
            let mut tx = store.begin().await?;
            users::set_password(tx.h(), &user.id, &hash).await?;
            tx.commit().await?;
            println!("User {} exists already; password set.", user.login);
        } else {
            println!(
                "User {} exists already (set its password with: svc-server user set-password {}).",
                user.login, user.login
            );
        }
        store.close().await;
        println!("{next_step}");
        return Ok(());
    }
    let password_hash = if password_stdin {
        Some(hash(&read_password_line()?)?)
    } else if std::io::stdin().is_terminal() {
        Some(ask_password()?)
    } else {
        None
    };
    let has_password = password_hash.is_some();
    let new = NewUser {
        password_hash,
        ..NewUser::verified_email(email)
    };
    let mut tx = store.begin().await?;
    let user = accounts::create_user(&mut tx, new)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let credential = accounts::issue_credential(
        &mut tx,
        &user.id,
        "quickstart",
        CredentialKind::Machine,
        None,
    )
    .await?;
    tx.commit().await?;
    store.close().await;
    println!("Created user {} <{email}> on {}", user.login, config.base());
    println!(
        "Credential (shown once; keep it secret): {}",
        credential.token
    );
    if has_password {
        println!(
            "Browser sign-in: {} and the password you chose.",
            user.login
        );
    } else {
        println!(
            "No password set (standard input is not a terminal); for browser sign-in run: \
             svc-server user set-password {}",
            user.login
        );
    }
    println!("{next_step}");
    Ok(())
}

/// Asks on the terminal, without echo, until two entries agree on a good password;
/// answers its hash.
fn ask_password() -> anyhow::Result<String> {
    for _ in 0..3 {
        let password = rpassword::prompt_password(
            "Choose a password for browser sign-in (8 characters or more): ",
        )
        .context("cannot read the password")?;
        let hashed = match hash(&password) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("{e}; try again.");
                continue;
            }
        };
        if rpassword::prompt_password("Type it again: ").context("cannot read the password")?
            == password
        {
            return Ok(hashed);
        }
        eprintln!("The two differ; try again.");
    }
    bail!("no password chosen; run quickstart again, or pass it with --password-stdin")
}

/// One line of standard input, without its line ending.
fn read_password_line() -> anyhow::Result<String> {
    let mut password = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut password)
        .context("cannot read the password")?;
    Ok(password.trim_end_matches(['\r', '\n']).to_owned())
}

fn hash(password: &str) -> anyhow::Result<String> {
    svc_server::accounts::hash_password(password).map_err(|e| anyhow::anyhow!(e.message))
}

async fn set_password(config: &Config, login: &str) -> anyhow::Result<()> {
    let store = open_store(config).await?;
    let login = login.to_ascii_lowercase();
    let mut tx = store.begin().await?;
    let Some(user) = users::by_login(tx.h(), &login).await? else {
        bail!("no user has the login {login}");
    };
    eprintln!("Type the new password for {login} and press Enter:");
    let hash = hash(&read_password_line()?)?;
    users::set_password(tx.h(), &user.id, &hash).await?;
    tx.commit().await?;
    store.close().await;
    eprintln!("Password set for {login}.");
    Ok(())
}

/// `maintain`: every repo (or the one named), one at a time, each line saying what was
/// done. On SQLite a running server's merges cannot be held off from this process, so
/// unreachable objects are kept (the server's own maintenance expires them).
async fn maintain(config: &Config, repo: Option<&str>) -> anyhow::Result<()> {
    use svc_server::maintenance::{self, Mode};
    use svc_server::store::{monorepos, repos};
    let store = open_store(config).await?;
    let mut conn = store.read().await?;
    let mut targets = Vec::new();
    match repo {
        Some(label) => {
            let mut parts = label.splitn(3, '/');
            let (Some(owner), Some(name), Some(path)) = (parts.next(), parts.next(), parts.next())
            else {
                bail!("name the repo as <owner>/<monorepo>/<repo path>, not {label}");
            };
            let Some(mono) = monorepos::by_label(conn.h(), owner, name).await? else {
                bail!("no monorepo {owner}/{name}");
            };
            let all = repos::all(conn.h(), &mono.id).await?;
            let Some(row) = all.into_iter().find(|r| r.path == path || r.name == path) else {
                bail!("no repo {path} in {owner}/{name}");
            };
            targets.push((label.to_owned(), row.id));
        }
        None => {
            for row in repos::every(conn.h()).await? {
                let mono = monorepos::by_id(conn.h(), &row.monorepo_id).await?;
                // The meta repo's path is `.`: it goes by its name.
                let path = if row.path == "." {
                    &row.name
                } else {
                    &row.path
                };
                let label = match mono {
                    Some(m) => format!("{}/{path}", m.label()),
                    None => row.id.clone(),
                };
                targets.push((label, row.id));
            }
        }
    }
    drop(conn);
    let locks = svc_server::repo_lock::RepoLocks::new(&config.database_url);
    let may_expire = store.postgres().is_some();
    let mut failed = 0;
    for (label, id) in targets {
        match maintenance::maintain_repo(&config.data_dir, &locks, &id, Mode::Eager, may_expire)
            .await
        {
            Ok(outcome) => println!("{label}: {}", outcome.describe()),
            Err(e) => {
                failed += 1;
                println!("{label}: failed: {e}");
            }
        }
    }
    store.close().await;
    if failed > 0 {
        bail!("{failed} repo(s) could not be maintained");
    }
    Ok(())
}

fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn"));
    // Colour only for a person at a terminal: piped or collected logs stay plain text.
    let colour = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => builder.init(),
    }
}

/// Resolves on ctrl-c or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { () = ctrl_c => {}, () = term => {} }
    tracing::info!("shutting down");
}
