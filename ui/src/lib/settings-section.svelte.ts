// A section of the Settings dialog that reads its settings from the backend the first time it
// is opened and saves them on request, with a message saying how that went.

import { describeError } from "./ipc";

/** A message under a settings section: saved, or why not. */
export interface SectionMessage {
  readonly ok: boolean;
  readonly text: string;
}

/** One lazily read, explicitly saved settings section. */
export class SettingsSection<T> {
  /** The settings as last read or saved; null until the section is first opened. */
  current = $state<T | null>(null);
  message = $state<SectionMessage | null>(null);
  saving = $state(false);

  readonly #read: () => Promise<T>;
  readonly #show: (settings: T) => void;

  /** `read` asks the backend; `show` puts what came back in the section's fields. */
  constructor(read: () => Promise<T>, show: (settings: T) => void) {
    this.#read = read;
    this.#show = show;
  }

  /** The `ontoggle` of the section's `<details>`: reads the settings when first opened. */
  async toggled(event: Event): Promise<void> {
    if (!(event.currentTarget instanceof HTMLDetailsElement) || !event.currentTarget.open || this.current !== null) return;
    try {
      this.#accept(await this.#read());
    } catch (failure) {
      this.message = { ok: false, text: describeError(failure) };
    }
  }

  /** Saves with `write` (null: the fields are invalid, and `invalid` says why), then shows
   *  what the backend kept and `saved`. */
  async save(write: (() => Promise<T>) | null, texts: { invalid: string; saved: string }): Promise<void> {
    if (write === null) {
      this.message = { ok: false, text: texts.invalid };
      return;
    }
    this.saving = true;
    try {
      this.#accept(await write());
      this.message = { ok: true, text: texts.saved };
    } catch (failure) {
      this.message = { ok: false, text: describeError(failure) };
    } finally {
      this.saving = false;
    }
  }

  #accept(settings: T): void {
    this.current = settings;
    this.#show(settings);
  }
}
