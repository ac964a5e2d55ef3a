//! The stdio transport of `seed mcp`: newline-delimited JSON-RPC, as rmcp's own, except for
//! lines that are not JSON.
//!
//! rmcp 3.9's `AsyncRwTransport` drops an unparsable line without a word (rust-sdk #938: there
//! is no id to answer, and answering garbage can start an error storm), and its `JsonRpcError`
//! omits an unknown id rather than writing `null`. JSON-RPC 2.0 asks for
//! `{"id": null, "error": {"code": -32700, …}}`, and a client that sent a broken line deserves
//! to hear so instead of waiting forever. `Transport` is rmcp's public extension point, so this
//! file reads the lines itself and writes that one reply as raw JSON; every other message is
//! rmcp's own types through serde, and the server keeps answering after a bad line. Until the
//! lifecycle starts, each message also passes `lifecycle::gate`, which answers a broken
//! `initialize` and a request that comes before it in words that name the problem.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::lifecycle::{self, Gate};

/// rmcp's limit: longer lines are dropped (with a reply here), not buffered.
const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

pub struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line being read. It lives here, not in `receive`, because the service polls
    /// `receive` inside a `select!`: a cancelled read leaves its bytes for the next call.
    line: Vec<u8>,
    /// Skipping the rest of an over-long line.
    discarding: bool,
    out: Arc<Mutex<W>>,
    /// Why reading stopped, when it was not the end of input.
    read_error: ReadError,
    /// The lifecycle has started: messages are no longer gated (see `lifecycle`).
    started: bool,
}

/// The error that ended the input, shared with whoever runs the server: the end of input is
/// a normal end, a failed read is not.
pub type ReadError = Arc<std::sync::Mutex<Option<String>>>;

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineTransport<R, W> {
    pub fn new(read: R, write: W) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            out: Arc::new(Mutex::new(write)),
            read_error: ReadError::default(),
            started: false,
        }
    }

    pub fn read_error(&self) -> ReadError {
        self.read_error.clone()
    }

    /// One line's meaning, with messages gated until the lifecycle starts.
    fn incoming(&mut self, raw: &[u8]) -> Incoming {
        let m = match classify(raw) {
            Incoming::Message(m) => *m,
            other => return other,
        };
        if self.started {
            return Incoming::Message(Box::new(m));
        }
        match lifecycle::gate(&m) {
            Gate::Pass => Incoming::Message(Box::new(m)),
            Gate::Start => {
                self.started = true;
                Incoming::Message(Box::new(m))
            }
            Gate::Refuse { id, code, message } => {
                Incoming::Reply(error_line(id, code.0.into(), message))
            }
            Gate::Drop(log) => {
                eprintln!("{log}");
                Incoming::Skip
            }
        }
    }
}

/// What one line of input asks for.
#[derive(Debug)]
enum Incoming {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// A JSON-RPC error to write back (a raw line: its `id` may be `null`).
    Reply(Vec<u8>),
    Skip,
}

fn error_line(id: Value, code: i64, message: String) -> Vec<u8> {
    let mut line = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string()
        .into_bytes();
    line.push(b'\n');
    line
}

fn classify(raw: &[u8]) -> Incoming {
    let line = raw.strip_suffix(b"\n").unwrap_or(raw);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(UTF8_BOM).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Incoming::Skip;
    }
    let err = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(m) => return Incoming::Message(Box::new(m)),
        Err(e) => e,
    };
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Reply(error_line(Value::Null, -32700, format!("parse error: {e}")));
        }
    };
    // Well-formed JSON of the wrong shape. A notification (no id) is never answered.
    let id = match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        None if value.get("method").is_some() => return Incoming::Skip,
        _ => Value::Null,
    };
    // A request that is well formed but for its `params` (`"params": 5`): JSON-RPC 2.0 says
    // params are structured, an object or an array; anything else is invalid params, not an
    // invalid request.
    let request_shaped = value.get("jsonrpc") == Some(&json!("2.0"))
        && value.get("method").is_some_and(Value::is_string)
        && !id.is_null();
    if request_shaped
        && let Some(p) = value.get("params")
        && !matches!(p, Value::Object(_) | Value::Array(_))
    {
        let method = value["method"].as_str().unwrap_or_default();
        return Incoming::Reply(error_line(
            id,
            -32602,
            format!(
                "invalid params: {method}: `params` must be an object, got {}",
                super::params::kind(p)
            ),
        ));
    }
    Incoming::Reply(error_line(id, -32600, format!("invalid request: {err}")))
}

