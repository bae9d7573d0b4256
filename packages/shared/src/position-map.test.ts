import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPositionMap, lookupPosition, positionMapPath, PositionMapError } from './index.js';
import { framePosition } from './position-map.js';

// Base64 VLQ, the other way round: lets a test write a source map by hand.
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function vlq(n: number): string {
  let v = n < 0 ? (-n << 1) | 1 : n << 1;
  let out = '';
  do {
    let digit = v & 31;
    v >>>= 5;
    if (v > 0) digit |= 32;
    out += B64[digit];
  } while (v > 0);
  return out;
}

/** A mappings string from absolute [genCol, source, origLine0, origCol] segments per generated line. */
function mappings(lines: [number, number, number, number][][]): string {
  let source = 0;
  let origLine = 0;
  let origCol = 0;
  return lines
    .map((segs) => {
      let genCol = 0;
      return segs
        .map(([c, s, l, oc]) => {
          const out = vlq(c - genCol) + vlq(s - source) + vlq(l - origLine) + vlq(oc - origCol);
          [genCol, source, origLine, origCol] = [c, s, l, oc];
          return out;
        })
        .join(',');
    })
    .join(';');
}

// A bundle: line 1 a banner; lines 2-4 from a.js lines 10-12; lines 5-6 from b.js lines 1 and 3 (a comment dropped in
// between); line 7 opens with a mapping that still belongs to a library, then a statement from a.js line 40; line 8
// is a library's code.
const sample = {
  sources: ['../src/a.js', '../../lib/b.js', '../node_modules/x/index.js'],
  mappings: mappings([
    [],
    [[0, 0, 9, 0]],
    [[2, 0, 10, 2]],
    [[2, 0, 11, 2]],
    [[0, 1, 0, 0]],
    [[0, 1, 2, 0]],
    [
      [0, 2, 5, 0],
      [4, 0, 39, 4],
    ],
    [[0, 2, 6, 0]],
  ]),
};
const code = ['/* banner */', 'a();', '  b();', '  c();', 'd();', 'e();', '    log.info("x");', 'lib();'].join('\n');
const ours = (s: string) => !s.includes('node_modules/');

describe('buildPositionMap / lookupPosition', () => {
  const map = buildPositionMap(sample, { keep: ours, code });

  it('names the original file and line of each bundle line, across runs and dropped lines', () => {
    expect(map.files).toEqual(['a.js', 'b.js']);
    expect(lookupPosition(map, 2)).toEqual({ file: 'a.js', line: 10 });
    expect(lookupPosition(map, 4)).toEqual({ file: 'a.js', line: 12 });
    expect(lookupPosition(map, 5)).toEqual({ file: 'b.js', line: 1 });
    expect(lookupPosition(map, 6)).toEqual({ file: 'b.js', line: 3 });
  });

  it("takes a line's origin from the code at its first non-blank column, and names nothing for a library's code", () => {
    expect(lookupPosition(map, 7)).toEqual({ file: 'a.js', line: 40 });
    expect(lookupPosition(map, 8)).toBeUndefined();
    expect(lookupPosition(map, 1)).toBeUndefined(); // before any mapping (the bundle's banner)
    // Without the code, the first segment of line 7 decides: the library's.
    expect(lookupPosition(buildPositionMap(sample, { keep: ours }), 7)).toBeUndefined();
  });

  it('keeps one run for lines that follow each other in one file', () => {
    // Runs: a.js from line 2, b.js at 5, b.js again at 6 (a line skipped), a.js at 7, the library at 8.
    expect(map.runs.length / 3).toBe(5);
  });

  it('refuses mappings that are not base64 VLQ or name a source that does not exist', () => {
    expect(() => buildPositionMap({ sources: ['a.js'], mappings: 'AA!A' })).toThrow(PositionMapError);
    expect(() => buildPositionMap({ sources: ['a.js'], mappings: 'AA' + vlq(0) + 'g' })).toThrow(/ends inside/);
    expect(() => buildPositionMap({ sources: ['a.js'], mappings: 'ACAA' })).toThrow(/sources 1/);
  });
});

describe('framePosition', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-shared-posmap-'));
    await writeFile(join(dir, 'bundle.js'), '// stands for a bundle\n');
    const map = buildPositionMap(sample, { keep: ours, code });
    await writeFile(positionMapPath(join(dir, 'bundle.js')), JSON.stringify(map));
    await writeFile(join(dir, 'replaced.js'), 'more than one byte\n');
    await writeFile(positionMapPath(join(dir, 'replaced.js')), JSON.stringify({ ...map, bundleBytes: 1 }));
    await writeFile(join(dir, 'broken.js'), '');
    await writeFile(positionMapPath(join(dir, 'broken.js')), '{"version":');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the map beside a bundle, by path or by file URL', () => {
    expect(framePosition(join(dir, 'bundle.js'), 3)).toBe('a.js:11');
    expect(framePosition(pathToFileURL(join(dir, 'bundle.js')).href, 7)).toBe('a.js:40');
  });

  it("keeps the frame's own file:line where no map says otherwise", () => {
    expect(framePosition(join(dir, 'bundle.js'), 8)).toBe('bundle.js:8');
    expect(framePosition(join(dir, 'broken.js'), 4)).toBe('broken.js:4');
    expect(framePosition(join(dir, 'replaced.js'), 3)).toBe('replaced.js:3'); // the map is of another file
    expect(framePosition(join(dir, 'plain.js'), 12)).toBe('plain.js:12');
    expect(framePosition('node:internal/timers', 9)).toBe('timers:9');
  });
});
