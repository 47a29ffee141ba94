// The chat as the panel renders it: a list of items (user messages, assistant messages with
// their tool cards, notices) built from the stored transcript and then kept current by the
// turn's events. Pure functions over immutable values, no Tauri: the panel holds one
// `ChatState` and replaces it with what these functions return. A notice the UI words itself
// keeps its message (key and numbers), put into the UI's language when it is shown.
//
// Two sources, one shape:
// - `fromTranscript` reads the messages the store kept. A tool message answers an assistant
//   tool call by `toolCallId`; it carries its call's `outcome` (kind, decision, duration, diff,
//   sandbox, level), so the card is the one shown live. A message saved before outcomes were
//   kept has only its text: its status is read from the text's prefix (`[denied]`,
//   `[disabled]`, `[error]`, `[cancelled]`).
// - `applyEvent` applies one `chat:event`. Text deltas extend the assistant message being
//   streamed (a new one starts after tool calls: the next model reply); tool calls become cards
//   that results (which may arrive out of order) complete by id; a `retrying` event voids what
//   was streamed since the last tool result.

import type { Attachment } from "../bindings/Attachment";
import type { AttachmentRequest } from "../bindings/AttachmentRequest";
import type { CallProgress } from "../bindings/CallProgress";
import type { ChatEvent } from "../bindings/ChatEvent";
import type { ChatView } from "../bindings/ChatView";
import type { ContextUsage } from "../bindings/ContextUsage";
import type { MessagePage } from "../bindings/MessagePage";
import type { Decision } from "../bindings/Decision";
import type { Message } from "../bindings/Message";
import type { Observation } from "../bindings/Observation";
import type { ObservationKind } from "../bindings/ObservationKind";
import type { PermissionLevel } from "../bindings/PermissionLevel";
import type { SandboxState } from "../bindings/SandboxState";
import type { TokenUsage } from "../bindings/TokenUsage";
import type { ToolCall } from "../bindings/ToolCall";
import type { ToolOutcome } from "../bindings/ToolOutcome";
import type { TurnEvent } from "../bindings/TurnEvent";
import { formatSeconds } from "./format";
import { tText, type UiText } from "./i18n.svelte";

/** A tool card's state: still going, or how it ended. */
export type ToolStatus = "running" | "awaiting_approval" | ObservationKind;

/** One tool call and (once it came) its result. */
export interface ToolCard {
  readonly id: string;
  readonly name: string;
  /** The arguments as the model wrote them (JSON text, possibly invalid). */
  readonly arguments: string;
  readonly status: ToolStatus;
  /** The observation text, once the call ended. */
  readonly result: string | null;
  /** Milliseconds from dispatch to result (live results only). */
  readonly durationMs: number | null;
  readonly truncated: boolean;
  /** A unified diff of what the call changed (live results only). */
  readonly diff: string | null;
  /** Why the user denied it, when they said. */
  readonly reason: string | null;
  /** How far the running call is, as its tool (an MCP server) last reported it. */
  readonly progress: CallProgress | null;
  /** How the command ran: in the OS sandbox or not (run_command, live results only). */
  readonly sandbox?: SandboxState | null;
  /** How the permission check decided, and who decided (live results, and stored ones with it). */
  readonly decision: Decision | null;
  /** The tool's level when it ran (a restored card; a live one reads the tool's level now). */
  readonly level?: PermissionLevel | null;
  /** Its result's position in the stored session (restored cards). */
  readonly ordinal?: number;
  /** Whether `result` is only the start of a long result (the whole one is read on demand,
   *  `chat_message_text`, by `ordinal`, or by `id` for a live card). */
  readonly clipped?: boolean;
}

/** What a user message attached, as its transcript shows it. */
export type ShownAttachment =
  | { readonly kind: "file" | "folder"; readonly path: string }
  | { readonly kind: "image"; readonly name: string; readonly mime: string; readonly data: string };

/** The attachments of a stored message, as shown. */
export function shownAttachments(attachments: readonly Attachment[] | undefined): ShownAttachment[] {
  return (attachments ?? []).map((attachment) =>
    attachment.kind === "image"
      ? { kind: "image", name: attachment.name, mime: attachment.mime, data: attachment.data }
      : { kind: attachment.kind, path: attachment.path },
  );
}

