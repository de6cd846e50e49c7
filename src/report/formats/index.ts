import type { Report } from "../report.js";
import { formatJson } from "./json.js";
import { formatJunit } from "./junit.js";
import { formatSarif } from "./sarif.js";
import { formatText } from "./text.js";

export type OutputFormat = "text" | "json" | "sarif" | "junit";
export const OUTPUT_FORMATS: OutputFormat[] = ["text", "json", "sarif", "junit"];

export function formatReport(format: OutputFormat, report: Report, options: { color?: boolean; debug?: boolean } = {}): string {
  switch (format) {
    case "json":
      return formatJson(report);
    case "sarif":
      return formatSarif(report);
    case "junit":
      return formatJunit(report);
    default:
      return formatText(report, options.color ?? false, options.debug ?? false);
  }
}