async fn write_line<W: AsyncWrite + Unpin>(out: &Mutex<W>, bytes: &[u8]) -> std::io::Result<()> {
    let mut w = out.lock().await;
    w.write_all(bytes).await?;
    w.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        let bytes = serde_json::to_vec(&item).map(|mut b| {
            b.push(b'\n');
            b
        });
        async move { write_line(&out, &bytes.map_err(std::io::Error::other)?).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // Invariant: `line` holds at most MAX_LINE bytes here, so `room` is at least 1.
            let room = (MAX_LINE + 1).saturating_sub(self.line.len()) as u64;
            let read = (&mut self.read)
                .take(room)
                .read_until(b'\n', &mut self.line)
                .await;
            match read {
                // End of input. A last line without its newline is still a whole message
                // (clients that write one request and close stdin): answered like any other.
                Ok(0) => {
                    let line = std::mem::take(&mut self.line);
                    if std::mem::take(&mut self.discarding) || line.is_empty() {
                        return None;
                    }
                    match self.incoming(&line) {
                        Incoming::Message(m) => return Some(*m),
                        Incoming::Skip => return None,
                        // Written before the end is reported, by its own task (a cancelled
                        // `receive` must not tear the line).
                        Incoming::Reply(bytes) => {
                            let _ = tokio::spawn(reply_later(self.out.clone(), bytes)).await;
                            return None;
                        }
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    if let Ok(mut slot) = self.read_error.lock() {
                        *slot = Some(format!("cannot read stdin: {e}"));
                    }
                    return None;
                }
            }
            if self.line.last() != Some(&b'\n') {
                if self.line.len() > MAX_LINE {
                    self.line.clear();
                    if !self.discarding {
                        self.discarding = true;
                        let reply = error_line(
                            Value::Null,
                            -32600,
                            format!("invalid request: longer than {MAX_LINE} bytes"),
                        );
                        tokio::spawn(reply_later(self.out.clone(), reply));
                    }
                }
                continue;
            }
            let line = std::mem::take(&mut self.line);
            if std::mem::take(&mut self.discarding) {
                continue;
            }
            match self.incoming(&line) {
                Incoming::Message(m) => return Some(*m),
                Incoming::Skip => {}
                // Written by its own task: were `receive` cancelled mid-write, a torn line
                // would corrupt the stream.
                Incoming::Reply(bytes) => {
                    tokio::spawn(reply_later(self.out.clone(), bytes));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.out.lock().await.flush().await
    }
}

async fn reply_later<W: AsyncWrite + Unpin>(out: Arc<Mutex<W>>, bytes: Vec<u8>) {
    if let Err(e) = write_line(&out, &bytes).await {
        eprintln!("seed mcp: cannot write stdout: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(raw: &str) -> Value {
        match classify(raw.as_bytes()) {
            Incoming::Reply(b) => serde_json::from_slice(&b).unwrap(),
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    #[test]
    fn a_line_that_is_not_json_gets_a_parse_error_with_a_null_id() {
        let r = reply("{\"jsonrpc\": \"2.0\", \"id\": 1,\n");
        assert_eq!(r["id"], Value::Null);
        assert_eq!(r["error"]["code"], -32700);
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("parse error")
        );
    }

    #[test]
    fn json_of_the_wrong_shape_is_an_invalid_request_answered_by_id() {
        let r = reply("{\"jsonrpc\": \"1.0\", \"id\": 7, \"method\": \"ping\"}\n");
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(7), json!(-32600))
        );
        assert_eq!(reply("[1, 2]\n")["id"], Value::Null);
    }

    #[test]
    fn params_that_are_not_structured_are_invalid_params() {
        let r =
            reply("{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/list\", \"params\": 5}\n");
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(3), json!(-32602))
        );
        assert_eq!(
            r["error"]["message"],
            "invalid params: tools/list: `params` must be an object, got a number"
        );
        // Not a JSON-RPC 2.0 request at all: still an invalid request.
        let r = reply("{\"jsonrpc\": \"1.0\", \"id\": 3, \"method\": \"ping\", \"params\": 5}\n");
        assert_eq!(r["error"]["code"], -32600);
        // A notification with bad params is not answered.
        assert!(matches!(
            classify(b"{\"jsonrpc\": \"2.0\", \"method\": \"x\", \"params\": 5}\n"),
            Incoming::Skip
        ));
    }

    #[test]
    fn blank_lines_and_unknown_notifications_are_not_answered() {
        assert!(matches!(classify(b"  \r\n"), Incoming::Skip));
        assert!(matches!(
            classify(b"{\"jsonrpc\": \"2.0\", \"method\": 5}\n"),
            Incoming::Skip
        ));
        assert!(matches!(
            classify(b"\xEF\xBB\xBF{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\r\n"),
            Incoming::Message(_)
        ));
    }
}