/** What the chat box sent, as shown until the transcript has it. */
export function requestedAttachments(requests: readonly AttachmentRequest[]): ShownAttachment[] {
  return requests.map((request) =>
    request.kind === "mention"
      ? { kind: "file", path: request.path }
      : shownAttachments([request.image])[0] ?? { kind: "file", path: "" },
  );
}

export type NoticeKind = "retrying" | "context_shortened" | "error" | "cancelled" | "step_limit";

export type ChatItem =
  | {
      readonly kind: "user";
      readonly key: number;
      readonly text: string;
      readonly attachments?: readonly ShownAttachment[];
      /** Its message's position in the stored session (restored items only). */
      readonly ordinal?: number;
    }
  | {
      readonly kind: "assistant";
      readonly key: number;
      /** Its message's position in the stored session, and its tool results' (restored items). */
      readonly ordinals?: readonly number[];
      readonly text: string;
      readonly reasoning: string;
      readonly tools: readonly ToolCard[];
      readonly status: "complete" | "cancelled" | "error";
      /** Still being streamed in the running turn. */
      readonly live: boolean;
      /** A tool call whose arguments are still arriving (its card appears once they are whole). */
      readonly receiving?: { readonly name: string; readonly bytes: number } | null;
    }
  | {
      /** The model's summary of everything before it (compaction); what is before it is shown
       *  folded. */
      readonly kind: "summary";
      readonly key: number;
      readonly text: string;
      /** Its position in the stored transcript (to edit it). */
      readonly ordinal: number;
    }
  | {
      readonly kind: "notice";
      readonly key: number;
      readonly notice: NoticeKind;
      /** The engine's words as they came, or the UI's message (see {@link noticeText}). */
      readonly text: string | UiText;
    };

export type NoticeItem = Extract<ChatItem, { kind: "notice" }>;

/** What a notice says, in the UI's language when the UI wrote it. */
export function noticeText(item: NoticeItem): string {
  return typeof item.text === "string" ? item.text : tText(item.text);
}

export type AssistantItem = Extract<ChatItem, { kind: "assistant" }>;

export interface ChatState {
  /** The session shown; null for a fresh chat (until its first message creates one). */
  readonly sessionId: string | null;
  readonly items: readonly ChatItem[];
  /** Whether a turn runs in this session. */
  readonly running: boolean;
  /** A message was sent from a fresh chat and its session is not known yet. */
  readonly awaitingSession: boolean;
  /** Token counts of the last turn, summed over its model calls. */
  readonly usage: TokenUsage | null;
  /** How full the context window is (the latest request's, or the next one's). */
  readonly context: ContextUsage | null;
  /** The model is writing a summary (compaction). */
  readonly compacting: boolean;
  /** The next item key. */
  readonly nextKey: number;
  /** The ordinal of the first stored message the items show (0: from the session's start);
   *  older ones are read as the user scrolls up (`chat_messages_before`). */
  readonly firstOrdinal: number;
  /** How many user messages of the session come before those shown (user messages are
   *  numbered among all of the session's). */
  readonly usersBefore: number;
}

export const emptyChat: ChatState = {
  sessionId: null,
  items: [],
  running: false,
  awaitingSession: false,
  usage: null,
  context: null,
  compacting: false,
  nextKey: 1,
  firstOrdinal: 0,
  usersBefore: 0,
};

// ---------------------------------------------------------------------------------------------
// Tool results

/** The prefixes the engine starts a refused or failed observation with (gantry-tools manager). */
const STATUS_PREFIXES: readonly (readonly [string, ObservationKind])[] = [
  ["[denied]", "denied"],
  ["[disabled]", "disabled"],
  ["[cancelled]", "cancelled"],
  ["[bad arguments]", "bad_arguments"],
  ["[bad_arguments]", "bad_arguments"],
  ["[error] invalid arguments for tool", "bad_arguments"],
  ["[error] arguments are not valid JSON", "bad_arguments"],
  ["[error]", "error"],
];

/** How a stored tool call ended, read from its observation text. */
export function statusFromText(text: string): ObservationKind {
  const start = text.trimStart();
  for (const [prefix, status] of STATUS_PREFIXES) {
    if (start.startsWith(prefix)) return status;
  }
  return "ok";
}

