/** Kubernetes label selectors (metav1.LabelSelector): an empty selector matches everything. */

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export class BadSelector extends Error {}

export function isEmptySelector(selector: LabelSelector | undefined | null): boolean {
  return !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);
}

export function matchesSelector(selector: LabelSelector | undefined | null, labels: Record<string, unknown> | undefined): boolean {
  if (!selector) return true;
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (have[key] !== value) return false;
  for (const e of selector.matchExpressions ?? []) {
    const present = Object.hasOwn(have, e.key);
    const value = present ? String(have[e.key]) : undefined;
    switch (e.operator) {
      case "In":
        if (!present || !(e.values ?? []).includes(value!)) return false;
        break;
      case "NotIn":
        if (present && (e.values ?? []).includes(value!)) return false;
        break;
      case "Exists":
        if (!present) return false;
        break;
      case "DoesNotExist":
        if (present) return false;
        break;
      default:
        throw new BadSelector(`unknown label selector operator ${JSON.stringify(e.operator)}`);
    }
  }
  return true;
}

export function labelsOf(object: unknown): Record<string, unknown> {
  const meta = (object as { metadata?: { labels?: unknown } } | undefined)?.metadata;
  const labels = meta?.labels;
  return labels && typeof labels === "object" ? (labels as Record<string, unknown>) : {};
}
