//! `turncoat serve`: a local web board to play and analyse every variant.
//!
//! An axum server on tokio. `GET /` and `GET /static/...` serve the page's
//! assets, which are built into the binary (no file is ever read); `GET /ws`
//! opens the tab's WebSocket, which owns one engine ([`analysis::Tab`]) and
//! speaks the JSON messages of [`protocol`], answered by the tab's
//! [`Session`] (crates/board: the same code the page's WebAssembly backend
//! runs). Positions, legal tokens and move effects come from [`board`].
//!
//! Any web page the user opens can make the browser send requests here, so
//! every request must name a host the server knows ([`AllowedHosts`]): a page
//! whose DNS name was rebound to this machine names its own.

pub use turncoat_board::{analysis, board, protocol};

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::ws::{close_code, CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Request as HttpRequest, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response as HttpResponse};
use axum::routing::get;
use axum::Router;
use tokio::sync::mpsc;

use analysis::Tab;
use protocol::{Response, MAX_MESSAGE_BYTES};
use turncoat_board::session::Session;

/// Most tabs served at once (each has its own engine and hash table).
pub const MAX_SESSIONS: usize = 8;

// Every tab's opening explorer full at once still leaves the server well
// under a GiB (besides the engines' hash tables, which the user sets).
const _: () = assert!(MAX_SESSIONS * turncoat_board::explorer::MAX_EXPLORER_BYTES <= 512 << 20);

/// How long the server waits for the client's Close after its own (or for
/// the client to take its answer to the client's Close) before it drops the
/// connection: a client that never answers must not hold a task.
const CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Port to listen on (0 = any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to bind; the default serves this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
}

/// The page's files, built into the binary.
struct Asset {
    path: &'static str,
    mime: &'static str,
    body: &'static [u8],
}

macro_rules! asset {
    ($path:literal, $mime:literal) => {
        Asset {
            path: $path,
            mime: $mime,
            body: include_bytes!(concat!("static/", $path)),
        }
    };
}

const ASSETS: &[Asset] = &[
    asset!("index.html", "text/html; charset=utf-8"),
    asset!("app.js", "text/javascript; charset=utf-8"),
    asset!("backend.js", "text/javascript; charset=utf-8"),
    asset!("engine-worker.js", "text/javascript; charset=utf-8"),
    asset!("app.css", "text/css; charset=utf-8"),
    asset!("editor.js", "text/javascript; charset=utf-8"),
    asset!("editor.css", "text/css; charset=utf-8"),
    asset!(
        "vendor/chessground.min.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("vendor/chessground.base.css", "text/css; charset=utf-8"),
    asset!("vendor/chessground.brown.css", "text/css; charset=utf-8"),
    asset!("vendor/chessground.cburnett.css", "text/css; charset=utf-8"),
];

/// Total size of the page's assets in bytes (the page weight).
pub fn page_weight() -> usize {
    ASSETS.iter().map(|a| a.body.len()).sum()
}

/// Host names every server answers to, whatever `--host` says.
const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The host names a request may name in `Host` (and a WebSocket in `Origin`):
/// the loopback names, the name given with `--host` and the address bound.
/// A DNS-rebinding page reaches the server under its own name, which is none
/// of these; the port is not checked, since a rebinding page cannot choose
/// the name but a tunnel (`ssh -L`) may change the port.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    /// Lower case, IPv6 addresses in brackets, as browsers write them in `Host`.
    names: Vec<String>,
    /// `--host` as given, for the refusal's text.
    given: String,
}

