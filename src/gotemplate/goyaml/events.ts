import * as jsyaml from "js-yaml";
import type { Value } from "../../go/values.js";

/**
 * The fast path of go-yaml decoding: js-yaml's parser events (styles, tags and anchors by source
 * offset), turned into values by the caller's scalar resolution. Anything unusual (a parse error,
 * a duplicate key) returns undefined, and the caller takes the slower path that words errors
 * as go-yaml does.
 */

export interface EventHooks {
  /** A scalar's value from its text, whether it was plain, and its tag ("" when none). */
  scalar(text: string, plain: boolean, tag: string): Value;
  /** A mapping key as the map stores it (undefined: the key's type is not handled here). */
  key(v: Value): string | undefined;
  /** Duplicate keys are an error (yaml.v3) rather than last-wins (yaml.v2). */
  strictKeys: boolean;
}

const { EVENT_ID, SCALAR_STYLE } = jsyaml;

class Fallback extends Error {}

function shortTag(tag: string): string {
  if (tag.startsWith("!<") && tag.endsWith(">")) tag = tag.slice(2, -1);
  return tag.startsWith("tag:yaml.org,2002:") ? "!!" + tag.slice("tag:yaml.org,2002:".length) : tag;
}

/** The documents of `text`, or undefined when the slow path must decide. */
export function decodeWithEvents(text: string, hooks: EventHooks): Value[] | undefined {
  let events: jsyaml.Event[];
  try {
    events = jsyaml.parseEvents(text, { maxDepth: 10000 });
  } catch {
    return undefined;
  }
  const docs: Value[] = [];
  let i = 0;
  let anchors = new Map<string, Value>();
  const slice = (a: number, b: number) => (a < 0 ? "" : text.slice(a, b));

  const node = (): Value => {
    const e = events[i++];
    switch (e.type) {
      case EVENT_ID.ALIAS: {
        const name = slice(e.anchorStart, e.anchorEnd);
        if (!anchors.has(name)) throw new Fallback();
        return anchors.get(name)!;
      }
      case EVENT_ID.SCALAR: {
        const tag = shortTag(slice(e.tagStart, e.tagEnd));
        const raw = jsyaml.getScalarValue(text, e);
        const v = hooks.scalar(raw, e.style === SCALAR_STYLE.PLAIN && tag === "", tag === "!" ? "!!str" : tag);
        if (e.anchorStart >= 0) anchors.set(slice(e.anchorStart, e.anchorEnd), v);
        return v;
      }
      case EVENT_ID.SEQUENCE: {
        const out: Value[] = [];
        if (e.anchorStart >= 0) anchors.set(slice(e.anchorStart, e.anchorEnd), out);
        while (events[i].type !== EVENT_ID.POP) out.push(node());
        i++;
        return out;
      }
      case EVENT_ID.MAPPING: {
        const out: Record<string, Value> = {};
        if (e.anchorStart >= 0) anchors.set(slice(e.anchorStart, e.anchorEnd), out);
        const merges: Value[] = [];
        while (events[i].type !== EVENT_ID.POP) {
          const k = events[i];
          if (k.type === EVENT_ID.SCALAR && k.style === SCALAR_STYLE.PLAIN && k.tagStart < 0 && slice(k.valueStart, k.valueEnd) === "<<") {
            i++;
            merges.push(node());
            continue;
          }
          const key = hooks.key(node());
          if (key === undefined) throw new Fallback();
          const value = node();
          if (hooks.strictKeys && Object.hasOwn(out, key)) throw new Fallback();
          out[key] = value;
        }
        i++;
        for (const m of merges) {
          for (const src of Array.isArray(m) ? m : [m]) {
            if (!src || typeof src !== "object" || Array.isArray(src)) throw new Fallback();
            for (const [k, v] of Object.entries(src)) if (!Object.hasOwn(out, k)) out[k] = v;
          }
        }
        return out;
      }
      default:
        throw new Fallback();
    }
  };

  try {
    while (i < events.length) {
      const e = events[i++];
      if (e.type !== EVENT_ID.DOCUMENT) throw new Fallback();
      anchors = new Map();
      docs.push(events[i].type === EVENT_ID.POP ? null : node());
      if (events[i]?.type !== EVENT_ID.POP) throw new Fallback();
      i++;
    }
  } catch (err) {
    if (err instanceof Fallback) return undefined;
    throw err;
  }
  return docs;
}
