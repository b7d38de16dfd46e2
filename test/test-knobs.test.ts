/**
 * The test-only knobs are read as strictly as any input: the bound on a cluster study run's
 * event lines (NQI_TEST_MAX_EVENT_BYTES) is 240 MiB unset, lowered when set, refused otherwise.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxEventBytes, TEST_MAX_EVENT_BYTES_ENV } from '../src/cluster/defaults.ts';
import { MAX_EVENT_BYTES } from '../src/cluster/host/study-member.ts';
import { ConfigError } from '../src/config/errors.ts';

describe('the test-only bound on a study run’s event lines (NQI_TEST_MAX_EVENT_BYTES)', () => {
  it('leaves 240 MiB when unset, lowers it when set, and refuses anything else in one line', () => {
    assert.equal(MAX_EVENT_BYTES, 240 * 2 ** 20);
    assert.equal(maxEventBytes(MAX_EVENT_BYTES, {}), MAX_EVENT_BYTES);
    assert.equal(maxEventBytes(MAX_EVENT_BYTES, { [TEST_MAX_EVENT_BYTES_ENV]: '' }), MAX_EVENT_BYTES);
    assert.equal(maxEventBytes(MAX_EVENT_BYTES, { [TEST_MAX_EVENT_BYTES_ENV]: '4096' }), 4096);
    for (const bad of ['0', '-1', '4096.5', '0x1000', '1e3', ' 4096', 'NaN', 'Infinity', String(MAX_EVENT_BYTES + 1), '9'.repeat(400)])
      assert.throws(
        () => maxEventBytes(MAX_EVENT_BYTES, { [TEST_MAX_EVENT_BYTES_ENV]: bad }),
        (e: unknown) =>
          e instanceof ConfigError &&
          e.message ===
            `${TEST_MAX_EVENT_BYTES_ENV}: expected an integer of bytes from 1 to ${MAX_EVENT_BYTES} (a test-only knob), got ${JSON.stringify(bad)}`,
        bad,
      );
  });
});
