// drift/: what the rendered output drifted from: a committed snapshot, or what kubectl reads from a cluster.
import { execFile } from "node:child_process";
import { COMPOSITION_RESOURCE_NAME } from "../manifest/roles.js";
import type { JsonObject } from "../core/json.js";
import { sourceTitle, type RenderedSource } from "../rendered/source.js";
import type { SecretMasker } from "../secrets/mask.js";
import type { DriftItem } from "./report.js";

/**
 * Today's render against the live cluster, read with `kubectl get -o json` and the ambient
 * kubeconfig. Only the fields the render sets are compared: status, metadata the server owns and
 * fields absent from the render (server defaults) are ignored. A rendered object the cluster
 * lacks, and an object labelled as composed by an XR that the render no longer produces, are
 * drift too.
 */

export class ClusterError extends Error {}

export type Kubectl = (args: string[]) => Promise<string>;

const COMPOSITE_LABEL = "crossplane.io/composite";
/** Metadata the API server or controllers own. */
const SERVER_METADATA = ["managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "generateName", "selfLink"];

export function kubectlRunner(binary = "kubectl", context?: string): Kubectl {
  return (args) =>
    new Promise((resolve, reject) => {
      const full = [...(context ? ["--context", context] : []), ...args];
      execFile(binary, full, { maxBuffer: 256 * 1024 * 1024, timeout: 60_000 }, (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        if ((err as NodeJS.ErrnoException).code === "ENOENT")
          return reject(new ClusterError(`kubectl not found (${binary}): install it, or pass --kubectl PATH`));
        reject(Object.assign(new Error(stderr.trim() || err.message), { stderr }));
      });
    });
}

interface Live {
  found?: JsonObject;
  missing?: boolean;
  /** What makes the object's identity no Kubernetes name: it is never asked for. */
  invalid?: string;
}

export async function clusterDrift(sources: RenderedSource[], kubectl: Kubectl, masker: SecretMasker): Promise<DriftItem[]> {
  const items: DriftItem[] = [];
  for (const s of sources.filter((x) => x.ok)) {
    const title = sourceTitle(s.source);
    for (const [i, rendered] of s.objects.entries()) {
      const live = await getLive(rendered, kubectl);
      const key = s.keys[i] ?? "";
      if (live.invalid) {
        items.push(driftItem("cluster-missing", title, key, `not looked up: its ${live.invalid} is not a valid Kubernetes name, so no cluster can hold it`));
        continue;
      }
      if (live.missing) {
        items.push(driftItem("cluster-missing", title, key, "the render expects it; the cluster does not have it"));
        continue;
      }
      const differences = compareToLive(masker.maskObject(forComparison(rendered)), masker.maskObject(live.found!));
      if (differences.length) items.push(driftItem("cluster-changed", title, key, differences.join("\n")));
    }
    items.push(...(await orphans(s, title, kubectl)));
  }
  return items;
}

function driftItem(kind: DriftItem["kind"], source: string, object: string, detail: string): DriftItem {
  return { id: [kind, source, object].join("|"), kind, source, object, detail, state: "new" };
}

function resourceOf(o: JsonObject): string {
  const apiVersion = String(o.apiVersion ?? "");
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? String(o.kind) : `${String(o.kind)}.${apiVersion.slice(slash + 1)}.${apiVersion.slice(0, slash)}`;
}

function meta(o: JsonObject): {
  name?: string;
  generateName?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
} {
  return (o.metadata ?? {}) as never;
}

/**
 * `kubectl get -o json [-n NS] [-l SELECTOR] -- RESOURCE [NAME]`: options first, then `--`, so
 * nothing a repository renders is ever read as an option (`--kubeconfig=…`, `--server=…`).
 */
async function get(kubectl: Kubectl, query: Query): Promise<JsonObject | undefined> {
  const args = [
    "get",
    "-o",
    "json",
    ...(query.namespace ? [`--namespace=${query.namespace}`] : []),
    ...(query.selector ? [`--selector=${query.selector}`] : []),
    "--",
    query.resource,
    ...(query.name ? [query.name] : []),
  ];
  try {
    return JSON.parse(await kubectl(args)) as JsonObject;
  } catch (err) {
    if (err instanceof ClusterError) throw err;
    const text = (err as Error).message;
    if (/NotFound|not found/.test(text) && !/the server doesn't have a resource type/.test(text)) return undefined;
    throw new ClusterError(`kubectl ${args.join(" ")} failed: ${text.split("\n")[0]} (is the cluster reachable with the current kubeconfig?)`);
  }
}

interface Query {
  resource: string;
  name?: string;
  namespace?: string;
  selector?: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KIND = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
/** Object names are DNS subdomains for most kinds; a few kinds allow more, never a leading '-' or a ':' or '/'. */
const OBJECT_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9._]*[a-z0-9])?$/i;

/** Why a rendered object's identity cannot be asked for (it is no Kubernetes name), or nothing. */
function invalidIdentity(o: JsonObject): string | undefined {
  const apiVersion = String(o.apiVersion ?? "");
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
  const m = meta(o);
  if (!KIND.test(String(o.kind ?? ""))) return `kind ${JSON.stringify(o.kind)}`;
  if ((group && !DNS_SUBDOMAIN.test(group!)) || !DNS_LABEL.test(version ?? "")) return `apiVersion ${JSON.stringify(apiVersion)}`;
  if (m.name !== undefined && !OBJECT_NAME.test(m.name)) return `name ${JSON.stringify(m.name)}`;
  if (m.namespace !== undefined && !DNS_LABEL.test(m.namespace)) return `namespace ${JSON.stringify(m.namespace)}`;
  const composite = m.labels?.[COMPOSITE_LABEL];
  if (composite !== undefined && !LABEL_VALUE.test(composite)) return `label ${COMPOSITE_LABEL}=${JSON.stringify(composite)}`;
  return undefined;
}

/**
 * A name the reconciler generated (the generateName and twelve hex characters of a hash of the
 * XR's UID): the cluster's XR has another UID, so the live object has another name.
 */
function generatedName(o: JsonObject): boolean {
  const m = meta(o);
  return (
    typeof m.name === "string" &&
    typeof m.generateName === "string" &&
    m.name.startsWith(m.generateName) &&
    /^[0-9a-f]{12}$/.test(m.name.slice(m.generateName.length))
  );
}

/** By name, or for a generated name by the composite label and the composition resource name. */
async function getLive(rendered: JsonObject, kubectl: Kubectl): Promise<Live> {
  const m = meta(rendered);
  const invalid = invalidIdentity(rendered);
  if (invalid) return { invalid };
  if (m.name && !generatedName(rendered)) {
    const found = await get(kubectl, { resource: resourceOf(rendered), name: m.name, namespace: m.namespace });
    return found ? { found } : { missing: true };
  }
  const composite = m.labels?.[COMPOSITE_LABEL];
  const resourceName = m.annotations?.[COMPOSITION_RESOURCE_NAME];
  if (!composite || !resourceName) return { missing: true };
  const list = await get(kubectl, { resource: resourceOf(rendered), selector: `${COMPOSITE_LABEL}=${composite}`, namespace: m.namespace });
  const found = ((list?.items ?? []) as JsonObject[]).find((o) => meta(o).annotations?.[COMPOSITION_RESOURCE_NAME] === resourceName);
  return found ? { found } : { missing: true };
}

/** Objects labelled as composed by this XR, of the kinds it renders, that it no longer renders. */
async function orphans(s: RenderedSource, title: string, kubectl: Kubectl): Promise<DriftItem[]> {
  const composite = s.objects.map((o) => meta(o).labels?.[COMPOSITE_LABEL]).find(Boolean);
  if (!composite || !LABEL_VALUE.test(composite)) return [];
  const rendered = new Set(s.objects.map((o) => meta(o).annotations?.[COMPOSITION_RESOURCE_NAME]).filter(Boolean));
  const items: DriftItem[] = [];
  const kinds = [...new Set(s.objects.filter((o) => !invalidIdentity(o)).map(resourceOf))].sort();
  for (const kind of kinds) {
    const example = s.objects.find((o) => resourceOf(o) === kind)!;
    const list = await get(kubectl, { resource: kind, selector: `${COMPOSITE_LABEL}=${composite}`, namespace: meta(example).namespace });
    for (const o of (list?.items ?? []) as JsonObject[]) {
      const name = meta(o).annotations?.[COMPOSITION_RESOURCE_NAME];
      if (name && rendered.has(name)) continue;
      items.push(
        driftItem(
          "cluster-orphan",
          title,
          `${String(o.kind)}/${name ?? meta(o).name ?? ""}`,
          `${String(o.kind)} ${meta(o).name ?? ""} is labelled as composed by ${composite}, which no longer renders it`,
        ),
      );
    }
  }
  return items;
}

/** The rendered object as the API server stores it: a Secret's stringData becomes base64 data. */
function forComparison(rendered: JsonObject): JsonObject {
  if (rendered.kind !== "Secret" || !rendered.stringData) return rendered;
  const { stringData, ...rest } = rendered;
  const data = { ...((rest.data ?? {}) as Record<string, string>) };
  for (const [k, v] of Object.entries(stringData as Record<string, string>)) data[k] = Buffer.from(String(v)).toString("base64");
  return { ...rest, data };
}

/** Fields the render sets whose live value differs: `path: render X, cluster Y`. */
export function compareToLive(rendered: JsonObject, live: JsonObject): string[] {
  const out: string[] = [];
  const generated = generatedName(rendered);
  const walk = (want: unknown, have: unknown, at: string) => {
    if (at === "status" || at.startsWith("metadata.ownerReferences")) return;
    if (generated && at === "metadata.name") return;
    if (SERVER_METADATA.some((f) => at === `metadata.${f}`)) return;
    if (want && typeof want === "object" && !Array.isArray(want)) {
      if (!have || typeof have !== "object" || Array.isArray(have)) return void out.push(`${at || "(root)"}: render sets an object, cluster has ${show(have)}`);
      for (const [k, v] of Object.entries(want)) walk(v, (have as Record<string, unknown>)[k], at ? `${at}.${k}` : k);
      return;
    }
    if (Array.isArray(want)) {
      if (!Array.isArray(have)) return void out.push(`${at}: render sets a list, cluster has ${show(have)}`);
      if (have.length !== want.length) out.push(`${at}: render sets ${want.length} items, cluster has ${have.length}`);
      want.forEach((v, i) => i < have.length && walk(v, have[i], `${at}[${i}]`));
      return;
    }
    if (have === undefined) return void out.push(`${at}: render sets ${show(want)}, cluster has none`);
    if (want !== have) out.push(`${at}: render sets ${show(want)}, cluster has ${show(have)}`);
  };
  walk(rendered, live, "");
  return out;
}

function show(v: unknown): string {
  return v === undefined ? "none" : JSON.stringify(v);
}
