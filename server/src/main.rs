//! `svc-server`: serves the API, the git door and the sign-in pages.

use std::io::{BufRead, IsTerminal};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use svc_server::config::{Config, LogFormat, ServeArgs};
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
}

#[derive(Subcommand)]
enum UserCommand {
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
    }
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
    std::fs::create_dir_all(&config.data_dir)?;
    let store = Store::open(&config.database_url).await?;
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
