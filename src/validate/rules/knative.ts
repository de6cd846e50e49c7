import type { JsonObject } from "../../core/json.js";
import type { Manifest } from "../../manifest/manifest.js";
import type { Finding } from "../../core/finding.js";
import { guarded } from "../guard.js";
import { asObject, asString, FindingSink, type RuleContext } from "./context.js";

/**
 * knative/*: what Knative Serving's webhook refuses in a Service, Configuration or Route
 * (serving.knative.dev/v1; knative/serving pkg/apis/serving/v1 *_validation.go and the defaults
 * applied before them): the traffic list (percents 0–100 summing to 100, tags DNS-1035 labels and
 * unique, a revision or configuration named as the owner allows, `latestRevision` consistent with
 * `revisionName`, no `url`), the template's revision name (a DNS-1035 label prefixed with the
 * owner's name, not with a generateName), its containers (one serving port, reserved ports, names,
 * environment variables and mount paths) and `timeoutSeconds` within the maximum (600 by default).
 */

const GROUP = "serving.knative.dev";
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** config-defaults' max-revision-timeout-seconds, as Knative ships it. */
const MAX_TIMEOUT_SECONDS = 600;

export function knativeRules(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const m of ctx.index.manifests) {
    if (m.group !== GROUP || m.version !== "v1" || !["Service", "Configuration", "Route"].includes(m.kind)) continue;
    guarded(m, "checking the rules of", out, () => {
      const sink = new FindingSink();
      const spec = asObject(m.object.spec) ?? {};
      if (m.kind !== "Route") checkTemplate(m, asObject(spec.template), sink);
      if (m.kind !== "Configuration") checkTraffic(m, spec.traffic, m.kind === "Service", sink);
      out.push(...sink.findings);
    });
  }
  return out;
}

/** The template's revision name and timeout (RevisionTemplateSpec.Validate). */
function checkTemplate(m: Manifest, template: JsonObject | undefined, sink: FindingSink): void {
  if (!template) return;
  const meta = asObject(template.metadata) ?? {};
  const name = asString(meta.name);
  const parent = asObject(m.object.metadata) ?? {};
  const add = (pointer: string, message: string) => sink.add(m, pointer, "knative/revision-name", "error", message);
  if (name) {
    if (!dns1035(name))
      add(
        "/spec/template/metadata/name",
        `revision name "${name}" is not a DNS-1035 label (lowercase letters, digits and '-', starting with a letter, at most 63 characters): the webhook refuses it`,
      );
    else if (!asString(parent.name) && asString(parent.generateName))
      add("/spec/template/metadata/name", `a revision name may not be set when the ${m.kind} has a generateName: the webhook refuses it`);
    else if (!name.startsWith(`${asString(parent.name) ?? ""}-`))
      add(
        "/spec/template/metadata/name",
        `revision name "${name}" must have the prefix "${asString(parent.name) ?? ""}-" (the ${m.kind}'s name): the webhook refuses it`,
      );
  }
  checkContainers(m, asObject(template.spec) ?? {}, sink);
  const timeout = asObject(template.spec)?.timeoutSeconds;
  if (typeof timeout === "number" && timeout !== 0 && (timeout < 0 || timeout > MAX_TIMEOUT_SECONDS)) {
    sink.add(
      m,
      "/spec/template/spec/timeoutSeconds",
      "knative/timeout",
      "error",
      `timeoutSeconds ${timeout} is out of bounds: 0 <= it <= ${MAX_TIMEOUT_SECONDS} (config-defaults' max-revision-timeout-seconds; a cluster that raises it takes more)`,
    );
  }
}

/** networking's backend, queue admin and metrics ports, and the profiling port: the queue-proxy's own. */
const RESERVED_PORTS = new Set([8012, 8013, 8022, 9090, 9091, 8008]);
const VALID_PORT_NAMES = new Set(["h2c", "http1", ""]);
const RESERVED_ENVS = ["PORT", "K_SERVICE", "K_CONFIGURATION", "K_REVISION"];
const RESERVED_PATHS = new Set(["/", "/dev", "/dev/log"]);

/**
 * The revision's containers (serving.ValidatePodSpec): one serving port across them (the
 * container with ports serves), a port neither reserved nor named other than h2c/http1, TCP only;
 * no container named queue-proxy; no reserved environment name (a sidecar may set PORT); no
 * volume mounted at a reserved path.
 */
