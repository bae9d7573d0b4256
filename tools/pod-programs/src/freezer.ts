// virt-freezer: the pre/post backup hooks (`--freeze` / `--unfreeze` with `--name` and `--namespace`) that
// virt-controller annotates the launcher pod with. The sequence is KubeVirt's: GetGuestInfo (no guest agent:
// nothing to do), GetDomain (not Running: nothing to do), then Freeze or Unfreeze; a failed freeze for lack
// of an agent is undone with an Unfreeze. Exit codes: 0 done or nothing to do, 1 any failure, bad flags
// included (KubeVirt reports them as a failure to parse, not pflag's 2).
// `--socket` is ours: KubeVirt's freezer always dials /run/kubevirt/sockets/launcher-sock; the default is that.
import { FlagError, parseFlags, usage } from './flags.js';
import type { FlagSpecs } from './flags.js';
import { callRpc, connect, EXTENDED_TIMEOUT_MS, SHORT_TIMEOUT_MS } from './launcher-rpc.js';
import type { LauncherRpcError } from './launcher-rpc.js';
import { createLogger } from './log.js';
import type { Logger } from './log.js';
import type { ProgramIO } from './program-io.js';

export const FREEZER_SOCKET = '/run/kubevirt/sockets/launcher-sock';
const GA_NOT_AVAILABLE = 'Guest agent not available for now';
/** The text KubeVirt's launcher answers when Windows VSS refuses another freeze. */
const VSS_FREEZE_LIMIT = 'fsfreeze is limited';

const specs = {
  freeze: { kind: 'bool', default: false, help: 'Freeze VM' },
  unfreeze: { kind: 'bool', default: false, help: 'Unfreeze VM' },
  name: { kind: 'string', default: '', help: 'Name of the VirtualMachineInstance' },
  namespace: { kind: 'string', default: '', help: 'Namespace of the VirtualMachineInstance' },
  unfreezeTimeoutSeconds: {
    kind: 'int32',
    default: 300,
    help: 'Timeout in seconds to automatically unfreeze the VirtualMachineInstance',
  },
  socket: { kind: 'string', default: FREEZER_SOCKET, help: "The launcher's cmd socket" },
} satisfies FlagSpecs;

interface GuestInfo {
  guestAgentVersion?: string;
  os?: { name?: string };
}

function parseJson<T>(text: string, what: string, logger: Logger): T | undefined {
  if (text === '') return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    logger.log('error', `error unmarshalling ${what}`, { reason: (err as Error).message });
    return undefined;
  }
}

export async function runFreezer(argv: string[], io: ProgramIO): Promise<number> {
  const logger = createLogger('freezer', io.stderr);
  let f;
  try {
    const parsed = parseFlags(specs, argv);
    if (parsed.help) {
      io.stdout(usage('virt-freezer', '--freeze|--unfreeze --name NAME --namespace NAMESPACE', specs));
      return 0;
    }
    f = parsed.values;
    if (!f.freeze && !f.unfreeze) throw new FlagError('freeze', undefined, 'either --freeze or --unfreeze must be set');
    if (f.name === '' || f.namespace === '') {
      throw new FlagError(
        f.name === '' ? 'name' : 'namespace',
        undefined,
        'both --name and --namespace must be provided',
      );
    }
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    logger.log('error', 'Failed to parse flags', { reason: err.message });
    return 1;
  }

  let client;
  try {
    client = await connect(f.socket);
  } catch (err) {
    logger.log('error', 'Failed to connect launcher', { reason: (err as Error).message });
    return 1;
  }
  const fail = (msg: string, error: LauncherRpcError) => {
    logger.log('error', msg, { reason: error.message });
    return 1;
  };
  try {
    const info = await callRpc(client, 'GetGuestInfo', 'getGuestInfo', {}, SHORT_TIMEOUT_MS);
    if (info.error) return fail('Failed to get guest info', info.error);
    const guest = parseJson<GuestInfo>(info.answer?.guestInfoResponse ?? '', 'guest agent response', logger);
    if (!guest) return 1;
    if (!guest.guestAgentVersion) {
      logger.log('info', 'No guest agent, exiting');
      return 0;
    }
    logger.log('info', `Guest agent version is ${guest.guestAgentVersion}`);

    const dom = await callRpc(client, 'GetDomain', 'getDomain', {}, SHORT_TIMEOUT_MS);
    if (dom.error) return fail('Failed to get domain', dom.error);
    const domain = parseJson<{ status?: { status?: string } }>(dom.answer?.domain ?? '', 'domain', logger);
    if (!domain) return 1;
    if (domain.status?.status !== 'Running') {
      logger.log('info', 'VM domain not running, no need to freeze/unfreeze');
      return 0;
    }

    const vmi = { vmiJson: Buffer.from(JSON.stringify({ metadata: { name: f.name, namespace: f.namespace } })) };
    if (f.freeze) {
      const r = await callRpc(
        client,
        'Freeze',
        'freezeVirtualMachine',
        { vmi, unfreezeTimeoutSeconds: f.unfreezeTimeoutSeconds },
        EXTENDED_TIMEOUT_MS,
      );
      if (r.error) {
        if (!r.error.message.includes(GA_NOT_AVAILABLE)) return fail('Freezing VMI failed', r.error);
        await callRpc(client, 'Unfreeze', 'unfreezeVirtualMachine', { vmi, options: undefined }, SHORT_TIMEOUT_MS);
        const windows = (guest.os?.name ?? '').toLowerCase().includes('windows');
        return fail(
          `Freeze failed: no guest agent answered; start the guest agent${windows ? ' and VSS' : ''}, then retry`,
          r.error,
        );
      }
    } else {
      const r = await callRpc(
        client,
        'Unfreeze',
        'unfreezeVirtualMachine',
        { vmi, options: undefined },
        SHORT_TIMEOUT_MS,
      );
      if (r.error) {
        return fail(
          r.error.message.includes(VSS_FREEZE_LIMIT)
            ? 'Unfreeze failed (VSS freeze limit); retry, or stop the VM and back it up while it is down'
            : 'Unfreezing VMI failed',
          r.error,
        );
      }
    }
    logger.log('info', 'Operation completed successfully');
    return 0;
  } finally {
    client.close();
  }
}
