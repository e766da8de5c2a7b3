//! A tiny regular-expression matcher for JSON Schema `pattern` (no regex crate).
//!
//! Supported (ECMA syntax, no flags): literals and escapes (`\.` `\n` `\t` `\r` `\/` ...), `.`,
//! classes `[a-z0-9_]` / `[^...]` with `\d \w \s \D \W \S` inside and outside, anchors `^` `$`,
//! groups `( )` and `(?: )`, alternation `|`, quantifiers `* + ? {n} {n,} {n,m}` (lazy forms
//! match the same strings). Anything else (backreferences, lookaround, `\p{..}`, `\b`, named
//! groups) makes `is_match` return `None`: the pattern is not checked.
//!
//! Matching is a Thompson NFA simulation (no backtracking): time is O(text × program), and
//! both are capped, so hostile patterns cannot blow up; over the caps the pattern is not checked.

/// Program size cap (instructions) and work cap (characters × instructions).
const MAX_PROG: usize = 2048;
const MAX_WORK: usize = 20_000_000;
const MAX_NEST: usize = 32;

enum Ast {
    Lit(char),
    Any,
    Class(Vec<(char, char)>, bool),
    Bol,
    Eol,
    Cat(Vec<Ast>),
    Alt(Vec<Ast>),
    Rep(Box<Ast>, u32, Option<u32>),
}

/// Whether `pattern` matches somewhere in `text` (ECMA `RegExp.test` semantics), or `None` when
/// the pattern uses syntax outside the subset or exceeds the caps.
pub fn is_match(pattern: &str, text: &str) -> Option<bool> {
    let mut p = Parser { s: pattern.chars().collect(), i: 0 };
    let ast = p.alt(0)?;
    if p.i != p.s.len() {
        return None;
    }
    let mut prog = Vec::new();
    compile(&ast, &mut prog)?;
    prog.push(Inst::Match);
    let chars: Vec<char> = text.chars().collect();
    if chars.len().saturating_add(1).saturating_mul(prog.len()) > MAX_WORK {
        return None;
    }
    Some(run(&prog, &chars))
}

struct Parser {
    s: Vec<char>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn alt(&mut self, depth: usize) -> Option<Ast> {
        if depth > MAX_NEST {
            return None;
        }
        let mut alts = vec![self.cat(depth)?];
        while self.peek() == Some('|') {
            self.i += 1;
            alts.push(self.cat(depth)?);
        }
        Some(if alts.len() == 1 { alts.pop()? } else { Ast::Alt(alts) })
    }