impl AllowedHosts {
    /// The names for a server started with `--host given`, bound to `bound`.
    pub fn new(given: &str, bound: SocketAddr) -> AllowedHosts {
        let mut names: Vec<String> = LOOPBACK_NAMES.iter().map(|n| n.to_string()).collect();
        let given_name = match given.parse::<IpAddr>() {
            Ok(ip) => host_form(ip),
            Err(_) => given.to_ascii_lowercase(),
        };
        for name in [given_name, host_form(bound.ip())] {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        AllowedHosts {
            names,
            given: given.to_string(),
        }
    }

    /// Whether `authority` (`name` or `name:port`, as in `Host`) names this
    /// server.
    pub fn allows(&self, authority: &str) -> bool {
        host_name(authority).is_some_and(|name| {
            self.names
                .iter()
                .any(|allowed| allowed.eq_ignore_ascii_case(name))
        })
    }

    fn refusal(&self, authority: &str) -> HttpResponse {
        let body = format!(
            "Turncoat refuses requests for the host name '{authority}': it answers only to \
             localhost, 127.0.0.1, [::1] and the name given with --host ({}), so that pages \
             from other sites cannot reach the engine through a rebound DNS name.\n",
            self.given
        );
        (StatusCode::FORBIDDEN, body).into_response()
    }
}

/// An address as a browser writes it in `Host`.
fn host_form(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}

/// The name part of `name[:port]` (`[v6][:port]` for IPv6), or None when the
/// text is not of that form.
fn host_name(authority: &str) -> Option<&str> {
    let (name, rest) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        authority.split_at(end + 1)
    } else {
        match authority.find(':') {
            Some(i) => authority.split_at(i),
            None => (authority, ""),
        }
    };
    let port_ok = match rest.strip_prefix(':') {
        None => rest.is_empty(),
        Some(port) => port.bytes().all(|b| b.is_ascii_digit()) && port.parse::<u16>().is_ok(),
    };
    (!name.is_empty() && port_ok).then_some(name)
}

struct AppState {
    sessions: AtomicUsize,
    hosts: AllowedHosts,
}

/// Refuses every request (page, asset or socket) that does not name one of
/// the server's hosts.
async fn check_host(
    State(state): State<Arc<AppState>>,
    request: HttpRequest,
    next: Next,
) -> HttpResponse {
    let authority = request
        .headers()
        .get(header::HOST)
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
        .or_else(|| request.uri().authority().map(|a| a.to_string()));
    let Some(authority) = authority else {
        return (StatusCode::BAD_REQUEST, "no Host header\n").into_response();
    };
    let mut response = if state.hosts.allows(&authority) {
        let mut response = next.run(request).await;
        // `authority` is one of our names with a numeric port: a valid value.
        if let Ok(csp) = HeaderValue::from_str(&content_security_policy(&authority)) {
            response
                .headers_mut()
                .insert(header::CONTENT_SECURITY_POLICY, csp);
        }
        response
    } else {
        state.hosts.refusal(&authority)
    };
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// The page loads only its own files (the pieces are `data:` images in the
/// board's CSS), talks only to its own socket, and may not be framed: another
/// site must not overlay it to steer the user's clicks.
fn content_security_policy(authority: &str) -> String {
    format!(
        "default-src 'self'; img-src 'self' data:; \
         connect-src 'self' ws://{authority} wss://{authority}; frame-ancestors 'none'; \
         base-uri 'none'; form-action 'none'"
    )
}

/// The page's choice of backend as the static build has it, and as this
/// server serves it (`static/backend.js` reads it).
const STATIC_BACKEND: &str = r#"<meta name="turncoat-backend" content="wasm">"#;
const SERVER_BACKEND: &str = r#"<meta name="turncoat-backend" content="socket">"#;

/// index.html as served here: talking to this server's WebSocket.
fn served_index() -> &'static [u8] {
    static INDEX: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let page = ASSETS
            .iter()
            .find(|a| a.path == "index.html")
            .map_or(&[][..], |a| a.body);
        String::from_utf8_lossy(page)
            .replacen(STATIC_BACKEND, SERVER_BACKEND, 1)
            .into_bytes()
    })
}

