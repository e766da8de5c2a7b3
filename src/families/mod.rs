//! The family registry: every parser id, its aliases, models and wire format, as data.
//!
//! Families are grouped by payload kind, one file per group. To add a family, add an entry to
//! the group's list; `ALL` chains the groups.

mod channels;
mod json_bare;
mod json_named;
mod json_tags;
mod pythonic;
mod template;
mod xml;

use crate::syntax::Family;

/// Every family, grouped by payload kind.
pub fn all() -> impl Iterator<Item = &'static Family> {
    [
        json_tags::FAMILIES,
        json_named::FAMILIES,
        json_bare::FAMILIES,
        channels::FAMILIES,
        xml::FAMILIES,
        pythonic::FAMILIES,
        template::FAMILIES,
    ]
    .into_iter()
    .flatten()
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
