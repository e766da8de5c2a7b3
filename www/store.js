// The playground's state, in one place. Modules read and write it; nothing else is mutable
// at module level.
//   ui        what the URL fragment carries (state.js encodes it); the inputs mirror it
//   registry  what the package knows (filled at boot)
//   input     the paste as recognised (recognize.js): raw model output, an SSE capture, a
//             completion body or a probe profile; `text` is what the family table reads
//   result    the latest classification shown in the table
//   job       the classification worker and its queue
//   replay    the detail dialog's stream replay
//   url       pending URL writes
import { DEFAULTS } from "./state.js";

export const store = {
  ui: { ...DEFAULTS },
  api: null, // the package (toolwire), once loaded
  stream: null, // toolwire/stream
  registry: { families: [], byId: new Map(), reasoners: [], examples: [], version: "" },
  tools: undefined, // the tools field, parsed (undefined when empty or invalid)
  input: { kind: "text", text: "" },
  result: null, // {id, rows, native, ms, total, bytes, text, where, sniffed} or {id, error}
  showAll: false, // the families that find nothing are listed too
  job: { worker: null, seq: 0, busy: false, queued: false, timer: 0, sentAt: new Map() },
  replay: {
    run: null, // the Replay (replay.js)
    playing: false,
    rushing: false, // "to end": as fast as possible regardless of speed
    raf: 0,
    lastT: 0,
    due: 0, // chunks owed to the speed setting
    items: new Map(), // replay item -> <li>
    selected: null, // the item whose range is highlighted (selected / hovered)
    pinned: null, // the selected item (hover falls back to it)
    opener: null, // the element to refocus on close
    drawn: "", // the key of what the raw pane shows
  },
  url: { timer: 0, saves: 0 },
};
