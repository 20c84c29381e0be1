//! `turncoat serve` against a running server, without a browser: the page's
//! assets, the WebSocket protocol in every variant (each kind of multi-part
//! move from tests/data's rule examples), errors, analysis and engine moves;
//! the `Host` and `Origin` checks, the security headers, and the close codes.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::CloseFrame;
use tungstenite::{connect, Message, WebSocket};

type Ws = WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>;

/// The tests that search take turns: their timing bounds (first line, updates a
/// second) assume the search is not sharing the 2 cores with another one.
fn one_search_at_a_time() -> MutexGuard<'static, ()> {
    static SEARCHING: Mutex<()> = Mutex::new(());
    SEARCHING.lock().unwrap_or_else(|e| e.into_inner())
}

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| turncoat::serve::spawn("127.0.0.1", 0).expect("server starts"))
}

fn open() -> Ws {
    let (mut ws, _) = connect(format!("ws://{}/ws", server())).expect("websocket");
    let hello = recv(&mut ws);
    assert_eq!(hello["type"], "hello", "{hello}");
    ws
}

fn recv(ws: &mut Ws) -> Value {
    loop {
        match ws.read().expect("read") {
            Message::Text(t) => return serde_json::from_str(t.as_str()).expect("json"),
            Message::Close(_) => panic!("closed"),
            _ => {}
        }
    }
}

fn send(ws: &mut Ws, v: &Value) {
    ws.send(Message::Text(v.to_string().into())).expect("send");
}

/// Sends `v` and returns the first answer that is not an analysis report.
fn ask(ws: &mut Ws, v: &Value) -> Value {
    send(ws, v);
    loop {
        let r = recv(ws);
        if r["type"] != "analysis" {
            return r;
        }
    }
}

fn position(ws: &mut Ws, variant: &str, fen: Option<&str>, moves: &[&str]) -> Value {
    ask(
        ws,
        &json!({"type": "position", "variant": variant, "fen": fen, "moves": moves}),
    )
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn http_get(path: &str) -> (String, Vec<u8>) {
    let mut s = TcpStream::connect(server()).expect("tcp");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        server()
    )
    .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).unwrap();
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("headers");
    (
        String::from_utf8_lossy(&buf[..split]).to_string(),
        buf[split + 4..].to_vec(),
    )
}

/// One HTTP/1.1 GET to `addr` with exactly the header lines given; returns
/// the status line with the headers, and the body (none after a 101).
fn raw_get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> (String, String) {
    let mut s = TcpStream::connect(addr).expect("tcp");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let split = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut chunk).expect("response");
        assert!(n > 0, "connection closed before the headers: {buf:?}");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..split]).to_string();
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = buf[split + 4..].to_vec();
    while body.len() < length {
        let n = s.read(&mut chunk).expect("body");
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    (head, String::from_utf8_lossy(&body).to_string())
}

/// A WebSocket upgrade request to `addr` naming `host` (and `origin`, if any).
fn upgrade(addr: SocketAddr, host: &str, origin: Option<&str>) -> (String, String) {
    let mut headers = vec![
        ("Host", host),
        ("Connection", "Upgrade"),
        ("Upgrade", "websocket"),
        ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ];
    if let Some(o) = origin {
        headers.push(("Origin", o));
    }
    raw_get(addr, "/ws", &headers)
}

/// The value of response header `name` in `head`.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// The page, an asset and the socket asked for under `host` (the socket with
/// `Origin: http://<host>`, as a page served under that name sends it).
fn statuses_for_host(addr: SocketAddr, host: &str) -> [String; 3] {
    let status = |head: String| head.lines().next().unwrap_or("").to_string();
    let get = |path| status(raw_get(addr, path, &[("Host", host), ("Connection", "close")]).0);
    let origin = format!("http://{host}");
    [
        get("/"),
        get("/static/app.js"),
        status(upgrade(addr, host, Some(&origin)).0),
    ]
}

