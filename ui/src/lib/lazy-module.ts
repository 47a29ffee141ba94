// A part of the page loaded the first time it is needed (`import()` of a chunk of the app's own
// files), with the listeners that render again once it is there: the highlighter (highlight.ts)
// and the Markdown renderer (markdown-loader.ts).

/** Loads in flight, of every lazy module (see {@link settleLoads}). */
const inFlight = new Set<Promise<unknown>>();

/** Waits until every load started so far has ended, loaded or failed (a test environment waits
 *  for them before it is torn down). */
export async function settleLoads(): Promise<void> {
  await Promise.allSettled([...inFlight]);
}

/** What `load` gives, loaded once, on the first {@link LazyModule.load}. */
export class LazyModule<T> {
  #value: T | null = null;
  #loading: Promise<T> | null = null;
  readonly #listeners = new Set<() => void>();
  readonly #load: () => Promise<T>;

  constructor(load: () => Promise<T>) {
    this.#load = load;
  }

  /** The value once loaded; `null` before. */
  get(): T | null {
    return this.#value;
  }

  /** Loads it (once); calls every {@link onLoaded} listener when it is. A failed load is tried
   *  again by the next call. */
  load(): Promise<T> {
    if (this.#loading) return this.#loading;
    const loading = this.#load().then(
      (value) => {
        this.#value = value;
        for (const listener of this.#listeners) {
          try {
            listener();
          } catch (failure) {
            console.error("a listener of a loaded module failed", failure);
          }
        }
        return value;
      },
      (failure: unknown) => {
        this.#loading = null;
        throw failure;
      },
    );
    this.#loading = loading;
    inFlight.add(loading);
    const ended = (): void => {
      inFlight.delete(loading);
    };
    void loading.then(ended, ended);
    return loading;
  }

  /** Calls `listener` when it has loaded; returns the function that stops. */
  onLoaded(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }
}
