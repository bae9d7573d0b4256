// Issue 36: a hostile guest agent cannot stall the handler's calls or bloat their answers. The demo guest boots
// with vlt.qga=hostile (tools/demo-guest/guest/qga-hostile answers in place of qemu-ga), once per way it
// misbehaves (vlt.qga.mode). Each call carries the deadline virt-handler gives it
// (KubeVirt v1.9.0 pkg/virt-handler/cmd-client/client.go: 5 s for GetDomain and the agent reads, the ping's own
// timeout + 5 s for GuestPing, 60 s for Freeze): the test asserts the answer comes within it, not how fast.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import type { LauncherClient } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { cliPath, descendants, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import { stopLauncherRun } from './testing/launcher-run.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';
import { SerialConsole } from './testing/serial-console.js';

const UID = 'u-hostile';
const DOMAIN = 'default_guest';
/** Well under the 4 MiB a stock virt-handler's gRPC client accepts. */
const ANSWER_BOUND = 1024 * 1024;
const SHORT_TIMEOUT_MS = 5_000;

function hostileVmi(mode: string): Buffer {
  const doc = JSON.parse(demoGuestVmi(UID, { containerDisk: false }).toString()) as {
    spec: { domain: { firmware: { kernelBoot: { kernelArgs: string } } } };
  };
  doc.spec.domain.firmware.kernelBoot.kernelArgs += ` vlt.qga=hostile vlt.qga.mode=${mode}`;
  return Buffer.from(JSON.stringify(doc));
}

/**
 * Throws unless `list` decodes as Go's encoding/json would into KubeVirt's []v1.VirtualMachineInstanceFileSystem
 * (staging/src/kubevirt.io/api/core/v1/types.go, v1.9.0): strings where strings belong, Go ints for the sizes.
 */
function checkFilesystemList(list: unknown[]): void {
  const isString = (v: unknown) => typeof v === 'string';
  const isInt = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
  const fields: Record<string, (v: unknown) => boolean> = {
    diskName: isString,
    mountPoint: isString,
    fileSystemType: isString,
    usedBytes: isInt,
    totalBytes: isInt,
    disk: (v) =>
      Array.isArray(v) &&
      v.every(
        (d: Record<string, unknown>) =>
          typeof d === 'object' && isString(d.busType) && (d.serial === undefined || isString(d.serial)),
      ),
  };
  for (const fs of list) {
    for (const [key, value] of Object.entries(fs as object)) {
      if (!fields[key]?.(value)) throw new Error(`filesystem ${JSON.stringify(fs)}: ${key} does not fit Go's type`);
    }
  }
}

/** A launcher (own libvirtd, TCG) running the demo guest with the hostile agent in `mode`. */
function withHostileGuest(mode: string): { client: () => LauncherClient; rss: () => Promise<string> } {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let client: LauncherClient | undefined;
  let tty: SerialConsole | undefined;
  const notify = new NotifyStandIn();
  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-hostile-');
    await stageDemoGuest(root, { containerDisk: false });
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    // Every poller group every 2 s: the hostile answers are asked for often.
    const intervals = ['agent-sys', 'agent-file', 'agent-user', 'agent-version', 'fsfreeze-status'].flatMap((g) => [
      `--qemu-${g}-interval`,
      '2s',
    ]);
    const args = ['--name', 'guest', '--namespace', 'default', '--uid', UID, '--allow-emulation', ...intervals];
    launcher = startLauncherInPrivateRoot(root, 'none', args);
    await launcher.waitForLog('Marked as ready', 90_000);
    client = await connectLauncher(launcher.readySocket, { callTimeoutMs: 10_000 });
    const res = await client.call('syncVirtualMachine', request(hostileVmi(mode)), 120_000);
    expect(res).toMatchObject({ success: true });
    tty = await SerialConsole.open(join(root, `run/kubevirt-private/${UID}/virt-serial0`));
    await tty.waitFor(new RegExp(`VLT-GUEST: qemu-ga hostile started \\(${mode}\\)`), 0, 150_000);
    // The poller's rounds against it have begun (they start when libvirt sees the port open).
    await new Promise((r) => setTimeout(r, 10_000));
  }, 300_000);
  afterAll(() => stopLauncherRun({ console: tty, client, launcher, notify, root }), 60_000);
  return {
    // The launcher's node process (under the private-root wrapper): its peak and current resident size.
    rss: async () => {
      const top = launcher?.child.pid ?? 0;
      for (const pid of [top, ...(await descendants(top))]) {
        const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
        if (!cmdline.includes(cliPath)) continue;
        const status = await readFile(`/proc/${pid}/status`, 'utf8');
        const kib = (field: string) => new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? '?';
        return `peak ${kib('VmHWM')} KiB, now ${kib('VmRSS')} KiB`;
      }
      return '?';
    },
    client: () => {
      if (!client) throw new Error('no launcher');
      return client;
    },
  };
}