/** The user's reason in a denial text ("[denied] the user denied tool 'x': reason"). */
function denialReason(text: string): string | null {
  const match = /^\[denied\] the user denied tool '[^']*': ([\s\S]+)$/.exec(text.trim());
  return match?.[1] ?? null;
}

/** Arguments for display: pretty JSON when they parse, the raw text otherwise. */
export function prettyArguments(text: string): string {
  if (text.trim() === "") return "{}";
  try {
    return JSON.stringify(JSON.parse(text) as unknown, null, 2);
  } catch {
    return text;
  }
}

/** True while the card waits for something. */
export function isPending(status: ToolStatus): boolean {
  return status === "running" || status === "awaiting_approval";
}

function card(call: ToolCall): ToolCard {
  return {
    id: call.id,
    name: call.name,
    arguments: call.arguments,
    status: "running",
    result: null,
    durationMs: null,
    truncated: false,
    diff: null,
    reason: null,
    progress: null,
    decision: null,
  };
}

function completed(tool: ToolCard, observation: Observation): ToolCard {
  return {
    ...tool,
    status: observation.kind,
    result: observation.text,
    durationMs: observation.duration,
    truncated: observation.truncated,
    diff: observation.diff,
    reason: observation.kind === "denied" ? observation.decision.detail : null,
    progress: null,
    sandbox: observation.sandbox ?? null,
    decision: observation.decision,
  };
}

/** A stored tool message's card: from its outcome when it has one, else from its text. */
function restored(tool: ToolCard, text: string, outcome: ToolOutcome | undefined, ordinal: number, clipped: boolean): ToolCard {
  const stored = { ...tool, ordinal, clipped };
  if (!outcome) {
    const status = statusFromText(text);
    return { ...stored, status, result: text, reason: status === "denied" ? denialReason(text) : null };
  }
  return {
    ...stored,
    status: outcome.kind,
    result: text,
    durationMs: outcome.durationMs,
    truncated: outcome.truncated,
    diff: outcome.diff ?? null,
    reason: outcome.kind === "denied" ? outcome.decision.detail : null,
    sandbox: outcome.sandbox ?? null,
    decision: outcome.decision,
    level: outcome.level ?? null,
  };
}

// ---------------------------------------------------------------------------------------------
// The stored transcript

/**
 * The items of a stored transcript. Calls without a result did not finish — unless a turn is
 * `running`, whose last reply's calls may still be under way (their results arrive as events).
 * `first` is the ordinal of the first message (a page of a long session), `clipped` the
 * ordinals of the results sent shortened; keys start at `firstKey`.
 */
export function fromTranscript(
  messages: readonly Message[],
  running = false,
  first = 0,
  clipped: readonly number[] = [],
  firstKey = 1,
): ChatItem[] {
  const items: ChatItem[] = [];
  let key = firstKey;
  const short = new Set(clipped);
  /** Where each tool call's card sits: item index and card index. */
  const cards = new Map<string, { item: number; card: number }>();
  for (const [index, message] of messages.entries()) {
    const ordinal = first + index;
    // Empty optional fields are left out of the JSON.
    const { reasoning, toolCalls, toolCallId } = message;
    if (message.kind === "summary") {
      items.push({ kind: "summary", key: key++, text: message.content, ordinal });
    } else if (message.role === "user") {
      items.push({ kind: "user", key: key++, text: message.content, attachments: shownAttachments(message.attachments), ordinal });
    } else if (message.role === "assistant") {
      const tools = (toolCalls ?? []).map(card);
      tools.forEach((tool, index) => {
        cards.set(tool.id, { item: items.length, card: index });
      });
      items.push({
        kind: "assistant",
        key: key++,
        text: message.content,
        reasoning: reasoning ?? "",
        tools,
        status: message.status,
        live: false,
        ordinals: [ordinal],
      });
    } else {
      const place = toolCallId ? cards.get(toolCallId) : undefined;
      const owner = place ? items[place.item] : undefined;
      if (place && owner?.kind === "assistant") {
        const tools = owner.tools.map((tool, index) =>
          index === place.card ? restored(tool, message.content, message.outcome, ordinal, short.has(ordinal)) : tool,
        );
        items[place.item] = { ...owner, tools, ordinals: [...(owner.ordinals ?? []), ordinal] };
      }
      // A result without its call (cut from the transcript) has nothing to attach to.
    }
  }
  let lastReply = -1;
  if (running) items.forEach((item, index) => { if (item.kind === "assistant") lastReply = index; });
  return items.map((item, index): ChatItem => {
    if (item.kind !== "assistant" || !item.tools.some((tool) => isPending(tool.status))) return item;
    if (index === lastReply) return { ...item, live: true };
    const tools = item.tools.map((tool) => (isPending(tool.status) ? { ...tool, status: "cancelled" as const } : tool));
    return { ...item, tools };
  });
}

