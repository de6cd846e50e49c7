import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";

export type RuntimeKind = "builtin" | "Development" | "process" | "module" | "package" | "Docker";

/**
 * Where a call happens, for built-ins that read files a cluster would mount for them
 * (function-go-templating's FileSystem source): the repository root, the composition's directory
 * (relative template paths resolve there) and the config's mounts (container path → repository
 * directory). Nothing outside the root is read.
 */
export interface CallContext {
  root: string;
  base: string;
  mounts?: Record<string, string>;
}

/** One way of running a composition function; the pipeline knows nothing else about it. */
export interface FunctionRuntime {
  readonly kind: RuntimeKind;
  /** Runs the function once; rejects with FunctionFailure on a crash, hang or bad response. */
  run(req: RunFunctionRequest, timeoutMs: number, call?: CallContext): Promise<RunFunctionResponse>;
  /** Releases what the runtime started (a process, a channel). Safe to call twice. */
  close(): Promise<void>;
  /**
   * Gets what running needs (a package's image) without running anything: rejects with
   * FunctionNotRunnable when it cannot be had, so a pipeline names every such step at once.
   */
  prepare?(): Promise<void>;
}

/** A function that could not produce a response; `detail` carries the stderr tail when known. */
export class FunctionFailure extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

/**
 * A function that cannot run here: what composition-ci may not or cannot do (exec not allowed, no
 * Docker engine, a function only a build of the repository makes), not a fault of the repository.
 * Sources that need it are reported as not rendered, with `fix`: what would let it run.
 */
export class FunctionNotRunnable extends FunctionFailure {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

/**
 * A runtime that cannot be used at all; every call fails the same way. With `fix` it is a function
 * composition-ci cannot run here (FunctionNotRunnable); without, a mistake in the repository or
 * its config (an unknown built-in, say).
 */
export class UnavailableRuntime implements FunctionRuntime {
  constructor(
    readonly kind: RuntimeKind,
    readonly reason: string,
    readonly fix?: string,
  ) {}

  run(): Promise<RunFunctionResponse> {
    return Promise.reject(this.fix === undefined ? new FunctionFailure(this.reason) : new FunctionNotRunnable(this.reason, this.fix));
  }

  async close(): Promise<void> {}
}

/** Rejects after `ms` with a FunctionFailure; the timer does not keep the process alive. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FunctionFailure(`${what} timed out after ${ms / 1000}s`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Closes a runtime that was being started, whether it started or failed to. */
export async function closeStarted(started: Promise<FunctionRuntime> | undefined): Promise<void> {
  if (started)
    await started.then(
      (r) => r.close(),
      () => undefined,
    );
}
