// The open project's chat as the window shares it: the shown session's state (kept by the pure
// reducer in chat.ts), the session list, the tools' levels, and the last failed command. The
// components read these fields (they are reactive) and call the methods; every backend call of
// the chat goes through here. Streamed text reaches the state once per frame (delta-batch.ts):
// any other event, and any other change of the state, applies what waits first.
//
// Events are numbered per session (`seq`): a `SeqGate` skips those already applied and, after a
// hole (a re-subscribe, a reload mid-turn), asks `chat_events_since` for what was missed; when
// the engine no longer has it, the transcript is read again instead.

import type { AttachmentRequest } from "../bindings/AttachmentRequest";
import type { ChatEvent } from "../bindings/ChatEvent";
import type { ChatView } from "../bindings/ChatView";
import type { ExportFormat } from "../bindings/ExportFormat";
import type { SearchHitView } from "../bindings/SearchHitView";
import type { SessionExport } from "../bindings/SessionExport";
import type { PermissionLevel } from "../bindings/PermissionLevel";
import type { SessionSummary } from "../bindings/SessionSummary";
import {
  accepted,
  applyEvent,
  type ChatState,
  emptyChat,
  fromView,
  hasOlder,
  requestedAttachments,
  sendFailed,
  sent,
  summaryEdited,
  withOlder,
} from "./chat";
import { animationFrames, DeltaBatcher, type FrameScheduler, isDelta } from "./delta-batch";
import { SeqGate } from "./event-seq";
import { withActivity } from "./session-activity";
import { call, describeError, isCommandError, on } from "./ipc";
import { loadMarkdown, markdownRenderer } from "./markdown-loader";

/** How long after Stop a turn that still shows as running is checked with the backend. */
export const RESYNC_AFTER_CANCEL_MS = 5000;

/** How long after a turn ends the gauge asks for the next request's size. */
const CONTEXT_AFTER_TURN_MS = 300;

/** About how many messages one scroll up to the first ones read asks for. */
export const OLDER_PAGE_MESSAGES = 200;

export class ProjectChat {
  /** The shown session's transcript and turn. */
  state = $state.raw<ChatState>(emptyChat);
  /** The project's sessions, the most recently updated first. */
  sessions = $state.raw<readonly SessionSummary[]>([]);
  /** Each known tool's permission level, by name. */
  levels = $state.raw<Readonly<Record<string, PermissionLevel>>>({});
  /** Whether the first `chat_state` arrived. */
  loaded = $state(false);
  /** The last command that failed, in words (shown until dismissed). */
  error = $state<string | null>(null);
  /** The stored message a search opened (its ordinal), to scroll to and mark. */
  found = $state<{ sessionId: string; ordinal: number } | null>(null);
  /** Older messages of the shown session are being read. */
  loadingOlder = $state(false);

  /** The older page being read, if one is. */
  #older: Promise<boolean> | null = null;

  /** Which events of the shown session were applied. */
  readonly #gate = new SeqGate();

  readonly #projectId: number;
  /** Tool names looked up once already (an unknown one triggers one refresh). */
  // Not reactive: only this class reads it.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #asked = new Set<string>();
  /** Views asked to be shown so far (see `showView`). */
  #views = 0;

  /** Streamed text waiting for the next frame. */
  readonly #deltas: DeltaBatcher;

