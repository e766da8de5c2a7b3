//! The family registry: every parser id, its aliases, models and wire format, as data.
//!
//! Families are grouped by payload kind, one file per group. To add a family, add an entry to
//! the group's list; `ALL` chains the groups.

mod json_tags;

use crate::syntax::Family;

/// Every family, grouped by payload kind.
pub fn all() -> impl Iterator<Item = &'static Family> {
    json_tags::FAMILIES.iter()
}

/// Looks up a family by id or alias (case-insensitive; `-` and `_` are interchangeable).
pub fn find(name: &str) -> Option<&'static Family> {
    let norm = |s: &str| s.trim().to_ascii_lowercase().replace('-', "_");
    let want = norm(name);
    all().find(|f| norm(f.id) == want || f.aliases.iter().any(|a| norm(a) == want))
}

/// All ids and aliases, sorted, for error messages.
pub fn names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = all().flat_map(|f| core::iter::once(f.id).chain(f.aliases.iter().copied())).collect();
    v.sort_unstable();
    v
}
