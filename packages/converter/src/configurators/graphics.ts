// VNC on a unix socket in the VMI's private directory, and the matching video device. None under
// cross-architecture emulation, as KubeVirt does: its emulator build for a foreign architecture may lack the video
// devices (virtio-gpu); the serial console stays.
import type { Configurator } from './configurator.js';

export const graphics: Configurator = {
  name: 'graphics',
  configure(vmi, domain, ctx) {
    const devices = vmi.spec.domain.devices;
    if (devices.autoattachGraphicsDevice === false || ctx.raw.allowCrossArchEmulation) return;
    domain.devices.graphics.push({
      type: 'vnc',
      listen: { type: 'socket', socket: `${ctx.paths.kubevirtPrivateDir}/${vmi.metadata.uid ?? ''}/virt-vnc` },
    });
    const explicit = devices.video?.type;
    if (explicit) {
      domain.devices.videos.push({ type: explicit, heads: 1, vram: 16384 });
    } else if (ctx.arch.arch === 'amd64') {
      const efi = vmi.spec.domain.firmware?.bootloader?.efi !== undefined;
      domain.devices.videos.push(
        ctx.raw.bochsForEfiGuests && efi ? { type: 'bochs', heads: 1 } : { type: 'vga', heads: 1, vram: 16384 },
      );
    } else {
      domain.devices.videos.push({ type: 'virtio', heads: 1 });
    }
  },
};
