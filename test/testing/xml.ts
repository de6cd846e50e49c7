/**
 * A small, strict XML 1.0 reader for the tests (the repository has no XML parser dependency):
 * elements, attributes, text, character and the five predefined entity references, comments, an
 * XML declaration. Anything not well-formed throws, saying where: an unclosed or mismatched tag,
 * a raw `<` or `&` where it may not be, an undefined entity, an attribute given twice, text
 * outside the root element.
 */

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (character data of its direct content), entities resolved. */
  text: string;
}

const NAME = /[A-Za-z_:][\w.:-]*/y;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function parseXml(input: string): XmlElement {
  let i = 0;
  const fail = (msg: string): never => {
    const line = input.slice(0, i).split("\n").length;
    throw new Error(`XML not well-formed at line ${line}: ${msg}`);
  };
  const skipSpace = () => {
    while (i < input.length && /\s/.test(input[i]!)) i++;
  };
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(input);
    if (!m) fail("a name was expected");
    i += m![0].length;
    return m![0];
  };
  const decode = (raw: string, inAttribute: boolean): string => {
    if (inAttribute && raw.includes("<")) fail("`<` in an attribute value");
    return raw.replace(/&([^;]*);|&/g, (_whole, ref: string | undefined) => {
      if (ref === undefined) return fail("a bare `&`");
      if (ref.startsWith("#x")) return String.fromCodePoint(parseInt(ref.slice(2), 16));
      if (ref.startsWith("#")) return String.fromCodePoint(Number(ref.slice(1)));
      if (!(ref in ENTITIES)) return fail(`undefined entity &${ref};`);
      return ENTITIES[ref]!;
    });
  };
  const misc = () => {
    for (;;) {
      skipSpace();
      if (input.startsWith("<!--", i)) {
        const end = input.indexOf("-->", i + 4);
        if (end < 0) fail("an unclosed comment");
        i = end + 3;
      } else return;
    }
  };
  const element = (): XmlElement => {
    if (input[i] !== "<") fail("`<` was expected");
    i++;
    const el: XmlElement = { name: name(), attributes: {}, children: [], text: "" };
    for (;;) {
      const before = i;
      skipSpace();
      if (input.startsWith("/>", i)) {
        i += 2;
        return el;
      }
      if (input[i] === ">") {
        i++;
        break;
      }
      if (i === before) fail("space was expected between attributes");
      const key = name();
      skipSpace();
      if (input[i] !== "=") fail(`\`=\` was expected after ${key}`);
      i++;
      skipSpace();
      const quote = input[i];
      if (quote !== '"' && quote !== "'") fail("a quoted attribute value was expected");
      const end = input.indexOf(quote!, i + 1);
      if (end < 0) fail("an unclosed attribute value");
      if (key in el.attributes) fail(`attribute ${key} given twice`);
      el.attributes[key] = decode(input.slice(i + 1, end), true);
      i = end + 1;
    }
    for (;;) {
      const lt = input.indexOf("<", i);
      if (lt < 0) fail(`<${el.name}> is not closed`);
      const raw = input.slice(i, lt);
      if (raw.includes("]]>")) fail("`]]>` in text");
      el.text += decode(raw, false);
      i = lt;
      if (input.startsWith("</", i)) {
        i += 2;
        const closing = name();
        if (closing !== el.name) fail(`</${closing}> closes <${el.name}>`);
        skipSpace();
        if (input[i] !== ">") fail("`>` was expected");
        i++;
        return el;
      }
      if (input.startsWith("<!--", i)) {
        const end = input.indexOf("-->", i + 4);
        if (end < 0) fail("an unclosed comment");
        i = end + 3;
        continue;
      }
      el.children.push(element());
    }
  };
  if (input.startsWith("<?xml")) {
    const end = input.indexOf("?>");
    if (end < 0) fail("an unclosed XML declaration");
    i = end + 2;
  }
  misc();
  const root = element();
  misc();
  if (i !== input.length) fail("content after the root element");
  return root;
}

/** Child elements of that name. */
export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => c.name === name);
}
