//! Topics: which events a socket or a pull wants (`?topics=`, at most 10).

/// At most this many topics in one `topics` list.
pub const MAX_TOPICS: usize = 10;

/// One topic a `topics` list may name (see [`unknown`] for the list).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Topic {
    All,
    Issues,
    Issue(String),
    Repo(String),
    Main,
    MainOf(String),
    Meta,
    Kind(String),
    Feed,
}

/// What a topic is matched against: an event's identity, not its body.
#[derive(Debug, Clone, Copy)]
pub struct EventMeta<'a> {
    pub kind: &'a str,
    pub collection: &'a str,
    pub repo: Option<&'a str>,
    /// Further repos, one per line (see `NewEvent::also_repos`).
    pub also_repos: Option<&'a str>,
    pub key: &'a str,
}

/// A parsed `topics` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topics(Vec<Topic>);

impl Default for Topics {
    fn default() -> Self {
        Topics(vec![Topic::All])
    }
}

impl Topics {
    /// Parses `a,b,c`; `None` or empty means `all`. The error says what is wrong.
    pub fn parse(list: Option<&str>) -> Result<Topics, String> {
        let Some(list) = list.filter(|l| !l.trim().is_empty()) else {
            return Ok(Topics::default());
        };
        let parts: Vec<&str> = list.split(',').map(str::trim).collect();
        if parts.len() > MAX_TOPICS {
            return Err(format!("at most {MAX_TOPICS} topics, not {}", parts.len()));
        }
        let mut topics = Vec::with_capacity(parts.len());
        for part in parts {
            let topic = match part.split_once(':') {
                None => match part {
                    "all" => Topic::All,
                    "issues" => Topic::Issues,
                    "main" => Topic::Main,
                    "meta" => Topic::Meta,
                    "feed" => Topic::Feed,
                    _ => return Err(unknown(part)),
                },
                Some((name, arg)) if !arg.is_empty() => match name {
                    "issue" if arg.bytes().all(|b| b.is_ascii_digit()) => {
                        Topic::Issue(arg.trim_start_matches('0').to_owned())
                    }
                    "repo" => Topic::Repo(arg.to_owned()),
                    "main" => Topic::MainOf(arg.to_owned()),
                    "kind" => Topic::Kind(arg.to_owned()),
                    _ => return Err(unknown(part)),
                },
                Some(_) => return Err(unknown(part)),
            };
            if !topics.contains(&topic) {
                topics.push(topic);
            }
        }
        Ok(Topics(topics))
    }

    /// True when the list asks for activity lines (the `feed` topic).
    pub fn feed(&self) -> bool {
        self.0.contains(&Topic::Feed)
    }

    /// True when the list asks for events at all (anything but `feed`).
    pub fn events(&self) -> bool {
        self.0.iter().any(|t| *t != Topic::Feed)
    }

    /// True when every event matches (no filtering to do).
    pub fn all(&self) -> bool {
        self.0.contains(&Topic::All)
    }

    /// True when the event belongs to any of the topics.
    pub fn matches(&self, e: EventMeta<'_>) -> bool {
        self.0.iter().any(|t| match t {
            Topic::All => true,
            Topic::Issues => matches!(e.collection, "issues" | "labels"),
            Topic::Issue(n) => e.collection == "issues" && e.key.trim_start_matches('0') == n,
            Topic::Repo(name) => {
                e.repo == Some(name.as_str())
                    || e.also_repos.is_some_and(|a| a.lines().any(|r| r == name))
            }
            Topic::Main => e.collection == "default_heads",
            Topic::MainOf(name) => e.collection == "default_heads" && e.repo == Some(name),
            Topic::Meta => matches!(e.collection, "meta_files" | "presence"),
            Topic::Kind(kind) => e.kind == kind,
            Topic::Feed => false,
        })
    }
}

fn unknown(topic: &str) -> String {
    format!(
        "unknown topic {topic:?}: use all, issues, issue:<number>, repo:<name>, main, \
         main:<repo>, meta, kind:<kind> or feed"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta<'a>(kind: &'a str, collection: &'a str, repo: Option<&'a str>) -> EventMeta<'a> {
        EventMeta {
            kind,
            collection,
            repo,
            also_repos: None,
            key: "7",
        }
    }

    #[test]
    fn parses_and_matches_each_topic() {
        let t = Topics::parse(Some("main:api")).expect("parse");
        assert!(t.matches(meta("default_head.updated", "default_heads", Some("api"))));
        assert!(!t.matches(meta("default_head.updated", "default_heads", Some("web"))));
        assert!(!t.matches(meta("push", "branches", Some("api"))));
        let t = Topics::parse(Some("meta,kind:review,issue:07")).expect("parse");
        assert!(t.matches(meta("machine.connected", "presence", None)));
        assert!(t.matches(meta("review", "reviews", Some("x"))));
        assert!(t.matches(meta("issue.opened", "issues", None)));
        assert!(!t.matches(meta("push", "branches", Some("x"))));
        assert!(Topics::parse(None).expect("default").all());
        assert!(Topics::parse(Some("feed")).expect("feed").feed());
        assert!(!Topics::parse(Some("feed")).expect("feed").events());
    }

    #[test]
    fn a_repo_topic_matches_an_events_further_repos() {
        let t = Topics::parse(Some("repo:web")).expect("parse");
        let mut e = meta("issue.updated", "issues", Some("api"));
        assert!(!t.matches(e));
        e.also_repos = Some("docs\nweb");
        assert!(t.matches(e));
        e.also_repos = Some("docs\nwebsite");
        assert!(!t.matches(e));
    }

    #[test]
    fn refuses_unknown_and_too_many() {
        assert!(Topics::parse(Some("main:")).is_err());
        assert!(Topics::parse(Some("issue:x")).is_err());
        assert!(Topics::parse(Some("branches")).is_err());
        let eleven = ["all"; 11].join(",");
        assert!(Topics::parse(Some(&eleven)).is_err());
    }
}