fn asset_response(path: &str) -> HttpResponse {
    match ASSETS.iter().find(|a| a.path == path) {
        Some(a) => (
            [
                (header::CONTENT_TYPE, a.mime),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            if a.path == "index.html" {
                served_index()
            } else {
                a.body
            },
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

async fn index() -> HttpResponse {
    asset_response("index.html")
}

async fn static_file(Path(path): Path<String>) -> HttpResponse {
    asset_response(&path)
}

/// A page from another site must not drive the engine through the user's
/// browser: when the browser names an Origin, it must be one of our hosts and
/// the one the socket was asked of (same name and port).
fn same_origin(headers: &HeaderMap, hosts: &AllowedHosts) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin.to_str().ok().and_then(|o| {
        o.strip_prefix("http://")
            .or_else(|| o.strip_prefix("https://"))
    });
    matches!((host, origin_host),
        (Some(h), Some(o)) if h.eq_ignore_ascii_case(o) && hosts.allows(o))
}

async fn ws_handler(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    State(state): State<Arc<AppState>>,
) -> HttpResponse {
    if !same_origin(&headers, &state.hosts) {
        return (StatusCode::FORBIDDEN, "cross-origin WebSocket refused").into_response();
    }
    let ws = ws
        .max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES);
    if state.sessions.fetch_add(1, Ordering::SeqCst) >= MAX_SESSIONS {
        state.sessions.fetch_sub(1, Ordering::SeqCst);
        // A refused upgrade reaches the page only as "connection failed":
        // accept it, say why, close (holding no slot).
        return ws.on_upgrade(refuse_tab);
    }
    ws.on_failed_upgrade({
        let state = Arc::clone(&state);
        move |_| {
            state.sessions.fetch_sub(1, Ordering::SeqCst);
        }
    })
    .on_upgrade(move |socket| async move {
        session(socket).await;
        state.sessions.fetch_sub(1, Ordering::SeqCst);
    })
}

/// The router: the page, its assets, the WebSocket. Nothing else, and only
/// for the `hosts`.
pub fn router(hosts: AllowedHosts) -> Router {
    let state = Arc::new(AppState {
        sessions: AtomicUsize::new(0),
        hosts,
    });
    Router::new()
        .route("/", get(index))
        .route("/static/{*path}", get(static_file))
        .route("/ws", get(ws_handler))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            check_host,
        ))
        .with_state(state)
}

/// Why a tab beyond [`MAX_SESSIONS`] gets no engine (a close reason: at most
/// 123 bytes).
fn too_many_tabs() -> String {
    format!(
        "too many tabs: {MAX_SESSIONS} are open, the most this server runs at once; \
         close one and reload"
    )
}

async fn refuse_tab(mut socket: WebSocket) {
    let why = too_many_tabs();
    let msg = Response::error(None, why.clone()).to_json();
    if socket.send(Message::Text(msg.into())).await.is_ok() {
        close(&mut socket, close_code::AGAIN, &why).await;
    }
}

/// Sends a Close with `code` and `reason`, then waits (a while) for the
/// client's Close, so that the client sees this code and not 1006.
async fn close(socket: &mut WebSocket, code: u16, reason: &str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    if socket.send(Message::Close(Some(frame))).await.is_ok() {
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, async {
            while let Some(Ok(_)) = socket.recv().await {}
        })
        .await;
    }
}

/// What to tell a client whose socket failed to read, if anything: the close
/// code and reason. A message over the limit is the one a page can cause.
fn read_failure(e: axum::Error) -> Option<(u16, String)> {
    use tungstenite::error::{CapacityError, Error};
    match e.into_inner().downcast_ref::<Error>()? {
        Error::Capacity(CapacityError::MessageTooLong { .. }) => Some((
            close_code::SIZE,
            format!("message too big: the largest this server reads is {MAX_MESSAGE_BYTES} bytes"),
        )),
        Error::Capacity(_) | Error::Protocol(_) => {
            Some((close_code::PROTOCOL, "WebSocket protocol error".into()))
        }
        Error::Utf8(_) => Some((close_code::INVALID, "text message is not UTF-8".into())),
        _ => None,
    }
}

