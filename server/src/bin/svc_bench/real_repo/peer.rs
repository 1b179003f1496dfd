//! The baseline server: `git http-backend` behind nginx (FastCGI through `fcgiwrap` on a
//! unix socket), as a self-hosted git server is commonly set up. Both run as children of
//! the bench, nginx in the foreground with its own configuration in the bench's folder.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use super::super::common::{free_port, git, run};

const NGINX: &str = "/usr/sbin/nginx";
const FCGIWRAP: &str = "/usr/sbin/fcgiwrap";
const HTTP_BACKEND: &str = "/usr/lib/git-core/git-http-backend";

/// nginx and fcgiwrap serving every repository under `root`, killed when dropped.
pub struct Peer {
    nginx: Child,
    fcgiwrap: Child,
    base: String,
    pub root: PathBuf,
}

impl Peer {
    /// Starts both on a free port; answers once nginx takes connections.
    pub fn start(dir: &Path, root: &Path) -> anyhow::Result<Peer> {
        for bin in [NGINX, FCGIWRAP, HTTP_BACKEND] {
            if !Path::new(bin).exists() {
                bail!("{bin} is missing: `apt-get install nginx fcgiwrap git`");
            }
        }
        std::fs::create_dir_all(dir)?;
        let socket = dir.join("fcgiwrap.sock");
        let _ = std::fs::remove_file(&socket);
        let fcgiwrap = Command::new(FCGIWRAP)
            .args(["-c", "4", "-s"])
            .arg(format!("unix:{}", socket.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("fcgiwrap.log"))?)
            .spawn()
            .context("cannot start fcgiwrap")?;
        let port = free_port()?;
        // As root, nginx's workers would drop to `nobody`, who may not use the socket.
        let root_user = run(Command::new("id").arg("-u"))? == "0";
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, config(dir, root, &socket, port, root_user))?;
        let nginx = Command::new(NGINX)
            .arg("-p")
            .arg(dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("nginx.log"))?)
            .spawn()
            .context("cannot start nginx")?;
        let mut peer = Peer {
            nginx,
            fcgiwrap,
            base: format!("http://127.0.0.1:{port}"),
            root: root.to_owned(),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() || !socket.exists() {
            if let Some(status) = peer.nginx.try_wait()? {
                bail!("nginx exited ({status}); see {}", dir.display());
            }
            if let Some(status) = peer.fcgiwrap.try_wait()? {
                bail!("fcgiwrap exited ({status}); see {}", dir.display());
            }
            if Instant::now() > deadline {
                bail!("nginx did not listen on {port}; see {}", dir.display());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(peer)
    }

    /// An empty bare repository `name` under the root, taking pushes and serving
    /// partial clones (and the lazy fetches they cause) like the door does.
    pub fn init(&self, name: &str) -> anyhow::Result<PathBuf> {
        let path = self.root.join(name);
        run(git(&self.root).args(["init", "-q", "--bare"]).arg(&path))?;
        for (key, value) in [
            ("http.receivepack", "true"),
            ("uploadpack.allowFilter", "true"),
            ("uploadpack.allowAnySHA1InWant", "true"),
        ] {
            run(git(&path).args(["config", key, value]))?;
        }
        Ok(path)
    }

    pub fn url(&self, name: &str) -> String {
        format!("{}/{name}", self.base)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // fcgiwrap's workers (`-c 4`) outlive their parent: they go first.
        let pid = self.fcgiwrap.id();
        let workers = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"));
        for worker in workers.unwrap_or_default().split_whitespace() {
            let _ = Command::new("kill").arg(worker).status();
        }
        for child in [&mut self.nginx, &mut self.fcgiwrap] {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// nginx's configuration: one worker per core, no access log, request and response
/// bodies streamed (not buffered to disk), git's protocol v2 header passed on.
fn config(dir: &Path, root: &Path, socket: &Path, port: u16, root_user: bool) -> String {
    let dir = dir.display();
    let user = if root_user { "user root;" } else { "" };
    format!(
        r#"{user}
daemon off;
worker_processes auto;
pid {dir}/nginx.pid;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    fastcgi_temp_path {dir}/fastcgi;
    proxy_temp_path {dir}/proxy;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    client_max_body_size 0;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            fastcgi_pass unix:{socket};
            fastcgi_buffering off;
            fastcgi_request_buffering off;
            fastcgi_read_timeout 3600s;
            fastcgi_param SCRIPT_FILENAME {HTTP_BACKEND};
            fastcgi_param GIT_PROJECT_ROOT {root};
            fastcgi_param GIT_HTTP_EXPORT_ALL "";
            fastcgi_param GIT_PROTOCOL $http_git_protocol;
            fastcgi_param PATH_INFO $uri;
            fastcgi_param QUERY_STRING $query_string;
            fastcgi_param REQUEST_METHOD $request_method;
            fastcgi_param CONTENT_TYPE $content_type;
            fastcgi_param CONTENT_LENGTH $content_length;
            fastcgi_param HTTP_CONTENT_ENCODING $http_content_encoding;
            fastcgi_param REMOTE_USER bench;
            fastcgi_param REMOTE_ADDR $remote_addr;
            fastcgi_param SERVER_PROTOCOL $server_protocol;
            fastcgi_param GATEWAY_INTERFACE CGI/1.1;
        }}
    }}
}}
"#,
        socket = socket.display(),
        root = root.display(),
    )
}