const OK: [&str; 3] = [
    "HTTP/1.1 200 OK",
    "HTTP/1.1 200 OK",
    "HTTP/1.1 101 Switching Protocols",
];
const REFUSED: [&str; 3] = [
    "HTTP/1.1 403 Forbidden",
    "HTTP/1.1 403 Forbidden",
    "HTTP/1.1 403 Forbidden",
];

/// DNS rebinding: a page from evil.example whose name now resolves to
/// 127.0.0.1 reaches the server with `Host: evil.example:PORT` and, for the
/// socket, `Origin: http://evil.example:PORT`. Same-origin checks pass; only
/// the host name tells.
#[test]
fn rebound_host_is_refused_for_page_assets_and_socket() {
    let addr = server();
    let port = addr.port();
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("localhost.evil.example:{port}"),
        format!("127.0.0.1.evil.example:{port}"),
    ] {
        assert_eq!(statuses_for_host(addr, &host), REFUSED, "Host: {host}");
    }
    let (head, body) = raw_get(
        addr,
        "/",
        &[
            ("Host", &format!("evil.example:{port}")),
            ("Connection", "close"),
        ],
    );
    assert_eq!(
        header(&head, "content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(
        body,
        format!(
            "Turncoat refuses requests for the host name 'evil.example:{port}': it answers \
             only to localhost, 127.0.0.1, [::1] and the name given with --host (127.0.0.1), \
             so that pages from other sites cannot reach the engine through a rebound DNS \
             name.\n"
        )
    );
    // No Host at all (HTTP/1.0 style) is not a name the server answers to.
    let (head, _) = raw_get(addr, "/", &[("Connection", "close")]);
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
}

#[test]
fn loopback_names_are_accepted_with_or_without_the_port() {
    let addr = server();
    let port = addr.port();
    for host in [
        "localhost".to_string(),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
        "127.0.0.1".to_string(),
        format!("127.0.0.1:{port}"),
        "[::1]".to_string(),
        format!("[::1]:{port}"),
    ] {
        assert_eq!(statuses_for_host(addr, &host), OK, "Host: {host}");
    }
    // A socket without Origin (a script, not a browser) is served; one whose
    // Origin is another site, or another port, or rebound, is not.
    let host = format!("localhost:{port}");
    assert!(upgrade(addr, &host, None).0.starts_with("HTTP/1.1 101"));
    for origin in [
        "http://evil.example".to_string(),
        format!("http://evil.example:{port}"),
        format!("http://localhost:{}", port.wrapping_add(1)),
        "null".to_string(),
    ] {
        let (head, _) = upgrade(addr, &host, Some(&origin));
        assert!(head.starts_with("HTTP/1.1 403"), "Origin: {origin}: {head}");
    }
}

