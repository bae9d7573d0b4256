// SyncVirtualMachineMemory (issue 20): the running guest's memory follows spec.domain.memory.guest through a
// virtio-mem device, as KubeVirt's UpdateGuestMemory does: the device spans maxGuest minus the memory the
// guest booted with, and its `requested` size is guest minus that boot memory. The first growth attaches the
// device; later changes update `requested` in place.
import { parseQuantity, toBytes } from '@virt-launcher/shared';
import { log } from '../../../log.js';
import { devicesOf } from './devices.js';
import { RuntimeSyncError, type RuntimeDomain } from './types.js';

/** virtio-mem's block size KubeVirt uses on x86_64 (a transparent huge page). */
const BLOCK_BYTES = 2n * 1024n * 1024n;

export interface MemoryInput {
  guest?: string;
  maxGuest?: string;
  /** status.memory.guestAtBoot, when the VMI carries it. */
  guestAtBoot?: string;
}

export interface MemoryPlan {
  /** The virtio-mem element to attach, or the live one with its new `requested` size to update. */
  action: 'none' | 'attach' | 'update';
  xml: string;
  requestedBytes: bigint;
}

function bytes(field: string, text: string | undefined): bigint {
  const q = text === undefined ? undefined : parseQuantity(text);
  if (!q) throw new RuntimeSyncError(field, String(text), 'is not a quantity');
  return toBytes(q);
}

const kib = (element: string, tag: string): bigint | undefined => {
  const m = new RegExp(`<${tag}\\b([^>]*)>(\\d+)</${tag}>`).exec(element);
  if (!m) return undefined;
  const unit = /\sunit=["'](\w+)["']/.exec(m[1] ?? '')?.[1] ?? 'KiB';
  const scale: Record<string, bigint> = { b: 1n, bytes: 1n, KiB: 1024n, k: 1024n, MiB: 1048576n, M: 1048576n };
  return (BigInt(m[2] ?? '0') * (scale[unit] ?? 1024n)) / 1024n;
};

/** Pure: what to do so the guest has `guest` bytes; `liveXml` is the running domain's XML. */
export function planMemory(input: MemoryInput, liveXml: string): MemoryPlan {
  const guest = bytes('spec.domain.memory.guest', input.guest);
  const live = devicesOf(liveXml, 'memory').find((d) => /\smodel=["']virtio-mem["']/.test(d.xml));
  const liveSize = live ? (kib(live.xml, 'size') ?? 0n) * 1024n : 0n;
  // Without status.memory.guestAtBoot, the boot memory is the domain's total minus what virtio-mem spans.
  const total = (kib(/<memory\b[^>]*>\d+<\/memory>/.exec(liveXml)?.[0] ?? '', 'memory') ?? 0n) * 1024n;
  const atBoot =
    input.guestAtBoot !== undefined ? bytes('status.memory.guestAtBoot', input.guestAtBoot) : total - liveSize;
  // Without maxGuest in the request, the ceiling is the one the domain was defined with.
  const liveMax = kib(/<maxMemory\b[^>]*>\d+<\/maxMemory>/.exec(liveXml)?.[0] ?? '', 'maxMemory');
  if (input.maxGuest === undefined && liveMax === undefined) {
    throw new RuntimeSyncError('spec.domain.memory.maxGuest', '', 'the domain has no room for hot-plugged memory');
  }
  const maxBytes =
    input.maxGuest !== undefined ? bytes('spec.domain.memory.maxGuest', input.maxGuest) : (liveMax ?? 0n) * 1024n;
  if (guest < atBoot || guest > maxBytes) {
    throw new RuntimeSyncError(
      'spec.domain.memory.guest',
      input.guest ?? '',
      `must lie between the boot memory (${atBoot} bytes) and maxGuest (${maxBytes} bytes)`,
    );
  }
  const requested = guest - atBoot;
  if (requested % BLOCK_BYTES !== 0n) {
    throw new RuntimeSyncError('spec.domain.memory.guest', input.guest ?? '', 'must grow in steps of 2Mi');
  }
  const requestedKiB = requested / 1024n;
  if (live) {
    if (kib(live.xml, 'requested') === requestedKiB)
      return { action: 'none', xml: live.xml, requestedBytes: requested };
    const xml = live.xml.replace(
      /<requested\b[^>]*>\d+<\/requested>/,
      `<requested unit='KiB'>${requestedKiB}</requested>`,
    );
    return { action: 'update', xml, requestedBytes: requested };
  }
  if (requested === 0n) return { action: 'none', xml: '', requestedBytes: 0n };
  const sizeKiB = (maxBytes - atBoot) / 1024n;
  const xml =
    `<memory model='virtio-mem'><target><size unit='KiB'>${sizeKiB}</size><node>0</node>` +
    `<block unit='KiB'>${BLOCK_BYTES / 1024n}</block><requested unit='KiB'>${requestedKiB}</requested></target></memory>`;
  return { action: 'attach', xml, requestedBytes: requested };
}

/** Returns what it did (`attach`/`update`) or `none`. */
export async function syncMemory(dom: RuntimeDomain, input: MemoryInput): Promise<MemoryPlan['action']> {
  const plan = planMemory(input, await dom.getXMLDesc());
  try {
    if (plan.action === 'attach') await dom.attachDevice(plan.xml, { live: true, config: true });
    if (plan.action === 'update') await dom.updateDevice(plan.xml, { live: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new RuntimeSyncError(
      'spec.domain.memory.guest',
      input.guest ?? '',
      `failed to update guest memory: ${reason}`,
      {
        cause: err,
      },
    );
  }
  if (plan.action !== 'none') log.info(`hotplugging guest memory to ${input.guest}`);
  return plan.action;
}