function checkContainers(m: Manifest, spec: JsonObject, sink: FindingSink): void {
  const containers = Array.isArray(spec.containers) ? spec.containers.map((c) => asObject(c) ?? {}) : [];
  const add = (pointer: string, message: string) => sink.add(m, pointer, "knative/container", "error", message);
  const base = "/spec/template/spec/containers";
  const portsOf = (c: JsonObject) => (Array.isArray(c.ports) ? c.ports.map((p) => asObject(p) ?? {}) : []);
  const count = containers.reduce((n, c) => n + portsOf(c).length, 0);
  if (count > 1) add(base, "more than one container port is set: only a single port is allowed across all containers");
  if (count === 0 && containers.length > 1) add(base, "with several containers, the serving one must declare its port (missing field ports)");
  containers.forEach((c, i) => {
    const at = `${base}/${i}`;
    const serving = portsOf(c).length > 0 || containers.length === 1;
    if (c.name === "queue-proxy") add(`${at}/name`, '"queue-proxy" is a reserved container name');
    const port = portsOf(c)[0];
    if (port) {
      if (typeof port.containerPort === "number" && RESERVED_PORTS.has(port.containerPort))
        add(`${at}/ports/0/containerPort`, `${port.containerPort} is a reserved port, please use a different value`);
      const name = asString(port.name) ?? "";
      if (!VALID_PORT_NAMES.has(name)) add(`${at}/ports/0/name`, `Port name ${name} is not allowed: name must be empty, or one of 'h2c', 'http1'`);
      if (port.protocol !== undefined && port.protocol !== "" && port.protocol !== "TCP")
        add(`${at}/ports/0/protocol`, `protocol ${String(port.protocol)} is not allowed: only TCP`);
    }
    const reserved = serving ? RESERVED_ENVS : RESERVED_ENVS.filter((e) => e !== "PORT");
    (Array.isArray(c.env) ? c.env.map((e) => asObject(e) ?? {}) : []).forEach((e, j) => {
      if (typeof e.name === "string" && reserved.includes(e.name)) add(`${at}/env/${j}/name`, `"${e.name}" is a reserved environment variable`);
    });
    (Array.isArray(c.volumeMounts) ? c.volumeMounts.map((v) => asObject(v) ?? {}) : []).forEach((v, j) => {
      const mountPath = asString(v.mountPath);
      const clean = mountPath === undefined ? undefined : cleanPath(mountPath);
      if (clean !== undefined && RESERVED_PATHS.has(clean)) add(`${at}/volumeMounts/${j}/mountPath`, `mountPath "${clean}" is a reserved path`);
    });
  });
}

/** Go's path.Clean, for the absolute paths a mount names. */
function cleanPath(p: string): string {
  const parts: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return p.startsWith("/") ? `/${parts.join("/")}` : parts.join("/") || ".";
}

function dns1035(text: string): boolean {
  return text.length <= 63 && DNS1035_LABEL.test(text);
}

/**
 * The traffic list after Knative's defaults (a Service without traffic routes 100% to its latest
 * revision; a target's latestRevision defaults to having no revisionName, its percent to 0),
 * checked as validateTrafficList does. In a Service a target names no configuration (the
 * Service owns it); in a Route each names a revision or a configuration, not both.
 */
function checkTraffic(m: Manifest, raw: unknown, inService: boolean, sink: FindingSink): void {
  const given = Array.isArray(raw) ? raw.map((t) => asObject(t) ?? {}) : [];
  if (inService && given.length === 0) return; // defaulted to 100% of the latest revision
  const add = (pointer: string, message: string, rule = "knative/traffic") => sink.add(m, pointer, rule, "error", message);
  const tags = new Map<string, number>();
  let sum = 0;
  given.forEach((t, i) => {
    const at = `/spec/traffic/${i}`;
    const revision = asString(t.revisionName) ?? "";
    const configuration = asString(t.configurationName) ?? "";
    const percent = typeof t.percent === "number" ? t.percent : 0;
    sum += percent;
    if (typeof t.latestRevision === "boolean" && (revision !== "") === t.latestRevision) {
      add(`${at}/latestRevision`, `may not set revisionName "${revision}" when latestRevision is ${t.latestRevision}`);
    }
    if (inService && configuration)
      add(`${at}/configurationName`, "a Service's traffic may not name a configuration (the Service owns its one): the webhook disallows configurationName");
    else if (revision && configuration) add(at, "expected exactly one of revisionName and configurationName, got both");
    else if (revision && !qualified(revision)) add(`${at}/revisionName`, `revisionName "${revision}" is not a qualified name`);
    else if (configuration && !qualified(configuration)) add(`${at}/configurationName`, `configurationName "${configuration}" is not a qualified name`);
    else if (!inService && !revision && !configuration) add(at, "expected exactly one of revisionName and configurationName, got neither");
    if (percent < 0 || percent > 100) add(`${at}/percent`, `percent ${percent} is out of bounds: 0 <= it <= 100`);
    if (t.url !== undefined && t.url !== "") add(`${at}/url`, "url is set by Knative in the status, never in the spec: the webhook disallows it");
    const tag = asString(t.tag);
    if (!tag) return;
    if (!dns1035(tag)) add(`${at}/tag`, `tag "${tag}" is not a DNS-1035 label (lowercase letters, digits and '-', starting with a letter)`);
    const first = tags.get(tag);
    if (first !== undefined) add(`${at}/tag`, `multiple definitions for "${tag}" (traffic[${first}] has it too)`);
    else tags.set(tag, i);
  });
  if (sum !== 100)
    add(given.length ? "/spec/traffic" : "/spec", `traffic targets sum to ${sum}, want 100: the webhook refuses the ${m.kind}`, "knative/traffic-sum");
}

function qualified(name: string): boolean {
  return name.length <= 63 && QUALIFIED_NAME.test(name);
}
