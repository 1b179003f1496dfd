//! Slow and greedy clients (`[connections]`): headers that never finish, bodies that stop
//! moving, and one address opening connections by the thousand do not take the server
//! from anyone else.
//!
//! The attacker connects from 127.0.0.2 (Linux routes all of 127/8 to loopback), everyone
//! else from 127.0.0.1, the server's own address.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::json;
use svc_server::connections::ConnectionSettings;
use svc_tests::git::Git;
use svc_tests::{Cloned, TestApp};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const ATTACKER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);

/// How long the server gets for what it should do at once or after a short timeout:
/// generous, as the machine may be busy; it bounds a failure, not a pass.
const PATIENCE: Duration = Duration::from_secs(30);

/// A connection from `from` to the server.
async fn connect(from: Ipv4Addr, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind((from, 0).into()).unwrap();
    socket.connect(server).await.unwrap()
}

/// Whether the server has closed `stream` (end of stream or reset), without waiting.
fn closed_by_server(stream: &TcpStream) -> bool {
    let mut buf = [0u8; 1024];
    loop {
        match stream.try_read(&mut buf) {
            Ok(0) => return true,
            // An answer the server wrote before closing; read on.
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

/// Reads `stream` until the server closes it, within [`PATIENCE`]; answers what it sent.
async fn until_closed(stream: &mut TcpStream, what: &str) -> String {
    let mut got = Vec::new();
    let read = tokio::time::timeout(PATIENCE, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(
        read.is_ok(),
        "the server kept open a connection with {what}"
    );
    String::from_utf8_lossy(&got).into_owned()
}

/// A client of the attacker's address.
fn attacker_client() -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(IpAddr::V4(ATTACKER))
        .timeout(PATIENCE)
        .build()
        .unwrap()
}

#[tokio::test]
async fn one_address_holding_a_thousand_half_sent_requests_stops_no_one_else() {
    // The test process is the server's too: both ends of every connection are its files.
    svc_server::connections::raise_open_files_limit();
    let cap = 100;
    let f = Cloned::with(
        TestApp::builder().connections(ConnectionSettings {
            // Long enough that the half-sent requests stay for the whole test.
            header_timeout_secs: 300,
            per_address: cap,
            ..ConnectionSettings::default()
        }),
        "mono",
        "app",
    )
    .await;
    f.git
        .commit(&f.work, "first", &[("README.md", b"still served\n")]);
    f.git.ok(&f.work, &["push", "-q", "origin", "main"]);
    let server = f.app.config.listen;

    let mut held = Vec::new();
    for _ in 0..1000 {
        let mut stream = connect(ATTACKER, server).await;
        // The server may have closed it already: then the write may fail.
        let _ = stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: svc\r\nX-Slow: ")
            .await;
        held.push(stream);
    }
    // Beyond the cap, the server closes the address's connections as it accepts them.
    let deadline = Instant::now() + PATIENCE;
    let open = loop {
        let open = held.iter().filter(|s| !closed_by_server(s)).count();
        if open <= cap as usize || Instant::now() > deadline {
            break open;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(open, cap as usize, "connections the server kept open");

    // Another address is served as ever: the API and a clone.
    let r = f.app.request(Method::GET, "/healthz").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let url = f
        .app
        .get_json(&f.token, "/v1/monorepos/ann/mono/repos/app")
        .await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let git = Git::new(&f.token);
    let cloned = tokio::task::spawn_blocking(move || {
        git.ok(git.home.path(), &["clone", "-q", &url, "again"]);
        std::fs::read_to_string(git.path("again/README.md")).unwrap()
    })
    .await
    .unwrap();
    assert_eq!(cloned, "still served\n");
    // The attacker's address is not, while it holds its cap.
    assert!(
        attacker_client()
            .get(f.app.url("/healthz"))
            .send()
            .await
            .is_err(),
        "a connection over the cap was served"
    );
    assert_eq!(
        held.iter().filter(|s| !closed_by_server(s)).count(),
        cap as usize
    );

    // Once it lets go, it is served again.
    drop(held);
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Ok(r) = attacker_client().get(f.app.url("/healthz")).send().await {
            assert_eq!(r.status(), StatusCode::OK);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the address never got its slots back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn headers_that_never_finish_and_bodies_that_stop_are_dropped() {
    let app = TestApp::builder()
        .connections(ConnectionSettings {
            header_timeout_secs: 1,
            body_idle_secs: 2,
            ..ConnectionSettings::default()
        })
        .start()
        .await;
    let token = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    let server = app.config.listen;

    // Half a header, then nothing: closed once the header timeout has passed.
    let mut half = connect(Ipv4Addr::LOCALHOST, server).await;
    half.write_all(b"GET /healthz HTTP/1.1\r\nHost: svc\r\n")
        .await
        .unwrap();
    // Nothing at all: the same.
    let mut silent = connect(Ipv4Addr::LOCALHOST, server).await;
    until_closed(&mut half, "half a header").await;
    until_closed(&mut silent, "nothing sent").await;

    // A body that stops halfway: the request fails, nothing is made, the connection ends.
    let body = br#"{"name": "stalled"}"#;
    let head = format!(
        "POST /v1/monorepos HTTP/1.1\r\nHost: svc\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut stalled = connect(Ipv4Addr::LOCALHOST, server).await;
    stalled.write_all(head.as_bytes()).await.unwrap();
    stalled.write_all(&body[..8]).await.unwrap();
    let answer = until_closed(&mut stalled, "a stalled body").await;
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    let r = app
        .as_user(Method::GET, "/v1/monorepos/ann/stalled", &token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);

    // A body that keeps moving, if slowly, for longer than the idle time: made.
    let body = br#"{"name": "trickled"}"#;
    let head = head.replace(
        &format!("Content-Length: {}", b"{\"name\": \"stalled\"}".len()),
        &format!("Content-Length: {}", body.len()),
    );
    let mut trickle = connect(Ipv4Addr::LOCALHOST, server).await;
    trickle.write_all(head.as_bytes()).await.unwrap();
    for piece in body.chunks(2) {
        tokio::time::sleep(Duration::from_millis(250)).await;
        trickle.write_all(piece).await.unwrap();
    }
    let mut answer = [0u8; 12];
    tokio::time::timeout(PATIENCE, trickle.read_exact(&mut answer))
        .await
        .expect("an answer")
        .unwrap();
    assert_eq!(&answer, b"HTTP/1.1 201");
}
