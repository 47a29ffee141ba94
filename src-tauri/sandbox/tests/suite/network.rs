//! The network switch: off, nothing outside the sandbox answers (not even the host's loopback);
//! on, it does. Abstract Unix sockets follow the same rule where Landlock can scope them.

use std::io::Read;
use std::net::TcpListener;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::time::{Duration, Instant};

use gantry_sandbox::Limit;

use super::support::{Fixture, sandbox};

/// Accepts one connection within `wait` and returns what it sent.
fn accept_within(listener: &TcpListener, wait: Duration) -> Option<String> {
    listener.set_nonblocking(true).unwrap();
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        if let Ok((mut stream, _)) = listener.accept() {
            stream.set_nonblocking(false).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut text = String::new();
            stream.read_to_string(&mut text).unwrap();
            return Some(text);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

#[tokio::test]
async fn the_hosts_loopback_is_unreachable_offline_and_reachable_with_the_switch_on() {
    let fx = Fixture::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!("bash -c 'echo hello > /dev/tcp/127.0.0.1/{port}' && echo SENT");

    let offline = fx.run(&script).await;
    offline.failed();
    assert!(
        offline.stderr.contains("Connection refused"),
        "{offline:#?}"
    );
    assert_eq!(accept_within(&listener, Duration::from_millis(200)), None);

    let online = fx
        .run_with(&fx.policy().with_network(true), &fx.project, &script)
        .await;
    assert_eq!(online.ok(), "SENT\n", "{online:#?}");
    assert_eq!(
        accept_within(&listener, Duration::from_secs(5)).as_deref(),
        Some("hello\n")
    );
}

#[tokio::test]
async fn a_private_loopback_works_offline() {
    let fx = Fixture::new();
    let script = "python3 -c '
import socket
server = socket.socket(); server.bind((\"127.0.0.1\", 0)); server.listen(1)
client = socket.create_connection(server.getsockname())
peer, _ = server.accept(); client.sendall(b\"pong\"); print(peer.recv(4).decode())
'";
    let ran = fx.run(script).await;
    assert_eq!(ran.ok(), "pong\n", "{ran:#?}");
}

#[tokio::test]
async fn the_hosts_abstract_unix_sockets_are_unreachable() {
    let fx = Fixture::new();
    let name = format!("gantry-sandbox-test-{}", std::process::id());
    let listener =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap()).unwrap();
    let script = format!(
        "python3 -c '
import socket
s = socket.socket(socket.AF_UNIX)
s.connect(\"\\0{name}\")
print(\"CONNECTED\")
'"
    );
    // The control: the socket answers outside.
    fx.host(&script).ok();
    listener.set_nonblocking(true).unwrap();
    while listener.accept().is_ok() {}

    let offline = fx.run(&script).await;
    offline.failed();
    assert!(
        offline.stderr.contains("Connection refused"),
        "{offline:#?}"
    );

    let online = fx
        .run_with(&fx.policy().with_network(true), &fx.project, &script)
        .await;
    let unscoped = sandbox()
        .limits()
        .into_iter()
        .find(|limit| matches!(limit, Limit::AbstractSocketsReachable { .. }));
    match unscoped {
        None => {
            online.failed();
            assert!(
                online.stderr.contains("Operation not permitted"),
                "{online:#?}"
            );
        }
        Some(limit) => {
            eprintln!("known limit on this system, checked as such: {limit}");
            assert_eq!(online.ok(), "CONNECTED\n");
        }
    }
}