/** The key of the item that shows the stored message at `ordinal`, if one does. */
export function itemAt(state: ChatState, ordinal: number): number | null {
  for (const item of state.items) {
    if (item.kind === "user" && item.ordinal === ordinal) return item.key;
    if (item.kind === "assistant" && item.ordinals?.includes(ordinal)) return item.key;
  }
  return null;
}

/**
 * The state for what `chat_state` (or a session switch) returned. With `replay`, a running
 * turn is rebuilt exactly: the messages up to its user message, then the turn's events (from
 * `chat_events_since`, from its first one) — rather than the stored messages, which lack what is
 * still being streamed.
 */
export function fromView(shown: ChatView, replay?: readonly ChatEvent[]): ChatState {
  // A turn queued behind the app's limit: its message, not stored yet, takes the place it
  // will be stored at (the turn's first ordinal).
  const view = shown.queued ? { ...shown, messages: [...shown.messages, shown.queued], queued: null } : shown;
  if (replay && view.turn && view.session) {
    const before = view.messages.slice(0, view.turn.firstOrdinal - view.firstOrdinal + 1);
    const base = fromView({ ...view, messages: before, running: false, turn: null });
    return replay.reduce<ChatState>(
      (state, event) => (event.sessionId === state.sessionId ? applyChatEvent(state, event) : state),
      { ...base, running: true },
    );
  }
  const items = fromTranscript(view.messages, view.running, view.firstOrdinal, view.clipped);
  return {
    sessionId: view.session?.id ?? null,
    items,
    running: view.running,
    awaitingSession: false,
    usage: null,
    context: null,
    compacting: false,
    nextKey: items.length + 1,
    firstOrdinal: view.firstOrdinal,
    usersBefore: view.usersBefore,
  };
}

/** Whether older messages of the session are still to be read. */
export function hasOlder(state: ChatState): boolean {
  return state.sessionId !== null && state.firstOrdinal > 0;
}

/**
 * The state with an older page of its session before its items: the page must end where the
 * items start (else it is stale, read before a reload or for another session, and ignored).
 * The page's items take the next keys, so the items shown keep theirs.
 */
export function withOlder(state: ChatState, sessionId: string, page: MessagePage): ChatState {
  if (state.sessionId !== sessionId || page.firstOrdinal + page.messages.length !== state.firstOrdinal) return state;
  const older = fromTranscript(page.messages, false, page.firstOrdinal, page.clipped, state.nextKey);
  return {
    ...state,
    items: [...older, ...state.items],
    nextKey: state.nextKey + older.length,
    firstOrdinal: page.firstOrdinal,
    usersBefore: page.usersBefore,
  };
}

/** Where the items a summary stands in for end: the index of the latest summary (0: none). */
export function foldedCount(items: readonly ChatItem[]): number {
  for (let index = items.length - 1; index > 0; index -= 1) {
    if (items[index]?.kind === "summary") return index;
  }
  return 0;
}

/** The summary at `ordinal` now reads `text` (the user edited it). */
export function summaryEdited(state: ChatState, ordinal: number, text: string): ChatState {
  const items = state.items.map((item) => (item.kind === "summary" && item.ordinal === ordinal ? { ...item, text } : item));
  return { ...state, items };
}

/** A summary arrived: it goes before the message the running turn was started with (a turn
 *  compacts before saving it), or last when no turn runs. */
function summarised(state: ChatState, event: Extract<TurnEvent, { type: "compacted" }>): ChatState {
  const summary: ChatItem = { kind: "summary", key: state.nextKey, text: event.summary, ordinal: event.ordinal };
  const last = state.items.at(-1);
  const items =
    state.running && last?.kind === "user"
      ? [...state.items.slice(0, -1), summary, last]
      : [...state.items, summary];
  return { ...withItems(state, items, 1), compacting: false };
}

