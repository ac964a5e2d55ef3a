//! The shell around the model: one `tokio::select!` (current-thread runtime) over crossterm's
//! event stream, the feed's channel, an optional tick and the render deadline. Messages are
//! drained, then the screen is drawn only when dirty, at most every 16 ms, inside synchronized
//! output. Idle means nothing wakes: no ticks, no draws. The terminal is restored on quit,
//! error, panic (ratatui's hook, chained after color-eyre's) and SIGTERM/SIGHUP.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use color_eyre::eyre::{Result, WrapErr};
use crossterm::event::{Event, EventStream};
use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use futures_util::StreamExt;
use ratatui::DefaultTerminal;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::feed::{self, Feed, Tagged};
use super::model::Model;
use super::settings;
use super::start::{self, Options, Target};
use super::theme::{Theme, no_color_env};
use super::update::{Effect, Msg, update};

/// Frames are at least this far apart; bursts of records coalesce into one draw.
const FRAME: Duration = Duration::from_millis(16);
/// How often a live dashboard learns the time, for the ages it shows.
const LIVE_TICK: Duration = Duration::from_secs(5);

/// Restores the terminal however the loop ends (its `Drop` cannot panic: errors are printed).
struct TermGuard;

impl Drop for TermGuard {
    fn drop(&mut self) {
        let _ = crossterm::execute!(io::stdout(), crossterm::event::DisableMouseCapture);
        ratatui::restore();
        let _ = crossterm::execute!(io::stdout(), crossterm::cursor::Show);
    }
}

