// After the lease, `virt-pod run` (npm run demo) prints what the guest agent reports through GetDomain, as
// virt-handler would put it into the VMI status: the guest OS and each interface's IPs. Runs beside the hold
// (never blocks the run) and gives up quietly after a minute or on Ctrl-C.
import type { RunState } from './run-state.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const AGENT_REPORT_WAIT_MS = 60_000;

/** The agent's lines from one GetDomain JSON, or undefined while it has not reported OS and IPs yet. */
export function agentReportLines(domain: Json): string[] | undefined {
  const status = isObject(domain.Status) ? domain.Status : {};
  const os = isObject(status.OSInfo) ? status.OSInfo : undefined;
  const ifaces = (Array.isArray(status.Interfaces) ? (status.Interfaces as Json[]) : []).filter(
    (i) => Array.isArray(i.IPs) && i.IPs.length > 0,
  );
  if (!os || !(os.PrettyName || os.Name) || ifaces.length === 0) return undefined;
  const kernel = os.KernelRelease ? `, kernel ${String(os.KernelRelease)}` : '';
  return [
    `guest agent: OS ${String(os.PrettyName || os.Name)}${kernel}`,
    ...ifaces.map(
      (i) => `guest agent: ${String(i.InterfaceName)} ${(i.IPs as unknown[]).join(', ')} (mac ${String(i.Mac)})`,
    ),
  ];
}

export async function reportGuestAgent(s: RunState, waitMs = AGENT_REPORT_WAIT_MS): Promise<void> {
  const until = Date.now() + waitMs;
  while (!s.abort.signal.aborted && s.launcher && Date.now() < until) {
    try {
      const res = await s.launcher.call('getDomain', {}, 5_000);
      const lines = res.domain ? agentReportLines(JSON.parse(res.domain) as Json) : undefined;
      if (lines) {
        lines.forEach((l) => s.print(l));
        return;
      }
    } catch {
      // The launcher may be going away (Ctrl-C): the loop ends on the abort or the deadline.
    }
    await new Promise((r) => setTimeout(r, 1_000).unref());
  }
  if (!s.abort.signal.aborted) s.print(`guest agent: no OS info and IPs reported within ${waitMs / 1000} s`);
}