// ---------------------------------------------------------------------------------------------
// Sending

/** The user sent `text`: shown at once, the turn counts as running. */
export function sent(state: ChatState, text: string, attachments: readonly ShownAttachment[] = []): ChatState {
  return {
    ...state,
    items: [...state.items, { kind: "user", key: state.nextKey, text, attachments }],
    nextKey: state.nextKey + 1,
    running: true,
    awaitingSession: state.sessionId === null,
    usage: null,
  };
}

/** `send_message` answered with the session id (a fresh chat adopts it). */
export function accepted(state: ChatState, sessionId: string): ChatState {
  if (state.sessionId !== null && state.sessionId !== sessionId) return state;
  return { ...state, sessionId, awaitingSession: false };
}

/** `send_message` failed: the message was not sent, so it leaves the transcript. */
export function sendFailed(state: ChatState, text: string): ChatState {
  const last = state.items.at(-1);
  const items = last?.kind === "user" && last.text === text ? state.items.slice(0, -1) : state.items;
  return { ...state, items, running: false, awaitingSession: false };
}

// ---------------------------------------------------------------------------------------------
// Events

/** Whether `event` belongs to the chat shown (project `projectId`, state's session). */
export function concerns(state: ChatState, event: ChatEvent, projectId: number): boolean {
  if (event.projectId !== projectId) return false;
  if (state.sessionId !== null) return event.sessionId === state.sessionId;
  // A fresh chat learns its session from its own turn's first event.
  return state.awaitingSession && event.event.type === "turn_started";
}

/** Applies one `chat:event`; events of another project or session leave the state as it is. */
export function applyEvent(state: ChatState, event: ChatEvent, projectId: number): ChatState {
  if (!concerns(state, event, projectId)) return state;
  const adopted =
    state.sessionId === null ? { ...state, sessionId: event.sessionId, awaitingSession: false } : state;
  return applyChatEvent(adopted, event);
}

/** Applies one event of the shown session: its turn event, and a long result's card says it
 *  holds the result's start only (the whole one is read on demand, by the call's id). */
export function applyChatEvent(state: ChatState, event: ChatEvent): ChatState {
  const applied = applyTurnEvent(state, event.event);
  const turn = event.event;
  if (turn.type !== "tool_result" || event.clippedBytes === undefined) return applied;
  return updateTools(applied, (tool) => tool.id === turn.id, (tool) => ({ ...tool, clipped: true }));
}

function withItems(state: ChatState, items: readonly ChatItem[], added = 0): ChatState {
  return { ...state, items, nextKey: state.nextKey + added };
}

function notice(state: ChatState, kind: NoticeKind, text: string | UiText): ChatState {
  return withItems(state, [...state.items, { kind: "notice", key: state.nextKey, notice: kind, text }], 1);
}

/** The assistant message being streamed, if it is the last item and can take more text. */
function streamingTail(state: ChatState): AssistantItem | null {
  const last = state.items.at(-1);
  return last?.kind === "assistant" && last.live && last.tools.length === 0 ? last : null;
}

/** Appends text (or reasoning) to the streamed message, starting one when needed. */
function appendText(state: ChatState, field: "text" | "reasoning", text: string): ChatState {
  const tail = streamingTail(state);
  const extend = (item: AssistantItem): AssistantItem =>
    field === "text" ? { ...item, text: item.text + text } : { ...item, reasoning: item.reasoning + text };
  if (tail) return withItems(state, [...state.items.slice(0, -1), extend(tail)]);
  return withItems(state, [...state.items, extend(liveReply(state))], 1);
}

/** An empty reply being streamed, the next item of `state`. */
function liveReply(state: ChatState): AssistantItem {
  return { kind: "assistant", key: state.nextKey, text: "", reasoning: "", tools: [], status: "complete", live: true };
}

/** Notes the call whose arguments are arriving on the reply being streamed. */
function receiving(state: ChatState, call: { name: string; bytes: number }): ChatState {
  const last = state.items.at(-1);
  if (last?.kind === "assistant" && last.live) {
    return withItems(state, [...state.items.slice(0, -1), { ...last, receiving: call }]);
  }
  return withItems(state, [...state.items, { ...liveReply(state), receiving: call }], 1);
}

