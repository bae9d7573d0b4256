import { describe, expect, it } from 'vitest';
import { libvirtLogFilters } from './log-filters.js';

const always = '3:remote 4:event 3:util.json 3:util.object 3:util.dbus 3:util.netlink 3:node_device 3:rpc 3:access';

describe('libvirtLogFilters', () => {
  it('gives no filters without a verbosity above the threshold or the debug-logs variable', () => {
    expect(libvirtLogFilters('', {})).toBe('');
    expect(libvirtLogFilters('', { VIRT_LAUNCHER_LOG_VERBOSITY: '4' })).toBe('');
    expect(libvirtLogFilters('', { VIRT_LAUNCHER_LOG_VERBOSITY: 'loud' })).toBe('');
  });

  it('holds back fewer categories the higher the verbosity, from 5 to 8 and above', () => {
    const at = (v: string) => libvirtLogFilters('', { VIRT_LAUNCHER_LOG_VERBOSITY: v });
    expect(at('5')).toBe(
      `${always} 3:util.threadjob 3:cpu.cpu 3:qemu.qemu_monitor 3:qemu.qemu_monitor_json 3:conf.domain_addr 1:*`,
    );
    expect(at('6')).toBe(`${always} 3:util.threadjob 3:cpu.cpu 3:qemu.qemu_monitor 1:*`);
    expect(at('7')).toBe(`${always} 3:util.threadjob 3:cpu.cpu 1:*`);
    expect(at('8')).toBe(`${always} 1:*`);
    expect(at('12')).toBe(`${always} 1:*`);
  });

  it('LIBVIRT_DEBUG_LOGS below the threshold gives the most verbose filters', () => {
    expect(libvirtLogFilters('', { LIBVIRT_DEBUG_LOGS: '1', VIRT_LAUNCHER_LOG_VERBOSITY: '2' })).toBe(`${always} 1:*`);
    expect(libvirtLogFilters('', { LIBVIRT_DEBUG_LOGS: '' })).toBe(`${always} 1:*`);
  });

  it('a verbosity at or above the threshold wins over LIBVIRT_DEBUG_LOGS', () => {
    expect(libvirtLogFilters('', { LIBVIRT_DEBUG_LOGS: '1', VIRT_LAUNCHER_LOG_VERBOSITY: '7' })).toBe(
      `${always} 3:util.threadjob 3:cpu.cpu 1:*`,
    );
  });

  it('--libvirt-log-filters overrides both', () => {
    expect(libvirtLogFilters('1:qemu 3:*', { LIBVIRT_DEBUG_LOGS: '1', VIRT_LAUNCHER_LOG_VERBOSITY: '9' })).toBe(
      '1:qemu 3:*',
    );
  });
});
