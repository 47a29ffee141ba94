// One streamed delta at 10 KB of answer (see streaming.ts).
import { streamingBench } from "./streaming";

streamingBench(10);
