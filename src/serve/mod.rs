//! `rollsim serve`: the live tuning page. A local web server (axum on tokio) over the
//! core: the page sends its whole state (a config file, a scenario, the `--set`s its
//! controls made) with every request, so the server keeps nothing between requests and
//! every number shown is the one `rollsim run --set ...` prints.
//!
//! Security, for a server on a designer's laptop: it listens on 127.0.0.1 unless told
//! otherwise; a request whose Host header is not the address it listens on is refused (a
//! web page elsewhere cannot reach it through DNS rebinding); files are named, never
//! pathed, and only `*.toml` files directly inside the config folder are read or written;
//! bodies are capped; computations are bounded as the CLI's are, run a few at a time, and
//! stop when the page stops waiting for them. Whatever the folder holds and however
//! many ask, memory stays within a budget ([`memory`]); a request's headers, its body and
//! an idle connection each have a deadline, and connections are capped; a request that
//! would write a file is refused from a page of another origin.

mod api;
mod conns;
mod files;
mod listing;
mod memory;
mod stream;

use crate::error::AppError;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use rollsim_core::Cancel;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The largest request body: a page's state is a few kilobytes.
pub const BODY_LIMIT: usize = 256 * 1024;
/// Computations running at once; the rest wait their turn.
const AT_ONCE: usize = 4;
/// The longest a request's headers may take to arrive, counted from the connection's
/// opening or the end of its previous answer: so also how long a connection may sit idle.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest a request's body may take to arrive once its headers have.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections open at once; a further one takes the place of the one idle the longest,
/// or waits in the system's queue until one closes if every one is busy.
pub const MAX_CONNECTIONS: usize = 256;

#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The folder whose `*.toml` configs the page offers.
    pub dir: PathBuf,
    pub bind: IpAddr,
    /// 0: any free port (the address printed says which).
    pub port: u16,
    /// Stops the server (the binary's Ctrl-C handler holds a clone).
    pub cancel: Cancel,
}

/// What every handler shares: the folder, the addresses the Host header may name, the
/// computations' turnstile and the process's stop token.
pub struct App {
    files: files::Folder,
    hosts: Vec<String>,
    any_ip_host: Option<u16>,
    turns: Arc<tokio::sync::Semaphore>,
    cancel: Cancel,
    /// The tokens of the computations under way: Ctrl-C stops them at once (a Monte
    /// Carlo chunk checks its own token, not the process's).
    running: std::sync::Mutex<Vec<Cancel>>,
    /// The memory the requests in flight may take.
    memory: memory::Budget,
    /// The configs list's entries, remembered per file version.
    listing: listing::Listing,
}

impl App {
    /// A token for a new computation, stopped with the process.
    fn token(&self) -> Cancel {
        let c = Cancel::new();
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        running.retain(|t| !t.is_cancelled());
        running.push(c.clone());
        // Checked under the lock: a stop between the check and the push would miss it.
        if self.cancel.is_cancelled() {
            c.cancel();
        }
        c
    }

    fn stop_all(&self) {
        for t in self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            t.cancel();
        }
    }
}

/// Run the server until Ctrl-C. Prints the address to open as soon as it listens.
pub fn serve(o: &ServeOptions) -> Result<String, AppError> {
    let folder = files::Folder::open(&o.dir)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| AppError::BadOption(format!("starting the server: {e}")))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(o.bind, o.port))
            .await
            .map_err(|e| {
                let hint = if e.kind() == std::io::ErrorKind::AddrInUse {
                    " (another program has it: `--port 0` takes a free one)"
                } else {
                    ""
                };
                AppError::BadOption(format!("cannot listen on {}:{}: {e}{hint}", o.bind, o.port))
            })?;
        let addr = listener
            .local_addr()
            .map_err(|e| AppError::BadOption(format!("listening: {e}")))?;
        let app = Arc::new(App {
            hosts: hosts(addr),
            any_ip_host: o.bind.is_unspecified().then_some(addr.port()),
            files: folder,
            turns: Arc::new(tokio::sync::Semaphore::new(AT_ONCE)),
            cancel: o.cancel.clone(),
            running: Default::default(),
            memory: memory::Budget::new(),
            listing: Default::default(),
        });
        let shown = if addr.ip().is_unspecified() {
            SocketAddr::new(IpAddr::from([127, 0, 0, 1]), addr.port())
        } else {
            addr
        };
        {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "rollsim serve: the live page for {} is at http://{shown}/ (Ctrl-C stops it)",
                app.files.root().display()
            );
            let _ = out.flush();
        }
        accept(listener, app, &o.cancel).await;
        Ok::<_, AppError>(())
    })?;
    // Streams still open when Ctrl-C came (a simulation the page was waiting for) must not
    // hold the process: their workers see the stop token and end on their own.
    runtime.shutdown_timeout(Duration::from_millis(200));
    Ok("rollsim serve: stopped\n".into())
}

