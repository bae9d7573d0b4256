// The shape every suite prints as its last stdout line (CONTRIBUTING.md, "Benchmarks"), and its validation.

export interface BenchResult {
  /** What was measured, e.g. "100 write layers". */
  name: string;
  /** Our number, in `unit`. */
  ours: number;
  /** The peer's or floor's number from the same run, in `unit`. */
  peer: number;
  /** Unit of `ours` and `peer`: "ms", "ops/s", "MiB", … */
  unit: string;
  /** ours / peer. */
  ratio: number;
  /** The goal as written in the issue, e.g. "<= 1.1". */
  goal: string;
  /** Who the peer is, e.g. "qemu-img create" or "floor: JSON.parse + string build". */
  peerName?: string;
  /** Free text: conditions, repetitions. */
  note?: string;
}

export interface SuiteOutput {
  suite: string;
  results: BenchResult[];
}

export class SuiteOutputError extends Error {
  constructor(
    readonly suite: string,
    reason: string,
  ) {
    super(`suite ${suite}: ${reason}`);
    this.name = 'SuiteOutputError';
  }
}

/** Finds the last JSON line of a suite's stdout and checks its shape. */
export function parseSuiteOutput(suite: string, stdout: string): SuiteOutput {
  const lines = stdout.trim().split('\n').reverse();
  const line = lines.find((l) => l.trim().startsWith('{'));
  if (!line) throw new SuiteOutputError(suite, 'printed no JSON result line');
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (e) {
    throw new SuiteOutputError(suite, `last JSON line does not parse: ${(e as Error).message}`);
  }
  const out = parsed as Partial<SuiteOutput>;
  if (typeof out.suite !== 'string' || !Array.isArray(out.results)) {
    throw new SuiteOutputError(suite, 'result line lacks "suite" or "results"');
  }
  for (const [i, r] of out.results.entries()) {
    for (const key of ['ours', 'peer', 'ratio'] as const) {
      if (typeof r[key] !== 'number' || !Number.isFinite(r[key])) {
        throw new SuiteOutputError(suite, `results[${i}].${key} is not a finite number: ${JSON.stringify(r[key])}`);
      }
    }
    if (typeof r.name !== 'string' || typeof r.unit !== 'string' || typeof r.goal !== 'string') {
      throw new SuiteOutputError(suite, `results[${i}] lacks name, unit or goal`);
    }
  }
  return out as SuiteOutput;
}

/** Whether a ratio meets a goal written as "<= N" / "≤ N" / ">= N" / "≥ N"; undefined when the goal says no ratio. */
export function goalMet(result: BenchResult): boolean | undefined {
  const m = /^\s*(<=|≤|>=|≥)\s*([\d.]+)\s*×?\s*$/.exec(result.goal);
  if (!m) return undefined;
  const bound = Number(m[2]);
  return m[1] === '<=' || m[1] === '≤' ? result.ratio <= bound : result.ratio >= bound;
}
