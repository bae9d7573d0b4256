import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { graphics } from './graphics.js';

describe('graphics', () => {
  it('VNC socket in <private>/<uid>/virt-vnc and a vga card on amd64', () => {
    const d = run(graphics, vmi(), { paths: { kubevirtPrivateDir: '/root/kp/' } });
    expect(d.devices.graphics[0]?.listen.socket).toBe('/root/kp/uid-1/virt-vnc');
    expect(d.devices.videos).toEqual([{ type: 'vga', heads: 1, vram: 16384 }]);
  });
  it('virtio video on arm64, nothing when autoattach is off', () => {
    expect(run(graphics, vmi(), { architecture: 'arm64' }).devices.videos).toEqual([{ type: 'virtio', heads: 1 }]);
    expect(run(graphics, vmi({ devices: { autoattachGraphicsDevice: false } })).devices.graphics).toEqual([]);
  });
  it('neither VNC nor video under cross-architecture emulation (on every architecture)', () => {
    for (const architecture of ['amd64', 'arm64', 's390x']) {
      const d = run(graphics, vmi(), { architecture, allowCrossArchEmulation: true });
      expect(d.devices.graphics).toEqual([]);
      expect(d.devices.videos).toEqual([]);
    }
    const explicit = run(graphics, vmi({ devices: { video: { type: 'virtio' } } }), { allowCrossArchEmulation: true });
    expect(explicit.devices.videos).toEqual([]);
  });
});