/// Take connections until Ctrl-C, each under the header and idle deadline, at most
/// [`MAX_CONNECTIONS`] at once (past that, the one idle the longest closes for the new
/// one: [`conns`]); then stop the computations and close the connections.
async fn accept(listener: tokio::net::TcpListener, app: Arc<App>, stop: &Cancel) {
    let service = TowerToHyperService::new(router(app.clone()));
    let graceful = GracefulShutdown::new();
    let open = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let table = Arc::new(conns::Conns::default());
    loop {
        let tcp = tokio::select! {
            r = listener.accept() => match r {
                Ok((tcp, _)) => tcp,
                // Out of file descriptors, or a connection reset before it was taken:
                // the next one may do; a pause keeps a full table from spinning.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            _ = stopped(stop) => break,
        };
        let permit = match open.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                table.close_oldest_idle();
                tokio::select! {
                    p = open.clone().acquire_owned() => match p {
                        Ok(p) => p,
                        Err(_) => break,
                    },
                    _ = stopped(stop) => break,
                }
            }
        };
        // Answers are a head and a body in two small writes: without TCP_NODELAY the
        // second waits for the page's delayed acknowledgement.
        let _ = tcp.set_nodelay(true);
        let (key, conn) = table.open();
        let service = service.clone();
        let marked = conn.clone();
        // Busy from the request's head to the drop of its answer's body.
        let counted = hyper::service::service_fn(move |req| {
            let busy = marked.busy();
            let answer = hyper::service::Service::call(&service, req);
            async move {
                let answer = answer.await?;
                Ok::<_, std::convert::Infallible>(answer.map(|body| {
                    Body::new(http_body_util::BodyExt::map_frame(body, move |frame| {
                        let _held = &busy;
                        frame
                    }))
                }))
            }
        });
        let served = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT)
            .serve_connection(TokioIo::new(tcp), counted);
        let served = graceful.watch(served);
        let table = table.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = served => {}
                _ = conn.closed() => {}
            }
            table.gone(key);
            drop(permit);
        });
    }
    drop(listener);
    app.stop_all();
    app.memory.close();
    // Streams the page was waiting for end as their computations see the stop token;
    // a connection that will not close in time is dropped with the runtime.
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(Duration::from_millis(300)) => {}
    }
}

/// Ready once `stop` is cancelled (the Ctrl-C handler sets a flag; it is looked at
/// every 25 ms, a small part of the half second a stop may take).
pub(super) async fn stopped(stop: &Cancel) {
    while !stop.is_cancelled() {
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// The Host values a request may carry: the address it reached, and `localhost` for a
/// loopback or every-address one; without the port where it is HTTP's own (80), as
/// browsers send it then.
fn hosts(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let ip = match addr.ip() {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    };
    let mut names = vec![ip];
    if addr.ip().is_loopback() || addr.ip().is_unspecified() {
        names.push("localhost".into());
    }
    let mut h: Vec<String> = names.iter().map(|n| format!("{n}:{port}")).collect();
    if port == 80 {
        h.extend(names);
    }
    h
}

/// The page's routes, behind the Host check and the body cap.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", only(get(page::index), Method::GET))
        .route("/app.js", only(get(page::script), Method::GET))
        .route("/style.css", only(get(page::style), Method::GET))
        .route("/api/configs", only(get(api::configs), Method::GET))
        .route("/api/view", only(post(api::view), Method::POST))
        .route("/api/simulate", only(post(api::simulate), Method::POST))
        .route("/api/roll", only(post(api::roll), Method::POST))
        .route("/api/balance", only(post(api::balance), Method::POST))
        .route("/api/save", only(post(api::save), Method::POST))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(app)
}

/// A route that answers any other method with 405, an `Allow` header and a message
/// naming the method to use (a script's `GET /api/view` learns it needs a POST).
fn only(route: MethodRouter<Arc<App>>, allowed: Method) -> MethodRouter<Arc<App>> {
    route.fallback(move |used: Method| async move {
        let how = if allowed == Method::POST {
            "use POST with a JSON body"
        } else {
            "use GET"
        };
        let mut r = api::refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("{used} is not served here: {how}"),
        );
        if let Ok(v) = HeaderValue::from_str(allowed.as_str()) {
            r.headers_mut().insert(header::ALLOW, v);
        }
        r
    })
}

