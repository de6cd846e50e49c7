import type { JsonObject } from "../../core/json.js";
import { wildcardMatch } from "./wildcard.js";

/**
 * Kyverno's `podSecurity` rules: the Pod Security Standards checks of Kubernetes'
 * pod-security-admission (latest version), each violation with its field and bad values, then the
 * rule's `exclude` entries (a control, optionally for containers of some images, a field and values)
 * remove what they exempt, as Kyverno does.
 */

interface Violation {
  check: string;
  /** `spec.containers[0].securityContext.privileged`. */
  field: string;
  badValues: string[];
  /** The container the field belongs to, for container-level exclusions. */
  container?: string;
}

interface Exclude {
  controlName?: string;
  images?: string[];
  restrictedField?: string;
  values?: string[];
}

const CONTROL_IDS: Record<string, string[]> = {
  Capabilities: ["capabilities_baseline", "capabilities_restricted"],
  Seccomp: ["seccompProfile_baseline", "seccompProfile_restricted"],
  "Privileged Containers": ["privileged"],
  "Host Ports": ["hostPorts"],
  "/proc Mount Type": ["procMount"],
  HostProcess: ["windowsHostProcess"],
  SELinux: ["seLinuxOptions"],
  "Host Namespaces": ["hostNamespaces"],
  "HostPath Volumes": ["hostPathVolumes"],
  Sysctls: ["sysctls"],
  AppArmor: ["appArmorProfile"],
  "Privilege Escalation": ["allowPrivilegeEscalation"],
  "Running as Non-root": ["runAsNonRoot"],
  "Running as Non-root user": ["runAsUser"],
  "Volume Types": ["restrictedVolumes"],
};