async fn session(mut socket: WebSocket) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Response>();
    let sink = {
        let tx = tx.clone();
        Arc::new(move |r| {
            let _ = tx.send(r);
        })
    };
    let engine = match Tab::new(sink) {
        Ok(e) => e,
        Err(e) => {
            let why = format!("engine failure: {e}");
            let msg = Response::error(None, why.clone()).to_json();
            if socket.send(Message::Text(msg.into())).await.is_ok() {
                // A reason is at most 123 bytes; the message has it all.
                close(&mut socket, close_code::ERROR, "engine failure").await;
            }
            return;
        }
    };
    let mut s = Session::new(engine);
    let _ = tx.send(s.hello());
    let mut ticker = tokio::time::interval(analysis::TICK);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            msg = socket.recv() => {
                let text = match msg {
                    None => break,
                    Some(Err(e)) => {
                        if let Some((code, reason)) = read_failure(e) {
                            close(&mut socket, code, &reason).await;
                        }
                        break;
                    }
                    Some(Ok(Message::Close(_))) => {
                        // The next read sends the Close queued in answer.
                        let _ = tokio::time::timeout(CLOSE_TIMEOUT, socket.recv()).await;
                        break;
                    }
                    Some(Ok(Message::Text(t))) => t.to_string(),
                    Some(Ok(Message::Binary(_))) => {
                        let _ = tx.send(Response::error(None, "binary messages are not understood"));
                        continue;
                    }
                    Some(Ok(_)) => continue,
                };
                // Stopping a search joins its thread: keep the runtime's other
                // tasks going meanwhile.
                tokio::task::block_in_place(|| s.handle(&text, &mut |r| {
                    let _ = tx.send(r);
                }));
            }
            Some(reply) = rx.recv() => {
                if socket.send(Message::Text(reply.to_json().into())).await.is_err() {
                    break;
                }
            }
            _ = ticker.tick() => {
                if let Some(r) = s.engine().tick() {
                    if socket.send(Message::Text(r.to_json().into())).await.is_err() {
                        break;
                    }
                }
            }
        }
    }
    tokio::task::block_in_place(|| {
        s.engine().stop();
    });
}

/// Binds and serves on a runtime of its own in a background thread; returns
/// the bound address (tests and `serve` alike).
pub fn spawn(host: &str, port: u16) -> Result<SocketAddr, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind((host, port)))
        .map_err(|e| format!("cannot listen on {host}:{port}: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("no local address: {e}"))?;
    let hosts = AllowedHosts::new(host, addr);
    std::thread::Builder::new()
        .name("serve".into())
        .spawn(move || {
            runtime.block_on(async move {
                if let Err(e) = axum::serve(listener, router(hosts)).await {
                    log::error!("server stopped: {e}");
                }
            });
        })
        .map_err(|e| format!("cannot start the server thread: {e}"))?;
    Ok(addr)
}

fn open_browser(url: &str) {
    let cmd = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(target_os = "windows") {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(cmd).arg(url).spawn() {
        eprintln!("could not open a browser ({cmd}): {e}");
    }
}

/// `turncoat serve`: prints the address, serves until killed.
pub fn run(args: &ServeArgs) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port))
            .await
            .map_err(|e| format!("cannot listen on {}:{}: {e}", args.host, args.port))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("no local address: {e}"))?;
        let host = if addr.ip().is_ipv6() {
            format!("[{}]", addr.ip())
        } else {
            addr.ip().to_string()
        };
        let url = format!("http://{host}:{}/", addr.port());
        println!("Turncoat web board: {url}");
        if !addr.ip().is_loopback() {
            eprintln!("warning: listening on {addr}, reachable from other machines");
        }
        if args.open {
            open_browser(&url);
        }
        axum::serve(listener, router(AllowedHosts::new(&args.host, addr)))
            .await
            .map_err(|e| format!("server stopped: {e}"))
    })
}
