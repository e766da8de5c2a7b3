//! Helpers that keep the wasm small where the standard library's general versions are large.

use crate::prelude::*;

/// Sorts a short slice in place (insertion sort; stable). For lists of a few hundred items at
/// most: the standard sorts add kilobytes of code per element type.
pub fn sort_by<T>(v: &mut [T], mut before: impl FnMut(&T, &T) -> bool) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && before(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// `items` joined with `sep`. The standard `join` costs about a kilobyte of wasm per element
/// type; this is a loop.
pub fn join<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    let mut out = String::new();
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(s.as_ref());
    }
    out
}

/// The largest allocation, in bytes, a buffer hands on to a new parser (`Spare`,
/// `ToolCallParser::recycle`): a pool of parsers keeps at most this much per buffer.
pub(crate) const SPARE_MAX_BYTES: usize = 64 * 1024;

/// A buffer of a new parser that takes over an old one's allocation, cleared
/// (`ToolCallParser::recycle`): it holds what it held (nothing), only its capacity grows.
pub(crate) trait Spare {
    /// Swaps in `old`'s allocation, cleared, when it is larger and at most `SPARE_MAX_BYTES`.
    fn spare(&mut self, old: &mut Self);
}

/// `Spare`'s rule: an empty buffer takes a larger allocation of at most `SPARE_MAX_BYTES`
/// (capacities in items, `item` bytes each).
fn takes_spare(empty: bool, capacity: usize, old_capacity: usize, item: usize) -> bool {
    empty && old_capacity > capacity && old_capacity.saturating_mul(item) <= SPARE_MAX_BYTES
}

impl<T> Spare for Vec<T> {
    fn spare(&mut self, old: &mut Self) {
        if takes_spare(self.is_empty(), self.capacity(), old.capacity(), core::mem::size_of::<T>()) {
            old.clear();
            core::mem::swap(self, old);
        }
    }
}

impl Spare for String {
    fn spare(&mut self, old: &mut Self) {
        if takes_spare(self.is_empty(), self.capacity(), old.capacity(), 1) {
            old.clear();
            core::mem::swap(self, old);
        }
    }
}

/// A static for wasm32 without threads (the package's build): one instance, one thread (the
/// binding's options cache, `SharedCache`). `.0` borrows it.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
pub(crate) struct Single<T>(pub core::cell::RefCell<T>);

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
impl<T> Single<T> {
    pub const fn new(value: T) -> Self {
        Single(core::cell::RefCell::new(value))
    }
}

// SAFETY: compiled only for wasm32 without the `atomics` target feature, which has no threads:
// there is no other thread to share it with.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl<T> Sync for Single<T> {}

/// Values built once per key and shared, where that is safe without a lock: in the package's
/// wasm (one thread, `Single`) a static list of what was built, one entry per key used (keys
/// name statics, so the list is bounded by the registry); elsewhere (native, threads) no state,
/// a value built anew each time. For what every parser of a family builds the same (marker
/// sets): a parser is often made for one reply.
pub(crate) struct SharedCache<K, T> {
    #[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
    built: Single<Vec<(K, alloc::rc::Rc<T>)>>,
    #[cfg(not(all(target_arch = "wasm32", not(target_feature = "atomics"))))]
    built: core::marker::PhantomData<fn() -> (K, T)>,
}

impl<K: PartialEq, T> SharedCache<K, T> {
    #[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
    pub const fn new() -> Self {
        SharedCache { built: Single::new(Vec::new()) }
    }

    #[cfg(not(all(target_arch = "wasm32", not(target_feature = "atomics"))))]
    pub const fn new() -> Self {
        SharedCache { built: core::marker::PhantomData }
    }

    /// The value for `key`: `make()`'s, built at the first call with that key and shared after
    /// it (see the type's docs).
    pub fn get(&self, key: K, make: impl FnOnce() -> T) -> alloc::rc::Rc<T> {
        #[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
        {
            if let Some((_, v)) = self.built.0.borrow().iter().find(|(k, _)| *k == key) {
                return v.clone();
            }
            let v = alloc::rc::Rc::new(make());
            self.built.0.borrow_mut().push((key, v.clone()));
            v
        }
        #[cfg(not(all(target_arch = "wasm32", not(target_feature = "atomics"))))]
        {
            let _ = key;
            alloc::rc::Rc::new(make())
        }
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    #[test]
    fn joins() {
        assert_eq!(super::join(&["a", "b", "c"], ", "), "a, b, c");
        assert_eq!(super::join::<&str>(&[], ", "), "");
        assert_eq!(super::join(&[String::from("x")], "-"), "x");
    }

    #[test]
    fn sorts_stably() {
        let mut v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (1, 'e')];
        super::sort_by(&mut v, |a, b| a.0 < b.0);
        assert_eq!(v, vec![(1, 'b'), (1, 'e'), (2, 'd'), (3, 'a'), (3, 'c')]);
    }
}
