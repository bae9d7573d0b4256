// Progress reporting: callers pass onProgress; the CLI turns events into KubeVirt-style JSON log lines.

export interface ProgressEvent {
  /** Short step name, e.g. "inspect-backing", "create-layer", "reuse-layer", "build-iso". */
  step: string;
  /** The file or volume the step is about. */
  subject: string;
  msg: string;
  level?: 'info' | 'warning';
}

export type ProgressListener = (event: ProgressEvent) => void;

export interface CallOptions {
  onProgress?: ProgressListener;
}

export function report(options: CallOptions | undefined, event: ProgressEvent): void {
  options?.onProgress?.(event);
}

/** One JSON log line with the keys the rest of the launcher uses. */
export function formatLogLine(event: ProgressEvent, component = 'virt-ephemeral-disk'): string {
  return JSON.stringify({
    component,
    level: event.level ?? 'info',
    msg: event.msg,
    pos: `ephemeral-disk/${event.step}`,
    subject: event.subject,
    timestamp: new Date().toISOString(),
  });
}
