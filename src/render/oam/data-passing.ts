import { getValue, isNotFound, parseFieldPath, setValue } from "../../manifest/fieldpath.js";
import { asArray, asObject, asString } from "../../validate/rules/context.js";
import type { JsonObject } from "../../core/json.js";

/**
 * Data passing between the workloads and traits of one ApplicationConfiguration (`dataOutputs` /
 * `dataInputs`), decided offline. An object with inputs is created only once every input's value is
 * known; a value is known when its producer is created and the value and its conditions read from
 * fields the render sets. Status is live: a value or condition under `status` waits.
 */

export interface DataInput {
  outputName: string;
  toFieldPaths: string[];
  /** JSON pointer of the input in the ApplicationConfiguration. */
  at: string;
}

interface Condition {
  op?: string;
  fieldPath?: string;
  value?: string;
  valueFromFieldPath?: string;
}

export interface DataOutput {
  name: string;
  fieldPath: string;
  conditions: Condition[];
}

/** A workload or trait with the data it takes and gives. */
export interface DataNode {
  object: JsonObject;
  inputs: DataInput[];
  outputs: DataOutput[];
}

export interface Waiting {
  node: DataNode;
  input: DataInput;
  reason: string;
}

export interface DataPassingResult {
  /** Nodes the runtime would create now, their inputs filled in. */
  created: Set<DataNode>;
  /** One entry per input that holds a node back. */
  waiting: Waiting[];
}

export function dataInputs(holder: Record<string, unknown>, at: string): DataInput[] {
  return asArray(holder.dataInputs).flatMap((raw, k) => {
    const input = asObject(raw) ?? {};
    const outputName = asString(asObject(input.valueFrom)?.dataOutputName);
    if (outputName === undefined) return [];
    const toFieldPaths = asArray(input.toFieldPaths).filter((p): p is string => typeof p === "string");
    return [{ outputName, toFieldPaths, at: `${at}/dataInputs/${k}` }];
  });
}

export function dataOutputs(holder: Record<string, unknown>): DataOutput[] {
  return asArray(holder.dataOutputs).flatMap((raw) => {
    const output = asObject(raw) ?? {};
    const name = asString(output.name);
    if (name === undefined) return [];
    const conditions = asArray(output.conditions).map((c) => {
      const cond = asObject(c) ?? {};
      return {
        op: asString(cond.op),
        fieldPath: asString(cond.fieldPath),
        value: asString(cond.value),
        valueFromFieldPath: asString(asObject(cond.valueFrom)?.fieldPath),
      };
    });
    return [{ name, fieldPath: asString(output.fieldPath) ?? "", conditions }];
  });
}

type InputState = { ready: true; value: unknown } | { ready: false; reason: string } | { pending: true };

export function passData(nodes: DataNode[], appConfig: JsonObject): DataPassingResult {
  const producers = new Map<string, { node: DataNode; output: DataOutput }>();
  for (const node of nodes) for (const output of node.outputs) if (!producers.has(output.name)) producers.set(output.name, { node, output });
  const created = new Set<DataNode>();
  const held = new Map<DataNode, Waiting[]>();
  const settled = (n: DataNode) => created.has(n) || held.has(n);
  for (let progress = true; progress; ) {
    progress = false;
    for (const node of nodes.filter((n) => !settled(n))) {
      const states = node.inputs.map((input) => ({ input, state: inputState(input, producers, created, held, appConfig) }));
      if (states.some(({ state }) => "pending" in state)) continue;
      progress = true;
      const unmet = states.flatMap(({ input, state }) => ("reason" in state ? [{ node, input, reason: state.reason }] : []));
      if (unmet.length > 0) held.set(node, unmet);
      else {
        const failed = fillAll(node, states);
        if (failed) held.set(node, [failed]);
        else created.add(node);
      }
    }
  }
  const waiting = [...held.values()].flat();
  for (const node of nodes.filter((n) => !settled(n))) {
    for (const input of node.inputs) waiting.push({ node, input, reason: "its producer is part of a data dependency cycle" });
  }
  return { created, waiting };
}

