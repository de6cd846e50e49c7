/**
 * Kubernetes' label selector strings (apimachinery `labels.Parse`): comma-separated
 * requirements `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k>1`, `k<1`;
 * an empty selector selects everything. kustomize matches annotations the same way.
 */

export class SelectorError extends Error {}

type Op = "exists" | "!exists" | "=" | "!=" | "in" | "notin" | ">" | "<";

interface Requirement {
  key: string;
  op: Op;
  values: string[];
}

export function parseSelector(text: string): Requirement[] {
  const out: Requirement[] = [];
  let i = 0;
  const s = text;
  const skip = () => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  const ident = () => {
    skip();
    const start = i;
    while (i < s.length && !/[\s,=!<>()]/.test(s[i]!)) i++;
    return s.slice(start, i);
  };
  while (true) {
    skip();
    if (i >= s.length) break;
    let negated = false;
    if (s[i] === "!") {
      negated = true;
      i++;
    }
    const key = ident();
    if (!key) throw new SelectorError(`unable to parse requirement: found '${s[i] ?? ""}', expected: identifier`);
    skip();
    if (negated) {
      out.push({ key, op: "!exists", values: [] });
    } else if (i >= s.length || s[i] === ",") {
      out.push({ key, op: "exists", values: [] });
    } else if (s.startsWith("==", i) || s.startsWith("!=", i)) {
      const op: Op = s[i] === "!" ? "!=" : "=";
      i += 2;
      out.push({ key, op, values: [ident()] });
    } else if (s[i] === "=" || s[i] === ">" || s[i] === "<") {
      const op = s[i] as "=" | ">" | "<";
      i++;
      const value = ident();
      if ((op === ">" || op === "<") && !/^-?\d+$/.test(value)) throw new SelectorError(`for 'Gt', 'Lt' operators, the value must be an integer`);
      out.push({ key, op, values: [value] });
    } else {
      const word = ident();
      if (word !== "in" && word !== "notin") throw new SelectorError(`found '${word}', expected: in, notin, =, ==, !=, gt, lt`);
      skip();
      if (s[i] !== "(") throw new SelectorError(`found '${s[i] ?? ""}', expected: '('`);
      i++;
      const values: string[] = [];
      while (true) {
        values.push(ident());
        skip();
        if (s[i] === ",") {
          i++;
          continue;
        }
        if (s[i] === ")") {
          i++;
          break;
        }
        throw new SelectorError(`found '${s[i] ?? ""}', expected: ',' or ')'`);
      }
      out.push({ key, op: word, values: values.filter((v) => v !== "" || values.length === 1) });
    }
    skip();
    if (i < s.length) {
      if (s[i] !== ",") throw new SelectorError(`found '${s[i]}', expected: ','`);
      i++;
    }
  }
  return out;
}

export function matchesSelector(text: string, labels: Record<string, string>): boolean {
  for (const r of parseSelector(text)) {
    const has = Object.hasOwn(labels, r.key);
    const value = labels[r.key];
    switch (r.op) {
      case "exists":
        if (!has) return false;
        break;
      case "!exists":
        if (has) return false;
        break;
      case "=":
      case "in":
        if (!has || !r.values.includes(value!)) return false;
        break;
      case "!=":
      case "notin":
        if (has && r.values.includes(value!)) return false;
        break;
      case ">":
      case "<": {
        if (!has || !/^-?\d+$/.test(value!)) return false;
        const [n, limit] = [Number(value), Number(r.values[0])];
        if (r.op === ">" ? !(n > limit) : !(n < limit)) return false;
        break;
      }
    }
  }
  return true;
}
