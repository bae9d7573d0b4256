import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dumpLogs, removeContainerDiskSockets } from './cleanup.js';
import { makeSandbox, type Sandbox } from './cli.testkit.js';

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => {
  box.remove();
});

describe('removeContainerDiskSockets', () => {
  it('removes only *.sock directly inside the directory', () => {
    mkdirSync(box.path('sub'));
    for (const name of ['disk_0.sock', 'disk_1.sock', 'keep.img', 'sub/deep.sock']) writeFileSync(box.path(name), '');
    const removed = removeContainerDiskSockets(box.dir).sort();
    expect(removed).toEqual([box.path('disk_0.sock'), box.path('disk_1.sock')]);
    expect(readdirSync(box.dir).sort()).toEqual(['keep.img', 'sub']);
    expect(readdirSync(box.path('sub'))).toEqual(['deep.sock']);
  });

  it('treats a missing directory as nothing to do', () => {
    expect(removeContainerDiskSockets(box.path('absent'))).toEqual([]);
  });
});

describe('dumpLogs', () => {
  it('announces each file and forwards its lines, skipping missing files', () => {
    mkdirSync(box.path('qemu'));
    writeFileSync(box.path('qemu/b.log'), 'b1\n');
    writeFileSync(box.path('qemu/a.log'), 'a1\na2');
    const seen: string[] = [];
    dumpLogs({
      passtLog: box.path('no-passt.log'),
      qemuLogDir: box.path('qemu'),
      announce: (file) => seen.push(`file ${file}`),
      line: (_file, text) => seen.push(text),
      onDirError: (dir) => seen.push(`error ${dir}`),
    });
    expect(seen).toEqual([`file ${box.path('qemu/a.log')}`, 'a1', 'a2', `file ${box.path('qemu/b.log')}`, 'b1']);
  });

  it('reports a QEMU log path that is not a directory', () => {
    writeFileSync(box.path('not-a-dir'), '');
    const errors: string[] = [];
    dumpLogs({
      passtLog: box.path('none'),
      qemuLogDir: box.path('not-a-dir'),
      announce: () => undefined,
      line: () => undefined,
      onDirError: (dir) => errors.push(dir),
    });
    expect(errors).toEqual([box.path('not-a-dir')]);
  });
});