    fn cat(&mut self, depth: usize) -> Option<Ast> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom(depth)?;
            items.push(self.quantified(atom)?);
        }
        Some(Ast::Cat(items))
    }

    fn quantified(&mut self, atom: Ast) -> Option<Ast> {
        let save = self.i;
        self.i += 1;
        let (min, max) = match self.s.get(save) {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => match self.braces() {
                Some(r) => r,
                None => {
                    // A `{` that is not a quantifier is a literal (ECMA annex B).
                    self.i = save;
                    return Some(atom);
                }
            },
            _ => {
                self.i = save;
                return Some(atom);
            }
        };
        if matches!(atom, Ast::Bol | Ast::Eol) {
            return None;
        }
        if self.peek() == Some('?') {
            self.i += 1;
        }
        Some(Ast::Rep(Box::new(atom), min, max))
    }

    /// `n}`, `n,}`, `n,m}` after `{`; consumes through `}`.
    fn braces(&mut self) -> Option<(u32, Option<u32>)> {
        let min = self.number()?;
        let max = if self.peek() == Some(',') {
            self.i += 1;
            if self.peek() == Some('}') { None } else { Some(self.number()?) }
        } else {
            Some(min)
        };
        if self.peek() != Some('}') || max.is_some_and(|m| m < min) {
            return None;
        }
        self.i += 1;
        Some((min, max))
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        if self.i == start || self.i - start > 4 {
            return None;
        }
        self.s[start..self.i].iter().collect::<String>().parse().ok()
    }

    fn atom(&mut self, depth: usize) -> Option<Ast> {
        let c = self.peek()?;
        self.i += 1;
        Some(match c {
            '.' => Ast::Any,
            '^' => Ast::Bol,
            '$' => Ast::Eol,
            '(' => {
                if self.peek() == Some('?') {
                    if self.s.get(self.i + 1) != Some(&':') {
                        return None;
                    }
                    self.i += 2;
                }
                let inner = self.alt(depth + 1)?;
                if self.peek() != Some(')') {
                    return None;
                }
                self.i += 1;
                inner
            }
            '[' => self.class()?,
            '\\' => {
                let (ranges, neg) = self.escape()?;
                Ast::Class(ranges, neg)
            }
            '*' | '+' | '?' | ')' => return None,
            c => Ast::Lit(c),
        })
    }

    /// After `\`: a class (`\d`) or a literal (as a one-char class).
    fn escape(&mut self) -> Option<(Vec<(char, char)>, bool)> {
        let c = self.peek()?;
        self.i += 1;
        let lit = |c: char| Some((vec![(c, c)], false));
        match c {
            'd' => Some((DIGIT.to_vec(), false)),
            'D' => Some((DIGIT.to_vec(), true)),
            'w' => Some((WORD.to_vec(), false)),
            'W' => Some((WORD.to_vec(), true)),
            's' => Some((SPACE.to_vec(), false)),
            'S' => Some((SPACE.to_vec(), true)),
            'n' => lit('\n'),
            't' => lit('\t'),
            'r' => lit('\r'),
            'f' => lit('\u{c}'),
            'v' => lit('\u{b}'),
            '0' => lit('\0'),
            c if c.is_ascii_alphanumeric() => None,
            c => lit(c),
        }
    }

    fn class(&mut self) -> Option<Ast> {
        let neg = self.peek() == Some('^');
        if neg {
            self.i += 1;
        }
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let c = self.peek()?;
            self.i += 1;
            if c == ']' && !first {
                break;
            }
            first = false;
            let lo = if c == '\\' {
                let (r, n) = self.escape()?;
                if n {
                    return None; // `[\D]` etc. are outside the subset.
                }
                if r.len() != 1 || r[0].0 != r[0].1 {
                    ranges.extend(r);
                    continue;
                }
                r[0].0
            } else {
                c
            };
            if self.peek() == Some('-') && self.s.get(self.i + 1).is_some_and(|&n| n != ']') {
                self.i += 1;
                let mut hi = self.peek()?;
                self.i += 1;
                if hi == '\\' {
                    let (r, _) = self.escape()?;
                    if r.len() != 1 || r[0].0 != r[0].1 {
                        return None;
                    }
                    hi = r[0].0;
                }
                if hi < lo {
                    return None;
                }
                ranges.push((lo, hi));
            } else {
                ranges.push((lo, lo));
            }
        }
        Some(Ast::Class(ranges, neg))
    }
}

const DIGIT: &[(char, char)] = &[('0', '9')];
const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
const SPACE: &[(char, char)] = &[
    ('\t', '\r'),
    (' ', ' '),
    ('\u{a0}', '\u{a0}'),
    ('\u{1680}', '\u{1680}'),
    ('\u{2000}', '\u{200a}'),
    ('\u{2028}', '\u{2029}'),
    ('\u{202f}', '\u{202f}'),
    ('\u{205f}', '\u{205f}'),
    ('\u{3000}', '\u{3000}'),
    ('\u{feff}', '\u{feff}'),
];

enum Inst {
    Char(char),
    Any,
    Class(Vec<(char, char)>, bool),
    Bol,
    Eol,
    Split(usize, usize),
    Jmp(usize),
    Match,
}

fn compile(a: &Ast, prog: &mut Vec<Inst>) -> Option<()> {
    if prog.len() > MAX_PROG {
        return None;
    }
    match a {
        Ast::Lit(c) => prog.push(Inst::Char(*c)),
        Ast::Any => prog.push(Inst::Any),
        Ast::Class(r, n) => prog.push(Inst::Class(r.clone(), *n)),
        Ast::Bol => prog.push(Inst::Bol),
        Ast::Eol => prog.push(Inst::Eol),
        Ast::Cat(items) => {
            for x in items {
                compile(x, prog)?;
            }
        }
        Ast::Alt(alts) => {
            let mut jumps = Vec::new();
            for (k, x) in alts.iter().enumerate() {
                if k + 1 < alts.len() {
                    let split = prog.len();
                    prog.push(Inst::Split(split + 1, 0));
                    compile(x, prog)?;
                    jumps.push(prog.len());
                    prog.push(Inst::Jmp(0));
                    let next = prog.len();
                    prog[split] = Inst::Split(split + 1, next);
                } else {
                    compile(x, prog)?;
                }
            }
            let end = prog.len();
            for j in jumps {
                prog[j] = Inst::Jmp(end);
            }
        }
        Ast::Rep(x, min, max) => {
            for _ in 0..*min {
                compile(x, prog)?;
            }
            match max {
                None => {
                    let split = prog.len();
                    prog.push(Inst::Split(split + 1, 0));
                    compile(x, prog)?;
                    prog.push(Inst::Jmp(split));
                    let out = prog.len();
                    prog[split] = Inst::Split(split + 1, out);
                }
                Some(m) => {
                    let mut splits = Vec::new();
                    for _ in *min..*m {
                        splits.push(prog.len());
                        prog.push(Inst::Split(prog.len() + 1, 0));
                        compile(x, prog)?;
                    }
                    let out = prog.len();
                    for s in splits {
                        prog[s] = Inst::Split(s + 1, out);
                    }
                }
            }
        }
    }
    (prog.len() <= MAX_PROG).then_some(())
}

