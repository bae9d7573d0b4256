import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { rebootPolicy } from './reboot-policy.js';

describe('reboot policy', () => {
  it('Terminate -> destroy, Reboot -> restart, unset -> libvirt default', () => {
    expect(run(rebootPolicy, vmi({ rebootPolicy: 'Terminate' })).onReboot).toBe('destroy');
    expect(run(rebootPolicy, vmi({ rebootPolicy: 'Reboot' })).onReboot).toBe('restart');
    expect(run(rebootPolicy, vmi()).onReboot).toBeUndefined();
  });
});
