//! The semantic roles a theme styles, and the fallback chain of each.

/// Declares [`Role`] with its file name and the role it falls back to when a theme leaves it out.
macro_rules! roles {
    ($($variant:ident = $name:literal => $fallback:ident,)*) => {
        /// A semantic role: what a piece of the dashboard *means*, not how it looks.
        ///
        /// Themes map roles to styles; views ask for roles. A role a theme does not define
        /// inherits the style of its [`fallback`](Role::fallback) and patches its own attributes
        /// on top, so every chain ends at [`Role::Base`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Role {
            $($variant,)*
        }

        impl Role {
            /// Every role, in declaration order.
            pub const ALL: &'static [Role] = &[$(Role::$variant,)*];

            /// The role's key in a theme file, e.g. `"statechart.current"`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Role::$variant => $name,)*
                }
            }

            /// The role whose style this one starts from; `None` only for [`Role::Base`].
            pub const fn fallback(self) -> Option<Role> {
                match self {
                    $(Role::$variant => roles!(@fallback $fallback),)*
                }
            }
        }
    };
    (@fallback None) => { None };
    (@fallback $fallback:ident) => { Some(Role::$fallback) };
}

roles! {
    Base = "base" => None,
    Border = "border" => Muted,
    BorderFocus = "border.focus" => Accent,
    Title = "title" => Accent,
    Header = "header" => Title,
    Muted = "muted" => Base,
    Accent = "accent" => Base,
    Selection = "selection" => Accent,
    HelpKey = "help.key" => Accent,
    ProgressBar = "progress.bar" => Accent,
    ProgressEmpty = "progress.empty" => Muted,
    ProgressLayer = "progress.layer" => ProgressBar,
    ProgressOverall = "progress.overall" => ProgressBar,
    ProgressHighest = "progress.highest" => Muted,
    ProgressLoop = "progress.loop" => Accent,
    StatechartNode = "statechart.node" => Base,
    StatechartCurrent = "statechart.current" => Accent,
    StatechartDone = "statechart.done" => Muted,
    StatechartFailed = "statechart.failed" => HealthErr,
    StatechartChoice = "statechart.choice" => StatechartNode,
    StatechartParallel = "statechart.parallel" => StatechartNode,
    ToolsAllowed = "tools.allowed" => HealthOk,
    ToolsDenied = "tools.denied" => HealthErr,
    ToolsNeutral = "tools.neutral" => Muted,
    TimelineAllowed = "timeline.allowed" => ToolsAllowed,
    TimelineDenied = "timeline.denied" => ToolsDenied,
    TimelineAdvised = "timeline.advised" => HealthWarn,
    TimelineFailed = "timeline.failed" => HealthErr,
    TimelineSeparator = "timeline.separator" => Muted,
    TimelineTime = "timeline.time" => Muted,
    TimelineLane = "timeline.lane" => Accent,
    RecoveryTitle = "recovery.title" => Title,
    RecoveryText = "recovery.text" => Base,
    DeepKey = "deep.key" => Accent,
    DeepValue = "deep.value" => Base,
    DeepChanged = "deep.changed" => HealthWarn,
    HealthOk = "health.ok" => Base,
    HealthWarn = "health.warn" => Base,
    HealthErr = "health.err" => Base,
    Scrubber = "scrubber" => ProgressEmpty,
    ScrubberDenial = "scrubber.denial" => ToolsDenied,
    ScrubberCursor = "scrubber.cursor" => Selection,
    WhatifDiff = "whatif.diff" => HealthWarn,
}

impl Role {
    /// Number of roles; the length of a theme's style table.
    pub const COUNT: usize = Role::ALL.len();

    /// Looks a role up by its theme-file key.
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.iter().copied().find(|role| role.as_str() == name)
    }

    /// Index into a `[_; Role::COUNT]` table.
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// Whether the role draws text that must stay readable (WCAG 4.5:1). The others draw lines
    /// and bar cells, for which the non-text threshold (3:1) applies.
    pub const fn is_text(self) -> bool {
        !matches!(
            self,
            Role::Border | Role::BorderFocus | Role::ProgressEmpty | Role::Scrubber
        )
    }

    /// The chain of roles this one inherits from, nearest first, ending at [`Role::Base`].
    pub fn fallback_chain(self) -> Vec<Role> {
        let mut chain = Vec::new();
        let mut next = self.fallback();
        // Bounded by COUNT so a mistaken cycle in the table cannot hang (a test forbids cycles).
        while let Some(role) = next {
            if chain.len() > Role::COUNT {
                break;
            }
            chain.push(role);
            next = role.fallback();
        }
        chain
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
