//! `git push -o <option>`: what a push may ask of svc besides moving refs.
//!
//! Known: `ci.skip` (GitLab's name; no CI build for this push), `svc.title=<title>` and
//! `svc.description=<text>` (a new branch's title and description, as createBranch
//! sets them). Anything else is ignored with a `remote:` line naming the known ones.

/// The options a push asked for, as the recording uses them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PushOptions {
    /// No CI hook delivery for this push.
    pub ci_skip: bool,
    /// Title of a branch this push opens.
    pub title: Option<String>,
    /// Description of a branch this push opens.
    pub description: Option<String>,
}

/// Longest title, in characters (as updateBranch).
const TITLE_MAX: usize = 256;

/// The options svc knows, for the message about one it does not.
const KNOWN: &str = "ci.skip, svc.title=<title>, svc.description=<text>";

/// The options understood, and the `remote:` lines to show the pusher.
pub fn parse(options: &[String]) -> (PushOptions, Vec<String>) {
    let mut asked = PushOptions::default();
    let mut notes = Vec::new();
    for option in options {
        match option.split_once('=') {
            None if option == "ci.skip" => asked.ci_skip = true,
            Some(("svc.title", title)) if title.chars().count() > TITLE_MAX => notes.push(format!(
                "svc: svc.title is over {TITLE_MAX} characters and was ignored"
            )),
            Some(("svc.title", title)) if !title.trim().is_empty() => {
                asked.title = Some(title.trim().to_owned());
            }
            Some(("svc.description", text)) if !text.trim().is_empty() => {
                asked.description = Some(text.trim().to_owned());
            }
            _ => notes.push(format!(
                "svc: push option {option:?} is not known and was ignored (known: {KNOWN})"
            )),
        }
    }
    if asked.ci_skip {
        notes.push("svc: ci.skip: no CI build for this push".to_owned());
    }
    (asked, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(options: &[&str]) -> Vec<String> {
        options.iter().map(|o| (*o).to_owned()).collect()
    }

    #[test]
    fn known_options_are_used_and_others_named() {
        let (asked, notes) = parse(&strings(&[
            "ci.skip",
            "svc.title=Faster merges",
            "svc.description=Uses the commit-graph",
            "merge_request.create",
        ]));
        assert_eq!(
            asked,
            PushOptions {
                ci_skip: true,
                title: Some("Faster merges".into()),
                description: Some("Uses the commit-graph".into()),
            }
        );
        assert_eq!(notes.len(), 2);
        assert!(notes[0].contains("\"merge_request.create\" is not known"));
        assert!(notes[0].contains(KNOWN));
        assert!(notes[1].contains("no CI build"));
    }

    #[test]
    fn a_title_over_the_limit_or_empty_is_not_used() {
        let long = format!("svc.title={}", "t".repeat(TITLE_MAX + 1));
        let (asked, notes) = parse(&[long, "svc.title=".into()]);
        assert_eq!(asked, PushOptions::default());
        assert_eq!(notes.len(), 2);
        assert!(notes[0].contains("over 256"));
    }
}