/** Adds a tool card to the reply that called it (the last live assistant message). */
function addTool(state: ChatState, tool: ToolCard): ChatState {
  if (findTool(state, tool.id)) return state;
  const last = state.items.at(-1);
  if (last?.kind === "assistant" && last.live) {
    return withItems(state, [
      ...state.items.slice(0, -1),
      { ...last, tools: [...last.tools, tool], receiving: null },
    ]);
  }
  const item: AssistantItem = {
    kind: "assistant",
    key: state.nextKey,
    text: "",
    reasoning: "",
    tools: [tool],
    status: "complete",
    live: true,
  };
  return withItems(state, [...state.items, item], 1);
}

function findTool(state: ChatState, id: string): ToolCard | undefined {
  for (const item of state.items) {
    if (item.kind === "assistant") {
      const found = item.tools.find((tool) => tool.id === id);
      if (found) return found;
    }
  }
  return undefined;
}

/** Replaces the cards `pick` selects with `update(card)`. */
function updateTools(
  state: ChatState,
  pick: (tool: ToolCard) => boolean,
  update: (tool: ToolCard) => ToolCard,
): ChatState {
  const items: ChatItem[] = [];
  let changed = false;
  for (const item of state.items) {
    if (item.kind === "assistant" && item.tools.some(pick)) {
      changed = true;
      items.push({ ...item, tools: item.tools.map((tool) => (pick(tool) ? update(tool) : tool)) });
    } else {
      items.push(item);
    }
  }
  return changed ? withItems(state, items) : state;
}

/** Drops what was streamed since the last tool result: the reply restarts. */
function dropStreamed(state: ChatState): ChatState {
  const tail = streamingTail(state);
  return tail ? withItems(state, state.items.slice(0, -1)) : state;
}

/**
 * Marks the end of the turn: unfinished cards are cancelled, no message is live any more, and
 * the reply the turn ended in (the last one) takes `status` — only that one, so a stopped turn
 * says "stopped" once, whatever number of replies it had.
 */
function finishLive(state: ChatState, status: AssistantItem["status"]): ChatState {
  let last = -1;
  state.items.forEach((item, index) => {
    if (item.kind === "assistant" && item.live) last = index;
  });
  const items = state.items.map((item, index): ChatItem => {
    if (item.kind !== "assistant" || !item.live) return item;
    const tools = item.tools.map((tool) => (isPending(tool.status) ? { ...tool, status: "cancelled" as const } : tool));
    const empty = item.text === "" && item.reasoning === "" && tools.length === 0;
    return { ...item, tools, live: false, receiving: null, status: empty || index !== last ? item.status : status };
  });
  // A reply that never produced anything is no message.
  const kept = items.filter(
    (item) => !(item.kind === "assistant" && item.text === "" && item.reasoning === "" && item.tools.length === 0),
  );
  return withItems(state, kept);
}

/** Whether the turn's last reply carries the turn's end (so no separate notice is needed). */
function endsInReply(state: ChatState, status: AssistantItem["status"]): boolean {
  const last = state.items.at(-1);
  return last?.kind === "assistant" && last.status === status;
}

function addUsage(previous: TokenUsage | null, event: Extract<TurnEvent, { type: "usage" }>): TokenUsage {
  return {
    promptTokens: (previous?.promptTokens ?? 0) + event.promptTokens,
    completionTokens: (previous?.completionTokens ?? 0) + event.completionTokens,
    totalTokens: (previous?.totalTokens ?? 0) + event.totalTokens,
  };
}

