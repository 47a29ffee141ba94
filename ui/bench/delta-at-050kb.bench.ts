// One streamed delta at 50 KB of answer (see streaming.ts).
import { streamingBench } from "./streaming";

streamingBench(50);
