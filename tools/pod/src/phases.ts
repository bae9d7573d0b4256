// Named phases with their durations: the pod runner prints each one as it ends, and a summary at the end.

export interface PhaseRecord {
  name: string;
  ms: number;
}

export class PhaseClock {
  readonly records: PhaseRecord[] = [];
  constructor(private readonly print: (line: string) => void) {}

  async run<T>(name: string, work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    this.print(`▶ ${name}`);
    const result = await work();
    const ms = performance.now() - start;
    this.records.push({ name, ms });
    this.print(`✔ ${name} (${(ms / 1000).toFixed(2)} s)`);
    return result;
  }

  mark(name: string, sinceMs: number): void {
    const ms = performance.now() - sinceMs;
    this.records.push({ name, ms });
    this.print(`✔ ${name} (${(ms / 1000).toFixed(2)} s)`);
  }

  summary(): string {
    const width = Math.max(...this.records.map((r) => r.name.length), 5);
    return this.records.map((r) => `  ${r.name.padEnd(width)}  ${(r.ms / 1000).toFixed(2).padStart(7)} s`).join('\n');
  }
}
