//! The stand-in for the model: the Messages API on 127.0.0.1, answering each conversation from
//! its script and logging every request, so a test can say exactly what the model was sent.
//!
//! A conversation is the main session unless its first user message carries a subagent's marker
//! (the text the Agent tool's `prompt` contains); its n-th answer is the n-th turn of its
//! script, n being the number of assistant messages in the request. Requests without tools
//! (titles, summaries) get a short text. A turn the script does not have is answered with text
//! and counted as an overrun, which the run reports.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};
use tiny_http::{Header, Method, Response, Server};

use super::anchor_mcp;
use super::sse;

/// One block of a scripted answer.
#[derive(Clone, Debug)]
pub enum Block {
    Text(String),
    Tool {
        id: String,
        name: String,
        input: Value,
    },
}

/// One scripted answer of the model: text and tool calls, after an optional delay.
#[derive(Clone, Debug, Default)]
pub struct Turn {
    pub blocks: Vec<Block>,
    pub delay: Duration,
}

impl Turn {
    /// A turn that calls one tool.
    pub fn tool(name: &str, input: Value) -> Turn {
        Turn::default().and_tool(name, input)
    }

    /// A turn that ends with text (`end_turn`).
    pub fn text(text: &str) -> Turn {
        Turn::default().and_text(text)
    }

    /// Another tool call in the same answer (parallel calls).
    pub fn and_tool(mut self, name: &str, input: Value) -> Turn {
        self.blocks.push(Block::Tool {
            id: String::new(),
            name: name.to_string(),
            input,
        });
        self
    }

    /// Text in the same answer.
    pub fn and_text(mut self, text: &str) -> Turn {
        self.blocks.push(Block::Text(text.to_string()));
        self
    }

    /// Answer only after `ms` milliseconds.
    pub fn after_ms(mut self, ms: u64) -> Turn {
        self.delay = Duration::from_millis(ms);
        self
    }

    /// The ids of this turn's tool calls, in order.
    pub fn tool_ids(&self) -> impl Iterator<Item = &str> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Tool { id, .. } => Some(id.as_str()),
            Block::Text(_) => None,
        })
    }
}

/// The turns of one conversation, in order. Tool calls get the ids `toolu_<conv>_<turn>_<k>`.
#[derive(Clone, Debug, Default)]
pub struct Script {
    pub turns: Vec<Turn>,
}

impl Script {
    pub fn new(turns: impl IntoIterator<Item = Turn>) -> Script {
        Script {
            turns: turns.into_iter().collect(),
        }
    }

    fn numbered(mut self, conv: &str) -> Script {
        for (t, turn) in self.turns.iter_mut().enumerate() {
            let mut k = 0;
            for b in &mut turn.blocks {
                if let Block::Tool { id, .. } = b {
                    *id = format!("toolu_{conv}_{t}_{k}");
                    k += 1;
                }
            }
        }
        self
    }
}

/// One request the CLI sent, with what it was answered as.
#[derive(Clone, Debug)]
pub struct Request {
    pub path: String,
    pub body: Value,
    /// `main`, a subagent's marker, `side` (no tools), `count_tokens`, `mcp`, `hook` (an http
    /// hook's POST to `/hook…`), or `other`.
    pub conversation: String,
    /// The turn of the conversation's script that answered, if one did.
    pub turn: Option<usize>,
}

#[derive(Default)]
struct State {
    main: Script,
    subagents: BTreeMap<String, Script>,
    requests: Vec<Request>,
    overruns: Vec<String>,
}

/// The running server; stopped when dropped.
pub struct Model {
    server: Arc<Server>,
    state: Arc<Mutex<State>>,
    thread: Option<thread::JoinHandle<()>>,
    pub port: u16,
}

impl Model {
    /// Starts serving; the scripts come with `script` (until then every turn is an overrun).
    pub fn start() -> Model {
        let server = Arc::new(Server::http("127.0.0.1:0").expect("bind the model stand-in"));
        let port = server.server_addr().to_ip().expect("an IP address").port();
        let state = Arc::new(Mutex::new(State::default()));
        let (srv, st) = (Arc::clone(&server), Arc::clone(&state));
        let thread = thread::spawn(move || {
            for mut req in srv.incoming_requests() {
                let st = Arc::clone(&st);
                // Each request on its own thread: a delayed answer holds up no other conversation.
                thread::spawn(move || {
                    let mut body = String::new();
                    let _ = req.as_reader().read_to_string(&mut body);
                    let (status, ctype, bytes, delay) = answer(&st, req.method(), req.url(), &body);
                    thread::sleep(delay);
                    let ct = Header::from_bytes("Content-Type", ctype).expect("header");
                    let _ = req.respond(
                        Response::from_data(bytes)
                            .with_status_code(status)
                            .with_header(ct),
                    );
                });
            }
        });
        Model {
            server,
            state,
            thread: Some(thread),
            port,
        }
    }

