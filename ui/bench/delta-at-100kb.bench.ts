// One streamed delta at 100 KB of answer (see streaming.ts).
import { streamingBench } from "./streaming";

streamingBench(100);
