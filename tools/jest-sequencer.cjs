// Jest's default order (slowest files first, as timed in earlier runs), except that the Schemathesis run goes last:
// it loads the shared stack for minutes (every login it fuzzes runs argon2), which would skew the timing-sensitive
// tests running beside it (identity-tokens compares login latencies). Last, it overlaps only the final quick files.
const Sequencer = require('@jest/test-sequencer').default;

const LAST = /openapi-schemathesis\.e2e\.ts$/;

class LoadLastSequencer extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    return [...ordered.filter((test) => !LAST.test(test.path)), ...ordered.filter((test) => LAST.test(test.path))];
  }
}

module.exports = LoadLastSequencer;