  /** `frames` paces streamed text (the window's animation frames; tests step their own). */
  constructor(projectId: number, frames: FrameScheduler = animationFrames) {
    this.#projectId = projectId;
    this.#deltas = new DeltaBatcher((events) => {
      this.state = events.reduce((state, event) => applyEvent(state, event, projectId), this.state);
    }, frames);
  }

  /** Listens to the turn's events, then loads the chat; returns the function that stops. */
  start(): () => void {
    const stop = on("chat:event", (event) => {
      if (event.projectId !== this.#projectId) return;
      if (!this.#admit(event)) return;
      if (isDelta(event)) {
        this.#deltas.push(event);
        return;
      }
      this.#deltas.flush();
      this.state = applyEvent(this.state, event, this.#projectId);
      const kind = event.event.type;
      if (kind === "turn_finished") {
        void this.refreshSessions();
        // The reply's own count arrived with it: the gauge reads the next request's size once
        // the turn has let go of its session.
        setTimeout(() => void this.refreshContext(), CONTEXT_AFTER_TURN_MS);
      }
      if (kind === "tool_call_started" && !(event.event.name in this.levels)) {
        void this.refreshTools(event.event.name);
      }
    });
    // A server's tools changed (tools/list_changed, a server connected or stopped): the levels
    // the cards show follow.
    const stopTools = on("tools:changed", (event) => {
      if (event.projectId === this.#projectId) void this.refreshTools();
    });
    // Sessions in the background run, queue and wait too: the list marks them.
    const stopActivity = on("session:activity", (event) => {
      if (event.projectId !== this.#projectId) return;
      const next = withActivity(this.sessions, event);
      if (next === null) void this.refreshSessions();
      else this.sessions = next;
    });
    void stop.then(() => this.reload()).catch((failure: unknown) => { this.fail(failure); });
    void this.refreshTools();
    return () => {
      this.#deltas.dispose();
      void stop.then((unlisten) => { unlisten(); });
      void stopTools.then((unlisten) => { unlisten(); });
      void stopActivity.then((unlisten) => { unlisten(); });
    };
  }

  /** Whether a live event is the shown session's next one (applied now); else skipped or held. */
  #admit(event: ChatEvent): boolean {
    const shown = this.state.sessionId;
    // A fresh chat's first events, and another session's, go to the reducer as they are.
    if (shown === null || event.sessionId !== shown) {
      if (shown === null && this.state.awaitingSession && event.event.type === "turn_started") {
        this.#gate.reset(event.seq);
      }
      return true;
    }
    const verdict = this.#gate.accept(event);
    if (verdict === "gap") void this.#catchUp(shown);
    return verdict === "apply";
  }

  /** Asks for the events missed since the last one applied; reloads when they are gone. */
  async #catchUp(sessionId: string): Promise<void> {
    try {
      const since = await call("chat_events_since", { sessionId, after: this.#gate.last });
      if (this.state.sessionId !== sessionId) return;
      if (!since.complete) {
        this.#gate.abandon(since.lastSeq);
        await this.reload();
        return;
      }
      this.#deltas.flush();
      for (const event of this.#gate.caughtUp(since.events)) {
        this.state = applyEvent(this.state, event, this.#projectId);
      }
    } catch (failure) {
      this.#gate.abandon(this.#gate.last);
      this.fail(failure);
    }
  }

  /** Reads the chat and the session list again. */
  async reload(): Promise<void> {
    try {
      await this.showView(await call("chat_state"));
    } catch (failure) {
      this.fail(failure);
    }
    this.loaded = true;
    await this.refreshSessions();
  }

  async refreshSessions(): Promise<void> {
    try {
      this.sessions = await call("list_sessions");
    } catch (failure) {
      this.fail(failure);
    }
  }

  /** Reads the tools' levels; with `unknown`, only the first time that name is met. */
  async refreshTools(unknown?: string): Promise<void> {
    if (unknown !== undefined) {
      if (this.#asked.has(unknown)) return;
      this.#asked.add(unknown);
    }
    try {
      const tools = await call("list_tools");
      this.levels = Object.fromEntries(tools.map((tool) => [tool.name, tool.level]));
    } catch (failure) {
      this.fail(failure);
    }
  }

  /** Sends `text` (and what it attaches) in the shown session; false when it was not sent. */
  async send(text: string, attachments: AttachmentRequest[] = []): Promise<boolean> {
    this.#deltas.flush();
    if (this.state.running || (text.trim() === "" && attachments.length === 0)) return false;
    // The answer is rendered as Markdown: the renderer loads while the request travels.
    void loadMarkdownQuietly();
    this.state = sent(this.state, text, requestedAttachments(attachments));
    try {
      const sessionId = await call("send_message", { text, attachments });
      this.#deltas.flush();
      this.state = accepted(this.state, sessionId);
      void this.refreshSessions();
      return true;
    } catch (failure) {
      this.#deltas.flush();
      this.state = sendFailed(this.state, text);
      this.fail(failure);
      // Another turn runs that this page did not know of: show it.
      if (isCommandError(failure) && failure.kind === "busy") void this.reload();
      return false;
    }
  }

  /** Asks the model for a summary of the session and continues from it (`/compact`). */
  async compact(): Promise<boolean> {
    this.#deltas.flush();
    if (this.state.running || this.state.sessionId === null) return false;
    this.state = { ...this.state, compacting: true };
    try {
      await this.showView(await call("compact_session"));
      return true;
    } catch (failure) {
      this.state = { ...this.state, compacting: false };
      this.fail(failure);
      return false;
    }
  }

  /** Saves the user's text of the summary at `ordinal`. */
  async editSummary(ordinal: number, text: string): Promise<boolean> {
    try {
      await call("edit_summary", { ordinal, text });
      this.state = summaryEdited(this.state, ordinal, text.trim());
      void this.refreshContext();
      return true;
    } catch (failure) {
      this.fail(failure);
      return false;
    }
  }

  /** Reads how full the window is, between turns (a turn's events say it while it runs). */
  async refreshContext(): Promise<void> {
    if (this.state.running || this.state.sessionId === null) return;
    try {
      const context = await call("context_usage");
      if (context !== null) this.state = { ...this.state, context };
    } catch {
      // The gauge stays as it was; the chat works without it.
    }
  }

  /**
   * Stops the shown session's turn (Stop, Esc): by the session's id once it is known (see
   * {@link cancelSession}); a fresh chat whose first message is still on its way has none yet.
   */
  async cancel(): Promise<void> {
    const id = this.state.sessionId;
    if (id !== null) {
      await this.cancelSession(id);
      return;
    }
    try {
      await call("cancel_turn");
    } catch (failure) {
      this.fail(failure);
      return;
    }
    this.resyncAfterCancel();
  }

  /**
   * Stops the turn of session `id` (shown or not), running or queued. Always by its id: while
   * a switch of tabs is on its way the shown session here and in the backend may differ, and
   * "the shown session's turn" would stop the wrong one (or none).
   */
  async cancelSession(id: string): Promise<void> {
    try {
      await call("cancel_session_turn", { id });
    } catch (failure) {
      this.fail(failure);
      return;
    }
    if (id === this.state.sessionId) this.resyncAfterCancel();
  }

  /** Should the shown turn's end never arrive (a missed event), the backend's view settles it. */
  private resyncAfterCancel(): void {
    setTimeout(() => {
      if (this.state.running) void this.reload();
    }, RESYNC_AFTER_CANCEL_MS);
  }

  /** Whether the shown session's turn waits behind the app's limit of turns. */
  get queued(): boolean {
    const shown = this.state.sessionId;
    return this.state.running && shown !== null && this.sessions.some((session) => session.id === shown && session.activity === "queued");
  }

  async openSession(id: string): Promise<void> {
    if (id === this.state.sessionId) return;
    await this.switchTo(() => call("open_session", { id }));
  }

  async newSession(): Promise<void> {
    await this.switchTo(() => call("new_session"));
  }

  async renameSession(id: string, title: string): Promise<boolean> {
    try {
      const renamed = await call("rename_session", { id, title });
      this.sessions = this.sessions.map((session) => (session.id === id ? renamed : session));
      return true;
    } catch (failure) {
      this.fail(failure);
      return false;
    }
  }

  async deleteSession(id: string): Promise<void> {
    await this.switchTo(() => call("delete_session", { id }));
  }

  dismissError(): void {
    this.error = null;
  }

  /** The messages of every session of the project that contain `text`. */
  async search(text: string): Promise<readonly SearchHitView[]> {
    if (text.trim() === "") return [];
    try {
      return await call("search_sessions", { text });
    } catch (failure) {
      this.fail(failure);
      return [];
    }
  }

  /** Opens the session of a search hit and marks its message (read first when it is older
   *  than those shown). */
  async openHit(hit: SearchHitView): Promise<void> {
    if (hit.sessionId !== this.state.sessionId) await this.openSession(hit.sessionId);
    // A page being read (the user scrolled up) ends first; then what is left is read at once.
    for (let tries = 0; tries < 3 && this.state.sessionId === hit.sessionId && hit.ordinal < this.state.firstOrdinal; tries += 1) {
      await (this.#older ?? this.loadOlder(this.state.firstOrdinal - hit.ordinal + OLDER_PAGE_MESSAGES / 2));
    }
    if (this.state.sessionId === hit.sessionId) this.found = { sessionId: hit.sessionId, ordinal: hit.ordinal };
  }

  /** Reads about `count` messages before the first one shown (the user scrolled up to it);
   *  false when there was nothing to read or it failed. One read at a time. */
  loadOlder(count = OLDER_PAGE_MESSAGES): Promise<boolean> {
    const sessionId = this.state.sessionId;
    if (this.#older !== null || sessionId === null || !hasOlder(this.state)) return Promise.resolve(false);
    const reading = this.#readOlder(sessionId, count);
    this.#older = reading;
    return reading;
  }

  async #readOlder(sessionId: string, count: number): Promise<boolean> {
    this.loadingOlder = true;
    try {
      const page = await call("chat_messages_before", { sessionId, before: this.state.firstOrdinal, count });
      this.#deltas.flush();
      const before = this.state;
      this.state = withOlder(before, sessionId, page);
      return this.state !== before;
    } catch (failure) {
      this.fail(failure);
      return false;
    } finally {
      this.loadingOlder = false;
      this.#older = null;
    }
  }

  /** The whole text of a result sent shortened: the shown session's message at `ordinal`, or
   *  (a live card's) the result of call `toolCallId`; null when it could not be read. */
  async fullText(ordinal: number | undefined, toolCallId: string): Promise<string | null> {
    const sessionId = this.state.sessionId;
    if (sessionId === null) return null;
    try {
      return await call("chat_message_text", ordinal === undefined ? { sessionId, toolCallId } : { sessionId, ordinal });
    } catch (failure) {
      this.fail(failure);
      return null;
    }
  }

  /** Writes session `id` to a file the user picks; null when they cancelled or it failed. */
  async exportSession(id: string, format: ExportFormat): Promise<SessionExport | null> {
    try {
      return await call("export_session", { id, format });
    } catch (failure) {
      this.fail(failure);
      return null;
    }
  }

  private async switchTo(action: () => Promise<ChatView>): Promise<void> {
    try {
      await this.showView(await action());
    } catch (failure) {
      this.fail(failure);
    }
    await this.refreshSessions();
  }

  /**
   * Shows `view`. A running turn is rebuilt from its first event when the engine still has
   * them all; otherwise from the stored messages (what is being streamed shows from the next
   * event on).
   */
  private async showView(view: ChatView): Promise<void> {
    this.found = null;
    // A view that waits (below) is dropped if a later one came meanwhile: the later one is the
    // session the backend shows now.
    const shown = ++this.#views;
    // Messages are shown rendered, not as text that turns into Markdown a moment later.
    if (view.messages.length > 0 && markdownRenderer() === null) {
      await loadMarkdownQuietly();
      if (shown !== this.#views) return;
    }
    const id = view.session?.id;
    if (view.turn && id !== undefined) {
      // Without the events, the view is shown from its stored messages below.
      const since = await call("chat_events_since", { sessionId: id, after: view.turn.startSeq - 1 }).catch(() => null);
      if (shown !== this.#views) return;
      if (since?.complete) {
        this.#deltas.flush();
        this.state = fromView(view, since.events);
        this.#gate.reset(since.lastSeq);
        return;
      }
    }
    this.#deltas.flush();
    const context = this.state.sessionId === (view.session?.id ?? null) ? this.state.context : null;
    this.state = { ...fromView(view), context };
    this.#gate.reset(view.seq);
    void this.refreshContext();
  }

  private fail(failure: unknown): void {
    this.error = describeError(failure);
  }
}

/** Loads the Markdown renderer; a failure is not the chat's (messages show as text, and
 *  Markdown.svelte says why). */
function loadMarkdownQuietly(): Promise<unknown> {
  return loadMarkdown().catch(() => undefined);
}
