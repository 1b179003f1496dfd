//! Ref edits that succeed only when the ref is as the caller last saw it.
//!
//! Each edit is one gix transaction: it locks the loose ref (and `packed-refs` when the
//! ref is packed), checks the current value under the lock and writes or deletes it.
//! Names are full (`refs/heads/<branch>`); symbolic refs are edited themselves, never
//! followed. No reflog is written (bare repositories keep none).

use gix::ObjectId;
use gix::refs::file::transaction::prepare::{MustNotExist, ReferenceOutOfDate};
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::{FullName, Target};

use super::Error;
use crate::git::read::{Repo, git};

impl Repo {
    /// Points `name` at `new` if it points at `expected` now.
    pub fn update_ref(&self, name: &str, expected: ObjectId, new: ObjectId) -> Result<(), Error> {
        self.edit_ref(
            name,
            Change::Update {
                log: LogChange::default(),
                expected: PreviousValue::MustExistAndMatch(Target::Object(expected)),
                new: Target::Object(new),
            },
            Some(new),
        )
        .map(drop)
    }

    /// Creates `name` pointing at `target`; [`Error::RefExists`] if it exists, whatever
    /// it points at, and [`Error::RefClash`] if a ref is on its path (`refs/heads/a`
    /// for `refs/heads/a/b`) or below it (the other way round).
    pub fn create_ref(&self, name: &str, target: ObjectId) -> Result<(), Error> {
        let clash = || -> Result<(), Error> {
            match self.clashing_ref(name)? {
                Some(existing) => Err(Error::RefClash {
                    name: name.to_owned(),
                    existing,
                }),
                None => Ok(()),
            }
        };
        clash()?;
        let edit = self.edit_ref(
            name,
            Change::Update {
                log: LogChange::default(),
                expected: PreviousValue::MustNotExist,
                new: Target::Object(target),
            },
            Some(target),
        );
        let done = match edit {
            // The clashing ref was made meanwhile: say so rather than fail as git.
            Err(Error::Git(why)) => return clash().and(Err(Error::Git(why))),
            done => done?,
        };
        // gix lets a create through when the ref exists with that very target, and then
        // reports the value it found under the lock.
        let existed = done.iter().any(|edit| {
            matches!(
                edit.change,
                Change::Update {
                    expected: PreviousValue::MustExistAndMatch(_),
                    ..
                }
            )
        });
        if existed {
            return Err(Error::RefExists(name.to_owned()));
        }
        Ok(())
    }

    /// The existing ref `name` cannot live beside: one whose name is a folder of
    /// `name`'s, or one inside `name` taken as a folder.
    fn clashing_ref(&self, name: &str) -> Result<Option<String>, Error> {
        let repo = self.0.to_thread_local();
        let mut folder = name;
        while let Some((parent, _)) = folder.rsplit_once('/') {
            folder = parent;
            if folder.matches('/').count() >= 2
                && repo.try_find_reference(folder).map_err(git)?.is_some()
            {
                return Ok(Some(folder.to_owned()));
            }
        }
        let inside = format!("{name}/");
        let platform = repo.references().map_err(git)?;
        for reference in platform.all().map_err(git)? {
            let reference = reference.map_err(git)?;
            let existing = reference.name().as_bstr().to_string();
            if existing.starts_with(&inside) {
                return Ok(Some(existing));
            }
        }
        Ok(None)
    }

    /// Deletes `name` if it points at `expected` now, packed or loose.
    pub fn delete_ref(&self, name: &str, expected: ObjectId) -> Result<(), Error> {
        self.edit_ref(
            name,
            Change::Delete {
                expected: PreviousValue::MustExistAndMatch(Target::Object(expected)),
                log: RefLog::AndReference,
            },
            None,
        )
        .map(drop)
    }

    /// Points `name` at `target` whatever it points at now, making it if need be: for
    /// the server's own refs (`refs/svc/...`), which only it moves.
    pub fn set_ref(&self, name: &str, target: ObjectId) -> Result<(), Error> {
        self.edit_ref(
            name,
            Change::Update {
                log: LogChange::default(),
                expected: PreviousValue::Any,
                new: Target::Object(target),
            },
            Some(target),
        )
        .map(drop)
    }

    /// The refs named `prefix...` that point at an object, with it.
    pub fn refs_under(&self, prefix: &str) -> Result<Vec<(String, ObjectId)>, Error> {
        let repo = self.0.to_thread_local();
        let platform = repo.references().map_err(git)?;
        let mut found = Vec::new();
        // Only the folder of `prefix` (and packed-refs) is read, not every ref.
        for reference in platform.prefixed(prefix).map_err(git)? {
            let reference = reference.map_err(git)?;
            let name = reference.name().as_bstr().to_string();
            if let Some(id) = reference.target().try_id() {
                found.push((name, id.to_owned()));
            }
        }
        Ok(found)
    }

    /// Applies one edit to `name`; `target`, the new value, must be an object.
    fn edit_ref(
        &self,
        name: &str,
        change: Change,
        target: Option<ObjectId>,
    ) -> Result<Vec<RefEdit>, Error> {
        let bad = || Error::BadRefName(name.to_owned());
        if !name.starts_with("refs/") {
            return Err(bad());
        }
        let full = FullName::try_from(name).map_err(|_| bad())?;
        let repo = self.0.to_thread_local();
        if let Some(target) = target
            && !repo.has_object(target)
        {
            return Err(Error::NotFound(format!("object {target}")));
        }
        repo.edit_references_as([RefEdit::new(full, change)], None)
            .map_err(|err| {
                // Not found: the ref to update or delete is gone.
                if err.downcast_any_ref::<ReferenceOutOfDate>().is_some() || err.is_not_found() {
                    Error::RefMoved(name.to_owned())
                } else if err.downcast_any_ref::<MustNotExist>().is_some() {
                    Error::RefExists(name.to_owned())
                } else {
                    git(err).into()
                }
            })
    }
}
