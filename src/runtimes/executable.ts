import fs from "node:fs";
import path from "node:path";
import { resolveInRoot } from "../oci/unpack.js";
import type { ImageConfig } from "../oci/image.js";

/**
 * How an unpacked function image's entrypoint can run on this host without a container: a
 * static Linux binary of this machine's architecture runs as it is; a dynamic one through the
 * host's loader, or else the image's own loader and libraries; a script through its `#!` line.
 * What cannot run here says why.
 */
export type Launch = { command: string[]; cwd: string } | { cannot: string };

const MACHINES: Record<number, string> = { 0x3e: "amd64", 0xb7: "arm64", 0x28: "arm", 0x03: "386", 0x15: "ppc64le", 0x16: "s390x", 0xf3: "riscv64" };
const PT_INTERP = 3;

export function launchOf(root: string, config: ImageConfig, arch = archName()): Launch {
  const entrypoint = config.Entrypoint?.length ? config.Entrypoint : undefined;
  if (!entrypoint) return { cannot: "the image has no entrypoint" };
  const program = programPath(root, entrypoint[0]!, config.Env ?? []);
  if (!program) return { cannot: `its entrypoint ${entrypoint[0]} is not in the image` };
  const cwd = resolveInRoot(root, (config.WorkingDir || "/").replace(/^\/+/, ""), true);
  const header = readHead(program);
  if (header.subarray(0, 2).toString("latin1") === "#!") return { command: [program, ...entrypoint.slice(1)], cwd };
  const elf = parseElf(header, program);
  if (!elf) return { cannot: `its entrypoint ${entrypoint[0]} is neither a Linux binary nor a script` };
  if (process.platform !== "linux") return { cannot: `it is a Linux binary and this runner is ${process.platform}` };
  if (elf.machine !== arch) return { cannot: `it is a linux/${elf.machine} binary and this runner is linux/${arch}` };
  if (!elf.interpreter || fs.existsSync(elf.interpreter)) return { command: [program, ...entrypoint.slice(1)], cwd };
  const loader = resolveInRoot(root, elf.interpreter.replace(/^\/+/, ""), true);
  if (!fs.existsSync(loader)) return { cannot: `it needs the dynamic loader ${elf.interpreter}, which neither this runner nor the image has` };
  const libraries = ["lib", "usr/lib", `lib/${tripletOf(arch)}`, `usr/lib/${tripletOf(arch)}`, "lib64", "usr/lib64"]
    .map((d) => resolveInRoot(root, d, true))
    .filter((d) => fs.existsSync(d));
  return { command: [loader, "--library-path", libraries.join(":"), program, ...entrypoint.slice(1)], cwd };
}

/** The host path of the entrypoint: absolute inside the root, or found on the image's PATH. */
function programPath(root: string, name: string, env: string[]): string | undefined {
  const candidates = name.includes("/")
    ? [name]
    : (env.find((e) => e.startsWith("PATH="))?.slice(5) ?? "/usr/local/bin:/usr/bin:/bin").split(":").map((d) => `${d}/${name}`);
  for (const candidate of candidates) {
    const host = resolveInRoot(root, candidate.replace(/^\/+/, ""), true);
    if (host.startsWith(root + path.sep) && fs.statSync(host, { throwIfNoEntry: false })?.isFile()) return host;
  }
  return undefined;
}

function readHead(file: string): Buffer {
  const fd = fs.openSync(file, "r");
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** The machine and the PT_INTERP of a little-endian ELF file (read from its program headers). */
export function parseElf(head: Buffer, file: string): { machine: string; interpreter?: string } | undefined {
  if (head.length < 52 || head.readUInt32BE(0) !== 0x7f454c46 || head[5] !== 1) return undefined;
  const is64 = head[4] === 2;
  const machine = MACHINES[head.readUInt16LE(18)] ?? `machine-${head.readUInt16LE(18)}`;
  const phoff = is64 ? Number(head.readBigUInt64LE(32)) : head.readUInt32LE(28);
  const phentsize = head.readUInt16LE(is64 ? 54 : 42);
  const phnum = head.readUInt16LE(is64 ? 56 : 44);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + phentsize > head.length) break;
    if (head.readUInt32LE(at) !== PT_INTERP) continue;
    const offset = is64 ? Number(head.readBigUInt64LE(at + 8)) : head.readUInt32LE(at + 4);
    const size = is64 ? Number(head.readBigUInt64LE(at + 32)) : head.readUInt32LE(at + 16);
    const bytes = offset + size <= head.length ? head.subarray(offset, offset + size) : readAt(file, offset, Math.min(size, 4096));
    return { machine, interpreter: bytes.toString("latin1").replace(/\0.*$/s, "") };
  }
  return { machine };
}

function readAt(file: string, offset: number, size: number): Buffer {
  const fd = fs.openSync(file, "r");
  try {
    const buffer = Buffer.alloc(size);
    const n = fs.readSync(fd, buffer, 0, size, offset);
    return buffer.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

function archName(): string {
  return (
    ({ x64: "amd64", arm64: "arm64", arm: "arm", ia32: "386", ppc64: "ppc64le", s390x: "s390x", riscv64: "riscv64" } as Record<string, string>)[process.arch] ??
    process.arch
  );
}

function tripletOf(arch: string): string {
  return (
    ({ amd64: "x86_64-linux-gnu", arm64: "aarch64-linux-gnu", arm: "arm-linux-gnueabihf", "386": "i386-linux-gnu" } as Record<string, string>)[arch] ??
    `${arch}-linux-gnu`
  );
}
