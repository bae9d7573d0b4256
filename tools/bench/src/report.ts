// Renders the collected suite outputs as a Markdown report and an SVG bar chart of ratios.
import { goalMet, type SuiteOutput } from './suite-result.js';

export interface SuiteFailure {
  suite: string;
  error: string;
}

export interface ReportInput {
  date: string;
  machine: string;
  suites: SuiteOutput[];
  failures: SuiteFailure[];
}

const fmt = (n: number): string =>
  Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(Math.abs(n) >= 1 ? 2 : 3);

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderMarkdown(input: ReportInput): string {
  const out: string[] = [
    '# Benchmark report',
    '',
    `Made by \`npm run bench\` on ${input.date} (${input.machine}). Each row is measured side by side with its peer or`,
    'floor in the same run; `ratio = ours / peer`. Lower is better for times and memory, higher for rates.',
    '',
    '![ratios](chart.png)',
    '',
    '| suite | benchmark | ours | peer | unit | ratio | goal | met |',
    '| --- | --- | ---: | ---: | --- | ---: | --- | --- |',
  ];
  for (const s of input.suites) {
    for (const r of s.results) {
      const met = goalMet(r);
      const peer = r.peerName ? `${fmt(r.peer)} (${cell(r.peerName)})` : fmt(r.peer);
      out.push(
        `| ${cell(s.suite)} | ${cell(r.name)} | ${fmt(r.ours)} | ${peer} | ${cell(r.unit)} | ${fmt(r.ratio)} | ${cell(r.goal)} | ${met === undefined ? '-' : met ? 'yes' : '**no**'} |`,
      );
    }
  }
  const notes = input.suites.flatMap((s) =>
    s.results.filter((r) => r.note).map((r) => `- ${s.suite} / ${r.name}: ${r.note}`),
  );
  if (notes.length) out.push('', '## Notes', '', ...notes);
  if (input.failures.length) {
    out.push('', '## Suites that did not finish', '');
    for (const f of input.failures) out.push(`- **${f.suite}**: ${cell(f.error)}`);
  }
  return out.join('\n') + '\n';
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Horizontal bars of each ratio on a log scale, with the 1.0 line marked. */
export function renderSvg(input: ReportInput): string {
  const rows = input.suites.flatMap((s) => s.results.map((r) => ({ label: `${s.suite}: ${r.name}`, r })));
  const rowH = 26;
  const labelW = 430;
  const barW = 420;
  const height = 50 + rows.length * rowH;
  const width = labelW + barW + 90;
  const min = 0.05;
  const max = 20;
  const x = (v: number): number =>
    labelW + ((Math.log(Math.min(Math.max(v, min), max)) - Math.log(min)) / (Math.log(max) - Math.log(min))) * barW;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">ours / peer (log scale; green = goal met, red = missed, grey = no ratio goal)</text>`,
  ];
  rows.forEach(({ label, r }, i) => {
    const y = 36 + i * rowH;
    const met = goalMet(r);
    const color = met === undefined ? '#999' : met ? '#3a3' : '#c33';
    parts.push(`<text x="10" y="${y + 15}">${esc(label.slice(0, 64))}</text>`);
    parts.push(
      `<rect x="${labelW}" y="${y + 4}" width="${Math.max(1, x(r.ratio) - labelW)}" height="16" fill="${color}"/>`,
    );
    parts.push(`<text x="${x(r.ratio) + 4}" y="${y + 16}">${fmt(r.ratio)}×</text>`);
  });
  parts.push(`<line x1="${x(1)}" y1="30" x2="${x(1)}" y2="${height - 5}" stroke="black" stroke-dasharray="4 3"/>`);
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
