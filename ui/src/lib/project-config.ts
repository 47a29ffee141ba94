// The project's configuration from other agents as the "Project configuration" view shows it:
// each file's state, what waits for the user's trust, and the trust request for exactly what
// was shown (the backend refuses it when a file changed meanwhile).

import type { ConfigReport } from "../bindings/ConfigReport";
import type { FileReport } from "../bindings/FileReport";
import type { TrustConfigRequest } from "../bindings/TrustConfigRequest";

/** Where a file stands: read and applied, waiting for trust, or not read at all. */
export type FileState = "applies" | "waits" | "unreadable";

/** The state of `file`. */
export function fileState(file: FileReport): FileState {
  if (file.problem !== undefined) return "unreadable";
  if (!file.trusted && file.waitsForTrust.length > 0) return "waits";
  return "applies";
}

/** The files whose trust is missing, in report order. */
export function waitingFiles(report: ConfigReport): FileReport[] {
  return report.files.filter((file) => fileState(file) === "waits");
}

/** How many lines wait for trust across the report. */
export function waitingCount(report: ConfigReport): number {
  return waitingFiles(report).reduce((sum, file) => sum + file.waitsForTrust.length, 0);
}

/** The request that trusts exactly what `report` shows as waiting. */
export function trustRequest(report: ConfigReport): TrustConfigRequest {
  return { files: waitingFiles(report).map((file) => ({ path: file.source.path, sha256: file.sha256 })) };
}

/** True when a settings file of `report` has a rule allowing commands (`Bash(...)` or `Bash`),
 *  applied or waiting for trust: with run_command off, the configuration view says the rule
 *  does not turn it on. */
export function allowsCommands(report: ConfigReport): boolean {
  return report.files.some((file) =>
    [...file.read, ...file.waitsForTrust].some((line) => /^allow rule Bash(\(|$)/.test(line)),
  );
}
