//! `.svc/svc.toml` on main: the required checks of each repo, as anyone who can push to
//! the meta layer writes them.
//!
//! Asserts: a refusal names a line of the file (`line N: …`, N within the file); what
//! parses, written back as TOML, parses to the same required checks.

#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use svc_server::checks;

#[derive(serde::Serialize)]
struct File {
    repos: BTreeMap<String, Repo>,
}

#[derive(serde::Serialize)]
struct Repo {
    required_checks: Vec<String>,
}

fn required(config: &checks::Config) -> BTreeMap<String, Vec<String>> {
    config
        .repos
        .iter()
        .map(|(path, repo)| (path.clone(), repo.required_checks.clone()))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    // The server refuses a file that is not UTF-8 before parsing it.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match checks::parse(text) {
        Err(why) => {
            let (line, _) = why
                .strip_prefix("line ")
                .and_then(|rest| rest.split_once(": "))
                .unwrap_or_else(|| panic!("a refusal names its line: {why:?}"));
            let line: usize = line
                .parse()
                .unwrap_or_else(|_| panic!("a line number: {why:?}"));
            let lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
            assert!(
                (1..=lines).contains(&line),
                "line {line} of {lines}: {why:?}"
            );
        }
        Ok(config) => {
            let want = required(&config);
            let file = File {
                repos: want
                    .iter()
                    .map(|(path, checks)| {
                        let required_checks = checks.clone();
                        (path.clone(), Repo { required_checks })
                    })
                    .collect(),
            };
            let written = toml::to_string(&file).expect("any checks can be written as TOML");
            let again = checks::parse(&written)
                .unwrap_or_else(|why| panic!("written back, it parses: {why}\n{written}"));
            assert_eq!(required(&again), want, "written back:\n{written}");
        }
    }
});
