// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { findSystemTool, pathVariable, requireVariable, systemTool, type SystemToolSpec } from './system-tools.ts';

describe('finding a system program for optional tests', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'nq-tools-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const program = path.join(bin, 'fake-tool-2');
  writeFileSync(program, '#!/bin/sh\n');
  chmodSync(program, 0o755);
  writeFileSync(path.join(bin, 'fake-tool'), 'not executable');
  const spec: SystemToolSpec = {
    name: 'fake-tool',
    commands: ['fake-tool', 'fake-tool-2'],
    paths: [path.join(dir, 'nowhere')],
    install: 'apt-get install fake-tool',
  };

  it('names its variables after the program', () => {
    assert.equal(pathVariable('nats-server'), 'NQI_NATS_SERVER');
    assert.equal(requireVariable('chromium'), 'NQI_REQUIRE_CHROMIUM');
  });

  it('takes the variable first, then executables on PATH, then the fixed paths', () => {
    assert.deepEqual(findSystemTool(spec, { NQI_FAKE_TOOL: program }), { found: true, path: program, skip: false });
    assert.deepEqual(
      findSystemTool(spec, { PATH: `${dir}${path.delimiter}${bin}` }),
      { found: true, path: program, skip: false },
      'a file without x is passed over',
    );
    assert.deepEqual(findSystemTool({ ...spec, paths: [program] }, { PATH: '' }), { found: true, path: program, skip: false });
  });

  it('skips with one line saying how to enable the tests, unless they are required', () => {
    const missing = findSystemTool(spec, { PATH: dir });
    assert.equal(missing.found, false);
    assert.match(
      String(missing.skip),
      /^fake-tool not found \(looked in NQI_FAKE_TOOL, PATH .*\): apt-get install fake-tool, or set NQI_FAKE_TOOL=\/path\/to\/fake-tool, to run these tests$/,
    );
    assert.doesNotMatch(String(missing.skip), /\n/);
    assert.throws(
      () => findSystemTool(spec, { PATH: dir, NQI_REQUIRE_FAKE_TOOL: '1' }),
      /^Error: fake-tool is required \(NQI_REQUIRE_FAKE_TOOL=1\) but not found/,
    );
    const required = systemTool(spec, { PATH: dir, NQI_REQUIRE_FAKE_TOOL: '1' });
    assert.equal(required.skip, false, 'a required program is not skipped: its tests fail');
    assert.throws(() => required.path(), /is required/);
  });

  it('refuses a variable that names no executable, rather than skipping', () => {
    assert.throws(
      () => findSystemTool(spec, { NQI_FAKE_TOOL: path.join(bin, 'fake-tool'), PATH: bin }),
      /NQI_FAKE_TOOL=.*: no executable file there/,
    );
  });
});
