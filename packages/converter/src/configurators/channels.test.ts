import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { channels } from './channels.js';

describe('channels', () => {
  it('always adds the guest agent; downward metrics add the vhostmd channel under the private dir', () => {
    expect(run(channels, vmi()).devices.channels.map((c) => c.target.name)).toEqual(['org.qemu.guest_agent.0']);
    const d = run(channels, vmi({ devices: { downwardMetrics: {} } }), { paths: { kubevirtPrivateDir: '/r/kp' } });
    expect(d.devices.channels[1]?.source?.path).toBe('/r/kp/downwardmetrics-channel/downwardmetrics.sock');
  });
});