/// `turncoat serve --host NAME` answers to NAME too: 127.0.0.2 is a loopback
/// address on Linux but not one of the names accepted by default.
#[test]
fn name_given_with_host_is_accepted() {
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = Kill(
        std::process::Command::new(env!("CARGO_BIN_EXE_turncoat"))
            .args(["serve", "--host", "127.0.0.2", "--port", "0"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("turncoat serve"),
    );
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.0.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let url = line
        .trim()
        .strip_prefix("Turncoat web board: http://")
        .and_then(|u| u.strip_suffix('/'))
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    let addr: SocketAddr = url.parse().unwrap();
    assert_eq!(addr.ip().to_string(), "127.0.0.2");
    let port = addr.port();
    for host in [format!("127.0.0.2:{port}"), "127.0.0.2".to_string()] {
        assert_eq!(statuses_for_host(addr, &host), OK, "Host: {host}");
    }
    assert_eq!(statuses_for_host(addr, &format!("localhost:{port}")), OK);
    for host in [format!("127.0.0.3:{port}"), format!("evil.example:{port}")] {
        assert_eq!(statuses_for_host(addr, &host), REFUSED, "Host: {host}");
    }
}

/// Another site must not frame the board (clickjacking), nor make the
/// browser read an asset as another type.
#[test]
fn the_page_refuses_framing_and_sniffing() {
    let addr = server();
    let host = format!("127.0.0.1:{}", addr.port());
    for path in ["/", "/static/app.js", "/static/no-such-file"] {
        let (head, _) = raw_get(addr, path, &[("Host", &host), ("Connection", "close")]);
        assert_eq!(header(&head, "x-frame-options"), Some("DENY"), "{path}");
        assert_eq!(
            header(&head, "x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(
            header(&head, "content-security-policy"),
            Some(
                format!(
                    "default-src 'self'; img-src 'self' data:; \
                     connect-src 'self' ws://{host} wss://{host}; frame-ancestors 'none'; \
                     base-uri 'none'; form-action 'none'"
                )
                .as_str()
            ),
            "{path}"
        );
    }
}

/// The closing handshake: a client's Close is answered with a Close (the same
/// code), so the client sees a clean close and not 1006.
#[test]
fn a_close_from_the_client_is_answered() {
    let mut ws = open();
    ws.close(Some(CloseFrame {
        code: CloseCode::Away,
        reason: "tab closed".into(),
    }))
    .expect("close sent");
    match ws.read() {
        Ok(Message::Close(Some(f))) => assert_eq!(f.code, CloseCode::Away, "{f:?}"),
        other => panic!("expected the server's Close, got {other:?}"),
    }
}

/// A frame the server cannot read ends the tab with the close code that says
/// why: 1007 for a text message that is not UTF-8, 1002 for an opcode
/// WebSocket does not define.
#[test]
fn broken_frames_are_closed_with_their_code() {
    use tungstenite::protocol::frame::coding::{Data, OpCode};
    use tungstenite::protocol::frame::Frame;
    let cases = [
        (
            OpCode::Data(Data::Text),
            CloseCode::Invalid,
            "text message is not UTF-8",
        ),
        (
            OpCode::Data(Data::Reserved(3)),
            CloseCode::Protocol,
            "WebSocket protocol error",
        ),
    ];
    for (opcode, code, reason) in cases {
        let mut ws = open();
        let frame = Frame::message(vec![0xffu8, 0xfe, b'{'], opcode, true);
        ws.send(Message::Frame(frame)).expect("frame sent");
        match ws.read() {
            Ok(Message::Close(Some(f))) => {
                assert_eq!((f.code, f.reason.as_str()), (code, reason), "{opcode:?}")
            }
            other => panic!("{opcode:?}: expected Close {code}, got {other:?}"),
        }
    }
}

/// A tab beyond the limit is told why, in a message and in the close reason,
/// and gets a tab once one is closed.
#[test]
fn a_tab_beyond_the_limit_is_told_too_many_tabs() {
    // A server of its own: the other tests' tabs must not count here.
    let addr = turncoat::serve::spawn("127.0.0.1", 0).expect("server starts");
    let url = format!("ws://{addr}/ws");
    let open_tab = || {
        let (mut ws, _) = connect(&url).expect("websocket");
        let hello = recv(&mut ws);
        assert_eq!(hello["type"], "hello", "{hello}");
        ws
    };
    let mut tabs: Vec<Ws> = (0..turncoat::serve::MAX_SESSIONS)
        .map(|_| open_tab())
        .collect();
    let why = "too many tabs: 8 are open, the most this server runs at once; close one and reload";
    let (mut ninth, _) = connect(&url).expect("the ninth tab's socket opens, to be told why");
    let r = recv(&mut ninth);
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["message"], why);
    match ninth.read() {
        Ok(Message::Close(Some(f))) => {
            assert_eq!(f.code, CloseCode::Again);
            assert_eq!(f.reason.as_str(), why);
        }
        other => panic!("expected Close 1013, got {other:?}"),
    }
    // The refused tab held no slot; closing a tab frees one.
    let mut first = tabs.remove(0);
    first.close(None).unwrap();
    while first.read().is_ok() {}
    let t = Instant::now();
    loop {
        let (mut ws, _) = connect(&url).expect("websocket");
        let r = recv(&mut ws);
        if r["type"] == "hello" {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "no slot 10 s after a tab closed: {r}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn serves_the_page_and_nothing_else() {
    let (head, body) = http_get("/");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let html = String::from_utf8_lossy(&body);
    for id in [
        "id=\"board\"",
        "id=\"fen\"",
        "id=\"move\"",
        "id=\"moves\"",
        "id=\"analysis\"",
        "id=\"variant\"",
    ] {
        assert!(html.contains(id), "index.html lacks {id}");
    }
    // The page's file says `wasm` (the static build); served here, `socket`.
    assert!(
        html.contains(r#"<meta name="turncoat-backend" content="socket">"#),
        "the served page does not pick the server's backend"
    );
    let (head, _) = http_get("/static/vendor/chessground.min.js");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    for bad in [
        "/static/../Cargo.toml",
        "/static/%2e%2e/Cargo.toml",
        "/etc/passwd",
        "/static/",
        "/static/app.js/../../src/main.rs",
    ] {
        let (head, _) = http_get(bad);
        assert!(
            head.starts_with("HTTP/1.1 404") || head.starts_with("HTTP/1.1 400"),
            "{bad}: {head}"
        );
    }
    let weight = turncoat::serve::page_weight();
    assert!(weight < 1_000_000, "page weight {weight} bytes");
}

#[test]
fn cross_origin_websocket_refused() {
    use tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/ws", server())
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("Origin", "http://evil.example".parse().unwrap());
    assert!(connect(req).is_err());
}

#[test]
fn chess_position_and_san() {
    let mut ws = open();
    let r = position(&mut ws, "chess", None, &[]);
    assert_eq!(r["type"], "position", "{r}");
    assert_eq!(strings(&r["legal"]).len(), 20);
    assert_eq!(r["turn"], "white");
    let r = position(&mut ws, "chess", None, &["e2e4", "e7e5", "g1f3"]);
    assert_eq!(
        r["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    assert_eq!(r["last"]["san"], "Nf3");
    assert_eq!(r["last"]["said"], "the knight on g1 goes to f3");
    assert_eq!(strings(&r["sans"]), ["e4", "e5", "Nf3"]);
    assert_eq!(
        strings(&r["said"]),
        [
            "the pawn on e2 goes to e4",
            "the pawn on e7 goes to e5",
            "the knight on g1 goes to f3"
        ]
    );
    assert_eq!(strings(&r["last"]["squares"]), ["g1", "f3"]);
    // Fool's mate: the end is announced with its reason.
    let r = position(&mut ws, "chess", None, &["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert_eq!(r["outcome"]["result"], "0-1", "{r}");
    assert_eq!(r["outcome"]["reason"], "checkmate");
    assert_eq!(r["check"], "e1");
    assert_eq!(r["last"]["san"], "Qh4#");
}

/// Every rule example of tests/data: the legal tokens, and the position after
/// each listed move (plain moves, promotions, Cowardly Crew `,n`, subversions,
/// Attending Pawns relocations and promotions, Cruise Pawns launches,
/// self-detonations and shoot-downs, Pacifist cascades).
#[test]
fn rule_examples_in_every_variant() {
    let mut ws = open();
    let mut checked = 0;
    for variant in [
        "cowardlycrew",
        "subversion",
        "attendingpawns",
        "cruisepawns",
        "pacifist",
        "andernach",
        "antiandernach",
        "superandernach",
    ] {
        let path = format!(
            "{}/tests/data/{variant}_examples.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let examples: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for ex in examples.as_array().unwrap() {
            let fen = ex["fen"].as_str().unwrap();
            // An example's `moves` are played first, as in a game.
            let before = common::example_moves(ex);
            let r = position(&mut ws, variant, Some(fen), &before);
            if ex["error"].is_string() || ex.get("valid") == Some(&Value::Bool(false)) {
                continue;
            }
            if r["type"] != "position" {
                // Examples of rejected FENs.
                assert_eq!(r["type"], "error");
                continue;
            }
            if let Some(legal) = ex.get("legal") {
                let mut want = strings(legal);
                let mut got = strings(&r["legal"]);
                want.sort();
                got.sort();
                assert_eq!(got, want, "{variant} {fen}");
            }
            if let Some(after) = ex.get("after").and_then(|a| a.as_object()) {
                for (token, fen_after) in after {
                    let line: Vec<&str> = before.iter().copied().chain([token.as_str()]).collect();
                    let r = position(&mut ws, variant, Some(fen), &line);
                    assert_eq!(r["type"], "position", "{variant} {fen} {token}: {r}");
                    assert_eq!(r["fen"], *fen_after, "{variant} {fen} {token}");
                    assert_eq!(r["last"]["token"], token.as_str());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 40, "only {checked} moves checked");
}

#[test]
fn effects_of_multi_part_moves() {
    let mut ws = open();
    // Cowardly Crew: d4e5 converts d6 and f6; d4e5,n nothing.
    let fen = "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1";
    let r = position(&mut ws, "cowardlycrew", Some(fen), &["d4e5"]);
    let mut conv = strings(&r["last"]["converted"]);
    conv.sort();
    assert_eq!(conv, ["d6", "f6"]);
    let r = position(&mut ws, "cowardlycrew", Some(fen), &["d4e5,n"]);
    assert!(strings(&r["last"]["converted"]).is_empty());

    // Subversion: the target converts, the paid pawn is removed.
    let fen = "1r5k/8/2n5/3pb3/3N4/8/6PP/K7 w - - 0 1";
    let r = position(&mut ws, "subversion", Some(fen), &["@e5,g2"]);
    assert_eq!(strings(&r["last"]["converted"]), ["e5"]);
    assert_eq!(strings(&r["last"]["removed"]), ["g2"]);

    // Attending Pawns: links follow the celebrity.
    let r = position(&mut ws, "attendingpawns", None, &["b1c3,b2d3"]);
    assert_eq!(r["type"], "position", "{r}");
    let links: Vec<Vec<String>> = r["links"].as_array().unwrap().iter().map(strings).collect();
    assert!(
        links.contains(&vec!["c3".to_string(), "d3".to_string()]),
        "{links:?}"
    );
    assert_eq!(links.len(), 16);
    // The attendant moved: nothing was removed.
    assert!(strings(&r["last"]["removed"]).is_empty(), "{r}");

    // Cruise Pawns: the missile in flight, then a shoot-down.
    let fen = "7r/P7/8/8/8/8/8/K6k w - - 0 1 -";
    let r = position(&mut ws, "cruisepawns", Some(fen), &["a7*b6c5d5e5f6g7h8"]);
    assert_eq!(r["missile"]["launch"], "a7", "{r}");
    assert_eq!(
        strings(&r["missile"]["path"]),
        ["b6", "c5", "d5", "e5", "f6", "g7", "h8"]
    );
    let r = position(&mut ws, "cruisepawns", Some(fen), &["a7*"]);
    assert_eq!(strings(&r["last"]["removed"]), Vec::<String>::new());
    assert!(r["missile"].is_null());

    // Pacifist: RULES.md's worked example, cascade in rounds.
    let fen = "rkqn1rb1/ppppppbp/P7/1n4p1/8/4N3/1PPPPPPP/RNK1BBQR w - - 0 1";
    let r = position(&mut ws, "pacifist", Some(fen), &["e3f5"]);
    let rounds: Vec<Vec<String>> = r["last"]["cascade"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            let mut v = strings(x);
            v.sort();
            v
        })
        .collect();
    assert_eq!(
        rounds,
        vec![
            vec!["e7", "g7"],
            vec!["f8"],
            vec!["d8", "g8"],
            vec!["f7", "h7"]
        ],
        "{r}"
    );
}

#[test]
fn errors_leave_the_position() {
    let mut ws = open();
    let r = position(&mut ws, "chess", None, &["e2e4"]);
    assert_eq!(r["type"], "position");
    for bad in [
        json!({"type": "position", "variant": "chess", "fen": "not a fen"}),
        json!({"type": "position", "variant": "chess", "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}),
        json!({"type": "position", "variant": "chess", "moves": ["e2e5"]}),
        json!({"type": "position", "variant": "atomic"}),
        json!({"type": "position", "variant": "cowardlycrew", "moves": ["b1c3,b2b2"]}),
        json!({"type": "position", "variant": "chess", "fen": "x".repeat(5000)}),
        json!({"type": "position", "variant": "chess", "moves": vec!["e2e4"; 3000]}),
        json!({"type": "position", "variant": 7}),
        json!({"type": "launch_missiles"}),
        json!({"no": "type"}),
        json!({"type": "analyse", "multipv": 9}),
        json!({"type": "analyse", "multipv": 0}),
        json!({"type": "options", "hash": 100000}),
        json!({"type": "options", "threads": 1000}),
        json!({"type": "go"}),
        json!({"type": "go", "movetime": 100000000}),
        json!({"type": "go", "wtime": 1000}),
        json!({"type": "go", "wtime": 1000, "btime": -5}),
        json!({"type": "pgn_import", "text": "[Event \"x\"]\n\n1. e4 e5 2. Qxf7"}),
        json!({"type": "pgn_export", "variant": "chess", "moves": ["e2e5"]}),
    ] {
        let r = ask(&mut ws, &bad);
        assert_eq!(r["type"], "error", "{bad}: {r}");
        assert!(r["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    for junk in ["", "{", "[1,2]", "null", "\u{0}\u{1}"] {
        ws.send(Message::Text(junk.into())).unwrap();
        let r = recv(&mut ws);
        assert_eq!(r["type"], "error", "{junk:?}: {r}");
    }
    ws.send(Message::Binary(vec![1u8, 2, 3].into())).unwrap();
    assert_eq!(recv(&mut ws)["type"], "error");
    // The session survived and its position is the last good one: a search
    // answers from it.
    let r = ask(&mut ws, &json!({"type": "go", "nodes": 2000, "id": 5}));
    assert_eq!(r["type"], "bestmove", "{r}");
    assert_eq!(
        r["fen"],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(r["id"], 5);
    // On a clock the engine spends its own time: with 300 ms left (Black's
    // clock, Black to move) it answers well within it, as UCI's go would.
    let t = std::time::Instant::now();
    let r = ask(
        &mut ws,
        &json!({"type": "go", "id": 6, "wtime": 60000, "btime": 300, "winc": 0, "binc": 0}),
    );
    assert_eq!(r["type"], "bestmove", "{r}");
    assert_eq!(r["id"], 6);
    assert!(
        t.elapsed() < std::time::Duration::from_millis(300),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn oversized_message_closes_only_that_tab() {
    let mut ws = open();
    let big = json!({"type": "pgn_import", "text": "x".repeat(2 << 20)});
    let _ = ws.send(Message::Text(big.to_string().into()));
    // The server closes this connection with 1009 and says why; others are
    // unaffected.
    match ws.read() {
        Ok(Message::Close(Some(f))) => {
            assert_eq!(f.code, CloseCode::Size);
            assert_eq!(
                f.reason.as_str(),
                "message too big: the largest this server reads is 1048576 bytes"
            );
        }
        other => panic!("expected Close 1009, got {other:?}"),
    }
    let mut other = open();
    let r = position(&mut other, "chess", None, &[]);
    assert_eq!(r["type"], "position");
}

#[test]
fn analysis_streams_multipv_lines_and_stops() {
    let _turn = one_search_at_a_time();
    let mut ws = open();
    let r = position(&mut ws, "chess", None, &["e2e4"]);
    assert_eq!(r["type"], "position");
    let started = Instant::now();
    send(&mut ws, &json!({"type": "analyse", "multipv": 3}));
    let mut first_line = None;
    let mut updates = 0;
    let mut best = Value::Null;
    while started.elapsed() < Duration::from_millis(1500) {
        let r = recv(&mut ws);
        assert_eq!(r["type"], "analysis", "{r}");
        updates += 1;
        if !r["lines"].as_array().unwrap().is_empty() && first_line.is_none() {
            first_line = Some(started.elapsed());
        }
        best = r;
    }
    let first_line = first_line.expect("no line within 1.5 s");
    eprintln!("first line after {first_line:?}, {updates} updates in 1.5 s");
    assert!(first_line < Duration::from_millis(1000));
    assert!(updates >= 5, "{updates} updates in 1.5 s");
    let lines = best["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 3, "{best}");
    let mut firsts: Vec<&str> = lines.iter().map(|l| l["pv"][0].as_str().unwrap()).collect();
    firsts.dedup();
    assert_eq!(firsts.len(), 3);
    // SAN beside the tokens in chess.
    assert!(lines[0]["pv_san"][0]
        .as_str()
        .unwrap()
        .chars()
        .next()
        .unwrap()
        .is_ascii_alphabetic());
    let t = Instant::now();
    send(&mut ws, &json!({"type": "stop"}));
    loop {
        let r = recv(&mut ws);
        if r["type"] == "stopped" {
            break;
        }
        assert_eq!(r["type"], "analysis");
    }
    let stop = t.elapsed();
    eprintln!("stop answered in {stop:?}");
    assert!(stop < Duration::from_millis(500));
    // Nothing more arrives after the stop.
    let r = position(&mut ws, "chess", None, &[]);
    assert_eq!(r["type"], "position");
}

/// The analysis lines of a variant in its readable notation (docs/RULES.md,
/// "Notation: readable"), the tokens beside them.
#[test]
fn analysis_in_a_variant_is_readable() {
    let _turn = one_search_at_a_time();
    let mut ws = open();
    let fen = "7r/P7/8/8/8/8/8/K6k w - - 0 1 -";
    assert_eq!(
        position(&mut ws, "cruisepawns", Some(fen), &[])["type"],
        "position"
    );
    send(&mut ws, &json!({"type": "analyse", "multipv": 2}));
    let t = Instant::now();
    let mut lines = Vec::new();
    while t.elapsed() < Duration::from_millis(800) {
        let r = recv(&mut ws);
        lines = r["lines"].as_array().cloned().unwrap_or_default();
    }
    assert_eq!(lines.len(), 2);
    // Each move of each line as its token, and as the readable notation
    // writes it in that line's position.
    for line in &lines {
        let pv = strings(&line["pv"]);
        let shown = strings(&line["pv_san"]);
        let (want, why) = turncoat::rules::notation::line_texts(
            turncoat::rules::variants::VariantKind::CruisePawns,
            fen,
            &pv,
            turncoat::rules::notation::Notation::Readable,
        );
        assert_eq!((shown, why), (want, None));
    }

    assert_eq!(ask(&mut ws, &json!({"type": "stop"}))["type"], "stopped");
}

#[test]
fn engine_move_and_pgn() {
    let _turn = one_search_at_a_time();
    let mut ws = open();
    let r = ask(
        &mut ws,
        &json!({"type": "options", "hash": 16, "threads": 1}),
    );
    assert_eq!(
        (r["type"].as_str(), r["hash"].as_u64()),
        (Some("options"), Some(16))
    );
    let fen = "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1";
    position(&mut ws, "cowardlycrew", Some(fen), &[]);
    let r = ask(&mut ws, &json!({"type": "go", "movetime": 200}));
    assert_eq!(r["type"], "bestmove");
    let token = r["token"].as_str().unwrap().to_string();
    let r = position(&mut ws, "cowardlycrew", Some(fen), &[&token]);
    assert_eq!(r["type"], "position");

    let r = ask(
        &mut ws,
        &json!({"type": "pgn_export", "variant": "cowardlycrew", "fen": fen,
                "moves": ["d4e5", "h8g7"], "white": "Me", "black": "Turncoat"}),
    );
    let text = r["text"].as_str().unwrap();
    assert!(text.contains("[Variant \"cowardlycrew\"]"), "{text}");
    assert!(text.contains("[FEN \"7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1\"]"));
    assert!(text.contains("1. dxe5~2 Kg7 *"), "{text}");
    let r = ask(&mut ws, &json!({"type": "pgn_import", "text": text}));
    assert_eq!(r["type"], "pgn", "{r}");
    assert_eq!(strings(&r["games"][0]["moves"]), ["d4e5", "h8g7"]);
    assert_eq!(r["games"][0]["start_fen"], fen);
}
