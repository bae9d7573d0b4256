// applyPlan: one pipeline of named steps (nft transaction, link batch, sysctls), validated before the first
// change and rolled back step by step when a later one fails. Unchanged parts are skipped, so a second apply
// changes nothing at all.
import { isIP } from 'node:net';
import { ApplyError, InvalidRequestError } from './errors.js';
import { checkNetns, deleteLinks, ipBatch, nftApply, sysctlWrite } from './exec.js';
import { linkSteps } from './links.js';
import type { LinkSteps } from './links.js';
import { NFT_TABLE, checkIfname } from './names.js';
import { fingerprint, forwardingSysctl, ownerComment, tableShape } from './owner.js';
import { readState } from './state.js';
import { withNetnsLock } from './netns-lock.js';
import type { NsState } from './state.js';
import type { MasqueradePlan, NftTablePlan } from './gen/virtlauncher/netsetup/v1/netsetup.js';

export interface ApplyReport {
  /** True when the namespace already matched the plan and nothing was run. */
  noop: boolean;
  nftChanged: boolean;
  linkCommands: string[];
  createdLinks: string[];
  sysctlsWritten: Record<string, string>;
}

interface Step {
  name: string;
  /** An atomic step that failed changed nothing, so it is not undone. */
  atomic: boolean;
  run: () => Promise<void>;
  undo: () => Promise<void>;
}

