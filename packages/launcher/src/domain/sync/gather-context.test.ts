import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hypervisorFacts } from './gather-context.js';

const dir = mkdtempSync(join(tmpdir(), 'vlt-gather-'));
const present = join(dir, 'kvm');
const absent = join(dir, 'no-kvm');
writeFileSync(present, '');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hypervisorFacts (KubeVirt: a missing /dev/kvm never turns emulation on by itself)', () => {
  it('without --allow-emulation and without the device: no KVM, emulation still not allowed', async () => {
    expect(await hypervisorFacts(false, absent)).toEqual({ allowEmulation: false, hypervisorDeviceAvailable: false });
  });

  it('with --allow-emulation and without the device: emulation allowed', async () => {
    expect(await hypervisorFacts(true, absent)).toEqual({ allowEmulation: true, hypervisorDeviceAvailable: false });
  });

  it('with the device: KVM available, whatever the flag says', async () => {
    expect(await hypervisorFacts(false, present)).toEqual({ allowEmulation: false, hypervisorDeviceAvailable: true });
    expect(await hypervisorFacts(true, present)).toEqual({ allowEmulation: true, hypervisorDeviceAvailable: true });
  });
});