/// Adds `pc` and its epsilon closure at position `at` (of `len`) to `list`.
fn add(prog: &[Inst], list: &mut Vec<usize>, seen: &mut [bool], pc: usize, at: usize, len: usize) {
    let mut stack = vec![pc];
    while let Some(pc) = stack.pop() {
        if pc >= prog.len() || seen[pc] {
            continue;
        }
        seen[pc] = true;
        match prog[pc] {
            Inst::Jmp(t) => stack.push(t),
            Inst::Split(a, b) => {
                stack.push(b);
                stack.push(a);
            }
            Inst::Bol if at == 0 => stack.push(pc + 1),
            Inst::Eol if at == len => stack.push(pc + 1),
            Inst::Bol | Inst::Eol => {}
            _ => list.push(pc),
        }
    }
}

fn run(prog: &[Inst], text: &[char]) -> bool {
    let len = text.len();
    let mut seen = vec![false; prog.len()];
    let mut clist = Vec::new();
    add(prog, &mut clist, &mut seen, 0, 0, len);
    for at in 0..=len {
        if clist.iter().any(|&pc| matches!(prog[pc], Inst::Match)) {
            return true;
        }
        if at == len {
            break;
        }
        let c = text[at];
        seen.iter_mut().for_each(|s| *s = false);
        let mut nlist = Vec::new();
        for &pc in &clist {
            let ok = match &prog[pc] {
                Inst::Char(x) => *x == c,
                Inst::Any => c != '\n' && c != '\r' && c != '\u{2028}' && c != '\u{2029}',
                Inst::Class(r, neg) => r.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *neg,
                _ => false,
            };
            if ok {
                add(prog, &mut nlist, &mut seen, pc + 1, at + 1, len);
            }
        }
        // Unanchored search: a new attempt starts at every position.
        add(prog, &mut nlist, &mut seen, 0, at + 1, len);
        clist = nlist;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_match;

    #[test]
    fn table() {
        let cases: &[(&str, &str, Option<bool>)] = &[
            ("^[A-Z]{3}$", "EUR", Some(true)),
            ("^[A-Z]{3}$", "EURO", Some(false)),
            ("^\\d{4}-\\d{2}-\\d{2}$", "2024-01-31", Some(true)),
            ("^\\d{4}-\\d{2}-\\d{2}$", "2024-1-31", Some(false)),
            ("abc", "xxabcxx", Some(true)),
            ("^(foo|bar)+$", "foobarfoo", Some(true)),
            ("^(?:foo|bar)+$", "foobaz", Some(false)),
            ("^a.c$", "a\nc", Some(false)),
            ("^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$", "a.b@example.com", Some(true)),
            ("^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$", "a b@example.com", Some(false)),
            ("^\\w+$", "héllo", Some(false)),
            ("^[a-z-]+$", "kebab-case", Some(true)),
            ("^x{2,3}$", "xxxx", Some(false)),
            ("^x{1,}?$", "xxxx", Some(true)),
            ("a{", "a{", Some(true)),
            ("^$", "", Some(true)),
            ("(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Some(false)),
            ("(?=a)", "a", None),
            ("\\1", "a", None),
            ("\\p{L}", "a", None),
            ("[", "a", None),
            ("(a", "a", None),
            ("a)", "a", None),
            ("(x{2000}){2000}", "x", None),
        ];
        for (p, t, want) in cases {
            assert_eq!(is_match(p, t), *want, "{p} on {t:?}");
        }
    }
}