function withComment(table: NftTablePlan, comment: string): string {
  return table.text.replace(/^(table \S+ \S+ \{\n)/, `$1\tcomment "${comment}"\n`);
}

/** Re-creating a table as delete + add in one file is atomic and never fails on a missing table. */
function replaceTable(family: string, text: string): string {
  return `table ${family} ${NFT_TABLE} {}\ndelete table ${family} ${NFT_TABLE}\n${text}`;
}

interface NftChange {
  script: string;
  undo: string;
  /** Forwarding sysctls to put back because their family is no longer planned. */
  restore: Map<string, string>;
}

function nftChange(plan: MasqueradePlan, state: NsState): NftChange {
  const change: NftChange = { script: '', undo: '', restore: new Map() };
  for (const table of plan.nftTables) {
    const existing = state.own.find((t) => t.family === table.family);
    const comment = ownerComment({
      pod: plan.podInterface,
      bridge: plan.bridge!.name,
      tap: plan.tap!.name,
      prior: existing?.record.prior ?? state.sysctls.get(forwardingSysctl(table.family)) ?? '',
      fingerprint: fingerprint(table.text),
    });
    if (existing?.listed.comment === comment && tableShape(existing.listed.text) === tableShape(table.text)) continue;
    change.script += replaceTable(table.family, withComment(table, comment));
    change.undo += existing
      ? replaceTable(table.family, existing.listed.text)
      : `delete table ${table.family} ${NFT_TABLE}\n`;
  }
  for (const stale of state.own.filter((t) => !plan.nftTables.some((p) => p.family === t.family))) {
    change.script += `delete table ${stale.family} ${NFT_TABLE}\n`;
    change.undo += stale.listed.text;
    if (stale.record.prior) change.restore.set(forwardingSysctl(stale.family), stale.record.prior);
  }
  return change;
}

function sysctlChange(plan: MasqueradePlan, state: NsState, restore: Map<string, string>): Map<string, string> {
  const wanted = new Map([...plan.sysctls.map((s) => [s.path, s.value] as const), ...restore]);
  return new Map([...wanted].filter(([k, v]) => state.sysctls.get(k) !== v));
}

/**
 * The pipeline as stages: nft and the links do not depend on each other (rules match interface names, not
 * links), so they run side by side; the sysctls need the bridge to exist.
 */
function stages(netns: string, plan: MasqueradePlan, state: NsState, report: ApplyReport): Step[][] {
  const nft = nftChange(plan, state);
  const links: LinkSteps = linkSteps(state.links, plan.bridge!, plan.tap!);
  const sysctls = sysctlChange(plan, state, nft.restore);
  const sysctlUndo = new Map(
    [...sysctls.keys()]
      .filter((k) => state.sysctls.has(k) && !links.created.some((l) => k.includes(`/${l}/`)))
      .map((k) => [k, state.sysctls.get(k)!] as const),
  );
  report.linkCommands = links.lines;
  report.createdLinks = links.created;
  report.sysctlsWritten = Object.fromEntries(sysctls);
  report.nftChanged = nft.script !== '';
  report.noop = !report.nftChanged && links.lines.length === 0 && sysctls.size === 0;
  const first: Step[] = [];
  if (nft.script !== '') {
    first.push({
      name: 'nftables',
      atomic: true,
      run: () => nftApply(netns, nft.script),
      undo: () => nftApply(netns, nft.undo),
    });
  }
  if (links.lines.length > 0) {
    first.push({
      name: 'links',
      atomic: false,
      run: () => ipBatch(netns, links.lines),
      undo: () => deleteLinks(netns, [...links.created].reverse()),
    });
  }
  const second: Step[] = [];
  if (sysctls.size > 0) {
    second.push({
      name: 'sysctls',
      atomic: false,
      run: () => sysctlWrite(netns, sysctls),
      undo: () => sysctlWrite(netns, sysctlUndo),
    });
  }
  return [first, second];
}

/** Undo in reverse order; a failing undo is reported, the others still run. */
async function rollback(done: Step[]): Promise<{ rolledBack: string[]; errors: string[] }> {
  const rolledBack: string[] = [];
  const errors: string[] = [];
  for (const step of [...done].reverse()) {
    try {
      await step.undo();
      rolledBack.push(step.name);
    } catch (err) {
      errors.push(`${step.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { rolledBack, errors };
}

/** A plan may come from elsewhere (JSON, bytes): everything that ends up on a command line is checked first. */
function checkPlan(plan: MasqueradePlan): void {
  if (!plan.bridge || !plan.tap) throw new InvalidRequestError('the plan has no bridge or tap');
  checkIfname(plan.podInterface, 'pod interface');
  checkIfname(plan.bridge.name, 'bridge');
  checkIfname(plan.tap.name, 'tap');
  if (plan.tap.master !== plan.bridge.name) throw new InvalidRequestError('the tap must be enslaved to the bridge');
  if (!/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(plan.bridge.mac)) {
    throw new InvalidRequestError(`bad bridge MAC "${plan.bridge.mac}"`);
  }
  for (const cidr of plan.bridge.addresses) {
    const [address = '', prefix = ''] = cidr.split('/');
    if (!isIP(address) || !/^\d{1,3}$/.test(prefix)) throw new InvalidRequestError(`bad bridge address "${cidr}"`);
  }
  for (const t of plan.nftTables) {
    // One block of our table and nothing else at top level (no flush, no other table).
    const topLevel = t.text.split('\n').filter((l) => l !== '' && !l.startsWith('\t'));
    const ours = (t.family === 'ip' || t.family === 'ip6') && t.name === NFT_TABLE;
    if (!ours || topLevel.length !== 2 || topLevel[0] !== `table ${t.family} ${NFT_TABLE} {` || topLevel[1] !== '}') {
      throw new InvalidRequestError(`the plan's nft table "${t.family} ${t.name}" is not ours`);
    }
  }
}

export async function applyPlan(plan: MasqueradePlan, netns: string): Promise<ApplyReport> {
  checkNetns(netns);
  checkPlan(plan);
  // The state is read under the lock, so what this run creates (and may roll back) is exactly what was absent:
  // a concurrent run's bridge, tap or table is never in this run's undo list.
  return withNetnsLock(netns, () => applyLocked(plan, netns));
}

async function applyLocked(plan: MasqueradePlan, netns: string): Promise<ApplyReport> {
  const state = await readState(netns, plan.podInterface, plan.bridge!.name);
  const report: ApplyReport = { noop: true, nftChanged: false, linkCommands: [], createdLinks: [], sysctlsWritten: {} };
  const pipeline = stages(netns, plan, state, report);
  if (report.noop) return report;
  const done: Step[] = [];
  for (const stage of pipeline) {
    const results = await Promise.allSettled(stage.map((step) => step.run()));
    // A failed atomic step changed nothing; a failed non-atomic one (an ip batch stops at its first bad line)
    // may have done part of its work, which its undo covers.
    stage.forEach((step, i) => {
      if (results[i]!.status === 'fulfilled' || !step.atomic) done.push(step);
    });
    const failed = stage.findIndex((_, i) => results[i]!.status === 'rejected');
    if (failed >= 0) {
      const { rolledBack, errors } = await rollback(done);
      throw new ApplyError(stage[failed]!.name, (results[failed] as PromiseRejectedResult).reason, rolledBack, errors);
    }
  }
  return report;
}