async fn not_found() -> Response {
    api::refuse(StatusCode::NOT_FOUND, "no such page: the page is at /")
}

/// Refuse a request for another host (DNS rebinding); mark every answer as what it is.
async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let mut r = checked(&app, req, next).await;
    // On every answer, a refusal (403, 413, 408) as much as a page.
    let h = r.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'",
        ),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The answer to a request that passes the Host and Origin checks and whose body came
/// whole in time; the refusal otherwise.
async fn checked(app: &App, req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !allowed(app, host) {
        return api::refuse(
            StatusCode::FORBIDDEN,
            &format!(
                "Host `{}` is not this server's address ({}): refused",
                host.escape_debug(),
                app.hosts.join(", ")
            ),
        );
    }
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        if let Some(origin) = req.headers().get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            let own = origin
                .strip_prefix("http://")
                .is_some_and(|h| allowed(app, h));
            if !own {
                return api::refuse(
                    StatusCode::FORBIDDEN,
                    &format!(
                        "a page at `{}` may not send this server requests: only its own page (http://{}) may",
                        origin.escape_debug(),
                        app.hosts[0]
                    ),
                );
            }
        }
    }
    match with_body(req).await {
        Ok(req) => next.run(req).await,
        Err(refused) => refused,
    }
}

/// The request with its whole body read, within [`BODY_TIMEOUT`] and [`BODY_LIMIT`]:
/// a body that trickles in holds no handler, turn or memory while it does.
async fn with_body(req: Request) -> Result<Request, Response> {
    let too_big = || {
        api::refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("malformed request: the body is over {BODY_LIMIT} bytes"),
        )
    };
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_LIMIT as u64) {
        return Err(too_big());
    }
    let (parts, body) = req.into_parts();
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, BODY_LIMIT)).await {
        Ok(Ok(bytes)) => Ok(Request::from_parts(parts, Body::from(bytes))),
        Ok(Err(_)) if declared.is_none() => Err(too_big()),
        Ok(Err(e)) => Err(api::refuse(
            StatusCode::BAD_REQUEST,
            &format!("malformed request: the body was cut off: {e}"),
        )),
        Err(_) => Err(api::refuse(
            StatusCode::REQUEST_TIMEOUT,
            &format!(
                "malformed request: the body took over {} s to arrive",
                BODY_TIMEOUT.as_secs()
            ),
        )),
    }
}

fn allowed(app: &App, host: &str) -> bool {
    if app.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return true;
    }
    // Bound to every address: any IP literal (a DNS name is what rebinding needs).
    let Some(port) = app.any_ip_host else {
        return false;
    };
    host.parse::<SocketAddr>().is_ok_and(|a| a.port() == port)
}

/// The page itself: three files built into the binary, no network.
mod page {
    use axum::http::header;
    use axum::response::IntoResponse;

    pub async fn index() -> impl IntoResponse {
        (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            include_str!("page/index.html"),
        )
    }

    pub async fn script() -> impl IntoResponse {
        (
            [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
            include_str!("page/app.js"),
        )
    }

    pub async fn style() -> impl IntoResponse {
        (
            [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
            include_str!("page/style.css"),
        )
    }
}
