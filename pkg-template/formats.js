// JSON Schema `format` checks for the package's wasm, which is built without the Rust ones (the
// `formats` feature of Cargo.toml; src/schema/format.rs is the reference and documents the
// rules). The wasm imports `checkFormat` (src/wasm.rs). tests/js/formats.test.mjs checks that
// this file and the Rust code answer alike on every string of a generated corpus. No imports.

/** 0: `format` is not checked; 1: `s` is not of the format; 2: it is. */
export function checkFormat(format, s) {
  const check = CHECKS.get(format);
  if (check === undefined) return 0;
  return check(s) ? 2 : 1;
}

const CHECKS = new Map([
  ["date-time", dateTime],
  ["date", date],
  ["time", time],
  ["email", email],
  ["hostname", hostname],
  ["uuid", uuid],
  ["uri", uri],
  ["ipv4", ipv4],
  ["ipv6", ipv6],
]);

const isDigit = (c) => c >= 48 && c <= 57;
const isAlpha = (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAlnum = (c) => isDigit(c) || isAlpha(c);
const isHex = (c) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const all = (s, test) => {
  for (let i = 0; i < s.length; i++) if (!test(s.charCodeAt(i))) return false;
  return true;
};
/** `s` as a decimal number when it is all ASCII digits (at least one), else -1. */
const digits = (s) => (s.length > 0 && all(s, isDigit) ? Number(s) : -1);

/** `YYYY-MM-DD`, a real day. */
function date(s) {
  if (s.length !== 10 || s[4] !== "-" || s[7] !== "-") return false;
  const y = digits(s.slice(0, 4));
  const m = digits(s.slice(5, 7));
  const d = digits(s.slice(8));
  if (y < 0 || m < 0 || d < 0) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  let days;
  if ([1, 3, 5, 7, 8, 10, 12].includes(m)) days = 31;
  else if ([4, 6, 9, 11].includes(m)) days = 30;
  else if (m === 2) days = leap ? 29 : 28;
  else return false;
  return d >= 1 && d <= days;
}

/** `HH:MM:SS[.frac](Z|±HH[[:]MM])`, time zone required; a leap second only at 23:59:60 UTC. */
function time(s) {
  if (s.length < 9 || s[2] !== ":" || s[5] !== ":") return false;
  const h = digits(s.slice(0, 2));
  const m = digits(s.slice(3, 5));
  const sec = digits(s.slice(6, 8));
  if (h < 0 || m < 0 || sec < 0) return false;
  let i = 8;
  if (s[i] === ".") {
    let n = 0;
    while (i + 1 + n < s.length && isDigit(s.charCodeAt(i + 1 + n))) n++;
    if (n === 0) return false;
    i += 1 + n;
  }
  const zone = s.slice(i);
  let sign = 0;
  let tzH = 0;
  let tzM = 0;
  if (zone === "z" || zone === "Z") {
    // UTC
  } else if (zone[0] === "+" || zone[0] === "-") {
    const rest = zone.slice(1);
    if (rest.length === 2) {
      tzH = digits(rest);
    } else if (rest.length === 4) {
      tzH = digits(rest.slice(0, 2));
      tzM = digits(rest.slice(2));
    } else if (rest.length === 5 && rest[2] === ":") {
      tzH = digits(rest.slice(0, 2));
      tzM = digits(rest.slice(3));
    } else return false;
    if (tzH < 0 || tzM < 0) return false;
    sign = zone[0] === "+" ? 1 : -1;
  } else return false;
  if (h > 23 || m > 59 || tzH > 23 || tzM > 59) return false;
  if (sec < 60) return true;
  const utc = ((((h * 60 + m - sign * (tzH * 60 + tzM)) % 1440) + 1440) % 1440);
  return sec === 60 && utc === 23 * 60 + 59;
}

function dateTime(s) {
  const c = s[10];
  return s.length > 11 && (c === "T" || c === "t" || c === " ") && date(s.slice(0, 10)) && time(s.slice(11));
}

const ATEXT = "!#$%&'*+/=?^_`{|}~-";
/** `local@domain`: local of atext and dots (no empty atoms), domain of labels with a dot. */
function email(s) {
  const at = s.indexOf("@");
  if (at < 0) return false;
  const local = s.slice(0, at);
  const domain = s.slice(at + 1);
  const atext = (c) => isAlnum(c) || ATEXT.includes(String.fromCharCode(c));
  return (
    local.length > 0 &&
    local.split(".").every((a) => a.length > 0 && all(a, atext)) &&
    domain.includes(".") &&
    domain.split(".").every((l) => l.length > 0 && label(l))
  );
}

/** A hostname label: letters, digits, inner hyphens, at most 63. */
function label(l) {
  return l.length > 0 && l.length <= 63 && all(l, (c) => isAlnum(c) || c === 45) && l[0] !== "-" && l[l.length - 1] !== "-";
}

function hostname(s) {
  const t = s.endsWith(".") ? s.slice(0, -1) : s;
  return t.length > 0 && s.length <= 253 && t.split(".").every(label);
}

/** ASCII letters lowered, nothing else (as Rust's `eq_ignore_ascii_case`). */
const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

function uuid(s) {
  const u = asciiLower(s.slice(0, 9)) === "urn:uuid:" ? s.slice(9) : s;
  if (u.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = u.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23 ? c !== 45 : !isHex(c)) return false;
  }
  return true;
}

