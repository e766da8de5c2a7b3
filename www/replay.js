// A stream replay: feeds a text to a ToolCallParser in chunks and records the events as
// timeline items, each attributed to the input range that was pushed when it was emitted.
//
// Attribution: an event emitted by push(chunk) is "triggered" at the end of that chunk; its
// range runs from the previous batch's trigger to its own. With chunk size 1 the trigger is
// exactly the character that completed the event. Adjacent text, reasoning, and same-call
// argument deltas merge into one item whose range is the union of its fragments'.

/** UTF-16 boundaries of chunks of `size` code points (never splits a surrogate pair). */
export function chunkBounds(text, size) {
  const bounds = [];
  let start = 0;
  let n = 0;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i);
    i += cp > 0xffff ? 2 : 1;
    if (++n === size) {
      bounds.push([start, i]);
      start = i;
      n = 0;
    }
  }
  if (start < text.length) bounds.push([start, text.length]);
  return bounds;
}

export class Replay {
  /** Throws what the ToolCallParser constructor throws (unknown parser, bad tools). */
  constructor(api, text, options, chunkSize) {
    this.text = text;
    this.parser = new api.ToolCallParser(options);
    this.bounds = chunkBounds(text, Math.max(1, chunkSize | 0));
    this.next = 0; // index of the next chunk
    this.pos = 0; // UTF-16 offset pushed so far
    this.trigger = 0; // where the last batch of events was emitted
    this.items = []; // timeline items (see record)
    this.changed = new Set(); // items added or grown since the last take()
    this.done = false;
  }

  get total() {
    return this.bounds.length;
  }

  /** Pushes the next chunk, or finishes after the last one. Returns false once done. */
  step() {
    if (this.done) return false;
    if (this.next < this.bounds.length) {
      const [a, b] = this.bounds[this.next++];
      this.pos = b;
      this.record(this.parser.push(this.text.slice(a, b)));
    } else {
      this.finishing = true; // events from finish() are marked `atFinish`
      this.record(this.parser.finish());
      this.done = true;
      this.free();
    }
    return !this.done;
  }

  /** Records a batch of events triggered at `this.pos`. */
  record(events) {
    if (!events.length) return;
    const from = this.trigger;
    const to = this.pos;
    for (const e of events) {
      const last = this.items.at(-1);
      const same = last && last.type === e.type &&
        (e.type === "text" || e.type === "reasoning" || (e.type === "tool-call-delta" && last.index === e.index));
      if (same) {
        last.value += e.type === "tool-call-delta" ? e.argumentsDelta : e.text;
        last.fragments++;
        last.to = to;
        this.changed.add(last);
        continue;
      }
      const item = { n: this.items.length, type: e.type, from, to, fragments: 1, event: e, atFinish: !!this.finishing };
      if (e.type === "text" || e.type === "reasoning") item.value = e.text;
      else if (e.type === "tool-call-delta") item.value = e.argumentsDelta;
      if ("index" in e) item.index = e.index;
      this.items.push(item);
      this.changed.add(item);
    }
    this.trigger = to;
  }

  /** Items added or grown since the last call. */
  take() {
    const list = [...this.changed];
    this.changed.clear();
    return list;
  }

  free() {
    if (this.parser) {
      this.parser.free();
      this.parser = null;
    }
  }
}