    /// The conversations' scripts; tool calls get their ids here.
    pub fn script(&self, main: Script, subagents: BTreeMap<String, Script>) {
        let mut st = self.state.lock().expect("model state");
        st.main = main.numbered("main");
        st.subagents = subagents
            .into_iter()
            .enumerate()
            .map(|(i, (marker, s))| (marker, s.numbered(&format!("sub{i}"))))
            .collect();
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.state.lock().expect("model state").requests.clone()
    }

    pub fn overruns(&self) -> Vec<String> {
        self.state.lock().expect("model state").overruns.clone()
    }

    /// The scripts with their tool-call ids filled in.
    pub fn scripts(&self) -> (Script, BTreeMap<String, Script>) {
        let st = self.state.lock().expect("model state");
        (st.main.clone(), st.subagents.clone())
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

type Answer = (u16, &'static str, Vec<u8>, Duration);

fn answer(st: &Mutex<State>, method: &Method, url: &str, body: &str) -> Answer {
    let path = url.split('?').next().unwrap_or(url).to_string();
    let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let mut st = st.lock().expect("model state");
    let log = |st: &mut State, conversation: &str, turn| {
        st.requests.push(Request {
            path: path.clone(),
            body: parsed.clone(),
            conversation: conversation.to_string(),
            turn,
        });
    };
    if path.starts_with("/mcp/") {
        log(&mut st, "mcp", None);
        let (status, reply) = anchor_mcp::answer(method, &parsed);
        let bytes = reply
            .map(|r| r.to_string().into_bytes())
            .unwrap_or_default();
        return (status, "application/json", bytes, Duration::ZERO);
    }
    if path.starts_with("/hook") {
        // An http hook's endpoint: no decision, as an allowing command hook prints nothing.
        log(&mut st, "hook", None);
        return (200, "application/json", b"{}".to_vec(), Duration::ZERO);
    }
    if path == "/v1/messages/count_tokens" {
        log(&mut st, "count_tokens", None);
        let reply = json!({"input_tokens": 100}).to_string().into_bytes();
        return (200, "application/json", reply, Duration::ZERO);
    }
    if path != "/v1/messages" {
        log(&mut st, "other", None);
        let reply = json!({"type": "error", "error": {"type": "not_found_error", "message": path}});
        return (
            404,
            "application/json",
            reply.to_string().into_bytes(),
            Duration::ZERO,
        );
    }
    let stream = parsed["stream"].as_bool().unwrap_or(false);
    let has_tools = parsed["tools"].as_array().is_some_and(|t| !t.is_empty());
    let (conversation, turn) = if has_tools {
        let conv = conversation_of(&st, &parsed);
        let n = assistant_turns(&parsed);
        let script = match conv.as_str() {
            "main" => &st.main,
            marker => &st.subagents[marker],
        };
        match script.turns.get(n) {
            Some(t) => (conv, Some((n, t.clone()))),
            None => {
                let msg = format!("{conv} has no turn {n}");
                st.overruns.push(msg);
                (conv, None)
            }
        }
    } else {
        ("side".to_string(), None)
    };
    log(&mut st, &conversation, turn.as_ref().map(|(n, _)| *n));
    let t = match turn {
        Some((_, t)) => t,
        None if conversation == "side" => Turn::text("Scripted session"),
        None => Turn::text("(the script has no turn for this request)"),
    };
    let model = parsed["model"].as_str().unwrap_or("claude-stand-in");
    let id = format!("msg_stand_in_{:04}", st.requests.len());
    let (ctype, bytes) = if stream {
        ("text/event-stream", sse::stream(&id, model, &t))
    } else {
        let message = sse::message(&id, model, &t);
        ("application/json", message.to_string().into_bytes())
    };
    (200, ctype, bytes, t.delay)
}

/// Which conversation a request belongs to: the subagent whose marker its first user message
/// carries, else the main session.
fn conversation_of(st: &State, body: &Value) -> String {
    let first = body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .map(texts_of)
        .unwrap_or_default();
    st.subagents
        .keys()
        .find(|marker| first.contains(marker.as_str()))
        .cloned()
        .unwrap_or_else(|| "main".to_string())
}

fn assistant_turns(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .map(|m| m.iter().filter(|m| m["role"] == "assistant").count())
        .unwrap_or(0)
}

/// Every text of a message: a string content, text blocks and tool results' text.
pub fn texts_of(message: &Value) -> String {
    let mut out = String::new();
    collect_text(&message["content"], &mut out);
    out
}

fn collect_text(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|i| collect_text(i, out)),
        Value::Object(o) => {
            if let Some(t) = o.get("text") {
                collect_text(t, out);
            }
            if let Some(c) = o.get("content") {
                collect_text(c, out);
            }
        }
        _ => {}
    }
}
