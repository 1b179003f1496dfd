//! The cursors lists hand out and take back (`?cursor=`): the branch list's
//! `<sort_at>:<name>`, the activity log's base64 `<at>:<seq>:<monorepo_id>`, the code
//! tree's `<0|1><hex name>` and the history's `<sha>-<walked>`.
//!
//! Input: tried as a cursor of each list, and read as the values a cursor is made from.
//!
//! Asserts: a cursor that parses means what it says (made again from its values, it
//! parses to the same values, and is the canonical spelling of the one given); a cursor
//! made from any values parses back to them.

#![no_main]

use libfuzzer_sys::fuzz_target;
use svc_server::feed::DisplayKey;
use svc_server::fuzzing::{history_cursor, parse_cursor, parse_history_cursor};
use svc_server::git::read::parse_tree_cursor;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let cursor = text.as_ref();
    let number = i64::from_le_bytes(
        data.get(..8)
            .map_or([0; 8], |b| b.try_into().unwrap_or([0; 8])),
    );
    let rest = String::from_utf8_lossy(data.get(8..).unwrap_or_default());

    // Branches: `<sort_at>:<name>`, as the list writes `next_cursor`.
    if let Ok(after) = parse_cursor(cursor) {
        assert_eq!(
            Some(after.name.as_str()),
            cursor.split_once(':').map(|(_, n)| n)
        );
        let again = parse_cursor(&format!("{}:{}", after.sort_at, after.name)).expect("made again");
        assert_eq!((again.sort_at, again.name), (after.sort_at, after.name));
    }
    let made = format!("{number}:{rest}");
    let after = parse_cursor(&made).unwrap_or_else(|e| panic!("{made:?}: {}", e.message));
    assert_eq!(
        (after.sort_at, after.name.as_str()),
        (number, rest.as_ref())
    );

    // The activity log.
    if let Some(key) = DisplayKey::from_cursor(cursor) {
        assert_eq!(DisplayKey::from_cursor(&key.cursor()), Some(key));
    }
    let seq = number.rotate_left(17);
    let key = DisplayKey {
        at: number,
        seq,
        monorepo_id: rest.to_string(),
    };
    assert_eq!(DisplayKey::from_cursor(&key.cursor()).as_ref(), Some(&key));

    // The code tree: whether the last entry was a file, and its name's bytes.
    if let Ok((file, name)) = parse_tree_cursor(cursor) {
        let canonical = format!("{}{}", u8::from(file), hex::encode(&name));
        assert_eq!(canonical, cursor.to_ascii_lowercase());
    }
    let file = number & 1 == 1;
    let made = format!("{}{}", u8::from(file), hex::encode(data));
    assert_eq!(parse_tree_cursor(&made).ok(), Some((file, data.to_vec())));

    // A file's history: the commit to go on from, and how many were walked.
    if let Ok((id, walked)) = parse_history_cursor(cursor) {
        let again = history_cursor(id, walked);
        let (sha, _) = cursor.split_once('-').expect("a dash");
        assert_eq!(again, format!("{}-{walked}", sha.to_ascii_lowercase()));
        assert_eq!(parse_history_cursor(&again).ok(), Some((id, walked)));
    }
    if let Some(sha) = data.get(..20) {
        let walked = usize::try_from(number.unsigned_abs()).unwrap_or(usize::MAX);
        let made = format!("{}-{walked}", hex::encode(sha));
        let (id, n) = parse_history_cursor(&made).unwrap_or_else(|_| panic!("{made}"));
        assert_eq!(n, walked);
        assert_eq!(history_cursor(id, n), made);
    }
});