/** Every call virt-handler makes while the agent misbehaves, three rounds at once: each answers within its deadline. */
async function handlerCallsAnswerInTime(client: LauncherClient): Promise<Record<string, number>> {
  const timings: Record<string, number> = {};
  const timed = async <T>(name: string, f: () => Promise<T>): Promise<T | Error> => {
    const t0 = Date.now();
    const r = await f().catch((e: unknown) => e as Error);
    timings[name] = Date.now() - t0;
    return r;
  };
  const short = (method: 'getDomain' | 'ping' | 'getGuestInfo' | 'getFilesystems' | 'getUsers') =>
    client.call(method, {}, SHORT_TIMEOUT_MS);
  for (let i = 0; i < 3; i++) {
    const [domain, ping, guestInfo, fs, users, guestPing] = await Promise.all([
      timed(`getDomain${i}`, () => short('getDomain')),
      timed(`ping${i}`, () => short('ping')),
      timed(`getGuestInfo${i}`, () => short('getGuestInfo')),
      timed(`getFilesystems${i}`, () => short('getFilesystems')),
      timed(`getUsers${i}`, () => short('getUsers')),
      timed(`guestPing${i}`, () =>
        client.call('guestPing', { domainName: DOMAIN, timeoutSeconds: 3 }, 3_000 + SHORT_TIMEOUT_MS),
      ),
    ]);
    const failed = Object.entries({ domain, ping, guestInfo, fs, users }).filter(([, a]) => a instanceof Error);
    expect(
      failed.map(([name, a]) => `${name}: ${(a as Error).message}`),
      JSON.stringify(timings),
    ).toEqual([]);
    // A ping of a broken agent fails, but with the launcher's answer, not the caller's deadline (code 4).
    if (guestPing instanceof Error) expect((guestPing as { code?: number }).code).not.toBe(4);
  }
  return timings;
}

describe.skipIf(!haveDemoGuest)('a hostile guest agent (own libvirtd, TCG)', () => {
  describe('honest', () => {
    // The control: the responder speaks the agent protocol, so what fails in the other modes is the misbehaviour.
    const guest = withHostileGuest('honest');
    it('answers GuestPing, and the poller stores its guest-info', async () => {
      const client = guest.client();
      await expect(client.call('guestPing', { domainName: DOMAIN, timeoutSeconds: 3 }, 8_000)).resolves.toBeDefined();
      const info = JSON.parse((await client.call('getGuestInfo', {}, SHORT_TIMEOUT_MS)).guestInfoResponse);
      expect(info).toMatchObject({ guestAgentVersion: 'hostile-1', hostname: 'hostile', os: { id: 'hostile' } });
      console.log('honest: launcher RSS', await guest.rss());
    }, 120_000);
  });

  for (const mode of ['silent', 'slow', 'wrong-sync']) {
    describe(mode, () => {
      const guest = withHostileGuest(mode);
      it("GetDomain, Ping, the agent reads, GuestPing and Freeze answer within virt-handler's deadlines", async () => {
        const client = guest.client();
        const timings = await handlerCallsAnswerInTime(client);
        const t0 = Date.now();
        const freeze = await client
          .call('freezeVirtualMachine', { vmi: { vmiJson: hostileVmi(mode) }, unfreezeTimeoutSeconds: 0 }, 60_000)
          .catch((e: unknown) => e as Error);
        timings.freeze = Date.now() - t0;
        console.log(mode, JSON.stringify(timings));
        if (freeze instanceof Error) expect((freeze as { code?: number }).code).not.toBe(4);
      }, 240_000);
    });
  }

  describe('huge', () => {
    const guest = withHostileGuest('huge');
    it('every answer stays under the bound, and the calls answer within their deadlines', async () => {
      const client = guest.client();
      // Long enough for every poller group (2 s) to have read the huge answers at least once.
      await new Promise((r) => setTimeout(r, 30_000));
      console.log('huge', JSON.stringify(await handlerCallsAnswerInTime(client)));
      const sizes = {
        domain: (await client.call('getDomain', {}, SHORT_TIMEOUT_MS)).domain.length,
        guestInfo: (await client.call('getGuestInfo', {}, SHORT_TIMEOUT_MS)).guestInfoResponse.length,
        users: (await client.call('getUsers', {}, SHORT_TIMEOUT_MS)).guestUserListResponse.length,
        filesystems: (await client.call('getFilesystems', {}, SHORT_TIMEOUT_MS)).guestFilesystemsResponse.length,
      };
      console.log('sizes', JSON.stringify(sizes), 'launcher RSS', await guest.rss());
      for (const size of Object.values(sizes)) expect(size).toBeLessThan(ANSWER_BOUND);
      const fs = JSON.parse((await client.call('getFilesystems', {}, SHORT_TIMEOUT_MS)).guestFilesystemsResponse);
      expect(fs.length).toBeGreaterThan(0);
    }, 240_000);
  });

  describe('types', () => {
    const guest = withHostileGuest('types');
    it("GetFilesystems keeps only what fits KubeVirt's types", async () => {
      const client = guest.client();
      let list: unknown[] = [];
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        list = JSON.parse((await client.call('getFilesystems', {}, SHORT_TIMEOUT_MS)).guestFilesystemsResponse);
        if (list.length > 0) break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      checkFilesystemList(list);
      expect(list).toEqual([
        {
          diskName: 'good',
          mountPoint: '/good',
          fileSystemType: 'ext2',
          usedBytes: 1024,
          totalBytes: 4096,
          disk: [{ serial: 's1', busType: 'virtio' }],
        },
      ]);
    }, 120_000);
  });
});
