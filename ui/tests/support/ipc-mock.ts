// The typed IPC module with the backend replaced, for component tests: `call` is the test's mock
// function, and `on` records each event handler in `handlers` so a test can send events.

import type * as Ipc from "../../src/lib/ipc";

/** Event handlers the component registered, by event name. */
export type Handlers = Map<string, (payload: unknown) => void>;

/** `actual` (the real module) with `call` and `on` replaced. */
export function mockedIpc(actual: typeof Ipc, call: unknown, handlers: Handlers): typeof Ipc {
  return {
    ...actual,
    call: call as typeof Ipc.call,
    on: ((event: string, handler: (payload: unknown) => void) => {
      handlers.set(event, handler);
      return Promise.resolve(() => {
        handlers.delete(event);
      });
    }) as unknown as typeof Ipc.on,
  };
}