function inputState(
  input: DataInput,
  producers: Map<string, { node: DataNode; output: DataOutput }>,
  created: Set<DataNode>,
  held: Map<DataNode, Waiting[]>,
  appConfig: JsonObject,
): InputState {
  const producer = producers.get(input.outputName);
  if (!producer) return { ready: false, reason: "no dataOutputs has this name" };
  if (held.has(producer.node)) return { ready: false, reason: `${describe(producer.node.object)} is itself waiting` };
  if (!created.has(producer.node)) return { pending: true };
  return outputValue(producer.output, producer.node.object, appConfig);
}

function describe(o: JsonObject): string {
  return `${String(o.kind)} "${String((o.metadata as JsonObject | undefined)?.name ?? "")}"`;
}

function isLive(fieldPath: string): boolean {
  try {
    const first = parseFieldPath(fieldPath)[0];
    return first !== undefined && "field" in first && first.field === "status";
  } catch {
    return false;
  }
}

function read(object: unknown, fieldPath: string): { value: unknown } | { reason: string } {
  if (isLive(fieldPath)) return { reason: `${fieldPath} is live status, known only once the object runs` };
  try {
    return { value: getValue(object, fieldPath) };
  } catch (err) {
    return { reason: isNotFound(err) ? `${fieldPath} not found in object` : (err as Error).message };
  }
}

/** The runtime's getDataInput: the value, then its conditions (a string must not be empty when there are none). */
function outputValue(output: DataOutput, source: JsonObject, appConfig: JsonObject): InputState {
  const got = read(source, output.fieldPath);
  if ("reason" in got) return { ready: false, reason: got.reason };
  if (typeof got.value === "string" && output.conditions.length === 0 && got.value === "") return { ready: false, reason: "value should not be empty" };
  for (const condition of output.conditions) {
    const failed = conditionFails(condition, source, typeof got.value === "string" ? got.value : undefined, appConfig);
    if (failed) return { ready: false, reason: failed };
  }
  return { ready: true, value: got.value };
}

function conditionFails(c: Condition, source: JsonObject, value: string | undefined, appConfig: JsonObject): string | undefined {
  let actual: string;
  if (c.fieldPath) {
    const got = read(source, c.fieldPath);
    if ("reason" in got) return got.reason;
    if (typeof got.value !== "string") return `can't get value to check: ${c.fieldPath} is not a string`;
    actual = got.value;
  } else if (value !== undefined) actual = value;
  else return "can't get value to check: FieldPath not specified";
  let expected = c.value ?? "";
  if (!c.value && c.valueFromFieldPath) {
    const from = read(appConfig, c.valueFromFieldPath);
    if ("reason" in from || typeof from.value !== "string") return `get valueFrom.fieldPath fail: ${c.valueFromFieldPath}`;
    expected = from.value;
  }
  if (c.op === "eq" && actual !== expected) return `got(${actual}) expected to be ${expected}`;
  if (c.op === "notEq" && actual === expected) return `got(${actual}) expected not to be ${expected}`;
  if (c.op === "notEmpty" && actual === "") return "value should not be empty";
  return undefined;
}

function fillAll(node: DataNode, states: { input: DataInput; state: InputState }[]): Waiting | undefined {
  for (const { input, state } of states) {
    if (!("value" in state)) continue;
    try {
      fill(node.object, input.toFieldPaths, state.value);
    } catch (err) {
      return { node, input, reason: `cannot write the value: ${(err as Error).message}` };
    }
  }
  return undefined;
}

/** Writes a value to every path; a list is appended to what is there (the runtime's fillValue). */
function fill(object: JsonObject, paths: string[], value: unknown): void {
  for (const path of paths) {
    let toSet = value;
    if (Array.isArray(value)) {
      let existing: unknown = [];
      try {
        existing = getValue(object, path);
      } catch {
        existing = [];
      }
      toSet = [...(Array.isArray(existing) ? existing : []), ...value];
    }
    setValue(object, path, toSet);
  }
}
