// Positions in a bundled file, told as the file:line of the module they came from. A program shipped as one
// bundle (the launcher's dist/cli.js) would otherwise log every `pos` as bundle:line. The bundler writes a
// position map beside the bundle (`<bundle>.positions.json`), made from its source map at build time; the logger
// reads it once, on the first line logged from that file, and only when the file has one.
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a bundler's source map (version 3) says; only the fields a position map needs. */
export interface SourceMapV3 {
  sources: string[];
  mappings: string;
}

/**
 * Where the code of a bundle came from, by runs: each run starts at a generated line and continues line for line in
 * one original file. `runs` is flat, three numbers a run: generated line, index into `files` (-1: code of a source
 * the map does not name), original line; lines 1-based. A line's origin is that of the code it starts with (its
 * first statement), which is where the call of a stack frame on that line is: a bundler prints one statement a line.
 */
export interface PositionMap {
  version: 1;
  files: string[];
  runs: number[];
  /** The bundle's size in bytes, when the bundler knew it: a map beside a file of another size is not its map
   * (tsc wrote the unbundled module over the bundle since). */
  bundleBytes?: number;
}

export class PositionMapError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
    reason: string,
  ) {
    super(`position map: ${field} ${JSON.stringify(value)}: ${reason}`);
    this.name = 'PositionMapError';
  }
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** The numbers of one mapping segment (base64 VLQ, as source maps encode them). */
function decodeSegment(segment: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const c of segment) {
    const digit = DIGIT.get(c);
    if (digit === undefined) throw new PositionMapError('mappings', segment, `not base64 VLQ (${c})`);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  if (shift !== 0) throw new PositionMapError('mappings', segment, 'ends inside a number');
  return out;
}

export interface PositionMapOptions {
  /** The sources worth naming (a logger's callers are our own modules, not the libraries bundled with them). */
  keep?: (source: string) => boolean;
  /** The bundle's text: a line's origin is then the segment at its first non-blank column, not its first segment
   * (a bundler may open a line with a mapping that still belongs to the line before). */
  code?: string;
}

/** Builds a position map from a bundle's source map (version 3). */
export function buildPositionMap(map: SourceMapV3, options: PositionMapOptions = {}): PositionMap {
  const { keep = () => true } = options;
  const codeLines = options.code?.split('\n');
  const files: string[] = [];
  const fileIndex = new Map<string, number>();
  const runs: number[] = [];
  let source = 0;
  let origLine = 0;
  // The run in force: its file index (-1: not kept; -2: none yet) and original line minus generated line.
  let runFile = -2;
  let runDelta = 0;
  map.mappings.split(';').forEach((line, genLine0) => {
    const indent = codeLines?.[genLine0]?.search(/\S/) ?? 0;
    let genCol = 0;
    let origin: { source: number; line: number } | undefined;
    for (const segment of line.split(',')) {
      if (segment === '') continue;
      const [colDelta = 0, sourceDelta, lineDelta] = decodeSegment(segment);
      genCol += colDelta;
      if (sourceDelta === undefined || lineDelta === undefined) continue; // a segment without an origin
      source += sourceDelta;
      origLine += lineDelta;
      if (origin === undefined || genCol <= indent) origin = { source, line: origLine };
    }
    if (origin === undefined) return; // a line of its own (the banner) or one continuing the run in force
    const name = map.sources[origin.source];
    if (name === undefined) throw new PositionMapError('sources', origin.source, 'index out of range');
    let file = -1;
    if (keep(name)) {
      const base = basename(name);
      file = fileIndex.get(base) ?? files.push(base) - 1;
      fileIndex.set(base, file);
    }
    const delta = origin.line - genLine0;
    if (file === runFile && (file === -1 || delta === runDelta)) return;
    runs.push(genLine0 + 1, file, origin.line + 1);
    runFile = file;
    runDelta = delta;
  });
  return { version: 1, files, runs };
}

/** The original file and line of a bundle line (1-based), if a source the map names made it. */
export function lookupPosition(map: PositionMap, line: number): { file: string; line: number } | undefined {
  const { runs } = map;
  // The last run starting at or before the line.
  let lo = 0;
  let hi = runs.length / 3 - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((runs[mid * 3] as number) <= line) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return undefined;
  const file = map.files[runs[found * 3 + 1] as number];
  if (file === undefined) return undefined;
  return { file, line: (runs[found * 3 + 2] as number) + line - (runs[found * 3] as number) };
}

/** The name of the position map that belongs beside a bundle. */
export const positionMapPath = (bundle: string): string => `${bundle}.positions.json`;

// Per file a stack frame named: its map, or null when it has none (read once; an unbundled program pays one failed
// open per module that logs).
const maps = new Map<string, PositionMap | null>();

function mapBeside(file: string): PositionMap | null {
  let map = maps.get(file);
  if (map !== undefined) return map;
  map = null;
  try {
    const path = file.startsWith('file:') ? fileURLToPath(file) : file;
    const read = JSON.parse(readFileSync(positionMapPath(path), 'utf8')) as PositionMap;
    const fits = read.bundleBytes === undefined || statSync(path).size === read.bundleBytes;
    if (read.version === 1 && Array.isArray(read.files) && Array.isArray(read.runs) && fits) map = read;
  } catch {
    // No map beside it (every unbundled module), or one that cannot be read: the bundle's own position stands.
  }
  maps.set(file, map);
  return map;
}

/** `file:line` of a stack frame's position (line 1-based, as V8 prints it), through a map if the file has one. */
export function framePosition(file: string, line: number): string {
  const map = file.startsWith('node:') ? null : mapBeside(file);
  const original = map ? lookupPosition(map, line) : undefined;
  return original ? `${original.file}:${original.line}` : `${basename(file)}:${line}`;
}
