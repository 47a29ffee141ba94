// One streamed delta at 1 KB of answer (see streaming.ts).
import { streamingBench } from "./streaming";

streamingBench(1);