const RESTRICTED = new Set([
  "restrictedVolumes",
  "allowPrivilegeEscalation",
  "runAsNonRoot",
  "runAsUser",
  "seccompProfile_restricted",
  "capabilities_restricted",
]);
const BASELINE_CAPABILITIES = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);
const SAFE_SYSCTLS = new Set([
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.ip_unprivileged_port_start",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_local_reserved_ports",
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
]);
const SELINUX_TYPES = new Set(["", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"]);
const VOLUME_TYPES = new Set(["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"]);

type Obj = Record<string, any>;

interface Container {
  type: "containers" | "initContainers" | "ephemeralContainers";
  index: number;
  c: Obj;
}

function containersOf(spec: Obj): Container[] {
  const out: Container[] = [];
  for (const type of ["containers", "initContainers", "ephemeralContainers"] as const) {
    (Array.isArray(spec[type]) ? spec[type] : []).forEach((c: Obj, index: number) => out.push({ type, index, c: c ?? {} }));
  }
  return out;
}

/** Every check's violations on a pod (metadata + spec). */
function checkPod(meta: Obj, spec: Obj, level: "baseline" | "restricted"): Violation[] {
  const v: Violation[] = [];
  const add = (check: string, field: string, badValues: unknown[], container?: Container) =>
    v.push({ check, field, badValues: badValues.map(String), ...(container ? { container: String(container.c.name ?? "") } : {}) });
  const podSc: Obj = spec.securityContext ?? {};
  const containers = containersOf(spec);
  const at = (c: Container, rest: string) => `spec.${c.type}[${c.index}].${rest}`;

  for (const k of ["hostNetwork", "hostPID", "hostIPC"]) if (spec[k] === true) add("hostNamespaces", `spec.${k}`, [true]);
  if (podSc.windowsOptions?.hostProcess === true) add("windowsHostProcess", "spec.securityContext.windowsOptions.hostProcess", [true]);
  (Array.isArray(spec.volumes) ? spec.volumes : []).forEach((vol: Obj, i: number) => {
    if (vol?.hostPath) add("hostPathVolumes", `spec.volumes[${i}].hostPath`, [vol.hostPath.path ?? ""]);
  });
  (Array.isArray(podSc.sysctls) ? podSc.sysctls : []).forEach((s: Obj, i: number) => {
    if (!SAFE_SYSCTLS.has(String(s?.name))) add("sysctls", `spec.securityContext.sysctls[${i}].name`, [s?.name]);
  });
  const seLinux = (sc: Obj | undefined, field: string, c?: Container) => {
    const o = sc?.seLinuxOptions;
    if (!o) return;
    if (!SELINUX_TYPES.has(o.type ?? "")) add("seLinuxOptions", `${field}.seLinuxOptions.type`, [o.type], c);
    if (o.user) add("seLinuxOptions", `${field}.seLinuxOptions.user`, [o.user], c);
    if (o.role) add("seLinuxOptions", `${field}.seLinuxOptions.role`, [o.role], c);
  };
  seLinux(podSc, "spec.securityContext");
  const appArmor = (sc: Obj | undefined, field: string, c?: Container) => {
    const t = sc?.appArmorProfile?.type;
    if (t !== undefined && t !== "RuntimeDefault" && t !== "Localhost") add("appArmorProfile", `${field}.appArmorProfile.type`, [t], c);
  };
  appArmor(podSc, "spec.securityContext");
  for (const [k, value] of Object.entries((meta.annotations ?? {}) as Obj)) {
    if (k.startsWith("container.apparmor.security.beta.kubernetes.io/") && value !== "runtime/default" && !String(value).startsWith("localhost/"))
      add("appArmorProfile", `metadata.annotations[${k}]`, [value]);
  }
  if (podSc.seccompProfile?.type === "Unconfined") add("seccompProfile_baseline", "spec.securityContext.seccompProfile.type", ["Unconfined"]);

  for (const c of containers) {
    const sc: Obj = c.c.securityContext ?? {};
    if (sc.privileged === true) add("privileged", at(c, "securityContext.privileged"), [true], c);
    if (sc.windowsOptions?.hostProcess === true) add("windowsHostProcess", at(c, "securityContext.windowsOptions.hostProcess"), [true], c);
    const bad = (sc.capabilities?.add ?? []).filter((cap: string) => !BASELINE_CAPABILITIES.has(cap));
    if (bad.length) add("capabilities_baseline", at(c, "securityContext.capabilities.add"), bad, c);
    (Array.isArray(c.c.ports) ? c.c.ports : []).forEach((p: Obj, i: number) => {
      if (p?.hostPort) add("hostPorts", at(c, `ports[${i}].hostPort`), [p.hostPort], c);
    });
    if (sc.procMount !== undefined && sc.procMount !== "Default") add("procMount", at(c, "securityContext.procMount"), [sc.procMount], c);
    if (sc.seccompProfile?.type === "Unconfined") add("seccompProfile_baseline", at(c, "securityContext.seccompProfile.type"), ["Unconfined"], c);
    seLinux(sc, at(c, "securityContext"), c);
    appArmor(sc, at(c, "securityContext"), c);
  }
  if (level === "baseline") return v;

  (Array.isArray(spec.volumes) ? spec.volumes : []).forEach((vol: Obj, i: number) => {
    const type = Object.keys(vol ?? {}).find((k) => k !== "name");
    if (type && !VOLUME_TYPES.has(type)) add("restrictedVolumes", `spec.volumes[${i}].${type}`, [type]);
  });
  if (podSc.runAsNonRoot === false) add("runAsNonRoot", "spec.securityContext.runAsNonRoot", [false]);
  if (podSc.runAsUser === 0) add("runAsUser", "spec.securityContext.runAsUser", [0]);
  const podSeccomp = podSc.seccompProfile?.type;
  const podSeccompOk = podSeccomp === "RuntimeDefault" || podSeccomp === "Localhost";
  if (podSeccomp !== undefined && !podSeccompOk) add("seccompProfile_restricted", "spec.securityContext.seccompProfile.type", [podSeccomp]);
  for (const c of containers) {
    const sc: Obj = c.c.securityContext ?? {};
    if (sc.allowPrivilegeEscalation !== false)
      add("allowPrivilegeEscalation", at(c, "securityContext.allowPrivilegeEscalation"), [sc.allowPrivilegeEscalation ?? ""], c);
    if (sc.runAsNonRoot === false || (sc.runAsNonRoot === undefined && podSc.runAsNonRoot !== true))
      add("runAsNonRoot", at(c, "securityContext.runAsNonRoot"), [sc.runAsNonRoot ?? ""], c);
    if (sc.runAsUser === 0) add("runAsUser", at(c, "securityContext.runAsUser"), [0], c);
    const type = sc.seccompProfile?.type;
    if (type !== undefined ? type !== "RuntimeDefault" && type !== "Localhost" : !podSeccompOk)
      add("seccompProfile_restricted", at(c, "securityContext.seccompProfile.type"), [type ?? ""], c);
    const drop: string[] = sc.capabilities?.drop ?? [];
    if (!drop.includes("ALL")) add("capabilities_restricted", at(c, "securityContext.capabilities.drop"), drop, c);
    const added = (sc.capabilities?.add ?? []).filter((cap: string) => cap !== "NET_BIND_SERVICE");
    if (added.length) add("capabilities_restricted", at(c, "securityContext.capabilities.add"), added, c);
  }
  return v;
}

/** The pod a Pod, a Pod controller or a CronJob makes. */
export function podOf(o: JsonObject): { meta: Obj; spec: Obj } | undefined {
  const spec = o.spec as Obj | undefined;
  if (!spec) return undefined;
  if (o.kind === "Pod") return { meta: (o.metadata ?? {}) as Obj, spec };
  const template = o.kind === "CronJob" ? spec.jobTemplate?.spec?.template : spec.template;
  return template?.spec ? { meta: template.metadata ?? {}, spec: template.spec } : undefined;
}

const withStars = (field: string) => field.replace(/\[\d+\]/g, "[*]");

/** The violations left after the rule's exclusions (and a PolicyException's `podSecurity`). */
export function evaluatePodSecurity(object: JsonObject, level: string, excludes: Exclude[]): { allowed: boolean; violations: Violation[] } | undefined {
  const pod = podOf(object);
  if (!pod) return undefined;
  if (level === "privileged") return { allowed: true, violations: [] };
  const lvl = level === "restricted" ? "restricted" : "baseline";
  let violations = checkPod(pod.meta, pod.spec, lvl).filter((x) => lvl === "restricted" || !RESTRICTED.has(x.check));
  for (const e of excludes) {
    const ids = new Set(CONTROL_IDS[e.controlName ?? ""] ?? []);
    const images = e.images ?? [];
    const imageOf = new Map(containersOf(pod.spec).map((c) => [String(c.c.name ?? ""), String(c.c.image ?? "")]));
    violations = violations.filter((x) => {
      if (!ids.has(x.check)) return true;
      if (images.length === 0 ? x.container !== undefined : x.container === undefined || !images.some((p) => wildcardMatch(p, imageOf.get(x.container!) ?? "")))
        return true;
      if (e.restrictedField && withStars(x.field) !== e.restrictedField) return true;
      if (e.values?.length && !x.badValues.filter((b) => b !== "").every((b) => e.values!.some((p) => wildcardMatch(p, b)))) return true;
      return false;
    });
  }
  return { allowed: violations.length === 0, violations };
}

export function describeViolations(level: string, violations: Violation[]): string {
  const byCheck = new Map<string, string[]>();
  for (const x of violations) byCheck.set(x.check, [...(byCheck.get(x.check) ?? []), x.field]);
  return `violates PodSecurity "${level}:latest": ${[...byCheck].map(([check, fields]) => `${check} (${fields.join(", ")})`).join("; ")}`;
}
