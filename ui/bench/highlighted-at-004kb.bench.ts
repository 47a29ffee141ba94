// A 20,000-token reply (about 80 KB) arriving at 200 tokens/s, with highlighting on: one delta
// at 4 KB of it (see streaming.ts). The code blocks of the answer are coloured as they stream.
import { loadHighlighter } from "../src/lib/highlight";
import { DELTA_AT_200_TOKENS_PER_SECOND, streamingBench } from "./streaming";

await loadHighlighter();
streamingBench(4, DELTA_AT_200_TOKENS_PER_SECOND, "highlighted, one delta at 4 KB of a 20,000-token reply");
