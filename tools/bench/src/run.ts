// `npm run bench`: runs every suite in tools/bench/suites one after the other (they measure wall time and memory,
// so they must not compete for the two cores), shows their progress, and writes bench/REPORT.md + bench/chart.png.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderMarkdown, renderSvg, type SuiteFailure } from './report.js';
import { parseSuiteOutput, type SuiteOutput } from './suite-result.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const suitesDir = path.resolve(here, '../suites');
const outDir = path.join(repo, 'bench');

function runSuite(file: string): Promise<{ code: number | null; stdout: string; stderrTail: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderrTail = '';
    const name = path.basename(file, '.ts');
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString();
      stderrTail = (stderrTail + text).slice(-2000);
      for (const line of text.split('\n').filter(Boolean)) process.stderr.write(`  [${name}] ${line}\n`);
    });
    child.on('close', (code) => resolve({ code, stdout, stderrTail }));
  });
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = fs
    .readdirSync(suitesDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .filter((f) => only.length === 0 || only.includes(path.basename(f, '.ts')))
    .sort()
    .map((f) => path.join(suitesDir, f));
  const suites: SuiteOutput[] = [];
  const failures: SuiteFailure[] = [];
  for (const [i, file] of files.entries()) {
    const name = path.basename(file, '.ts');
    const started = Date.now();
    process.stderr.write(`[${i + 1}/${files.length}] ${name} …\n`);
    const { code, stdout, stderrTail } = await runSuite(file);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    try {
      if (code !== 0) throw new Error(`exited with ${code}: ${stderrTail.trim().split('\n').slice(-3).join(' / ')}`);
      suites.push(parseSuiteOutput(name, stdout));
      process.stderr.write(`[${i + 1}/${files.length}] ${name} done in ${secs} s\n`);
    } catch (e) {
      failures.push({ suite: name, error: (e as Error).message });
      process.stderr.write(`[${i + 1}/${files.length}] ${name} FAILED after ${secs} s: ${(e as Error).message}\n`);
    }
  }
  const input = {
    date: new Date().toISOString().slice(0, 10),
    machine: `${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
    suites,
    failures,
  };
  fs.mkdirSync(outDir, { recursive: true });
  // bench/DESIGN.md (hand-written: design choices and the numbers behind them) is kept at the end of every report.
  const design = path.join(outDir, 'DESIGN.md');
  const appendix = fs.existsSync(design) ? `\n${fs.readFileSync(design, 'utf8')}` : '';
  fs.writeFileSync(path.join(outDir, 'REPORT.md'), renderMarkdown(input) + appendix);
  const svgPath = path.join(outDir, 'chart.svg');
  fs.writeFileSync(svgPath, renderSvg(input));
  const png = spawnSync('rsvg-convert', ['-o', path.join(outDir, 'chart.png'), svgPath], { stdio: 'inherit' });
  if (png.status !== 0) process.stderr.write('rsvg-convert failed: chart.svg is there, chart.png is not\n');
  process.stderr.write(
    `wrote ${path.relative(repo, path.join(outDir, 'REPORT.md'))} (${suites.length} suites, ${failures.length} failed)\n`,
  );
  process.exitCode = failures.length ? 1 : 0;
}

await main();
