import type { ToolDefinition } from "./index.js";

/** Loads the wasm. Needed once in browsers; a resolved no-op in Node and workerd. Idempotent. */
export default function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;
export { init };

/** The probes, in the order they run. */
export type ProbeName = "basic" | "schema" | "loop" | "parallel" | "repair" | "replay" | "streaming";
export const PROBES: ProbeName[];

/** One label per sample: the first stage that fails (parse, schema, semantics) gives it. */
export type ProbeLabel =
  | "pass"
  | "no_call"
  | "malformed_json"
  | "truncation"
  | "wrong_tool"
  | "escaping_error"
  | "missing_required"
  | "schema_violation"
  | "hallucinated_param"
  | "type_coercion"
  | "parallel_collapse"
  | "spurious_call";
export const LABELS: ProbeLabel[];

/** The profile format's version. */
export const PROBE_VERSION: 1;

/** The harmless probe tools: `probe_echo {message, tag: enum, meta?}`, `probe_add {a, b}`, `probe_fail_once {path}`. */
export const PROBE_TOOLS: ToolDefinition[];

/** A pass rate with its 95% Wilson interval (`rate` and `ci95` are null when nothing was measured). */
export interface Rate {
  pass: number;
  n: number;
  rate: number | null;
  ci95: [number, number] | null;
}

/** The 95% Wilson score interval for `x` successes in `n` trials; null when `n` is 0. */
export function wilson(x: number, n: number, z?: number): [number, number] | null;
export function rate(pass: number, n: number): Rate;
/** `"2/3 pass, 0.67 [0.21, 0.94]"`, or `"not measured"`. */
export function formatRate(rate: Rate | undefined): string;

export interface ProbeOptions {
  /** The endpoint's OpenAI base URL (`http://host:8000/v1`); a bare origin gets `/v1`; a full `…/chat/completions` URL is used as it is. */
  baseUrl: string;
  /** The model name the endpoint serves. */
  model: string;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  headers?: Record<string, string>;
  /** Samples per probe (default 3; 1 to 100). */
  samples?: number;
  /** A subset of the probes (default all). */
  probes?: ProbeName[];
  /** Per-request timeout in ms, the whole answer included (default 60000). Timeouts are not retried. */
  timeoutMs?: number;
  /** `max_tokens` of every request (default 1024). */
  maxTokens?: number;
  /** Retries of a request after a network error or HTTP 429/500/502/503/504 (default 1). */
  retries?: number;
  /** Fields merged into every request body (e.g. `{temperature: 0.7}`, `chat_template_kwargs`). */
  extraBody?: Record<string, unknown>;
  /** A profile of an earlier run of the same model and endpoint: its finished samples are kept. */
  resume?: Profile;
  /** After each probe. */
  onProgress?: (progress: { probe: ProbeName; done: number; total: number; title: string; rate: Rate; labels: Partial<Record<ProbeLabel, number>>; line: string }) => void;
  /** After each sample, with the profile so far (to save it for a resume). */
  onUpdate?: (profile: Profile) => void;
  signal?: AbortSignal;
}

/** One request of a sample, as evidence. */
export interface ProbeStep {
  request: { turn: number; stream: boolean; note?: string };
  /** HTTP status (null when there was no answer). */
  status: number | null;
  ms?: number;
  /** Why the request has no answer to read (an HTTP error, a timeout, a refused connection). */
  error?: string;
  transportError?: boolean;
  /** The answer as sent: `{content, reasoning, tool_calls, finish_reason}`, or for a stream `{sse, events, done, finish_reason}`. */
  raw?: Record<string, unknown>;
  /** toolwire's reading of it. */
  parse?: {
    format: "native" | "text" | "none";
    parser: string | null;
    calls: { name: string; arguments: string }[];
    content: string | null;
    diagnostics: { label: string; message: string; index?: number }[];
    /** Basic probe: every family that reads the expected call, most specific first. */
    readings?: string[];
  };
  label?: ProbeLabel;
  reason?: string;
}

export interface ProbeSample {
  index: number;
  label: ProbeLabel;
  /** Why it passed or failed. */
  reason: string;
  steps: ProbeStep[];
  /** A request went unanswered: the sample is asked again on resume. */
  transportError?: boolean;
  /** basic: how the call came back and which family read it. */
  format?: "native" | "text" | "none" | null;
  parser?: string | null;
  readings?: string[];
  /** parallel: two calls, one, or one merged. */
  mode?: "parallel" | "one" | "merged" | "none" | null;
  /** replay: the assistant turn had reasoning; without it the next turn failed and with it passed. */
  reasoningSeen?: boolean;
  needsReplay?: boolean;
  /** streaming: the merged stream gave the calls of the non-streamed basic sample of the same index. */
  sameAsNonStreamed?: boolean | null;
}

export interface ProbeResult {
  title: string;
  samples: ProbeSample[];
  rate: Rate;
  labels: Partial<Record<ProbeLabel, number>>;
  /** parallel only: samples per mode. */
  modes?: Partial<Record<"parallel" | "one" | "merged" | "none", number>>;
}

/** A capability profile, with the evidence. Booleans are true when more than half the samples pass (null: not measured). */
export interface Profile {
  probeVersion: 1;
  model: string;
  /** The chat completions URL probed. */
  endpoint: string;
  timestamp: string;
  samples: number;
  /** Some parser reads the basic call (exit code 0 of the CLI). */
  usable: boolean;
  /** The parser for the worker: `"openai"` when the server parses calls itself, a family id for text, null when none reads them. */
  detectedParser: string | null;
  toolCallFormat: "native" | "text" | "none" | null;
  /** Families that read the basic call in every text sample, most specific first. */
  parserCandidates: string[];
  supportsParallelToolUse: boolean | null;
  requiresReasoningReplay: boolean | null;
  supportsStreamingToolUse: boolean | null;
  /** schema probe: every sample passes, some, or none. */
  schemaLevel: "full" | "partial" | "none" | null;
  errorRepair: boolean | null;
  probes: Partial<Record<ProbeName, ProbeResult>>;
  notes: string[];
  /** Why the run stopped early (the endpoint never answered, or refused the first request). */
  error?: string;
  resumedFrom?: string | null;
}

/** Probes the endpoint; resolves to the profile. Rejects only for bad options. */
export function probe(options: ProbeOptions): Promise<Profile>;

/** An OpenAI chunk stream (bytes) reassembled per choice. */
export function mergeSse(bytes: Uint8Array): {
  choices: Map<number, { content: string; reasoning: string; calls: { index: number; id?: string; name: string; arguments: string }[]; finish: string | null }>;
  done: boolean;
  events: number;
  problems: string[];
};

export function judgeCalls(expect: { calls: { name: string; args: Record<string, unknown> }[] }, observation: unknown): { label: ProbeLabel; reason: string };
export function judgeAnswer(expect: { answer: string[] }, observation: unknown): { label: ProbeLabel; reason: string };
