// Everything the pod runner makes registers its undo here; undo runs in reverse order, once, even after a failure
// or Ctrl-C, and one failing undo does not stop the others.

export type Undo = () => Promise<void> | void;

export class CleanupStack {
  private readonly steps: { name: string; undo: Undo }[] = [];
  private ran = false;

  push(name: string, undo: Undo): void {
    this.steps.push({ name, undo });
  }

  async run(report: (name: string, error: unknown) => void): Promise<void> {
    if (this.ran) return;
    this.ran = true;
    for (const { name, undo } of this.steps.reverse()) {
      try {
        await undo();
      } catch (error) {
        report(name, error);
      }
    }
  }
}