function ipv4(s) {
  const parts = s.split(".");
  return parts.length === 4 && parts.every((p) => p.length <= 3 && (p.length === 1 || p[0] !== "0") && digits(p) >= 0 && digits(p) <= 255);
}

function ipv6(s) {
  if (s.length === 0 || s.length > 45) return false;
  // An IPv4 tail counts as two groups.
  let head = s;
  let need = 8;
  const i = s.lastIndexOf(":");
  if (i >= 0 && s.slice(i + 1).includes(".")) {
    if (!ipv4(s.slice(i + 1))) return false;
    head = s.slice(0, i + 1);
    if (!head.endsWith("::")) head = head.slice(0, i);
    need = 6;
  }
  const group = (g) => g.length >= 1 && g.length <= 4 && all(g, isHex);
  const groups = (p) => {
    if (p.length === 0) return 0;
    const list = p.split(":");
    return list.every(group) ? list.length : -1;
  };
  const dc = head.indexOf("::");
  if (dc >= 0) {
    // `::` stands for one group or more.
    const l = groups(head.slice(0, dc));
    const r = head.slice(dc + 2);
    const n = groups(r);
    return !r.includes("::") && l >= 0 && n >= 0 && l + n < need;
  }
  return head.length > 0 && groups(head) === need;
}

const URI_CHARS = "-._~!$&'()*+,;=:@/?#%[]";
const hasBracket = (s) => s.includes("[") || s.includes("]");
/** An absolute URI (RFC 3986), as src/schema/format.rs `uri` reads it. */
function uri(s) {
  const colon = s.indexOf(":");
  if (colon < 0) return false;
  const scheme = s.slice(0, colon);
  const rest = s.slice(colon + 1);
  if (scheme.length === 0 || !isAlpha(scheme.charCodeAt(0)) || !all(scheme, (c) => isAlnum(c) || c === 43 || c === 45 || c === 46)) return false;
  if (!all(rest, (c) => isAlnum(c) || URI_CHARS.includes(String.fromCharCode(c))) || rest.split("#").length > 2) return false;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "%" && !(isHex(rest.charCodeAt(i + 1)) && isHex(rest.charCodeAt(i + 2)))) return false;
  }
  let cut = rest.length;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "?" || rest[i] === "#") {
      cut = i;
      break;
    }
  }
  const hier = rest.slice(0, cut);
  if (hasBracket(rest.slice(cut))) return false;
  if (!hier.startsWith("//")) return !hasBracket(hier);
  const h = hier.slice(2);
  const slash = h.indexOf("/");
  const authority = slash < 0 ? h : h.slice(0, slash);
  if (hasBracket(slash < 0 ? "" : h.slice(slash))) return false;
  const at = authority.lastIndexOf("@");
  if (at >= 0 && hasBracket(authority.slice(0, at))) return false;
  const hostport = at >= 0 ? authority.slice(at + 1) : authority;
  let port;
  if (hostport.startsWith("[")) {
    const r = hostport.slice(1);
    const close = r.indexOf("]");
    if (close < 0) return false;
    const lit = r.slice(0, close);
    const after = r.slice(close + 1);
    if (!(ipv6(lit) || lit.startsWith("v") || lit.startsWith("V"))) return false;
    if (after.startsWith(":")) port = after.slice(1);
    else if (after.length === 0) port = "";
    else return false;
  } else if (hasBracket(hostport)) {
    return false;
  } else {
    const c = hostport.indexOf(":");
    port = c < 0 ? "" : hostport.slice(c + 1);
  }
  return all(port, isDigit);
}
