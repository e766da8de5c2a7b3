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

/// A static for wasm32 without threads (the package's build): one instance, one thread (the
/// binding's options cache, the XML readers' shared marker sets). `.0` borrows it.
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
