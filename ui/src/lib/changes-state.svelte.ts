// What the open project's current session changed, shared by the window: the Changes panel
// shows it, the title bar counts its files, the tool cards say "reverted", and the user messages
// offer the versions set aside by "Edit and resend". Read again when a turn ends, a tool call
// finishes, the session changes or an action of the panel answers.

import type { BranchView } from "../bindings/BranchView";
import type { ChangesView } from "../bindings/ChangesView";
import { call, describeError, on } from "./ipc";

/** How long after a tool result or a turn's end the changes are read (one read per burst). */
const SETTLE_MS = 150;

export class ChangesState {
  /** The current session's changes (null until read). */
  view = $state.raw<ChangesView | null>(null);
  /** The current session's set-aside versions. */
  branches = $state.raw<readonly BranchView[]>([]);
  /** The last failure to read them (the panel shows it). */
  error = $state<string | null>(null);
  /** The session last followed (not reactive: only `follow` reads it). */
  #session: string | null | undefined = undefined;

  /** Reads the changes now and again after each tool result and turn of project `projectId`;
   *  returns the function that stops. */
  start(projectId: number): () => void {
    this.clear();
    void this.refresh();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const later = (): void => {
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        void this.refresh();
      }, SETTLE_MS);
    };
    const stop = on("chat:event", (event) => {
      if (event.projectId !== projectId) return;
      const kind = event.event.type;
      if (kind === "turn_finished" || kind === "tool_result") later();
    });
    return () => {
      if (timer !== null) clearTimeout(timer);
      void stop.then((unlisten) => {
        unlisten();
      });
    };
  }

  /** Reads the changes again when the session shown is another one. */
  follow(sessionId: string | null): void {
    if (sessionId === this.#session) return;
    this.#session = sessionId;
    void this.refresh();
  }

  /** Reads the changes and the versions again. */
  async refresh(): Promise<void> {
    try {
      const [view, branches] = await Promise.all([call("changes_view"), call("chat_branches")]);
      this.view = view;
      this.branches = branches;
      this.error = null;
    } catch (failure) {
      this.error = describeError(failure);
    }
  }

  /** Takes a view an action answered with. */
  show(view: ChangesView): void {
    this.view = view;
  }

  /** Whether every change of the tool call `id` was undone. */
  isReverted(id: string): boolean {
    return this.view?.revertedCalls.includes(id) ?? false;
  }

  /** How many files the session changed. */
  get count(): number {
    return this.view?.files.length ?? 0;
  }

  /** The versions set aside at the user message `userIndex`. */
  branchesAt(userIndex: number): readonly BranchView[] {
    return this.branches.filter((branch) => branch.userIndex === userIndex);
  }

  /** Forgets everything (another project). */
  clear(): void {
    this.#session = undefined;
    this.view = null;
    this.branches = [];
    this.error = null;
  }
}

/** The window's one instance (a window shows one project). */
export const changes = new ChangesState();
