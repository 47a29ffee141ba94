// The open project's chat as the window shares it: the shown session's state (kept by the pure
// reducer in chat.ts), the session list, the tools' levels, and the last failed command. The
// components read these fields (they are reactive) and call the methods; every backend call of
// the chat goes through here. Streamed text reaches the state once per frame (delta-batch.ts):
// any other event, and any other change of the state, applies what waits first.

import type { AttachmentRequest } from "../bindings/AttachmentRequest";
import type { ChatView } from "../bindings/ChatView";
import type { PermissionLevel } from "../bindings/PermissionLevel";
import type { SessionSummary } from "../bindings/SessionSummary";
import {
  accepted,
  applyEvent,
  type ChatState,
  emptyChat,
  fromView,
  requestedAttachments,
  sendFailed,
  sent,
} from "./chat";
import { animationFrames, DeltaBatcher, type FrameScheduler, isDelta } from "./delta-batch";
import { call, describeError, isCommandError, on } from "./ipc";

/** How long after Stop a turn that still shows as running is checked with the backend. */
const RESYNC_AFTER_CANCEL_MS = 5000;

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

  readonly #projectId: number;
  /** Tool names looked up once already (an unknown one triggers one refresh). */
  // Not reactive: only this class reads it.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #asked = new Set<string>();

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
      if (isDelta(event)) {
        this.#deltas.push(event);
        return;
      }
      this.#deltas.flush();
      this.state = applyEvent(this.state, event, this.#projectId);
      const kind = event.event.type;
      if (kind === "turn_finished") void this.refreshSessions();
      if (kind === "tool_call_started" && !(event.event.name in this.levels)) {
        void this.refreshTools(event.event.name);
      }
    });
    // A server's tools changed (tools/list_changed, a server connected or stopped): the levels
    // the cards show follow.
    const stopTools = on("tools:changed", (event) => {
      if (event.projectId === this.#projectId) void this.refreshTools();
    });
    void stop.then(() => this.reload()).catch((failure: unknown) => { this.fail(failure); });
    void this.refreshTools();
    return () => {
      this.#deltas.dispose();
      void stop.then((unlisten) => { unlisten(); });
      void stopTools.then((unlisten) => { unlisten(); });
    };
  }

  /** Reads the chat and the session list again. */
  async reload(): Promise<void> {
    try {
      this.show(await call("chat_state"));
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

  async cancel(): Promise<void> {
    try {
      await call("cancel_turn");
    } catch (failure) {
      this.fail(failure);
      return;
    }
    // Should the turn's end never arrive (a missed event), the backend's view settles it.
    setTimeout(() => {
      if (this.state.running) void this.reload();
    }, RESYNC_AFTER_CANCEL_MS);
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

  private async switchTo(action: () => Promise<ChatView>): Promise<void> {
    try {
      this.show(await action());
    } catch (failure) {
      this.fail(failure);
    }
    await this.refreshSessions();
  }

  private show(view: ChatView): void {
    this.#deltas.flush();
    this.state = fromView(view);
  }

  private fail(failure: unknown): void {
    this.error = describeError(failure);
  }
}