pub fn run(opts: Options) -> Result<()> {
    // Before the terminal is taken, so ratatui's panic hook restores it before the report.
    color_eyre::install()?;
    let (remembered, mut warning) = settings::load(&settings::path(&opts.state));
    let theme = match (&opts.theme, &remembered.theme) {
        // A theme remembered from an earlier run that no longer loads: the default, said once.
        (None, Some(name)) => Theme::select(name, opts.user_dir.as_deref(), no_color_env())
            .or_else(|e| {
                warning = Some(format!(
                    "remembered theme not loaded ({e}); using the default"
                ));
                Theme::select("default", opts.user_dir.as_deref(), no_color_env())
            }),
        (name, _) => Theme::select(
            name.as_deref().unwrap_or("default"),
            opts.user_dir.as_deref(),
            no_color_env(),
        ),
    }
    .map_err(|e| color_eyre::eyre::eyre!("{e}"))?;
    // A replay is loaded before the terminal is taken, so a bad source is a plain error.
    let (target, replay) = match &opts.replay {
        Some(source) => {
            let (t, records) =
                start::replay_target(&opts, source).map_err(|e| color_eyre::eyre::eyre!("{e}"))?;
            (t, Some(records))
        }
        None => {
            start::check(&opts).map_err(|e| color_eyre::eyre::eyre!("{e}"))?;
            let listed = start::choose(&opts, None).wrap_err("cannot list sessions")?;
            let mut target = start::target(&opts, listed.as_ref());
            if listed.is_none() {
                target.notices.extend(start::waiting_notice(&opts));
            }
            (target, None)
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let terminal = ratatui::try_init().wrap_err("cannot set up the terminal")?;
    let _guard = TermGuard;
    let mut shell = Shell::new(opts, theme, terminal, target, replay)?;
    settings::apply(&remembered, &mut shell.model);
    if let Some(w) = warning {
        shell.model.notice = Some(w);
    }
    shell.perform(Effect::SetMouse(shell.model.mouse))?;
    rt.block_on(shell.run())
}

struct Shell {
    opts: Options,
    theme: Theme,
    terminal: DefaultTerminal,
    model: Model,
    tx: UnboundedSender<Tagged>,
    rx: UnboundedReceiver<Tagged>,
    generation: u64,
    feed: Option<Feed>,
    tick: Option<tokio::time::Interval>,
    /// Replay playback: when to show the next record, and the (cursor, playing, speed) it was
    /// scheduled for (rescheduled only when those change).
    play: Option<tokio::time::Instant>,
    play_for: Option<(usize, bool, i8)>,
    dirty: bool,
    last_draw: Instant,
    shots: u32,
    /// The log followed, for a call's detail.
    log: Option<std::path::PathBuf>,
}

impl Shell {
    fn new(
        opts: Options,
        theme: Theme,
        terminal: DefaultTerminal,
        target: Target,
        replay: Option<Vec<crate::store::record::Record>>,
    ) -> Result<Shell> {
        let (tx, rx) = unbounded_channel();
        let mut shell = Shell {
            model: Model::new(Default::default(), Vec::new(), &theme.name),
            opts,
            theme,
            terminal,
            tx,
            rx,
            generation: 0,
            feed: None,
            tick: None,
            play: None,
            play_for: None,
            dirty: true,
            last_draw: Instant::now() - FRAME,
            shots: 0,
            log: None,
        };
        match replay {
            Some(records) => shell.replay(target, records),
            None => shell.follow(target, None)?,
        }
        Ok(shell)
    }

    /// Start over on `target`: a fresh model (keeping the screen settings) and a new feed.
    fn follow(&mut self, target: Target, agent: Option<String>) -> Result<()> {
        self.feed = None;
        self.generation += 1;
        let mut cfg = start::feed_config(
            &self.opts,
            &target.info.id,
            target.log.clone(),
            &target.seqs,
            self.generation,
        );
        cfg.started = target.info.started;
        let mut m = Model::new(target.info, target.seqs, &self.theme.name);
        m.themes = Theme::available(self.opts.user_dir.as_deref());
        m.size = self
            .terminal
            .size()
            .map(|s| (s.width, s.height))
            .unwrap_or((80, 24));
        m.tz = jiff::tz::TimeZone::system();
        m.now = Some(jiff::Timestamp::now().as_millisecond());
        m.follow_latest = self.opts.session.is_none();
        m.focus = self.model.focus;
        m.chart_view = self.model.chart_view;
        m.zoom = self.model.zoom;
        m.mouse = self.model.mouse;
        self.log = target.log.clone();
        m.notice = (!target.notices.is_empty()).then(|| target.notices.join("; "));
        if let Some(a) = agent {
            m.filter.text = a;
        }
        self.model = m;
        self.feed =
            Some(feed::spawn(cfg, self.tx.clone()).wrap_err("cannot start the log reader")?);
        self.dirty = true;
        Ok(())
    }

    /// Replay `records` (no feed: nothing is tailed) from the start, paused unless `autoplay`.
    fn replay(&mut self, target: Target, records: Vec<crate::store::record::Record>) {
        self.feed = None;
        self.generation += 1;
        let mut m = Model::new(target.info, target.seqs, &self.theme.name);
        m.themes = Theme::available(self.opts.user_dir.as_deref());
        m.size = self
            .terminal
            .size()
            .map(|s| (s.width, s.height))
            .unwrap_or((80, 24));
        m.tz = jiff::tz::TimeZone::system();
        m.notice = (!target.notices.is_empty()).then(|| target.notices.join("; "));
        m.open_replay(records, self.opts.autoplay);
        self.model = m;
        self.dirty = true;
        self.schedule(None);
    }

    /// Keep the playback timer in step with the model: a new deadline whenever the cursor,
    /// play state or speed changed; `from` is the deadline that just fired (no drift).
    fn schedule(&mut self, from: Option<tokio::time::Instant>) {
        let now = match (&self.model.replay, self.model.mode) {
            (Some(rp), super::Mode::Replay { cursor }) => Some((cursor, rp.playing, rp.speed)),
            _ => None,
        };
        if now == self.play_for && from.is_none() {
            return;
        }
        self.play_for = now;
        let base = from.unwrap_or_else(tokio::time::Instant::now);
        self.play = super::replay::next_delay(&self.model).map(|d| base + d);
    }

    async fn run(mut self) -> Result<()> {
        let mut input = EventStream::new();
        let mut signals = Signals::new()?;
        if self.model.replay.is_none() {
            // The header's "last event 12 s ago" ages while nothing happens: one wake-up per
            // LIVE_TICK, not a busy loop.
            self.perform(Effect::SetTick(Some(LIVE_TICK)))?;
        }
        loop {
            let deadline =
                tokio::time::Instant::from_std((self.last_draw + FRAME).max(Instant::now()));
            tokio::select! {
                ev = input.next() => match ev {
                    Some(Ok(ev)) => self.on_terminal(ev)?,
                    Some(Err(e)) => return Err(e).wrap_err("terminal input failed"),
                    None => break,
                },
                Some((generation, msg)) = self.rx.recv() => {
                    self.on_feed(generation, msg)?;
                    // Drain what is queued, so a burst becomes one draw.
                    while let Ok((generation, msg)) = self.rx.try_recv() {
                        self.on_feed(generation, msg)?;
                    }
                }
                _ = next_tick(&mut self.tick) => {
                    let now = jiff::Timestamp::now().as_millisecond();
                    self.apply(Msg::Tick(now))?;
                }
                _ = sleep_until(self.play) => {
                    let fired = self.play.take();
                    self.apply(Msg::PlayStep)?;
                    // Late (a slow frame): count from now rather than bunching up.
                    let late = fired.filter(|f| f.elapsed() < FRAME);
                    self.schedule(late.or(Some(tokio::time::Instant::now())));
                }
                _ = tokio::time::sleep_until(deadline), if self.dirty => self.draw()?,
                _ = signals.next() => break,
            }
            if self.model.quit {
                break;
            }
        }
        self.feed = None;
        Ok(())
    }

    fn on_terminal(&mut self, ev: Event) -> Result<()> {
        match ev {
            Event::Key(k) => self.apply(Msg::Key(k)),
            Event::Resize(w, h) => self.apply(Msg::Resize(w, h)),
            Event::Mouse(e) => self.apply(Msg::Mouse(e)),
            // Focus and paste change nothing on screen.
            _ => Ok(()),
        }
    }

    fn on_feed(&mut self, generation: u64, msg: Msg) -> Result<()> {
        if generation != self.generation {
            return Ok(());
        }
        // The header's "started … ago" counts from the newest news (idle: no clock reads).
        self.model.now = Some(jiff::Timestamp::now().as_millisecond());
        self.apply(msg)
    }

    fn apply(&mut self, msg: Msg) -> Result<()> {
        let effects = update(&mut self.model, msg);
        self.dirty = true;
        for e in effects {
            self.perform(e)?;
        }
        if self.model.replay.is_some() {
            self.schedule(None);
        }
        Ok(())
    }

    fn perform(&mut self, e: Effect) -> Result<()> {
        match e {
            Effect::Quit => self.model.quit = true,
            Effect::SwitchSession { id, agent } => match start::choose(&self.opts, Some(&id)) {
                Ok(Some(listed)) => {
                    let target = start::target(&self.opts, Some(&listed));
                    self.follow(target, agent)?;
                }
                Ok(None) => self.model.notice = Some(format!("no session `{id}`")),
                Err(err) => self.model.notice = Some(format!("cannot list sessions: {err}")),
            },
            Effect::SetTheme(name) => {
                match Theme::select(&name, self.opts.user_dir.as_deref(), no_color_env()) {
                    Ok(t) => {
                        self.theme = t;
                        self.model.notice = None;
                    }
                    Err(err) => self.model.notice = Some(err.to_string()),
                }
            }
            Effect::WriteScreenshot => {
                self.model.notice = Some(match self.screenshot() {
                    Ok(path) => format!("wrote {path}"),
                    Err(err) => format!("screenshot failed: {err}"),
                });
            }
            Effect::SetTick(every) => {
                self.tick = every.map(|d| {
                    let mut i = tokio::time::interval(d.max(Duration::from_millis(10)));
                    i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
                    i
                });
            }
            Effect::ListSessions => {
                let list = start::session_entries(&self.opts.state);
                update(&mut self.model, Msg::Sessions(list));
            }
            Effect::ReadCall {
                title,
                from,
                pre,
                post,
            } => self.read_call(title, from, pre, post),
            Effect::Copy(text) => {
                let mut out = io::stdout();
                out.write_all(super::copy::osc52(&text).as_bytes())?;
                out.flush()?;
            }
            Effect::SetMouse(on) => match on {
                true => crossterm::execute!(io::stdout(), crossterm::event::EnableMouseCapture)?,
                false => crossterm::execute!(io::stdout(), crossterm::event::DisableMouseCapture)?,
            },
            Effect::SaveSettings => {
                let file = settings::path(&self.opts.state);
                if let Err(e) = settings::save(&file, &settings::of(&self.model)) {
                    self.model.notice = Some(format!("cannot remember the settings: {e}"));
                }
            }
        }
        Ok(())
    }

    /// Read a call's records off the UI thread; they come back as `Msg::CallRead`.
    fn read_call(
        &self,
        title: String,
        from: (usize, u64),
        pre: Option<usize>,
        post: Option<usize>,
    ) {
        let Some(log) = self.log.clone() else { return };
        let (tx, generation) = (self.tx.clone(), self.generation);
        tokio::task::spawn_blocking(move || {
            let wanted: Vec<usize> = pre.into_iter().chain(post).collect();
            let mut found = feed::read_records(&log, from, &wanted);
            let mut take = |i: Option<usize>| {
                let at = found.iter().position(|(n, _)| Some(*n) == i)?;
                Some(Box::new(found.swap_remove(at).1))
            };
            let (pre, post) = (take(pre), take(post));
            let _ = tx.send((generation, Msg::CallRead { title, pre, post }));
        });
    }

    fn draw(&mut self) -> Result<()> {
        let (model, theme) = (&self.model, &self.theme);
        let mut out = io::stdout();
        crossterm::queue!(out, BeginSynchronizedUpdate)?;
        let drawn = self.terminal.draw(|f| super::render(f, model, theme));
        crossterm::queue!(out, EndSynchronizedUpdate)?;
        out.flush()?;
        drawn?;
        self.dirty = false;
        self.last_draw = Instant::now();
        Ok(())
    }

    /// The current frame as SVG in the working directory (the same views, the theme's colours).
    fn screenshot(&mut self) -> io::Result<String> {
        let (w, h) = self.model.size;
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        super::render_buffer(area, &mut buf, &self.model, &self.theme);
        self.shots += 1;
        let id = crate::store::paths::safe_component(&self.model.session.id);
        let path = format!("seed-{id}-{}.svg", self.shots);
        std::fs::write(&path, crate::export::to_svg(&buf, &self.theme))?;
        Ok(path)
    }
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

async fn next_tick(tick: &mut Option<tokio::time::Interval>) {
    match tick {
        Some(i) => {
            i.tick().await;
        }
        None => std::future::pending().await,
    }
}

/// SIGTERM and SIGHUP end the loop like `q` (so the terminal is restored); Ctrl-C arrives as a
/// key in raw mode.
struct Signals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    hup: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                term: signal(SignalKind::terminate())?,
                hup: signal(SignalKind::hangup())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    async fn next(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.hup.recv() => {}
        }
        #[cfg(not(unix))]
        std::future::pending::<()>().await
    }
}
