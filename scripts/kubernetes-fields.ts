/**
 * Writes schemas/kubernetes-fields.json: the fields of every Kubernetes core kind composition-ci
 * validates (src/validate/schemas/kubernetes.ts), read from the type declarations of the
 * `kubernetes-models` package whose validators check their types. Those validators leave objects
 * open; this table lets validation report unknown fields as the API server does (strict field
 * validation, server-side apply). A test checks the file is what this script writes today.
 * Usage: npx tsx scripts/kubernetes-fields.ts [--check]
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { KUBERNETES_CORE_KINDS } from "../src/validate/schemas/kubernetes.js";
import type { FieldTable, FieldType } from "../src/validate/schemas/kubernetes-fields.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(repo, "package.json"));
const models = path.dirname(require.resolve("kubernetes-models/package.json"));
const output = path.join(repo, "schemas/kubernetes-fields.json");

export function kubernetesFieldTable(): FieldTable {
  const types: Record<string, Record<string, FieldType>> = {};
  const kinds: Record<string, string> = {};
  const keyOf = (file: string) =>
    path
      .relative(path.dirname(models), file)
      .replace(/\\/g, "/")
      .replace(/\.d\.ts$/, "")
      .replace(/^node_modules\//, "");

  /** The declaration file a module specifier names, from the file that imports it. */
  const resolveImport = (from: string, imported: string): string => {
    const specifier = imported.replace(/\.js$/, "");
    if (specifier.startsWith(".")) return path.resolve(path.dirname(from), `${specifier}.d.ts`);
    const local = createRequire(from);
    const pkg = specifier
      .split("/")
      .slice(0, specifier.startsWith("@") ? 2 : 1)
      .join("/");
    const root = path.dirname(local.resolve(`${pkg}/package.json`));
    return path.join(root, `${specifier.slice(pkg.length + 1)}.d.ts`);
  };

  const parsed = new Map<string, ts.SourceFile>();
  const source = (file: string) => {
    let sf = parsed.get(file);
    if (!sf) parsed.set(file, (sf = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)));
    return sf;
  };

  /** The type a file declares first (its interface, or a type alias such as IntOrString). */
  const describeFile = (file: string): FieldType => {
    const key = keyOf(file);
    if (types[key]) return key;
    const sf = source(file);
    const declaration = sf.statements.find(
      (s): s is ts.InterfaceDeclaration | ts.TypeAliasDeclaration => ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s),
    );
    if (!declaration) throw new Error(`${file}: no interface or type alias`);
    if (ts.isTypeAliasDeclaration(declaration)) return describe(declaration.type, sf);
    const fields: Record<string, FieldType> = {};
    let free = false;
    types[key] = fields; // before the members: types refer to themselves (JSONSchemaProps)
    for (const member of declaration.members) {
      if (ts.isIndexSignatureDeclaration(member)) free = true;
      if (!ts.isPropertySignature(member) || !member.type) continue;
      const name = ts.isStringLiteral(member.name) || ts.isIdentifier(member.name) ? member.name.text : undefined;
      if (name !== undefined) fields[name] = describe(member.type, sf);
    }
    if (free || Object.keys(fields).length === 0) {
      delete types[key]; // RawExtension, JSON: anything goes
      return 1;
    }
    return key;
  };

  const describe = (node: ts.TypeNode, sf: ts.SourceFile): FieldType => {
    if (ts.isArrayTypeNode(node)) return [describe(node.elementType, sf)];
    if (ts.isParenthesizedTypeNode(node)) return describe(node.type, sf);
    if (ts.isTypeLiteralNode(node)) {
      const index = node.members.find(ts.isIndexSignatureDeclaration);
      return index?.type ? { "*": describe(index.type, sf) } : 1;
    }
    if (ts.isUnionTypeNode(node)) {
      const parts = node.types.map((t) => describe(t, sf));
      return parts.every((p) => p === 0) ? 0 : 1;
    }
    if (ts.isTypeReferenceNode(node)) {
      const name = node.typeName.getText(sf);
      if (name === "Array" && node.typeArguments?.length === 1) return [describe(node.typeArguments[0]!, sf)];
      if (declaredIn(sf) === name) return keyOf(sf.fileName); // JSONSchemaProps refers to itself
      const imported = importOf(sf, name);
      if (!imported) return 1;
      const file = resolveImport(sf.fileName, imported);
      // Go types with their own JSON forms, declared as empty interfaces: a schema, or a list of schemas (or of strings), or a boolean.
      const either = /JSONSchemaPropsOr(Array|Bool|StringArray)$/.exec(name);
      if (either) {
        const schema = describeFile(path.join(path.dirname(file), "JSONSchemaProps.d.ts"));
        return either[1] === "Bool" ? schema : { "|": [schema, either[1] === "Array" ? [schema] : [0]] };
      }
      return describeFile(file);
    }
    if (ts.isIndexedAccessTypeNode(node) || ts.isLiteralTypeNode(node)) return 0;
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
      case ts.SyntaxKind.NumberKeyword:
      case ts.SyntaxKind.BooleanKeyword:
        return 0;
      default:
        return 1;
    }
  };

  for (const kind of KUBERNETES_CORE_KINDS) {
    const key = describeFile(path.join(models, `${kind}.d.ts`));
    if (typeof key !== "string") throw new Error(`${kind}: not an object type`);
    kinds[kind] = key;
  }
  // `status` is what controllers write: the API server takes and drops it on create, whatever it holds.
  for (const key of Object.values(kinds)) if (types[key]!.status !== undefined) types[key]!.status = 1;
  const reachable = new Set<string>();
  const visit = (t: FieldType) => {
    if (typeof t === "string") {
      if (reachable.has(t)) return;
      reachable.add(t);
      Object.values(types[t]!).forEach(visit);
    } else if (Array.isArray(t)) visit(t[0]!);
    else if (typeof t === "object" && "|" in t) t["|"].forEach(visit);
    else if (typeof t === "object") visit(t["*"]);
  };
  Object.values(kinds).forEach(visit);
  const kept = Object.fromEntries(
    Object.keys(types)
      .filter((k) => reachable.has(k))
      .sort()
      .map((k) => [k, types[k]!]),
  );
  return { source: `kubernetes-models ${JSON.parse(fs.readFileSync(path.join(models, "package.json"), "utf8")).version}`, kinds, types: kept };
}

/** The name of the interface a declaration file declares. */
function declaredIn(sf: ts.SourceFile): string | undefined {
  return sf.statements.find(ts.isInterfaceDeclaration)?.name.text;
}

function importOf(sf: ts.SourceFile, name: string): string | undefined {
  for (const s of sf.statements) {
    if (!ts.isImportDeclaration(s) || !s.importClause?.namedBindings || !ts.isNamedImports(s.importClause.namedBindings)) continue;
    if (s.importClause.namedBindings.elements.some((e) => e.name.text === name)) return (s.moduleSpecifier as ts.StringLiteral).text;
  }
  return undefined;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const text = `${JSON.stringify(kubernetesFieldTable())}\n`;
  if (process.argv.includes("--check")) {
    if (fs.readFileSync(output, "utf8") !== text) {
      console.error(`${output} is not what scripts/kubernetes-fields.ts writes: run it`);
      process.exit(1);
    }
  } else fs.writeFileSync(output, text);
}
