// Sums the vitest JSON reports written to .cache/test-results into one closing line. Skipped tests are counted
// and named: under CI (CI=true) any skipped test fails the run, because a skip there hides a check that never ran.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import console from 'node:console';

const dir = '.cache/test-results';
let passed = 0;
let failed = 0;
let skipped = 0;
const skippedNames = [];
const fileErrors = [];
for (const file of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
  const report = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  const suite = path.basename(file, '.json');
  const skippedHere = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  passed += report.numPassedTests ?? 0;
  let failedHere = report.numFailedTests ?? 0;
  skipped += skippedHere;
  for (const result of report.testResults ?? []) {
    // A file can fail with no failing test (a hook that threw or timed out, an import error): its tests then
    // show as skipped, so the file itself is counted as a failure.
    if (result.status === 'failed' && !(result.assertionResults ?? []).some((test) => test.status === 'failed')) {
      failedHere += 1;
      fileErrors.push(
        `${suite}: ${path.relative(process.cwd(), result.name)}: ${(result.message ?? '').split('\n')[0]}`,
      );
    }
    for (const test of result.assertionResults ?? []) {
      if (test.status === 'pending' || test.status === 'skipped' || test.status === 'todo')
        skippedNames.push(`${suite}: ${test.fullName ?? test.title}`);
    }
  }
  failed += failedHere;
  console.log(`${suite}: ${report.numPassedTests} passed, ${failedHere} failed, ${skippedHere} skipped`);
}
for (const name of skippedNames) console.log(`skipped: ${name}`);
for (const error of fileErrors) console.log(`failed outside any test: ${error}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
const ci = process.env.CI === 'true' || process.env.CI === '1';
if (ci && skipped > 0) console.log(`CI: ${skipped} skipped test(s) count as a failure (a skip hides a check)`);
process.exit(failed > 0 || passed === 0 || (ci && skipped > 0) ? 1 : 0);