/** Applies one event of the shown session's turn. */
export function applyTurnEvent(state: ChatState, event: TurnEvent): ChatState {
  switch (event.type) {
    case "turn_started":
      return { ...state, running: true };
    case "text_delta":
      return event.text === "" ? state : appendText(state, "text", event.text);
    case "reasoning_delta":
      return event.text === "" ? state : appendText(state, "reasoning", event.text);
    case "tool_call_streaming":
      return receiving(state, { name: event.name, bytes: event.bytes });
    case "tool_call_started":
      return addTool(state, card({ id: event.id, name: event.name, arguments: event.arguments }));
    case "approval_requested": {
      const id = event.toolCallId;
      return updateTools(
        state,
        (tool) => tool.id === id && tool.status === "running",
        (tool) => ({ ...tool, status: "awaiting_approval" }),
      );
    }
    case "approval_resolved": {
      if (!event.allowed) return state;
      const id = event.toolCallId;
      return updateTools(
        state,
        (tool) => tool.status === "awaiting_approval" && tool.id === id,
        (tool) => ({ ...tool, status: "running" }),
      );
    }
    case "tool_progress": {
      const id = event.id;
      return updateTools(
        state,
        (tool) => tool.id === id && isPending(tool.status),
        (tool) => ({ ...tool, progress: event.progress }),
      );
    }
    case "tool_result": {
      const known = findTool(state, event.id)
        ? state
        : addTool(state, card({ id: event.id, name: event.name, arguments: "" }));
      return updateTools(
        known,
        (tool) => tool.id === event.id,
        (tool) => completed(tool, event.observation),
      );
    }
    case "usage":
      return { ...state, usage: addUsage(state.usage, event) };
    case "retrying":
      return notice(dropStreamed(state), "retrying", {
        key: "chat.notice.retrying",
        params: {
          reason: event.reason,
          seconds: formatSeconds(event.delayMs / 1000),
          attempt: event.attempt,
          max: event.maxRetries,
        },
      });
    case "context_shortened":
      return notice(state, "context_shortened", contextText(event));
    case "context":
      return { ...state, context: event.usage };
    case "compaction_started":
      return { ...state, compacting: true };
    case "compacted":
      return summarised(state, event);
    case "error":
      return notice(state, "error", event.message);
    case "turn_finished":
      return finished(state, event);
  }
}

function finished(state: ChatState, event: Extract<TurnEvent, { type: "turn_finished" }>): ChatState {
  const status = event.reason === "cancelled" ? "cancelled" : event.reason === "error" ? "error" : "complete";
  const done = { ...finishLive(state, status), running: false, awaitingSession: false, compacting: false };
  switch (event.reason) {
    case "completed":
      return done;
    case "cancelled":
      // One "stopped" note: the stopped reply's own, or a notice when no reply had started.
      return endsInReply(done, "cancelled") ? done : notice(done, "cancelled", { key: "chat.notice.cancelled" });
    case "step_limit":
      return notice(done, "step_limit", event.message ?? { key: "chat.notice.stepLimit" });
    case "error": {
      if (event.message === null) return notice(done, "error", { key: "chat.notice.failed" });
      // A fatal error was already shown by its own event.
      const last = done.items.at(-1);
      if (last?.kind === "notice" && last.notice === "error" && last.text === event.message) return done;
      return notice(done, "error", event.message);
    }
  }
}

function contextText(event: Extract<TurnEvent, { type: "context_shortened" }>): UiText {
  const details: UiText[] = [];
  if (event.dropped > 0) details.push({ key: "chat.notice.olderDropped", params: { count: event.dropped } });
  if (event.shortened > 0) details.push({ key: "chat.notice.resultsShortened", params: { count: event.shortened } });
  const params = { estimated: event.estimatedTokens, budget: event.budgetTokens };
  return details.length > 0
    ? { key: "chat.notice.contextFittedDetails", params, details }
    : { key: "chat.notice.contextFitted", params };
}

/** How many lines of a result a card shows before "show all". */
export const RESULT_LINES = 20;

/** Whether a result is long enough to fold (more than `lines` lines, or very long ones). */
export function isLongResult(text: string, lines = RESULT_LINES): boolean {
  let count = 1;
  for (const char of text) {
    if (char === "\n") {
      count += 1;
      if (count > lines) return true;
    }
  }
  return text.length > 4000;
}

/** The first `lines` lines of a result (what a folded result shows). */
export function resultHead(text: string, lines = RESULT_LINES): string {
  let at = -1;
  for (let count = 0; count < lines; count += 1) {
    at = text.indexOf("\n", at + 1);
    if (at < 0) return text.length > 4000 ? text.slice(0, 4000) : text;
  }
  const head = text.slice(0, at);
  return head.length > 4000 ? head.slice(0, 4000) : head;
}
