import { spawn } from 'node:child_process';
import { lstatSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIRMWARE_LOG_FILE, relayFirmwareLog } from './firmware-log.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vlt-launcher-fwlog-'));
  dirs.push(dir);
  return dir;
}

/** Resolves when `lines` holds an entry matching `pattern` (the relay delivers asynchronously). */
async function until(lines: string[], pattern: RegExp, tries = 600): Promise<void> {
  for (let i = 0; i < tries && !lines.some((l) => pattern.test(l)); i++) await new Promise((r) => setTimeout(r, 50));
}

describe('relayFirmwareLog', () => {
  it('makes a FIFO (replacing a stale regular file) and relays each line, across writers', async () => {
    const dir = privateDir();
    writeFileSync(join(dir, FIRMWARE_LOG_FILE), 'stale');
    const lines: string[] = [];
    const relay = await relayFirmwareLog(dir, (line) => lines.push(line));
    try {
      expect(lstatSync(relay.path).isFIFO()).toBe(true);
      expect(lstatSync(relay.path).mode & 0o777).toBe(0o600);
      await writeFile(relay.path, 'first\nsecond\n');
      await writeFile(relay.path, 'after the first writer closed\n');
      await until(lines, /after the first writer/);
      expect(lines).toEqual(['first', 'second', 'after the first writer closed']);
    } finally {
      await relay.stop();
    }
  });

  it('a second relay reuses the FIFO a first one made', async () => {
    const dir = privateDir();
    await (await relayFirmwareLog(dir, () => undefined)).stop();
    const lines: string[] = [];
    const relay = await relayFirmwareLog(dir, (line) => lines.push(line));
    try {
      await writeFile(relay.path, 'again\n');
      await until(lines, /again/);
      expect(lines).toEqual(['again']);
    } finally {
      await relay.stop();
    }
  });

  it("QEMU's isa-debugcon, as the converter writes it, brings SeaBIOS's banner through the FIFO", async () => {
    const dir = privateDir();
    const lines: string[] = [];
    const relay = await relayFirmwareLog(dir, (line) => lines.push(line));
    // The arguments the converter emits above verbosity 5, on a bare TCG machine that only runs its firmware.
    const qemu = spawn(
      'qemu-system-x86_64',
      [
        '-machine',
        'q35,accel=tcg',
        '-m',
        '64',
        '-display',
        'none',
        '-serial',
        'none',
        '-monitor',
        'none',
        '-nodefaults',
      ]
        .concat(['-chardev', `file,id=firmwarelog,path=${relay.path}`])
        .concat(['-device', 'isa-debugcon,iobase=0x402,chardev=firmwarelog']),
      { stdio: 'ignore' },
    );
    try {
      await until(lines, /^SeaBIOS \(version/);
      expect(lines.find((l) => l.startsWith('SeaBIOS (version'))).toBeDefined();
    } finally {
      qemu.kill('SIGKILL');
      await relay.stop();
    }
  }, 60_000);
});
