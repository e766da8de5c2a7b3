//! The family registry: every parser id, its aliases, models and wire format, as data.
//!
//! Families are grouped by payload kind, one file per group. To add a family, add an entry to
//! the group's list; `ALL` chains the groups.

use crate::prelude::*;
mod channels;
mod json_bare;
mod json_named;
mod json_tags;
mod pythonic;
mod template;
mod xml;

use crate::syntax::Family;

/// The groups, in registry order.
static GROUPS: [&[Family]; 7] = [
    json_tags::FAMILIES,
    json_named::FAMILIES,
    json_bare::FAMILIES,
    channels::FAMILIES,
    xml::FAMILIES,
    pythonic::FAMILIES,
    template::FAMILIES,
];

/// Every family, grouped by payload kind.
pub fn all() -> impl Iterator<Item = &'static Family> {
    Families { group: 0, at: 0 }
}

/// `all`'s iterator: family `at` of group `group` next. One `next` that every use shares (a
/// `flatten` of the groups was a copy of its adapters per use in the wasm).
struct Families {
    group: usize,
    at: usize,
}

impl Iterator for Families {
    type Item = &'static Family;

    fn next(&mut self) -> Option<&'static Family> {
        while let Some(group) = GROUPS.get(self.group) {
            if let Some(f) = group.get(self.at) {
                self.at += 1;
                return Some(f);
            }
            self.group += 1;
            self.at = 0;
        }
        None
    }
}

/// Looks up a family by id or alias (case-insensitive; `-` and `_` are interchangeable).
pub fn find(name: &str) -> Option<&'static Family> {
    // Compared byte by byte: no allocation (the template's union looks families up by id).
    let norm = |b: u8| if b == b'-' { b'_' } else { b.to_ascii_lowercase() };
    let want = name.trim().as_bytes();
    let same = |s: &str| s.len() == want.len() && s.bytes().zip(want).all(|(a, b)| norm(a) == norm(*b));
    all().find(|f| same(f.id) || f.aliases.iter().any(|a| same(a)))
}

/// All ids and aliases, sorted, for error messages.
pub fn names() -> Vec<&'static str> {
    // Plain loops: a flat_map/chain is a copy of its adapters in the wasm.
    let mut v: Vec<&'static str> = Vec::new();
    for f in all() {
        v.push(f.id);
        v.extend_from_slice(f.aliases);
    }
    crate::small::sort_by(&mut v, |a, b| a < b);
    v
}

/// `[{id, aliases, models, description}]` for every family, as JSON.
pub fn to_json() -> String {
    use crate::json::push_json_string;
    let list = |out: &mut String, items: &[&str]| {
        out.push('[');
        for (i, s) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_string(out, s);
        }
        out.push(']');
    };
    let mut out = String::from("[");
    for (i, f) in all().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"id\":");
        push_json_string(&mut out, f.id);
        out.push_str(",\"aliases\":");
        list(&mut out, f.aliases);
        out.push_str(",\"models\":");
        list(&mut out, f.models);
        out.push_str(",\"description\":");
        push_json_string(&mut out, f.description);
        out.push('}');
    }
    out.push(']');
    out
}
