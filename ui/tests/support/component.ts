// What component tests share: letting a mounted component settle, and unmounting it after each
// test.

import { flushSync, mount, unmount } from "svelte";
import { afterEach } from "vitest";

/** Lets pending promises (a mocked backend's answers) resolve, then applies what changed. */
export async function settle(turns = 10): Promise<void> {
  for (let i = 0; i < turns; i += 1) await Promise.resolve();
  flushSync();
}

/** A component mounted by a test. */
export type Mounted = ReturnType<typeof mount>;

/** Registers, for the calling test file, the unmounting of the component each test mounts
 *  (and the emptying of the page); returns the function that records it. */
export function unmountAfterEach(): (component: Mounted) => Mounted {
  let current: Mounted | null = null;
  afterEach(() => {
    if (current) void unmount(current);
    current = null;
    document.body.innerHTML = "";
  });
  return (component) => {
    current = component;
    return component;
  };
}
